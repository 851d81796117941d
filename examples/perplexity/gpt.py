"""A small GPT (pre-LN transformer, causal self-attention), its training loop, its scoring and
its sampler.

The same code, architecture and hyper-parameters serve every arm: only the token stream differs.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch
from torch import nn
from torch.nn import functional as F

if TYPE_CHECKING:  # only a type here: the model does not depend on how settings are read
    from .config import Config


@dataclass(frozen=True)
class GPTConfig:
    vocab_size: int
    layers: int
    heads: int
    width: int
    context: int
    dropout: float


def gpt_config(cfg: Config, vocab: int) -> GPTConfig:
    """The shape of every arm's model under the settings ``cfg``, at the arm's vocabulary size."""
    return GPTConfig(vocab, cfg.layers, cfg.heads, cfg.width, cfg.context, cfg.dropout)


@dataclass(frozen=True)
class TrainConfig:
    steps: int
    batch: int
    lr: float
    min_lr: float
    warmup: int
    weight_decay: float = 0.1
    grad_clip: float = 1.0


def train_config(cfg: Config, steps: int) -> TrainConfig:
    """The training of every arm's model of ``steps`` steps under the settings ``cfg``."""
    return TrainConfig(steps, cfg.batch, cfg.lr, cfg.min_lr, cfg.warmed_up(steps))


class Block(nn.Module):
    """Pre-LN: x + attn(LN(x)), then x + mlp(LN(x)); trains stably without LR tricks."""

    def __init__(self, cfg: GPTConfig) -> None:
        super().__init__()
        self.heads = cfg.heads
        self.dropout = cfg.dropout
        self.ln1 = nn.LayerNorm(cfg.width)
        self.qkv = nn.Linear(cfg.width, 3 * cfg.width)
        self.proj = nn.Linear(cfg.width, cfg.width)
        self.ln2 = nn.LayerNorm(cfg.width)
        self.mlp = nn.Sequential(
            nn.Linear(cfg.width, 4 * cfg.width),
            nn.GELU(),
            nn.Linear(4 * cfg.width, cfg.width),
            nn.Dropout(cfg.dropout),
        )
        self.resid_drop = nn.Dropout(cfg.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        drop = self.dropout if self.training else 0.0
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=drop, is_causal=True)
        x = x + self.resid_drop(self.proj(y.transpose(1, 2).reshape(b, t, c)))
        out: torch.Tensor = x + self.mlp(self.ln2(x))
        return out


class GPT(nn.Module):
    """Token and learned position embeddings, blocks, final LN, output tied to the embedding.

    With ``composition`` (vocabulary × parts, each row a piece's parts averaged: see
    composed.py) a token's embedding is composed: its own row plus the mean of its parts'
    rows, in the input and in the tied output alike, so that pieces spelled with the same
    characters share those characters' parameters."""

    composition: torch.Tensor  # a buffer (saved with the model), set only with ``parts``

    def __init__(self, cfg: GPTConfig, composition: torch.Tensor | None = None) -> None:
        super().__init__()
        self.cfg = cfg
        self.parts: nn.Embedding | None = None
        if composition is not None:
            if composition.shape[0] != cfg.vocab_size:
                raise ValueError(f"composition has {composition.shape[0]} rows, not the vocabulary")
            self.register_buffer("composition", composition)
            self.parts = nn.Embedding(composition.shape[1], cfg.width)
        self.tok = nn.Embedding(cfg.vocab_size, cfg.width)
        self.pos = nn.Embedding(cfg.context, cfg.width)
        self.drop = nn.Dropout(cfg.dropout)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.layers))
        self.ln_f = nn.LayerNorm(cfg.width)
        self.head = nn.Linear(cfg.width, cfg.vocab_size, bias=False)
        self.head.weight = self.tok.weight
        self.apply(_init)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(idx.shape[1], device=idx.device)
        if self.parts is None:
            x = self.drop(self.tok(idx) + self.pos(positions))
        else:
            weight = self.tok.weight + self.composition @ self.parts.weight
            x = self.drop(F.embedding(idx, weight) + self.pos(positions))
        for block in self.blocks:
            x = block(x)
        if self.parts is None:
            logits: torch.Tensor = self.head(self.ln_f(x))
        else:
            logits = F.linear(self.ln_f(x), weight)
        return logits


