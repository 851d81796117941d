"""Interpolated modified Kneser–Ney n-gram models over token ids: a converged comparator for the
GPTs, which are far from converged.

Chen and Goodman (1999), "An empirical study of smoothing techniques for language modeling",
§3 (interpolated Kneser–Ney with three discounts per order). For a context h of n − 1 tokens,
with h' its last n − 2 tokens:

    p_n(w | h) = max(c(hw) − D(c(hw)), 0) / c(h•) + γ(h) · p_{n−1}(w | h')
    γ(h)       = (D1·N1(h•) + D2·N2(h•) + D3+·N3+(h•)) / c(h•)

where c is the raw count at the highest order and the continuation count N1+(•hw) (how many
distinct tokens precede hw) at every lower one, c(h•) = Σ_w c(hw), N_r(h•) counts the words
with c(hw) = r (r ≥ 3 for N3+), and D(c) is D1, D2 or D3+ for c = 1, 2, ≥ 3. A context never
seen (c(h•) = 0) passes p_{n−1} through unchanged. The unigram level is interpolated with the
uniform distribution over the vocabulary, so a token never seen in training still has a
probability. Discounts per order from the counts of counts n_r of that order's counts:
Y = n1 / (n1 + 2·n2), D1 = 1 − 2Y·n2/n1, D2 = 2 − 3Y·n3/n2, D3+ = 3 − 4Y·n4/n3, each kept
within [0.05, r] (at most r, so that Σ_w p = 1 exactly; at least 0.05, so that every seen context
leaves the lower order some mass); where some n_r is 0 (tiny corpora) every discount is Y, or 0.5
when n1 or n2 is 0.

The tables are torch tensors (torch is already the experiment's dependency): each order's
n-grams get dense ids, an n-gram's key is (dense id of its first n − 1 tokens) × V + last token,
and lookups are binary searches in the sorted keys, so a few million tokens train in seconds.

ngram_table fits one model per order on each arm's training tokens and scores the held-out
stream the GPTs score, of each held-out file (``run.py --ngram``, and ``--ngram-only``: the
tokenizers and this table alone, in about a minute for the cpu preset).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from .data import Arm, line_bytes, per_line
from .stats import bootstrap_ratio

MIN_DISCOUNT = 0.05


@dataclass
class _Level:
    """The n-grams of one order n: sorted keys, the count each one carries at this level (raw
    at the highest order, continuation below) and, per context (an (n−1)-gram's dense id, or 0
    for the unigram level's empty context), c(h•) and D1·N1 + D2·N2 + D3+·N3+."""

    keys: torch.Tensor
    counts: torch.Tensor
    totals: torch.Tensor
    discounted: torch.Tensor
    discounts: tuple[float, float, float]


def estimate_discounts(counts: torch.Tensor) -> tuple[float, float, float]:
    """(D1, D2, D3+) of modified Kneser–Ney from counts of counts (see the module docstring)."""
    n = [int((counts == r).sum()) for r in range(1, 5)]
    y = n[0] / (n[0] + 2 * n[1]) if n[0] > 0 and n[1] > 0 else 0.5
    if min(n) == 0:
        raw = (y, y, y)
    else:
        raw = (1 - 2 * y * n[1] / n[0], 2 - 3 * y * n[2] / n[1], 3 - 4 * y * n[3] / n[2])
    return (_within(raw[0], 1), _within(raw[1], 2), _within(raw[2], 3))


def _within(discount: float, r: int) -> float:
    """A discount kept in [MIN_DISCOUNT, r]: at most the count it discounts (so the kept mass
    is never negative and Σ_w p = 1), at least a little (so every seen context leaves some
    mass to the lower order and no token gets probability 0)."""
    return min(max(discount, MIN_DISCOUNT), float(r))


def _lookup(keys: torch.Tensor, queries: torch.Tensor) -> torch.Tensor:
    """Index of each query in the sorted ``keys``, −1 where absent (negative queries too)."""
    if len(keys) == 0:
        return torch.full_like(queries, -1)
    at = torch.searchsorted(keys, queries).clamp(max=len(keys) - 1)
    found = (keys[at] == queries) & (queries >= 0)
    return torch.where(found, at, torch.full_like(at, -1))


class KneserNey:
    """An interpolated modified Kneser–Ney model of ``order`` over one token stream.

    ``discounts`` (one (D1, D2, D3+) per order, lowest first) replaces the estimate, for tests;
    ``unigram_discount=False`` leaves the unigram level undiscounted and not interpolated with
    the uniform distribution (an order-1 model is then the maximum-likelihood unigram)."""

    def __init__(
        self,
        ids: Sequence[int],
        vocab_size: int,
        order: int,
        discounts: Sequence[tuple[float, float, float]] | None = None,
        unigram_discount: bool = True,
    ) -> None:
        if order < 1:
            raise ValueError("order must be at least 1")
        if len(ids) < order:
            raise ValueError(f"{len(ids)} training tokens are fewer than the order {order}")
        self.vocab_size, self.order = vocab_size, order
        tokens = torch.as_tensor(list(ids), dtype=torch.long)
        if int(tokens.min()) < 0 or int(tokens.max()) >= vocab_size:
            raise ValueError("token ids must lie in [0, vocab_size)")
        v = vocab_size
        # per order: sorted unique keys, the dense id of the n-gram ending at each position
        # (positions n−1 … T−1) and each n-gram's raw count
        keys: list[torch.Tensor] = []
        at: list[torch.Tensor] = []
        raw: list[torch.Tensor] = []
        for n in range(1, order + 1):
            key = tokens if n == 1 else at[-1][:-1] * v + tokens[n - 1 :]
            unique, inverse, count = torch.unique(key, return_inverse=True, return_counts=True)
            keys.append(unique)
            at.append(inverse)
            raw.append(count.to(torch.float64))
        self.levels: list[_Level] = []
        for n in range(1, order + 1):
            if n == order:
                counts = raw[n - 1]
            else:  # continuation counts: distinct tokens before each n-gram
                suffix = torch.empty(len(keys[n]), dtype=torch.long)
                suffix[at[n]] = at[n - 1][1:]  # an (n+1)-gram's last n tokens
                counts = torch.bincount(suffix, minlength=len(keys[n - 1])).to(torch.float64)
            if n == 1 and not unigram_discount:
                d: tuple[float, float, float] = (0.0, 0.0, 0.0)
            else:
                given = discounts[n - 1] if discounts else estimate_discounts(counts)
                d = (float(given[0]), float(given[1]), float(given[2]))
            context = keys[n - 1] // v if n > 1 else torch.zeros_like(keys[0])
            contexts = len(keys[n - 2]) if n > 1 else 1
            taken = torch.zeros_like(counts)
            for r, dr in enumerate(d, start=1):
                taken += dr * ((counts == r) if r < 3 else (counts >= 3)).to(torch.float64)
            self.levels.append(
                _Level(
                    keys[n - 1],
                    counts,
                    torch.bincount(context, weights=counts, minlength=contexts),
                    torch.bincount(context, weights=taken, minlength=contexts),
                    d,
                )
            )
        self.unigram_discount = unigram_discount

    def _probabilities(self, contexts: list[torch.Tensor], words: torch.Tensor) -> torch.Tensor:
        """p(word | context) per query; ``contexts[j]`` is each query's j-token context as a
        dense id of order j (−1: unseen or not available), ``contexts[0]`` all zeros."""
        v = self.vocab_size
        p = torch.full(words.shape, 1.0 / v, dtype=torch.float64)
        if not self.unigram_discount:
            p = torch.zeros(words.shape, dtype=torch.float64)
        for n, level in enumerate(self.levels, start=1):
            ctx = contexts[n - 1]
            seen = ctx >= 0
            safe = ctx.clamp(min=0)
            total = torch.where(seen, level.totals[safe], torch.zeros_like(p))
            gram = _lookup(level.keys, torch.where(seen, ctx * v + words if n > 1 else words, -1))
            count = torch.where(gram >= 0, level.counts[gram.clamp(min=0)], torch.zeros_like(p))
            d1, d2, d3 = (torch.tensor(d, dtype=torch.float64) for d in level.discounts)
            discount = torch.where(count >= 3, d3, torch.where(count >= 2, d2, d1))
            kept = (count - discount).clamp(min=0.0)
            weight = torch.where(seen, level.discounted[safe], torch.zeros_like(p))
            if n == 1 and not self.unigram_discount:
                weight = torch.zeros_like(p)
            has = total > 0
            ratio = torch.where(has, 1.0 / total.clamp(min=1e-300), torch.zeros_like(p))
            p = torch.where(has, kept * ratio + weight * ratio * p, p)
        return p

    def _context_ids(self, history: torch.Tensor) -> list[torch.Tensor]:
        """For every position p of ``history``, the dense id of the j-gram ending at p, for
        j = 1 … order − 1 (−1 where unseen in training or p < j − 1)."""
        v = self.vocab_size
        out: list[torch.Tensor] = []
        for j in range(1, self.order):
            level = self.levels[j - 1]
            if j == 1:
                ids = _lookup(level.keys, history)
            else:
                prev = torch.cat([torch.tensor([-1]), out[-1][:-1]])
                ids = _lookup(level.keys, torch.where(prev >= 0, prev * v + history, -1))
            out.append(ids)
        return out

    def log2_probabilities(self, stream: Sequence[int]) -> list[float]:
        """log2 p(stream[i] | up to order − 1 tokens before it), for i = 1 … len − 1: the first
        token (a leading end-of-line, as the GPTs are scored) is context only."""
        tokens = torch.as_tensor(list(stream), dtype=torch.long)
        if len(tokens) < 2:
            return []
        history = self._context_ids(tokens[:-1].clamp(0, self.vocab_size - 1))
        zeros = torch.zeros(len(tokens) - 1, dtype=torch.long)
        p = self._probabilities([zeros, *history], tokens[1:])
        return torch.log2(p).tolist()

    def distribution(self, context: Sequence[int]) -> list[float]:
        """p(w | context) for every w of the vocabulary (the last order − 1 tokens count)."""
        v = self.vocab_size
        tail = list(context)[-(self.order - 1) :] if self.order > 1 else []
        if tail:
            ids = self._context_ids(torch.as_tensor(tail, dtype=torch.long))
            last = [ids[j - 1][-1] for j in range(1, self.order)]
        else:
            last = [torch.tensor(-1)] * (self.order - 1)
        words = torch.arange(v)
        contexts = [torch.zeros(v, dtype=torch.long)] + [x.expand(v) for x in last]
        return self._probabilities(contexts, words).tolist()


def bits_per_byte(model: KneserNey, stream: Sequence[int], n_bytes: int) -> float:
    """−Σ log2 p over the stream's tokens after the first, ÷ the UTF-8 bytes they spell."""
    return -math.fsum(model.log2_probabilities(stream)) / n_bytes


def ngram_table(
    arms: list[Arm],
    train_text: list[str],
    heldouts: list[list[str]],
    orders: list[int],
    resamples: int,
) -> list[dict[str, Any]]:
    """Bits per byte of an interpolated modified Kneser–Ney model of each order on each arm's
    training tokens (every line then its end-of-sentence id, after a leading one), on each
    held-out text's stream as the GPTs score it, one table per text (each model is fitted once
    and scores them all); for every arm but the plain ones, the difference from the plain arm
    of its type with the paired bootstrap over that text's lines."""
    tables: list[dict[str, Any]] = [{} for _ in heldouts]
    per_line_bits: dict[tuple[int, str, int], list[float]] = {}
    sizes = [line_bytes(heldout) for heldout in heldouts]
    for arm in arms:
        train_ids = arm.stream(train_text, lead=True)
        held = [(arm.stream(heldout, lead=True), arm.encode(heldout)) for heldout in heldouts]
        rows_of: list[dict[str, Any]] = [
            {"train_tokens": len(train_ids), "orders": {}} for _ in heldouts
        ]
        for order in orders:
            start = time.perf_counter()
            model = KneserNey(train_ids, arm.vocab_size, order)
            fitted = time.perf_counter() - start
            for k, (stream, rows) in enumerate(held):
                start = time.perf_counter()
                bits = per_line([-b for b in model.log2_probabilities(stream)], rows)
                per_line_bits[k, arm.name, order] = bits
                bpb = math.fsum(bits) / sum(sizes[k])
                seconds = fitted + time.perf_counter() - start
                rows_of[k]["orders"][str(order)] = {
                    "bits_per_byte": bpb,
                    "seconds": seconds,
                    "discounts": [list(level.discounts) for level in model.levels],
                }
                which = f" on held-out file {k + 1}" if len(heldouts) > 1 else ""
                print(
                    f"  {arm.name} {order}-gram{which}: {bpb:.4f} bits per byte ({seconds:.1f} s)",
                    file=sys.stderr,
                )
        for table, row in zip(tables, rows_of, strict=True):
            table[arm.name] = row
    for arm in arms:
        base = f"plain-{arm.model_type}"
        if arm.kind == "plain" or base not in tables[0]:
            continue
        for k, table in enumerate(tables):
            for order in orders:
                ours, theirs = per_line_bits[k, arm.name, order], per_line_bits[k, base, order]
                diff = [a - b for a, b in zip(ours, theirs, strict=True)]
                point, low, high = bootstrap_ratio(diff, sizes[k], resamples, seed=0)
                table[arm.name]["orders"][str(order)]["gap"] = {
                    "mean": point,
                    "low": low,
                    "high": high,
                    "baseline": base,
                }
    return tables
