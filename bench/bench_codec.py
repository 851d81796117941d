"""Codec and segmentation throughput on real Telugu (issue #2 targets: encode ≥ 15 MB/s,
decode ≥ 50 MB/s on one core).

    python bench/bench_codec.py [--corpus ../shared/corpora/te.train.txt] [--repeat 5]

MB/s is megabytes of original UTF-8 text per second, best of ``--repeat`` runs (the machine is
shared and noisy; the best run is the least disturbed one). "cold" starts from a freshly loaded
codec, so every distinct word is encoded once from scratch; "warm" re-encodes with the codec's
word cache filled, as in a long training stream.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from brahmic_pua import POLICIES, PUACodec, segment

IDENTITY = {cp: chr(cp) for cp in range(0x0C00, 0x0C80)}
DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "te.train.txt"


def best_seconds(
    run: Callable[[], object], repeat: int, setup: Callable[[], None] | None = None
) -> float:
    times = []
    for _ in range(repeat):
        if setup:
            setup()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    text = args.corpus.read_text(encoding="utf-8")
    lines = text.split("\n")
    megabytes = len(text.encode("utf-8")) / 1e6
    print(f"corpus {args.corpus.name}: {megabytes:.2f} MB, {len(lines):,} lines")

    start = time.perf_counter()
    built = PUACodec.build(lines)
    print(f"build: {time.perf_counter() - start:.2f} s -> {built!r}")
    document = built.to_json()
    encoded = built.encode(text)
    assert built.decode(encoded) == text

    state: dict[str, PUACodec] = {}

    def fresh() -> None:
        state["codec"] = PUACodec.from_json(document)

    rows = [
        (
            "encode, whole text, cold",
            best_seconds(lambda: state["codec"].encode(text), args.repeat, fresh),
            15,
        ),
        (
            "encode, line by line, cold",
            best_seconds(lambda: [state["codec"].encode(x) for x in lines], args.repeat, fresh),
            15,
        ),
        ("encode, whole text, warm", best_seconds(lambda: built.encode(text), args.repeat), 15),
        ("decode, whole text", best_seconds(lambda: built.decode(encoded), args.repeat), 50),
        (
            "decode, line by line",
            best_seconds(lambda: [built.decode(x) for x in encoded.split("\n")], args.repeat),
            50,
        ),
    ]
    reference = best_seconds(lambda: text.translate(IDENTITY), args.repeat)
    print(
        f"\nmachine speed now: str.translate (identity) runs at {megabytes / reference:.0f} MB/s "
        "(a C loop; compare runs by it)"
    )
    print(f"{'operation':34} {'MB/s':>7} {'target':>7} {'ratio':>6}")
    for name, seconds, target in rows:
        rate = megabytes / seconds
        print(f"{name:34} {rate:7.1f} {target:7d} {rate / target:6.2f}")
    print()
    for policy in POLICIES:
        seconds = best_seconds(partial(segment, text, policy), max(1, args.repeat // 2))
        print(f"segment {policy:26} {megabytes / seconds:7.1f}")


if __name__ == "__main__":
    main()
