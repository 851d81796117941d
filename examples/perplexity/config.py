"""Every setting of the experiment, in one object: ``Config``.

Its defaults are the paper's settings (presets/paper.toml overrides nothing); a preset
(presets/NAME.toml, read by preset.py) overrides some of the fields marked ``preset``, and the
command line (options.py) overrides those and the rest on top. Each field that is a command-line
option carries its help here, so a setting is declared, documented and given its default in one
place, and the code reads every setting as ``cfg.NAME``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from brahmic_pua.model.embedding_parts import Unit

from .data import ARM_SPECS, ARMS, EXTRA, TRAIN


def in_preset(default: Any, help: str | None = None, *, none: str | None = None, **how: Any) -> Any:
    """A field a preset file may set (a key of presets/NAME.toml, recorded with every run); with
    ``help``, also a command-line option, ``how`` the keywords argparse adds it with (options.py).
    ``at_least`` / ``above``: the least value the option takes, else a one-line refusal.
    ``none``: the word a preset file writes for None (TOML has no null)."""
    meta = {"preset": True, "help": help, "how": how, "none": none}
    return field(default=default, metadata=meta)


def option(default: Any, help: str, **how: Any) -> Any:
    """A field the command line alone sets (options.py), with its help and argparse keywords."""
    return field(default=default, metadata={"preset": False, "help": help, "how": how})


@dataclass(frozen=True)
class Config:
    """The settings of one run. Config() is the paper's preset; load_preset gives another, and
    options.settings the one a command line asks for."""

    # --- the preset's settings: the paper's (the likely nanoGPT prototype) unless overridden
    vocab_size: int = in_preset(8000, "vocabulary size of every tokenizer", type=int)
    layers: int = in_preset(6)  # transformer blocks
    heads: int = in_preset(6)  # attention heads per block
    width: int = in_preset(384)  # embedding width
    context: int = in_preset(256)  # tokens per training sequence and per scoring window
    dropout: float = in_preset(0.2)  # in training only, after attention, MLP and embedding
    batch: int = in_preset(64, "sequences per training step (preset's default)", type=int)
    lr: float = in_preset(
        1e-3,
        "peak learning rate (the cosine's floor keeps the preset's ratio to it: the cpu "
        "presets decay 0.002 to 0.0002)",
        type=float,
        above=0,
    )
    min_lr: float = in_preset(1e-4)  # the cosine's floor (a tenth of the peak)
    warmup: int = in_preset(
        100,
        "linear warmup steps (cpu: 50, at most a tenth of the calibrated steps; "
        "cpu-long and paper: 100)",
        type=int,
        metavar="STEPS",
        at_least=0,
    )
    steps: int = in_preset(  # for cpu: the most steps; calibration may choose fewer
        5000,
        "training steps per model (tokens regime; the bytes regime scales it "
        "per arm); skips the cpu preset's budget sizing",
        type=int,
    )
    seeds: int = in_preset(
        3,
        "seeds 0..N-1; each fixes initialization and data order, paired across "
        "arms; intervals need at least 2, the statistics ask for 3 or more",
        type=int,
    )
    train_lines: int | None = in_preset(  # None ("all"): the whole of te.train.txt
        None,
        "first lines of the --train text used to train tokenizers and models "
        "(the --train-extra corpora are added in full)",
        type=int,
        none="all",
    )
    heldout_lines: int = in_preset(
        3000,
        "held-out lines scored, of each --heldout file its first ones (preset's default)",
        type=int,
    )
    budget_minutes: float | None = in_preset(
        None,
        "refuse to start training when the calibrated estimate exceeds this "
        "(the cpu preset defaults to 30 and sizes its steps to fit)",
        type=float,
        none="none",
    )
    calibrate: bool = in_preset(False)  # measure tokens/s and fit the steps into budget_minutes
    sample_tokens: int = in_preset(  # generated per model, for orphan marks in what it writes
        2048,
        "tokens generated per model after training, as 8 sequences (rounded down to a "
        "multiple of 8; seeded, temperature 1, from an end-of-line context), in which "
        "orphan-mark tokens are counted (preset's default: smoke 64, cpu 1024, paper 2048)",
        type=int,
    )
    bootstrap: int = in_preset(  # resamples of held-out lines
        1000,
        "resamples of held-out lines for the paired bootstrap of the bits-per-byte "
        "difference (preset's default: smoke 200, otherwise 1000)",
        type=int,
    )
    arms: tuple[str, ...] = in_preset(
        ARMS,
        "arms to run (default: the preset's; cpu-long: plain-unigram brahmic_pua-unigram, "
        "otherwise the four plain and brahmic_pua arms); the plain arm of each named arm's type "
        "is added. Names: " + ", ".join(ARM_SPECS),
        nargs="+",
        choices=list(ARM_SPECS),
        metavar="ARM",
    )
    # the first log-spaced checkpoint (then ×2); None ("none"): the last step only
    checkpoint_from: int | None = in_preset(50, none="none")
    estimate: bool = in_preset(True)  # calibrate tokens/s and print the finish time before training

    # --- the run's options, from the command line only
    preset: str = option(  # the preset these settings start from; options.py's default: smoke
        "paper",
        "sizes: smoke (tiny model, a few steps, 800 lines, vocab 1000, 1 seed; "
        "< 20 s), cpu (1.4M-parameter model, vocab 8000, 3 seeds, steps sized "
        "by calibration to fit --budget-minutes, default 30), cpu-long (the cpu model, "
        "10,000 steps = 20.5M tokens per model, the Unigram pair, 3 seeds, log-spaced "
        "checkpoints; hours: resumable), paper (the nanoGPT "
        "prototype: 6 layers, 6 heads, width 384, dropout 0.2, context 256, "
        "batch 64, lr 1e-3 cosine to 1e-4, 5,000 steps; for a GPU); the settings of "
        "each that differ from the paper's, with a comment, in presets/NAME.toml, or give the "
        "path of a preset file (preset.py checks it)",
        metavar="NAME|FILE",
    )
    regime: str = option(
        "tokens",
        "tokens: equal steps × batch × context for every arm (the paper's "
        "implicit setting); bytes: every arm sees the same training text the "
        "same number of times (steps scaled by its tokens per byte, around the "
        "mean of the arms, so total compute stays the same)",
        choices=["tokens", "bytes"],
    )
    heldout: tuple[Path, ...] = option(
        (),
        "held-out text files, several after one --heldout or one per --heldout (default: "
        "the last lines of te.extra.txt, news that no tokenizer or model trains on); the models "
        "are trained once, without any line equal to a held-out line of any file, and each file "
        "is scored and reported on its own; the first file is the text of the main tables, the "
        "checkpoints (--so-far too), the trend and the attribution",
        type=Path,
        nargs="+",
        action="extend",
        metavar="FILE",
    )
    train: Path = option(
        TRAIN,
        "the training text of tokenizers and models (default te.train.txt); another "
        "language needs --heldout in it too, e.g. the last lines of hi.sample.txt cut off "
        "into their own file (any training line equal to a held-out line is dropped)",
        type=Path,
        metavar="FILE",
    )
    train_extra: tuple[str, ...] = option(
        (),
        "add corpora to the training text of tokenizers and models: wikisource "
        "(te.wikisource.txt, classical verse and one modern prose work, public domain) "
        "and/or extra (te.extra.txt, recent Wikipedia and news, research-only licences); "
        "with the default held-out text, te.extra's held-out tail is cut from training, "
        "and any training line equal to a held-out line is dropped",
        nargs="+",
        choices=sorted(EXTRA),
        metavar="CORPUS",
    )
    stock_baseline: bool = option(
        False,
        "also train spm Unigram and BPE with sentencepiece's default options "
        "(nmt_nfkc normalization, no byte fallback, extra whitespace removed, "
        "character coverage 0.9995): reported in every table, but excluded from "
        "bits-per-byte claims unless it round-trips every held-out line",
        action="store_true",
    )
    sampling: float | None = option(
        None,
        "subword regularization while the models train, for every arm alike: each pass "
        "over the training text is encoded anew with sampling (Unigram: alpha ALPHA over the "
        "whole lattice; BPE: dropout probability ALPHA), the held-out text with the best "
        "segmentation (Kudo 2018 uses 0.1 to 0.2; BPE-dropout 0.1)",
        type=float,
        metavar="ALPHA",
    )
    composed: Unit | None = option(
        None,
        "composed embeddings for every arm alike: a token's input and tied output "
        "embedding is its own row plus the mean of the rows of its characters (char) or "
        "fixtoken clusters (cluster), so pieces spelled alike share parameters",
        choices=["char", "cluster"],
    )
    threads: int = option(
        1,
        "torch CPU threads (default 1: on a shared 2-core machine one thread "
        "measured faster than two)",
        type=int,
    )
    device: str = option(
        "cpu", "torch device, e.g. cuda (default cpu; on CUDA, float32 matmuls may use TF32)"
    )
    checkpoints: tuple[int, ...] | None = option(
        None,
        "steps at which every run scores the first --checkpoint-lines held-out lines "
        "(the last step always; default: cpu-long and paper 50, 100, 200, … doubling below "
        "the last step; smoke and cpu the last step only)",
        type=int,
        nargs="+",
        metavar="STEP",
    )
    checkpoint_lines: int = option(
        1000,
        "held-out lines scored at each checkpoint (the first ones, of the first --heldout "
        "file; default 1000)",
        type=int,
    )
    save_every: int = option(
        500,
        "save each run's training state every N steps (and at every checkpoint), so "
        "that a run killed in the middle resumes from there (default 500)",
        type=int,
    )
    stop_after_steps: int | None = option(
        None,
        "stop, state saved, after N training steps in this invocation (over all "
        "models); the same command again resumes: runs that finished are read back, the "
        "one in progress continues from its saved step",
        type=int,
        metavar="N",
    )
    only_seeds: tuple[int, ...] | None = option(
        None,
        "train only these seeds (numbered from 0, each below --seeds) and stop without "
        "a report: two processes given the same --out train in parallel, each skipping a "
        "model the other is training (even of the same seed); the same command without "
        "--only-seeds then reads every finished model back and reports",
        type=int,
        nargs="+",
        metavar="K",
    )
    so_far: bool = option(
        False,
        "train nothing: report the gap at every checkpoint the run in --out has saved "
        "so far, finished models and models still training alike, each step with the seeds "
        "that reached it in both arms (so_far.md, so_far.json, gap_trend_so_far.png)",
        action="store_true",
    )
    ngram: bool = option(
        False,
        "also fit interpolated modified Kneser–Ney n-gram models (--ngram-orders) on "
        "each arm's training tokens and report their held-out bits per byte",
        action="store_true",
    )
    ngram_only: bool = option(
        False,
        "tokenizers, their metrics and the n-gram table only: no GPT (fast)",
        action="store_true",
    )
    ngram_orders: tuple[int, ...] = option(
        (2, 3, 4, 5),
        "n-gram orders for --ngram / --ngram-only (default 2 3 4 5)",
        type=int,
        nargs="+",
        metavar="N",
    )
    out: Path | None = option(
        None,
        "output directory for results.json, results.md, the PNGs, the tokenizers "
        "(tokenizers/) and each run's state (state/); a run given the folder of an earlier "
        "one with the same options resumes it (default: a new temporary directory)",
        type=Path,
    )

    def overridden(self, given: dict[str, Any]) -> Config:
        """These settings with the command line's values ``given`` (by field name): a new peak
        learning rate keeps the preset's ratio of floor to peak, and a step count given by hand
        is not calibrated."""
        if "lr" in given:
            given = {"min_lr": self.min_lr * given["lr"] / self.lr, **given}
        if "steps" in given:
            given = {"calibrate": False, **given}
        return replace(self, **given)

    def preset_settings(self) -> dict[str, Any]:
        """The settings a preset holds, by name in field order: what run.json keeps (a resumed
        run reads them back) and results.json records beside the options."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.metadata["preset"]}

    def measures_speed(self) -> bool:
        """Whether the run measures tokens/s before it trains (estimate.py): to fit its steps
        into the budget, to refuse a run over it, or to print the finish time."""
        return self.calibrate or self.budget_minutes is not None or self.estimate

    def arm_steps(self, tokens_per_byte: dict[str, float]) -> dict[str, int]:
        """Steps per arm (by name, with its training tokens per byte) under the regime: equal,
        or proportional to tokens per byte so that every arm sees the same bytes."""
        if self.regime == "tokens":
            return dict.fromkeys(tokens_per_byte, self.steps)
        mean = math.fsum(tokens_per_byte.values()) / len(tokens_per_byte)
        return {n: max(1, round(self.steps * tpb / mean)) for n, tpb in tokens_per_byte.items()}

    def cut_to(self, fit: int) -> Config:
        """The calibration's settings: at most ``fit`` steps, the warmup at most a tenth."""
        return replace(self, steps=min(self.steps, fit), warmup=min(self.warmup, fit // 10))

    def warmed_up(self, steps: int) -> int:
        """The step at which a model of ``steps`` steps ends its warmup (gpt.train_config), the
        preset's or, for a shorter model, its last: the trend's line fits from there."""
        return min(self.warmup, steps)

    def model_words(self) -> str:
        """The model and its training in words, for results.json and results.md."""
        return (
            f"{self.layers} layers, {self.heads} heads, width {self.width}, context "
            f"{self.context}, dropout {self.dropout}, batch {self.batch}, AdamW lr {self.lr} "
            f"cosine to {self.min_lr}, warmup {self.warmup}"
            + (f"; composed embeddings ({self.composed})" if self.composed else "")
            + (f"; each training pass sampled (alpha {self.sampling})" if self.sampling else "")
        )


#: The fields a preset file may set, in order.
PRESET_KEYS = tuple(f.name for f in fields(Config) if f.metadata["preset"])
