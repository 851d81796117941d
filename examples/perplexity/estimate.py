"""How long a run will take, measured before it trains: tokens per second on this machine, the
cpu preset's steps fitted into its budget, and the finish time printed, so that a run of hours
says so (and a run over ``--budget-minutes`` is refused) before it has spent them.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace

import torch

from .config import Config
from .gpt import GPT, gpt_config, tokens_per_second, train_config
from .trend import checkpoint_steps


def size_run(
    cfg: Config,
    streams: dict[str, torch.Tensor],
    started: float,
    heldout_tokens: int,
    checkpoint_tokens: int,
    taken: list[int],
) -> Config:
    """Calibrate tokens/s, fit the cpu preset's steps into its budget, print the finish time,
    and refuse a run whose estimate exceeds ``--budget-minutes``. ``taken`` holds the steps
    already taken by each model still to finish (0 for a model not begun)."""
    if not taken:
        print("estimate: every model has finished already; nothing to train", file=sys.stderr)
        return replace(cfg, calibrate=False)
    gcfg = gpt_config(cfg, cfg.vocab_size)
    probe = GPT(gcfg).to(cfg.device)
    tcfg = train_config(cfg, cfg.steps)
    rate = tokens_per_second(probe, next(iter(streams.values())), tcfg, cfg.device)
    runs = len(taken)
    step_tokens = cfg.batch * cfg.context
    eval_seconds = 2 * heldout_tokens / rate  # each token is read about twice, forward only
    # each generated token re-reads half a context on average, forward only (a third of the
    # cost of a training token)
    eval_seconds += cfg.sample_tokens * cfg.context / 2 / (3 * rate)
    # each checkpoint before the last reads its lines about twice, forward only
    marks = len(checkpoint_steps(cfg.steps, cfg.checkpoint_from, cfg.checkpoints)) - 1
    eval_seconds += marks * 2 * checkpoint_tokens / (3 * rate)
    elapsed = time.perf_counter() - started
    if cfg.calibrate and cfg.budget_minutes is not None:
        spare = cfg.budget_minutes * 60 * 0.9 - elapsed - runs * eval_seconds
        fit = int(spare / runs * rate / step_tokens)
        if fit < 10:
            raise SystemExit(f"only {fit} steps fit in {cfg.budget_minutes} minutes; refusing")
        cfg = cfg.cut_to(fit)
    left = sum(max(cfg.steps - t, 0) for t in taken)
    estimate = elapsed + left * step_tokens / rate + runs * eval_seconds
    finish = time.strftime("%H:%M:%S", time.localtime(time.time() + estimate - elapsed))
    print(
        f"estimate: {cfg.steps} steps per model, {runs} model(s) to train "
        f"({left:,} steps left), {estimate / 60:.1f} min in all "
        f"({estimate / 3600:.1f} h), finishing about {finish}",
        file=sys.stderr,
    )
    if cfg.budget_minutes is not None and estimate > cfg.budget_minutes * 60:
        raise SystemExit(
            f"estimated {estimate / 60:.1f} min exceeds --budget-minutes {cfg.budget_minutes}; "
            "refusing (lower --steps or --seeds)"
        )
    return replace(cfg, calibrate=False)
