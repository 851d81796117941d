"""Corpora, the tokenizers and the token streams they give.

Every line becomes its tokens followed by the model's end-of-sentence id, for every arm: the
line end is text the model must predict, so no arm gets its newline byte for free.
"""

from __future__ import annotations

import math
import os
import sys
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sentencepiece

import brahmic_pua
from brahmic_pua.io.lines import file_lines
from brahmic_pua.trainer import train_model

if TYPE_CHECKING:
    import torch

# The tests' rule (tests/conftest.py): the folder $BRAHMIC_PUA_CORPORA names, else
# ../shared/corpora beside the checkout (a checkout elsewhere, e.g. a git worktree, names it).
CORPORA = Path(
    os.environ.get("BRAHMIC_PUA_CORPORA")
    or Path(__file__).resolve().parents[3] / "shared" / "corpora"
)
TRAIN = CORPORA / "te.train.txt"
NEWS = CORPORA / "te.extra.txt"  # ends in news lines; its tail is never trained on
# Training text that --train-extra adds (licences: see README and ../shared/corpora/SOURCES.md).
EXTRA = {"wikisource": CORPORA / "te.wikisource.txt", "extra": NEWS}
ARMS = ("plain-unigram", "plain-bpe", "brahmic_pua-unigram", "brahmic_pua-bpe")
STOCK_ARMS = ("stock-unigram", "stock-bpe")


@dataclass(frozen=True)
class Arm:
    name: str
    kind: str  # "plain", "brahmic_pua" or "stock"
    model_type: str  # "unigram" or "bpe"
    processor: Any

    @property
    def vocab_size(self) -> int:
        return int(self.processor.get_piece_size())

    def encode(self, lines: list[str], **options: Any) -> list[list[int]]:
        """Ids per line, without the end-of-sentence id (what tokenizer metrics count);
        ``options`` go to the processor's encode (sampling, threads)."""
        return [list(row) for row in self.processor.encode(lines, **options)]

    def stream(self, lines: list[str], lead: bool = False, **options: Any) -> list[int]:
        """Ids of every line, each followed by eos; ``lead`` puts an eos first, the context
        from which the first line's first token is predicted; ``options`` as for encode."""
        eos = int(self.processor.eos_id())
        out = [eos] if lead else []
        for row in self.encode(lines, **options):
            out.extend(row)
            out.append(eos)
        return out


@dataclass
class Streams:
    """What every model trains on and is scored on, per arm (by name): its training stream, the
    first held-out file's stream and each further file's (each led by an eos), its training
    tokens per byte; and the held-out lines every checkpoint scores."""

    train: dict[str, torch.Tensor]
    heldout: dict[str, list[int]]
    further: dict[str, list[list[int]]]
    tokens_per_byte: dict[str, float]
    checkpoint_lines: list[str]

    @classmethod
    def of(
        cls, arms: list[Arm], train_text: list[str], texts: list[list[str]], checkpoint_lines: int
    ) -> Streams:
        """The streams of ``arms`` on the training text and the held-out ``texts`` (the first is
        the main one), the checkpoints scoring its first ``checkpoint_lines`` lines."""
        import torch  # here only: the tokenizers, their tables and the tests of them need none

        train = {a.name: torch.tensor(a.stream(train_text), dtype=torch.long) for a in arms}
        train_bytes = text_size(train_text)[0]
        return cls(
            train=train,
            heldout={a.name: a.stream(texts[0], lead=True) for a in arms},
            further={a.name: [a.stream(t, lead=True) for t in texts[1:]] for a in arms},
            tokens_per_byte={name: len(s) / train_bytes for name, s in train.items()},
            checkpoint_lines=texts[0][:checkpoint_lines],
        )


def read_lines(path: Path, limit: int | None = None, tail: bool = False) -> list[str]:
    """Non-empty lines of a corpus file: the first ``limit`` (or the last, with ``tail``)."""
    if not path.is_file():
        raise SystemExit(
            f"corpus not found: {path} (the checkout must sit beside shared/, or "
            "BRAHMIC_PUA_CORPORA name the corpora's folder)"
        )
    lines = list(file_lines(path, skip_blank=True))  # the trainer's line rule
    if limit is None:
        return lines
    return lines[-limit:] if tail else lines[:limit]


