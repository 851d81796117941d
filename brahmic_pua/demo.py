"""``brahmic-pua demo``: train brahmic_pua and plain SentencePiece side by side on the sample
corpus that ships in the package, and show where plain spm cuts a cluster."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import sentencepiece as spm

from brahmic_pua.model.pieces import starts_with_mark
from brahmic_pua.processor import SentencePieceProcessor
from brahmic_pua.trainer import train_model

SAMPLES = ("te.sample.txt", "hi.sample.txt")
SHOWN_LENGTH = (30, 80)  # characters: long enough to show cuts, short enough to read
HELD_OUT_PER_LANGUAGE = 200


@dataclass(frozen=True)
class Comparison:
    text: str
    ours: list[str]
    plain: list[str]


def sample_lines() -> tuple[list[str], list[str]]:
    """(training lines, held-out lines) from the packaged sample corpus."""
    train: list[str] = []
    held: list[str] = []
    for name in SAMPLES:
        text = resources.files("brahmic_pua.data").joinpath(name).read_text(encoding="utf-8")
        lines = [line for line in text.splitlines() if line.strip()]
        train += lines[:-HELD_OUT_PER_LANGUAGE]
        held += lines[-HELD_OUT_PER_LANGUAGE:]
    return train, held


def orphan_rate(pieces: list[list[str]], is_byte: Callable[[str], bool]) -> float:
    """Orphan-mark tokens per 1000 tokens (byte-fallback tokens excluded from the count)."""
    total = sum(len(row) for row in pieces)
    orphans = sum(1 for row in pieces for p in row if not is_byte(p) and starts_with_mark(p))
    return 1000 * orphans / max(total, 1)


def _is_byte_piece(piece: str) -> bool:
    return piece.startswith("<0x") and piece.endswith(">") and len(piece) == 6


def run(vocab_size: int = 2000, model_type: str = "unigram") -> tuple[list[Comparison], str]:
    """Train both models; return the side-by-side sentences and a one-line summary."""
    train, held = sample_lines()
    options: dict[str, Any] = {
        "vocab_size": vocab_size, "model_type": model_type, "byte_fallback": True,
        "remove_extra_whitespaces": False, "split_digits": True, "minloglevel": 2,
    }  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="brahmic_pua_demo_") as work:
        ours_prefix, plain_prefix = str(Path(work, "ours")), str(Path(work, "plain"))
        train_model(sentence_iterator=iter(train), model_prefix=ours_prefix, **options)
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(train), model_prefix=plain_prefix,
            normalization_rule_name="identity", character_coverage=1.0, **options,
        )  # fmt: skip
        ours = SentencePieceProcessor(model_file=ours_prefix + ".model")
        plain = spm.SentencePieceProcessor(model_file=plain_prefix + ".model")
        ours_pieces = ours.encode(held, out_type=str)
        plain_pieces = plain.encode(held, out_type=str)
    shown: list[Comparison] = []
    for start in (0, HELD_OUT_PER_LANGUAGE):
        rows = range(start, start + HELD_OUT_PER_LANGUAGE)
        readable = [i for i in rows if SHOWN_LENGTH[0] <= len(held[i]) <= SHOWN_LENGTH[1]]
        shown += [Comparison(held[i], ours_pieces[i], plain_pieces[i]) for i in readable[:3]]
    summary = (
        f"held-out sentences: {len(held)}; orphan-mark tokens per 1000: "
        f"brahmic_pua {orphan_rate(ours_pieces, _is_byte_piece):.1f}, "
        f"plain spm {orphan_rate(plain_pieces, _is_byte_piece):.1f}; tokens: "
        f"brahmic_pua {sum(map(len, ours_pieces)):,}, plain spm {sum(map(len, plain_pieces)):,}"
    )
    return shown, summary


def mark(pieces: list[str]) -> str:
    """Pieces joined with spaces; a piece that starts with a dependent mark is shown «like this»."""
    return " ".join(f"«{p}»" if starts_with_mark(p) else p for p in pieces)
