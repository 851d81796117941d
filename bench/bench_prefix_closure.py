"""What closing a BPE table under prefixes moves: clusters with a code and tokens on held-out
text, for 8,000-piece Telugu and Nepali models and a 4,000-piece Hindi one, trained with and
without the closure side by side (without: the trainer's ``spellable`` replaced by the identity,
as brahmic_pua trained before 2026-12-06).

    python bench/bench_prefix_closure.py [te ne hi]

Held out as tests/peers/test_runtimes.py holds out: te.extra's first 2,000 lines for Telugu,
ne.train's last 1,800 lines for Nepali (trained on its first 20,000), the Hindi sample's last
1,500 lines.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any
from unittest.mock import patch

import brahmic_pua
import brahmic_pua.trainer.train as train
from brahmic_pua.model.manifest import read
from brahmic_pua.trainer import train_model

from common import CORPORA


def split(language: str) -> tuple[list[str], list[str]]:
    def lines(name: str) -> list[str]:
        return (CORPORA / name).read_text(encoding="utf-8").splitlines()

    if language == "te":
        return lines("te.train.txt"), [s for s in lines("te.extra.txt") if s.strip()][:2000]
    text = [s for s in lines(f"{language}.{'train' if language == 'ne' else 'sample'}.txt") if s]
    return (text[:20000], text[-1800:]) if language == "ne" else (text[:-1500], text[-1500:])


def measure(lines: list[str], held: list[str], vocab_size: int) -> tuple[int, int]:
    """(clusters with a code, tokens on ``held``) of a BPE model trained on ``lines``."""
    with tempfile.TemporaryDirectory() as work:
        prefix = f"{work}/m"
        options: dict[str, Any] = {"model_type": "bpe", "num_threads": 1}
        train_model(
            sentence_iterator=iter(lines), model_prefix=prefix, vocab_size=vocab_size, **options
        )
        data = Path(f"{prefix}.model").read_bytes()
    manifest = read(data, "model")[1]
    assert manifest is not None
    tokens = sum(map(len, brahmic_pua.SentencePieceProcessor(model_proto=data).encode(held)))
    return len(manifest.codec), tokens


def main() -> None:
    for language in sys.argv[1:] or ["te", "ne", "hi"]:
        lines, held = split(language)
        size = 4000 if language == "hi" else 8000
        with patch.object(train, "spellable", lambda clusters, policy, model_type: clusters):
            before = measure(lines, held, size)
        after = measure(lines, held, size)
        print(
            f"{language}: clusters {before[0]:,} -> {after[0]:,}, held-out tokens "
            f"{before[1]:,} -> {after[1]:,} ({len(held):,} lines)"
        )


if __name__ == "__main__":
    main()
