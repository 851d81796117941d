"""``brahmic-pua demo``: train brahmic_pua and plain SentencePiece side by side on the sample
corpus that ships in the package, and show where plain spm cuts a cluster."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import sentencepiece as spm

from brahmic_pua.evaluation.metrics import byte_fallback_per_1000, orphan_marks_per_1000
from brahmic_pua.io.lines import split_text
from brahmic_pua.model.display import starts_with_mark
from brahmic_pua.runtime.processor import SentencePieceProcessor
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
        lines = [line for line in split_text(text) if line.strip()]
        train += lines[:-HELD_OUT_PER_LANGUAGE]
        held += lines[-HELD_OUT_PER_LANGUAGE:]
    return train, held


def run(vocab_size: int = 2000, model_type: str = "unigram") -> tuple[list[Comparison], str]:
    """Train both models; return the side-by-side sentences and a one-line summary."""
    train, held = sample_lines()
    options: dict[str, Any] = {
        "vocab_size": vocab_size,
        "model_type": model_type,
        "byte_fallback": True,
        "remove_extra_whitespaces": False,
        "split_digits": True,
        "minloglevel": 2,
    }
    with tempfile.TemporaryDirectory(prefix="brahmic_pua_demo_") as work:
        ours_prefix, plain_prefix = str(Path(work, "ours")), str(Path(work, "plain"))
        train_model(sentence_iterator=iter(train), model_prefix=ours_prefix, **options)
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(train),
            model_prefix=plain_prefix,
            normalization_rule_name="identity",
            character_coverage=1.0,
            **options,
        )
        ours = SentencePieceProcessor(model_file=ours_prefix + ".model")
        plain = spm.SentencePieceProcessor(model_file=plain_prefix + ".model")
        ours_ids, plain_ids = ours.encode(held), plain.encode(held)
        ours_pieces = ours.encode(held, out_type=str)
        plain_pieces = plain.encode(held, out_type=str)
    examples: list[Comparison] = []
    for start in (0, HELD_OUT_PER_LANGUAGE):
        rows = range(start, start + HELD_OUT_PER_LANGUAGE)
        readable = [i for i in rows if SHOWN_LENGTH[0] <= len(held[i]) <= SHOWN_LENGTH[1]]
        examples += [Comparison(held[i], ours_pieces[i], plain_pieces[i]) for i in readable[:3]]
    summary = (
        f"held-out sentences: {len(held)}; per 1000 tokens, orphan-mark tokens: brahmic_pua "
        f"{orphan_marks_per_1000(ours_ids, ours):.1f}, plain spm "
        f"{orphan_marks_per_1000(plain_ids, plain):.1f}; byte-fallback tokens: brahmic_pua "
        f"{byte_fallback_per_1000(ours_ids, ours):.1f}, plain spm "
        f"{byte_fallback_per_1000(plain_ids, plain):.1f}; tokens: brahmic_pua "
        f"{sum(map(len, ours_ids)):,}, plain spm {sum(map(len, plain_ids)):,}"
    )
    return examples, summary


def mark(pieces: list[str]) -> str:
    """Pieces joined with spaces; a piece that starts with a dependent mark is shown «like this»."""
    return " ".join(f"«{p}»" if starts_with_mark(p) else p for p in pieces)