def heldout_texts(files: list[Path] | None, limit: int) -> list[list[str]]:
    """The held-out texts: one per file, its first ``limit`` non-empty lines, each file scored
    on its own; without files, te.extra's last ``limit`` lines. NFC'd once here so every arm
    scores exactly the same characters. A file with no line to score stops the run in one line
    (its bits per byte would divide by zero bytes)."""
    if not files:
        texts = [read_lines(NEWS, limit, tail=True)]
    else:
        seen: dict[tuple[int, int], Path] = {}
        for path in files:
            if not path.is_file():
                raise SystemExit(f"--heldout: {path} is not a file")
            info = path.stat()  # one file under two names: ./a.txt, a symbolic or hard link
            same = seen.setdefault((info.st_dev, info.st_ino), path)
            if same is not path:  # its lines would be scored twice, as two texts
                raise SystemExit(f"--heldout: {path} and {same} are the same file: give it once")
        texts = [read_lines(path, limit) for path in files]
        for path, lines in zip(files, texts, strict=True):
            if not lines:
                raise SystemExit(f"--heldout: {path} has no non-empty line to score")
    return [[unicodedata.normalize("NFC", line) for line in lines] for lines in texts]


def training_text(
    train_lines: int | None,
    extra: Sequence[str],
    heldout: Sequence[str],
    news_tail: int,
    base: Path = TRAIN,
) -> tuple[list[str], dict[str, dict[str, int]]]:
    """The first ``train_lines`` lines of ``base`` (te.train.txt), then each ``extra`` corpus in
    full, except what the held-out text is made of: te.extra's last ``news_tail`` lines (the default
    held-out slice) are cut, and any line that equals a held-out line (of any held-out file: give
    them all), as read or after NFC, is dropped. Returns the lines and, per source, lines kept
    and lines dropped as held-out."""
    sources = {base.name: read_lines(base, train_lines)}
    for name in extra:
        lines = read_lines(EXTRA[name])
        if EXTRA[name] == NEWS:
            lines = lines[: len(lines) - news_tail]
        sources[EXTRA[name].name] = lines
    held = set(heldout)
    kept: list[str] = []
    counts = {}
    for name, lines in sources.items():
        clean = [x for x in lines if x not in held and unicodedata.normalize("NFC", x) not in held]
        counts[name] = {"lines": len(clean), "dropped_as_heldout": len(lines) - len(clean)}
        kept.extend(clean)
    return kept, counts


@dataclass(frozen=True)
class ArmSpec:
    """How one arm's tokenizer is trained: ``kind`` plain (stock spm with lossless options),
    brahmic_pua (its trainer, with ``options`` beyond its defaults) or stock (spm's defaults)."""

    name: str
    kind: str
    model_type: str
    options: tuple[tuple[str, Any], ...] = ()
    note: str = ""


def _specs() -> dict[str, ArmSpec]:
    specs = {}
    for t in ("unigram", "bpe"):
        specs[f"plain-{t}"] = ArmSpec(f"plain-{t}", "plain", t, note="spm, lossless options")
        specs[f"brahmic_pua-{t}"] = ArmSpec(
            f"brahmic_pua-{t}", "brahmic_pua", t, note="brahmic_pua trainer, its defaults"
        )
        specs[f"stock-{t}"] = ArmSpec(f"stock-{t}", "stock", t, note="spm, default options")
        specs[f"brahmic_pua-{t}-akshara"] = ArmSpec(
            f"brahmic_pua-{t}-akshara",
            "brahmic_pua",
            t,
            (("policy", "akshara"),),
            "policy=akshara (conjuncts C virama C are one cluster)",
        )
        specs[f"brahmic_pua-{t}-cov0.9995"] = ArmSpec(
            f"brahmic_pua-{t}-cov0.9995",
            "brahmic_pua",
            t,
            (("character_coverage", 0.9995),),
            "character_coverage=0.9995 instead of the planned alphabet (byte fallback keeps "
            "it lossless)",
        )
    # complete_word_starts is a Unigram pass; BPE models are left alone by it
    specs["brahmic_pua-unigram-nostarts"] = ArmSpec(
        "brahmic_pua-unigram-nostarts",
        "brahmic_pua",
        "unigram",
        (("complete_word_starts", False),),
        "complete_word_starts=False",
    )
    return specs


