"""Codec and segmentation throughput on real Telugu (issue #2 targets: encode ≥ 15 MB/s,
decode ≥ 50 MB/s on one core).

    python bench/bench_codec.py [--corpus ../shared/corpora/te.train.txt] [--repeat 5]

MB/s is megabytes of original UTF-8 text per second, best of ``--repeat`` runs taken in
alternation (the machine is shared and noisy; the best run is the least disturbed one; see
bench/common.py). "cold" starts from a freshly loaded codec, so every distinct word is encoded
once from scratch; "warm" re-encodes with the codec's word cache filled, as in a long training
stream.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial
from pathlib import Path

from brahmic_pua import POLICIES, PUACodec, segment

from common import CORPORA, best_of, timed

IDENTITY = {cp: chr(cp) for cp in range(0x0C00, 0x0C80)}
DEFAULT_CORPUS = CORPORA / "te.train.txt"
#: MB/s targets of issue #2, by operation.
TARGETS = {"encode": 15, "decode": 50}
YARDSTICK = "str.translate"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    text = args.corpus.read_text(encoding="utf-8")
    lines = text.split("\n")
    megabytes = len(text.encode("utf-8")) / 1e6
    print(f"corpus {args.corpus.name}: {megabytes:.2f} MB, {len(lines):,} lines")

    seconds, built = timed(lambda: PUACodec.build(lines))
    print(f"build: {seconds:.2f} s -> {built!r}")
    document = built.to_json()
    encoded = built.encode(text)
    assert built.decode(encoded) == text

    state: dict[str, PUACodec] = {}

    def fresh() -> None:
        state["codec"] = PUACodec.from_json(document)

    # Cold runs start from a freshly loaded codec each (the setup, not timed); warm runs share
    # `built`, its word cache filled. Within each group the runs alternate, the yardstick too.
    cold: dict[str, Callable[[], object]] = {
        "encode, whole text, cold": lambda: state["codec"].encode(text),
        "encode, line by line, cold": lambda: [state["codec"].encode(x) for x in lines],
    }
    warm: dict[str, Callable[[], object]] = {
        "encode, whole text, warm": lambda: built.encode(text),
        "decode, whole text": lambda: built.decode(encoded),
        "decode, line by line": lambda: [built.decode(x) for x in encoded.split("\n")],
        YARDSTICK: lambda: text.translate(IDENTITY),
    }
    best = best_of(cold, args.repeat, setup=fresh) | best_of(warm, args.repeat)
    reference, _ = best.pop(YARDSTICK)
    print(
        f"\nmachine speed now: str.translate (identity) runs at {megabytes / reference:.0f} MB/s "
        "(a C loop; compare runs by it)"
    )
    print(f"{'operation':34} {'MB/s':>7} {'target':>7} {'ratio':>6}")
    for name, (seconds, _) in best.items():
        rate, target = megabytes / seconds, TARGETS[name.split(",")[0]]
        print(f"{name:34} {rate:7.1f} {target:7d} {rate / target:6.2f}")
    print()
    for policy in POLICIES:
        [(seconds, _)] = best_of(
            {policy: partial(segment, text, policy)}, max(1, args.repeat // 2)
        ).values()
        print(f"segment {policy:26} {megabytes / seconds:7.1f}")


if __name__ == "__main__":
    main()
