"""Fertility of brahmic_pua against plain SentencePiece on text the models did not see (issue #11).

    python bench/bench_fertility.py [--vocab_size 8000] [--languages te,ne] [--option name=value]

Telugu: both tokenizers train on te.train.txt minus every 20th line; in-domain is those held-out
lines (Wikipedia), out-of-domain is the news tail of te.extra.txt (its last --news_lines lines)
and all of te.extra.txt (recent Wikipedia extracts and news). Nepali: both train on the first
--ne_train_lines of ne.train.txt and are measured on the next --ne_held_lines: held out, but the
same source (onlinekhabar news; the corpora hold no other Nepali text).

Plain spm is stock sentencepiece with lossless options, as in bench_spm.py and
examples/nepali/run.py: identity normalization, byte_fallback, split_digits, no whitespace
collapsing, character_coverage 1.0. brahmic_pua trains with its defaults plus any --option.
Fertility is tokens per whitespace word; the ratio is brahmic_pua ÷ plain, which is also the NSL
against plain spm (same texts, same words). Target: ratio ≤ 1.05.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sentencepiece as spm

import brahmic_pua
from brahmic_pua.evaluation.metrics import fertility
from brahmic_pua.io.lines import file_lines
from brahmic_pua.trainer import train_model

from common import CORPORA, RAW_SPM_OPTIONS

TARGET = 1.05


@dataclass(frozen=True)
class Task:
    language: str
    train: list[str]
    held: dict[str, list[str]]  # name → lines, in-domain first


def telugu(news_lines: int) -> Task:
    lines = list(file_lines(CORPORA / "te.train.txt"))
    extra = list(file_lines(CORPORA / "te.extra.txt"))
    held = [line for i, line in enumerate(lines) if i % 20 == 0 and line.strip()]
    return Task(
        "te",
        [line for i, line in enumerate(lines) if i % 20],
        {"wiki (in-domain)": held, "news tail": extra[-news_lines:], "te.extra all": extra},
    )


def nepali(train_lines: int, held_lines: int) -> Task:
    lines = list(file_lines(CORPORA / "ne.train.txt"))
    held = lines[train_lines : train_lines + held_lines]
    return Task("ne", lines[:train_lines], {"news (same source)": held})


def train_plain(lines: Sequence[str], prefix: str, **options: Any) -> spm.SentencePieceProcessor:
    """Stock spm with the lossless options the project's other baselines use."""
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_prefix=prefix,
        minloglevel=2,
        **RAW_SPM_OPTIONS,
        **options,
    )
    return spm.SentencePieceProcessor(model_file=prefix + ".model")


def train_ours(
    lines: Sequence[str], prefix: str, **options: Any
) -> brahmic_pua.SentencePieceProcessor:
    train_model(sentence_iterator=iter(lines), model_prefix=prefix, **options)
    return brahmic_pua.SentencePieceProcessor(model_file=prefix + ".model")


def option_value(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"write --option as name=value, not {text!r}")
    return name, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vocab_size", type=int, default=8000)
    parser.add_argument("--languages", default="te,ne")
    parser.add_argument("--model_types", default="unigram,bpe")
    parser.add_argument("--news_lines", type=int, default=3000)
    parser.add_argument("--ne_train_lines", type=int, default=20000)
    parser.add_argument("--ne_held_lines", type=int, default=3000)
    parser.add_argument("--num_threads", type=int, default=2)
    parser.add_argument(
        "--option",
        type=option_value,
        action="append",
        default=[],
        help="an extra trainer option for brahmic_pua only, name=value (repeatable)",
    )
    args = parser.parse_args()
    extra = dict(args.option)
    tasks = {"te": lambda: telugu(args.news_lines)}
    tasks["ne"] = lambda: nepali(args.ne_train_lines, args.ne_held_lines)
    print(f"vocab {args.vocab_size}; brahmic_pua options: {extra or 'defaults'}\n")
    print("| language | model | held-out text | words | plain spm | brahmic_pua | ratio |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for language in args.languages.split(","):
        task = tasks[language]()
        for model_type in args.model_types.split(","):
            common = {
                "vocab_size": args.vocab_size,
                "model_type": model_type,
                "num_threads": args.num_threads,
            }
            with tempfile.TemporaryDirectory() as work:
                plain = train_plain(task.train, f"{work}/plain", **common)
                ours = train_ours(task.train, f"{work}/ours", **common, **extra)
            for name, held in task.held.items():
                words = sum(len(line.split()) for line in held)
                a = fertility(plain.encode(held), held)
                b = fertility(ours.encode(held), held)
                mark = "" if b / a <= TARGET else " ✗"
                print(
                    f"| {language} | {model_type} | {name} | {words:,} | {a:.4f} | {b:.4f} "
                    f"| {b / a:.3f}{mark} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
