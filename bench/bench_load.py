"""Load and encode time of a nepali-lm model against stock SentencePiece on the same file, and
the same for a model whose folding table is as large and as adversarial as a manifest may hold.

    python bench/bench_load.py [--lines 3000] [--repeat 5]

The first model is trained on ne.train.txt (minus its last --lines lines, which are encoded)
with the shipped Nepali folding table; the second on hi.sample with 128 folding rules of 32 code
points whose patterns all share a 31-character prefix: the worst case for the fold (every
position of a line of ``a`` walks 31 characters of the table) and for the check of the table
that every load runs. Loading a brahmic_pua model parses its manifest and checks it and its
folding table; encoding applies N in Python before stock spm runs. Times are the best of
--repeat runs taken in alternation (stock, ours, stock, ours…), so both see the same load;
ratios are brahmic_pua ÷ stock.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import sentencepiece as stock

import brahmic_pua
from brahmic_pua.io.lines import file_lines

from common import CORPORA, best_of

SAMPLE = Path(brahmic_pua.__file__).parent / "data" / "hi.sample.txt"


def compare(label: str, model: str, lines: list[str], repeat: int) -> None:
    ours, theirs = (
        brahmic_pua.SentencePieceProcessor(model_file=model),
        stock.SentencePieceProcessor(model_file=model),
    )
    assert ours.encode(lines) == theirs.encode(lines), "stock and brahmic_pua disagree"
    load = best_of(
        {
            "stock": lambda: stock.SentencePieceProcessor(model_file=model),
            "ours": lambda: brahmic_pua.SentencePieceProcessor(model_file=model),
        },
        repeat,
    )
    encode = best_of(
        {"stock": lambda: theirs.encode(lines), "ours": lambda: ours.encode(lines)}, repeat
    )
    chars = sum(map(len, lines))
    print(f"\n{label}: {len(lines):,} lines, {chars:,} characters")
    for name, best in (("load", load), ("encode", encode)):
        times = {key: seconds for key, (seconds, _) in best.items()}
        print(
            f"  {name:6}  stock {times['stock'] * 1000:9.2f} ms   brahmic_pua "
            f"{times['ours'] * 1000:9.2f} ms   ratio {times['ours'] / times['stock']:6.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    news = list(file_lines(CORPORA / "ne.train.txt"))
    train, held = news[: -args.lines], news[-args.lines :]
    with tempfile.TemporaryDirectory() as work:
        brahmic_pua.SentencePieceTrainer.train(
            sentence_iterator=iter(train[:60_000]),
            model_prefix=f"{work}/lm",
            vocab_size=8000,
            normalization="nepali-lm",
            progress=False,
        )
        compare(
            "nepali-lm model, shipped folding table, held-out news",
            f"{work}/lm.model",
            held,
            args.repeat,
        )
        table = Path(work) / "worst.tsv"
        rules = [f"{'a' * 31}{chr(0x100 + i)}\tb" for i in range(128)]
        table.write_text("\n".join(rules) + "\n", encoding="utf-8")
        brahmic_pua.SentencePieceTrainer.train(
            input=str(SAMPLE),
            model_prefix=f"{work}/worst",
            vocab_size=1000,
            normalization="nepali-lm",
            folding_rules=str(table),
            progress=False,
        )
        compare(
            "128 rules of 32 code points, one line of 10,240 'a'",
            f"{work}/worst.model",
            ["a" * 10_240],
            args.repeat,
        )


if __name__ == "__main__":
    main()
