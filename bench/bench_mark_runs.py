"""Encode time on one long run of combining marks: brahmic_pua against stock spm, same model.

Why: N includes NFC, and canonical ordering, as CPython's ``unicodedata.normalize`` does it,
is an insertion sort, quadratic in a run of marks that it reorders. A single line of
``'క' + '఼్' * k`` or ``'a' + '\\u0301\\u0323' * k`` (marks of two classes, out of order) once
took seconds to minutes; stock spm, which applies no canonical ordering, takes milliseconds.
Both are timed on the same brahmic_pua model (stock loads it as a plain spm model), best of 3
in alternation (``common.best_of``); the ratio should stay flat as k doubles.

    python bench/bench_mark_runs.py [--sizes 60000 120000 240000 480000]
"""

from __future__ import annotations

import argparse
import tempfile
from functools import partial
from pathlib import Path

import sentencepiece as stock

import brahmic_pua
from brahmic_pua.trainer import train_model

from common import CORPORA, best_of

RUNS = {"telugu": ("క", "఼్"), "latin": ("a", "\u0301\u0323")}


def build_model(folder: Path) -> str:
    """A small unigram model on the first lines of te.train (the bench times encode only)."""
    lines = (CORPORA / "te.train.txt").read_text(encoding="utf-8").split("\n")[:3000]
    corpus = folder / "train.txt"
    corpus.write_text("\n".join(lines) + "\nabc a\u0301\u0323\n", encoding="utf-8")
    prefix = str(folder / "m")
    train_model(input=str(corpus), model_prefix=prefix, vocab_size=2000)
    return prefix + ".model"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[60000, 120000, 240000, 480000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        model = build_model(Path(tmp))
        ours = brahmic_pua.SentencePieceProcessor(model_file=model)
        raw = stock.SentencePieceProcessor(model_file=model)
        print(f"{'run':8}{'chars':>9}{'brahmic_pua (s)':>17}{'stock (s)':>11}{'ratio':>9}")
        for name, (base, pair) in RUNS.items():
            for size in args.sizes:
                text = base + pair * ((size - len(base)) // len(pair))
                best = best_of(
                    {"ours": partial(ours.encode, text), "stock": partial(raw.encode, text)},
                    args.repeat,
                )
                mine, theirs = best["ours"][0], best["stock"][0]
                ratio = mine / theirs if theirs else float("inf")
                print(f"{name:8}{len(text):9}{mine:17.3f}{theirs:11.4f}{ratio:9.1f}")


if __name__ == "__main__":
    main()