def _init(module: nn.Module) -> None:
    """GPT-2's initialization: N(0, 0.02) weights, zero biases."""
    if isinstance(module, nn.Linear | nn.Embedding):
        nn.init.normal_(module.weight, mean=0.0, std=0.02)
    if isinstance(module, nn.Linear) and module.bias is not None:
        nn.init.zeros_(module.bias)


def parameter_count(model: nn.Module) -> int:
    """Parameters, the tied output matrix counted once."""
    return sum(p.numel() for p in model.parameters())


def lr_at(step: int, cfg: TrainConfig) -> float:
    """Linear warmup, then cosine decay from lr to min_lr at the last step."""
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    progress = (step - cfg.warmup) / max(cfg.steps - cfg.warmup, 1)
    return cfg.min_lr + 0.5 * (cfg.lr - cfg.min_lr) * (1 + math.cos(math.pi * min(progress, 1.0)))


class Trainer:
    """The training loop, one step at a time, with everything a resumed run needs to continue
    exactly where it stopped: model, optimizer, step, loss curve, the data-order generator and
    torch's global generator (dropout), on CUDA its generator too.

    A run stopped after step k and resumed from its saved state takes the same steps as one
    that never stopped (same device, threads and torch version: CPU kernels are deterministic
    for a fixed thread count); evaluation between steps uses no random numbers."""

    def __init__(
        self, model: GPT, stream: torch.Tensor, cfg: TrainConfig, seed: int, device: str
    ) -> None:
        ctx = model.cfg.context
        if len(stream) <= ctx + 1:
            raise SystemExit(f"training stream of {len(stream)} tokens is shorter than the context")
        self.model, self.stream, self.cfg, self.device = model, stream, cfg, device
        self.order = torch.Generator().manual_seed(seed)
        decay = [p for p in model.parameters() if p.dim() >= 2]
        no_decay = [p for p in model.parameters() if p.dim() < 2]
        groups: list[dict[str, Any]] = [
            {"params": decay, "weight_decay": cfg.weight_decay},
            {"params": no_decay},
        ]
        self.optimizer = torch.optim.AdamW(
            groups,
            lr=cfg.lr,
            betas=(0.9, 0.95),
            weight_decay=0.0,
        )
        self.offsets = torch.arange(ctx + 1)
        self.step = 0  # steps taken
        self.losses: list[float] = []

    def take_step(self) -> float:
        """One optimizer step on a random batch of windows; returns its loss (nats/token)."""
        ctx = self.model.cfg.context
        self.model.train()
        for group in self.optimizer.param_groups:
            group["lr"] = lr_at(self.step, self.cfg)
        starts = torch.randint(
            0, len(self.stream) - ctx - 1, (self.cfg.batch,), generator=self.order
        )
        window = self.stream[starts[:, None] + self.offsets].to(self.device)
        logits = self.model(window[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), window[:, 1:].reshape(-1))
        self.optimizer.zero_grad(set_to_none=True)
        torch.autograd.backward(loss)  # loss.backward(), which torch leaves untyped
        nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.grad_clip)
        self.optimizer.step()
        self.losses.append(loss.item())
        self.step += 1
        return self.losses[-1]

    def state_dict(self) -> dict[str, Any]:
        state = {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "step": self.step,
            "losses": list(self.losses),
            "order": self.order.get_state(),
            "rng": torch.get_rng_state(),
        }
        if str(self.device).startswith("cuda"):
            state["cuda_rng"] = torch.cuda.get_rng_state(self.device)
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.step = int(state["step"])
        self.losses = list(state["losses"])
        self.order.set_state(state["order"])
        torch.set_rng_state(state["rng"])
        if "cuda_rng" in state and str(self.device).startswith("cuda"):
            torch.cuda.set_rng_state(state["cuda_rng"], self.device)


