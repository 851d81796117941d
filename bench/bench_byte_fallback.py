"""The byte-fallback decision of issue #6, measured: which clusters should keep a code?

    python bench/bench_byte_fallback.py A 8000 unigram
    python bench/bench_byte_fallback.py B 8000 unigram

A: every cluster seen plus the closed sets keeps a code (the design before issue #6), so a
cluster without a piece is spelled in the bytes of its private code. B (brahmic_pua today):
only clusters that get a piece keep a code; the rest stay text and are spelled by their longest
known prefix and the bytes of their own marks. Both train on te.train + the first 20,000 lines
of ne.train; held out: the last 3,000 lines of te.extra (news) and of ne.train. Prints model
size, fertility, byte-fallback tokens per 1000, byte runs that stand for a private code, and
the round-trip rate.
"""

from __future__ import annotations

import argparse
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

import brahmic_pua
import brahmic_pua.trainer.train as training
from brahmic_pua.evaluation.metrics import (
    byte_fallback_per_1000,
    fertility,
    private_code_byte_runs,
    round_trip_rate,
)
from brahmic_pua.io.lines import file_lines

from common import CORPORA, timed


def keep_every_cluster() -> None:
    """Arm A: the closed sets in the codec (the trainer leaves them out since issue 41) and no
    pruning before or after training."""
    counted = brahmic_pua.PUACodec.from_counts

    def with_closed_sets(counts: Any, policy: str, scripts: Any = None, _: bool = False) -> Any:
        return counted(counts, policy, scripts, True)

    vars(training).update(  # the trainer's module names, replaced for this run
        coded_clusters=lambda codec, symbols, kept: [c for _, c in codec.code_pairs()],
        _drop_codes_without_piece=lambda model, codec, *rest: codec,
        PUACodec=type("ClosedSets", (brahmic_pua.PUACodec,), {"from_counts": with_closed_sets}),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("arm", choices=["A", "B"])
    parser.add_argument("vocab_size", type=int)
    parser.add_argument("model_type", choices=["unigram", "bpe"])
    args = parser.parse_args()
    if args.arm == "A":
        keep_every_cluster()
    te = list(file_lines(CORPORA / "te.train.txt"))
    ne = list(file_lines(CORPORA / "ne.train.txt"))
    news = list(file_lines(CORPORA / "te.extra.txt"))
    held = {"te news": news[-3000:], "ne held out": ne[-3000:]}
    with tempfile.TemporaryDirectory() as work:
        prefix = f"{work}/m"
        seconds, _ = timed(
            lambda: training.train_model(
                sentence_iterator=iter(te + ne[:20000]),
                model_prefix=prefix,
                vocab_size=args.vocab_size,
                model_type=args.model_type,
            )
        )
        size = Path(f"{prefix}.model").stat().st_size
        sp = brahmic_pua.SentencePieceProcessor(model_file=f"{prefix}.model")
    assert sp.codec is not None
    print(
        f"arm {args.arm}, {args.model_type} {args.vocab_size}: trained in {seconds:.1f} s, "
        f"{size / 1e6:.2f} MB, {len(sp.codec):,} clusters with a code"
    )
    for name, lines in held.items():
        rows = sp.encode(lines)
        expected = [unicodedata.normalize("NFC", line) for line in lines]
        print(
            f"  {name}: fertility {fertility(rows, lines):.4f}, byte-fallback tokens per 1000 "
            f"{byte_fallback_per_1000(rows, sp):.2f}, byte runs standing for a private code "
            f"{private_code_byte_runs(rows, sp)[1]}, round trip "
            f"{round_trip_rate(expected, sp.decode(rows)):.4f}"
        )


if __name__ == "__main__":
    main()
