"""Subword regularization while the model trains (issue 30, lever 2).

Each pass over the training text is encoded anew with sampling: Unigram draws a segmentation
from the whole lattice (``nbest_size=-1``) with smoothing ``alpha``; BPE drops each merge with
probability ``alpha`` (BPE-dropout). A model then sees a word cut several ways, so that
brahmic_pua's సొం|తానికి and సొంతా|నికి put the suffix into pieces that other words share.
Held-out text is still scored with the one best segmentation, as every arm is.

A pass lasts as many steps as the best segmentation's stream fills (steps × batch × context =
its tokens); pass k is drawn with sentencepiece's generator seeded by (seed, k), on one thread.
That makes a draw repeatable within a process, not across processes: sentencepiece 0.2.3 gives
other segmentations for the same seed in another process (measured: a fresh Python process,
stock sentencepiece, seed 7, the first sampled ids differ from run to run; with address-space
randomization off too). So each pass, once drawn, is saved in the model's state folder
(``pass<k>.pt``), and a resumed run reads it back: it trains on the very text an uninterrupted
run trains on. Two separate runs of the same command draw different passes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import sentencepiece
import torch

from .data import Arm


class SampledPasses:
    """The training stream of the pass a step falls in, drawn when first needed."""

    def __init__(
        self,
        arm: Arm,
        lines: list[str],
        alpha: float,
        seed: int,
        steps_per_pass: int,
        folder: Path | None = None,
    ) -> None:
        if not 0 < alpha <= 1:
            raise SystemExit(f"--sampling must be above 0 and at most 1, not {alpha}")
        self.arm, self.lines, self.alpha, self.seed = arm, lines, alpha, seed
        self.steps_per_pass = max(steps_per_pass, 1)
        self.folder = folder  # where drawn passes are kept (None: nowhere)
        self.current: tuple[int, torch.Tensor] | None = None
        self.tokens: dict[int, int] = {}  # tokens per pass drawn, for the record

    def at(self, step: int) -> torch.Tensor:
        """The stream the step ``step`` (0-based) trains on."""
        number = step // self.steps_per_pass
        if self.current is None or self.current[0] != number:
            self.current = (number, self._kept(number))
            self.tokens[number] = len(self.current[1])
        return self.current[1]

    def mean_tokens(self, steps: int) -> float:
        """Tokens per pass, averaged over every pass that ``steps`` steps train on: those this
        invocation drew or read, and those an earlier one kept (a resumed run's record is the
        uninterrupted run's)."""
        passes = range((max(steps, 1) - 1) // self.steps_per_pass + 1)
        return sum(self.tokens.get(n) or len(self._kept(n)) for n in passes) / len(passes)

    def _kept(self, number: int) -> torch.Tensor:
        """Pass ``number`` as an earlier invocation drew it, else drawn now and saved."""
        if self.folder is None:
            return self._draw(number)
        path = self.folder / f"pass{number}.pt"
        if path.is_file():
            kept: torch.Tensor = torch.load(path).long()
            return kept
        stream = self._draw(number)
        self.folder.mkdir(parents=True, exist_ok=True)
        part = path.with_name(path.name + ".part")
        torch.save(stream.int(), part)  # int32: half the bytes, ids < 2^31
        os.replace(part, path)
        return stream

    def _draw(self, number: int) -> torch.Tensor:
        sentencepiece.set_random_generator_seed(self.seed * 1_000_003 + number)
        extra: dict[str, Any] = {"nbest_size": -1} if self.arm.model_type == "unigram" else {}
        stream = self.arm.stream(
            self.lines, enable_sampling=True, alpha=self.alpha, num_threads=1, **extra
        )
        return torch.tensor(stream, dtype=torch.long)
