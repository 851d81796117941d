"""How a suffix that begins with a vowel sign is spread over a vocabulary.

    python examples/perplexity/pieces.py DIR [--top 10]

DIR is a run's ``--out`` folder (its ``tokenizers/``). For the plain and brahmic_pua Unigram
tokenizers there: how many pieces begin with a combining mark (a vowel sign, virama, anusvara:
plain spm's pieces that start inside a cluster, which a brahmic_pua tokenizer cannot have), and
for plain's most frequent such pieces on the training text, how many pieces of each tokenizer
end in them. A plain tokenizer keeps a suffix such as ానికి once; a brahmic_pua one must keep it
with each consonant before it (లానికి, డానికి, …), which is why its tokens are spread over more
pieces at the same length (see README, "Why").
"""

from __future__ import annotations

import argparse
import sys
import unicodedata
from collections import Counter
from pathlib import Path

# Run as a file (``python examples/perplexity/pieces.py``), this folder is sys.path[0]: the
# repository root goes first, so that the experiment's modules import as one package,
# examples.perplexity, as tests and tools import them.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from examples.perplexity.attribution import piece_text
from examples.perplexity.data import ARM_SPECS, Arm, heldout_texts, train_arm, training_text


def shown(arm: Arm) -> list[str]:
    """Each id's text (attribution's rule: "▁" as a space; "" for byte and control pieces)."""
    processor = arm.processor
    return [piece_text(processor, i) or "" for i in range(processor.get_piece_size())]


def starts_with_mark(text: str) -> bool:
    text = text.lstrip(" ")
    return bool(text) and unicodedata.category(text[0]).startswith("M")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, help="a run's --out folder")
    parser.add_argument("--top", type=int, default=10, help="plain's most frequent mark pieces")
    args = parser.parse_args(argv)
    folder = args.out / "tokenizers"
    names = ("plain-unigram", "brahmic_pua-unigram")
    if not all((folder / f"{name}.model").is_file() for name in names):
        sys.exit(f"{folder} has no {names[0]}.model and {names[1]}.model: run run.py first")
    # the default training text, as run.py gives it (no tokenizer is trained here)
    train, _ = training_text(None, [], heldout_texts(None, 1000)[0], 1000)
    plain, ours = (train_arm(ARM_SPECS[name], train, 8000, folder) for name in names)
    texts = {arm.name: shown(arm) for arm in (plain, ours)}
    for name, pieces in texts.items():
        count = sum(map(starts_with_mark, pieces))
        print(f"{name}: {count:,} of {len(pieces):,} pieces begin with a mark")
    counts = Counter(plain.stream(train))
    marked = [i for i, text in enumerate(texts[plain.name]) if starts_with_mark(text)]
    print(f"\npieces that end in plain's {args.top} most frequent mark pieces (training text):")
    print(f"| suffix | its count | {plain.name} pieces | {ours.name} pieces | e.g. |")
    print("|---|---:|---:|---:|---|")
    for i in sorted(marked, key=lambda i: -counts[i])[: args.top]:
        suffix = texts[plain.name][i]
        ending = {name: [t for t in pieces if t.endswith(suffix)] for name, pieces in texts.items()}
        examples = ", ".join(t.replace(" ", "▁") for t in ending[ours.name][:5])
        print(
            f"| {suffix} | {counts[i]:,} | {len(ending[plain.name])} | "
            f"{len(ending[ours.name])} | {examples} |"
        )


if __name__ == "__main__":
    main()
