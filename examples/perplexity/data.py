"""Corpora, the four tokenizers and the token streams they give.

Every line becomes its tokens followed by the model's end-of-sentence id, for every arm: the
line end is text the model must predict, so no arm gets its newline byte for free.
"""

from __future__ import annotations

import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sentencepiece

import brahmic_pua
from brahmic_pua.trainer import train_model

CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"
TRAIN = CORPORA / "te.train.txt"
NEWS = CORPORA / "te.extra.txt"  # ends in news lines; its tail is never trained on
ARMS = ("plain-unigram", "plain-bpe", "brahmic_pua-unigram", "brahmic_pua-bpe")


@dataclass(frozen=True)
class Arm:
    name: str
    kind: str  # "plain" or "brahmic_pua"
    model_type: str  # "unigram" or "bpe"
    processor: Any

    @property
    def vocab_size(self) -> int:
        return int(self.processor.get_piece_size())

    def encode(self, lines: list[str]) -> list[list[int]]:
        """Ids per line, without the end-of-sentence id (what tokenizer metrics count)."""
        return [list(row) for row in self.processor.encode(lines)]

    def stream(self, lines: list[str], lead: bool = False) -> list[int]:
        """Ids of every line, each followed by eos; ``lead`` puts an eos first, the context
        from which the first line's first token is predicted."""
        eos = int(self.processor.eos_id())
        out = [eos] if lead else []
        for row in self.encode(lines):
            out.extend(row)
            out.append(eos)
        return out


def read_lines(path: Path, limit: int | None = None, tail: bool = False) -> list[str]:
    """Non-empty lines of a corpus file: the first ``limit`` (or the last, with ``tail``)."""
    if not path.is_file():
        raise SystemExit(f"corpus not found: {path} (the checkout must sit beside shared/)")
    with open(path, encoding="utf-8-sig") as f:
        lines = [line.rstrip("\r\n") for line in f]
    lines = [line for line in lines if line.strip()]
    if limit is None:
        return lines
    return lines[-limit:] if tail else lines[:limit]


def heldout_lines(files: list[Path] | None, limit: int) -> list[str]:
    """Held-out text, NFC'd once here so every arm scores exactly the same characters."""
    if files:
        lines = [line for path in files for line in read_lines(path)][:limit]
    else:
        lines = read_lines(NEWS, limit, tail=True)
    return [unicodedata.normalize("NFC", line) for line in lines]


def train_arms(lines: list[str], vocab_size: int, work: Path) -> list[Arm]:
    """The four tokenizers at one vocabulary size, all trained on ``lines``."""
    arms = []
    for model_type in ("unigram", "bpe"):
        prefix = work / f"plain_{model_type}"
        print(f"training plain spm {model_type} ({vocab_size})", file=sys.stderr)
        sentencepiece.SentencePieceTrainer.train(
            sentence_iterator=iter(lines), model_prefix=str(prefix), vocab_size=vocab_size,
            model_type=model_type, normalization_rule_name="identity", byte_fallback=True,
            remove_extra_whitespaces=False, split_digits=True, character_coverage=1.0,
            minloglevel=2,
        )  # fmt: skip
        plain = sentencepiece.SentencePieceProcessor(model_file=f"{prefix}.model")
        arms.append(Arm(f"plain-{model_type}", "plain", model_type, plain))
    for model_type in ("unigram", "bpe"):
        prefix = work / f"pua_{model_type}"
        print(f"training brahmic_pua {model_type} ({vocab_size})", file=sys.stderr)
        train_model(
            sentence_iterator=iter(lines), model_prefix=str(prefix), vocab_size=vocab_size,
            model_type=model_type,
        )  # fmt: skip
        ours = brahmic_pua.SentencePieceProcessor(model_file=f"{prefix}.model")
        arms.append(Arm(f"brahmic_pua-{model_type}", "brahmic_pua", model_type, ours))
    return arms


def text_size(lines: list[str]) -> tuple[int, int]:
    """(UTF-8 bytes, characters) of the lines with their line ends: what the models predict."""
    return (
        sum(len(line.encode("utf-8")) + 1 for line in lines),
        sum(len(line) + 1 for line in lines),
    )