#: Every arm --arms can name; a non-plain arm is compared with the plain arm of its model type.
ARM_SPECS = _specs()


def train_arm(spec: ArmSpec, lines: list[str], vocab_size: int, folder: Path) -> Arm:
    """The arm's tokenizer: loaded from ``folder/<name>.model`` when a run in the same output
    folder trained it already (a resumed run must use the very same tokenizer), else trained
    on ``lines`` and written there."""
    folder.mkdir(parents=True, exist_ok=True)
    prefix = folder / spec.name
    model = Path(f"{prefix}.model")
    if not model.is_file():
        _train_tokenizer(spec, lines, vocab_size, prefix)
    if spec.kind == "brahmic_pua":
        processor: Any = brahmic_pua.SentencePieceProcessor(model_file=str(model))
    else:
        processor = sentencepiece.SentencePieceProcessor(model_file=str(model))
    return Arm(spec.name, spec.kind, spec.model_type, processor)


def _train_tokenizer(spec: ArmSpec, lines: list[str], vocab_size: int, prefix: Path) -> None:
    """Train into a temporary prefix, then move the files into place, so that an interrupted
    training never leaves a half-written model that a resumed run would load."""
    print(f"training {spec.name} tokenizer ({vocab_size})", file=sys.stderr)
    part = prefix.with_name(prefix.name + ".part")
    common: dict[str, Any] = {
        "sentence_iterator": iter(lines),
        "model_prefix": str(part),
        "vocab_size": vocab_size,
        "model_type": spec.model_type,
    }
    if spec.kind == "plain":
        sentencepiece.SentencePieceTrainer.train(
            **common,
            normalization_rule_name="identity",
            byte_fallback=True,
            remove_extra_whitespaces=False,
            split_digits=True,
            character_coverage=1.0,
            minloglevel=2,
        )
    elif spec.kind == "stock":
        sentencepiece.SentencePieceTrainer.train(**common, minloglevel=2)
    else:
        train_model(**common, **dict(spec.options))
    for ext in ("model", "vocab"):
        Path(f"{part}.{ext}").replace(f"{prefix}.{ext}")


def train_arms(lines: list[str], vocab_size: int, work: Path, stock: bool = False) -> list[Arm]:
    """The four tokenizers at one vocabulary size, all trained on ``lines``; with ``stock``,
    also spm Unigram and BPE with sentencepiece's default options (nmt_nfkc normalization,
    no byte fallback, extra whitespace removed, character coverage 0.9995): what a user gets
    without asking for losslessness."""
    names = ARMS + (STOCK_ARMS if stock else ())
    return [train_arm(ARM_SPECS[name], lines, vocab_size, work) for name in names]


def per_line(values: list[float], rows: list[list[int]]) -> list[float]:
    """Per-token values (NLL of a stream after its leading end-of-sentence id, as ``score``
    gives them) summed per line: each line's tokens and the end-of-sentence id after them."""
    sums, at = [], 0
    for row in rows:
        sums.append(math.fsum(values[at : at + len(row) + 1]))
        at += len(row) + 1
    if at != len(values):
        raise ValueError(f"{at} tokens in the lines, {len(values)} values")
    return sums


def line_bytes(lines: list[str]) -> list[int]:
    """UTF-8 bytes of each line with its line end: what the model predicts for that line."""
    return [len(line.encode("utf-8")) + 1 for line in lines]


def text_size(lines: list[str]) -> tuple[int, int]:
    """(UTF-8 bytes, characters) of the lines with their line ends: what the models predict."""
    return sum(line_bytes(lines)), sum(len(line) + 1 for line in lines)