def train(
    model: GPT,
    stream: torch.Tensor,
    cfg: TrainConfig,
    seed: int,
    device: str,
    progress: Callable[[int, float], None] | None = None,
) -> list[float]:
    """Train on random windows of ``stream`` (order fixed by ``seed``); returns the loss curve."""
    trainer = Trainer(model, stream, cfg, seed, device)
    for step in range(cfg.steps):
        loss = trainer.take_step()
        if progress is not None:
            progress(step, loss)
    return trainer.losses


@torch.no_grad()
def score(model: GPT, stream: list[int], device: str, batch: int = 16) -> list[float]:
    """One NLL (nats) per token of ``stream[1:]``, by sliding windows of the context with stride
    half the context: each window scores only the tokens no earlier window scored, so every
    token after the first (a leading end-of-line that gives the first line a context) is scored
    exactly once, with at least half a context before it except in the first window."""
    model.eval()
    ctx = model.cfg.context
    stride = max(ctx // 2, 1)
    spans = []  # (begin, end, first position to keep)
    done = 0
    for begin in range(0, len(stream) - 1, stride):
        end = min(begin + ctx, len(stream) - 1)
        spans.append((begin, end, done - begin))
        done = end
        if end == len(stream) - 1:
            break
    data = torch.tensor(stream, dtype=torch.long)
    nll: list[float] = []
    for i in range(0, len(spans), batch):
        group = spans[i : i + batch]
        width = max(end - begin for begin, end, _ in group)
        rows = torch.zeros((len(group), width + 1), dtype=torch.long)
        for r, (begin, end, _) in enumerate(group):
            rows[r, : end - begin + 1] = data[begin : end + 1]
        rows = rows.to(device)
        logits = model(rows[:, :-1]).double()
        losses = F.cross_entropy(logits.transpose(1, 2), rows[:, 1:], reduction="none").cpu()
        for r, (begin, end, keep) in enumerate(group):
            nll.extend(losses[r, keep : end - begin].tolist())
    if len(nll) != len(stream) - 1:
        raise AssertionError(f"scored {len(nll)} tokens of {len(stream) - 1}")
    return nll


@torch.no_grad()
def sample(
    model: GPT, start: int, tokens: int, seed: int, device: str, rows: int = 8
) -> list[list[int]]:
    """``rows`` sequences of ``tokens // rows`` tokens each (at least one), every one begun from
    ``start`` (the end-of-sentence id: a line boundary) and drawn at temperature 1 from a
    generator seeded by ``seed``: unbiased draws of the text the model has learnt, for counting
    what it writes (orphan marks) rather than what it reads. The context slides when a
    sequence outgrows it."""
    model.eval()
    rows = max(min(rows, tokens), 1)
    length = max(tokens // rows, 1)
    draw = torch.Generator().manual_seed(seed)
    idx = torch.full((rows, 1), start, dtype=torch.long, device=device)
    for _ in range(length):
        logits = model(idx[:, -model.cfg.context :])[:, -1, :].double().cpu()
        nxt = torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=draw)
        idx = torch.cat([idx, nxt.to(device)], dim=1)
    return [row[1:] for row in idx.tolist()]


def tokens_per_second(model: GPT, stream: torch.Tensor, cfg: TrainConfig, device: str) -> float:
    """Training throughput over a few steps (after one warm-up step), for sizing a run."""
    probe = TrainConfig(steps=1, batch=cfg.batch, lr=cfg.lr, min_lr=cfg.min_lr, warmup=1)
    train(model, stream, probe, 0, device)
    steps = 4
    _synchronize(device)
    start = time.perf_counter()
    train(model, stream, TrainConfig(steps, cfg.batch, cfg.lr, cfg.min_lr, 1), 0, device)
    _synchronize(device)
    elapsed = time.perf_counter() - start
    rate = steps * cfg.batch * model.cfg.context / elapsed
    print(f"calibration: {rate:,.0f} training tokens/s", file=sys.stderr)
    return rate


def _synchronize(device: str) -> None:
    """Wait for queued CUDA work, so that a timing measures it."""
    if str(device).startswith("cuda"):
        torch.cuda.synchronize(device)
