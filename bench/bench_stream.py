"""Streaming decode against plain decode: ids per second, and the ratios.

    python bench/bench_stream.py [--lines 2000] [--model PATH ...]

Without ``--model`` trains two 8000-piece Unigram models on te.train (a brahmic_pua one and a
stock spm one with byte fallback). Ids come from the last ``--lines`` lines of te.extra (news,
held out). For each model, best of 3, the ways taken in alternation:
``batch``: one ``decode`` call for every line (spm's own speed); ``per line``: one call a line;
``stream 1``/``stream 4``: a stream decoder fed one id (four ids) at a time, one ``flush`` a
line; ``prefix``: ``decode`` of the whole prefix after every id (the quadratic way). The same
runs on one long document (the lines joined; ``prefix`` on its first 3,000 ids only) show that
streaming stays linear. ``runs without end``: degenerate output, one cluster thousands of
characters long (క్ repeated, U+0951 stacked on a base in byte pieces), fed one id at a time
under the default policy: twice the ids take about twice the time (the decoder holds at most
``HOLD_LIMIT`` characters of a cluster).
"""

from __future__ import annotations

import argparse
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

import sentencepiece as stock

import brahmic_pua
from brahmic_pua.io.lines import file_lines
from brahmic_pua.runtime.stream import stream_decoder
from brahmic_pua.trainer import train_model

from common import CORPORA, best_of

REPEAT = 3


def streamed(processor: Any, rows: list[list[int]], step: int) -> None:
    decoder = stream_decoder(processor)
    for ids in rows:
        for i in range(0, len(ids), step):
            decoder.feed(ids[i : i + step] if step > 1 else ids[i])
        decoder.flush()


def prefixes(processor: Any, rows: list[list[int]]) -> None:
    for ids in rows:
        for i in range(1, len(ids) + 1):
            processor.decode(ids[:i])


def speeds(processor: Any, data: list[list[int]], prefix_ids: int | None) -> dict[str, float]:
    """Ids per second of each way; ``prefix`` on the first ``prefix_ids`` ids of each row."""
    short = [ids[:prefix_ids] for ids in data]
    runs = {
        "batch": lambda: processor.decode(data),
        "per line": lambda: [processor.decode(ids) for ids in data],
        "stream 1": lambda: streamed(processor, data, 1),
        "stream 4": lambda: streamed(processor, data, 4),
        "prefix": lambda: prefixes(processor, short),
    }
    count = sum(map(len, data))
    counts = {key: count for key in runs} | {"prefix": sum(map(len, short))}
    return {key: counts[key] / seconds for key, (seconds, _) in best_of(runs, REPEAT).items()}


#: Degenerate model output: base, the unit repeated, copies (each pair of counts doubles).
RUNS = (
    ("", "క్", 2000),
    ("", "క్", 4000),
    ("", "క్", 8000),
    ("క", "\u0951", 16000),
    ("క", "\u0951", 32000),
)


def runs_without_end(processor: Any) -> None:
    print("  runs without end (stream 1, akshara):")
    for base, unit, copies in RUNS:
        ids = processor.encode(base + unit * copies)
        timings = best_of(
            {
                "stream": partial(streamed, processor, [ids], 1),
                "decode": partial(processor.decode, ids),
            },
            REPEAT,
        )
        print(
            f"    {unit!a}×{copies:<6,} {len(ids):7,} ids   stream {timings['stream'][0]:7.3f} s"
            f"   decode {timings['decode'][0]:7.4f} s"
        )


def measure(name: str, processor: Any, lines: list[str]) -> None:
    rows = processor.encode(lines)
    document = [[i for row in rows for i in row]]
    print(f"\n{name}: {sum(map(len, rows)):,} ids in {len(rows):,} lines")
    for label, data, prefix_ids in (("lines", rows, None), ("one document", document, 3000)):
        print(f"  {label} (prefix: {f'its first {prefix_ids:,} ids' if prefix_ids else 'all'}):")
        speed = speeds(processor, data, prefix_ids)
        for key, ids_per_s in speed.items():
            batch, line = speed["batch"] / ids_per_s, speed["per line"] / ids_per_s
            print(
                f"    {key:9} {ids_per_s:12,.0f} ids/s"
                f"   batch/this {batch:6.1f}×   per line/this {line:6.2f}×"
            )
    runs_without_end(processor)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--model", action="append", default=[])
    args = parser.parse_args()
    news = list(file_lines(CORPORA / "te.extra.txt"))[-args.lines :]
    with tempfile.TemporaryDirectory() as work:
        paths = [Path(path) for path in args.model]
        if not paths:
            train_model(
                input=str(CORPORA / "te.train.txt"),
                model_prefix=f"{work}/brahmic",
                vocab_size=8000,
                model_type="unigram",
            )
            stock.SentencePieceTrainer.train(
                input=str(CORPORA / "te.train.txt"),
                model_prefix=f"{work}/stock",
                vocab_size=8000,
                byte_fallback=True,
                minloglevel=2,
            )
            paths = [Path(f"{work}/brahmic.model"), Path(f"{work}/stock.model")]
        for path in paths:
            processor = brahmic_pua.SentencePieceProcessor(model_file=str(path))
            if processor.is_brahmic:
                measure(f"{path.name} (brahmic_pua)", processor, news)
            else:  # a plain model, decoded by stock sentencepiece itself
                plain = stock.SentencePieceProcessor(model_file=str(path))
                measure(f"{path.name} (stock spm)", plain, news)


if __name__ == "__main__":
    main()
