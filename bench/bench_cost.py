"""What brahmic_pua costs against raw SentencePiece, every row of issue 29's table in one run.

    python bench/bench_cost.py                    # every row but the large ones (about 15 min)
    python bench/bench_cost.py --rows train-te decode --repeat 5
    python bench/bench_cost.py --rows train-mix200-8k train-mix1g-8k   # 200 MB and 1 GB
    python bench/bench_cost.py --list             # the rows and what each runs

Raw spm is stock ``sentencepiece`` with identity normalization and ``character_coverage=1.0``
and brahmic_pua's other defaults (byte fallback, digits split, spaces kept), so both train the
same text with the same options; ``num_threads`` is the same for both (``--num_threads``,
default 1: spm's BPE trainer and brahmic_pua's counting get faster with more, unevenly).

Training rows run each training as a whole process, as a user runs it: ``brahmic-pua train``
(the CLI, start-up included) against ``python -c`` of stock's trainer; wall time, CPU time and
peak memory come from that process and its workers (bench/common.py's ``measured``). Decode and
the transformers row run in this process; the transformers row's raw is a plain fast tokenizer
(transformers' conversion of the raw model, bench/bench_hf_batch.py). Every row alternates raw
and ours (raw, ours, raw, ours…) and keeps the best of ``--repeat`` runs of each: the machine is
shared and noise only adds time (bench/common.py). Ratios are ours ÷ raw; a training row's ratio
is the median of its paired runs' ratios (each raw run and the ours run after it: a slow minute
hits both), the times beside it the best of each. The last column is the target (issue 41's for
BPE, issue 29's for the rest).

The large rows (200 MB, 1 GB) repeat the 50 MB mix, each copy's lines shuffled (a seeded
shuffle per copy, so every run of the benchmark trains the same text): spm's BPE trainer counts
whole lines' words, so a plain repeat would only multiply the counts. They are not in the default
run (a 1 GB row is an hour or more of both trainers on 2 cores, and several GB of memory).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brahmic_pua.segment.arrow_count import ARROW_MIN_BYTES, pyarrow_importable
from brahmic_pua.trainer.count_plan import COUNT_ENV

from common import CORPORA, RAW_SPM_OPTIONS, RAW_TRAIN, Measured, best_of, measured

#: Bytes of the mixed corpus for the 50 MB rows: every training corpus but te.extra (the
#: held-out text of the decode rows), repeated until the size is reached.
MIX_BYTES = 50_000_000
MIX_SOURCES = (
    "te.train.txt",
    "ne.train.txt",
    "te.wikisource.txt",
    "hi.sample.txt",
    "bn.sample.txt",
    "ta.sample.txt",
)
#: The large mixes: name -> bytes (the 50 MB mix, its lines shuffled anew in each copy).
LARGE_MIXES = {"mix200": 200_000_000, "mix1g": 1_000_000_000}
#: The held-out text of the decode rows: the first 4 MB of te.extra (news and recent wiki,
#: another domain than te.train, which the models train on).
DECODE_BYTES = 4_000_000


@dataclass(frozen=True)
class Training:
    """One training row: a corpus, a model type, a vocabulary size, the issue's target."""

    name: str
    corpus: str  # a file in the corpora, "mix" (MIX_BYTES of MIX_SOURCES), or a LARGE_MIXES name
    model_type: str
    vocab_size: int
    target: str


TRAININGS = [
    Training("train-te", "te.train.txt", "bpe", 8000, "≤ 1.30"),
    Training("train-ne", "ne.train.txt", "bpe", 16000, "≤ 1.0"),
    Training("train-mix-8k", "mix", "bpe", 8000, "≤ 1.10"),
    Training("train-mix-32k", "mix", "bpe", 32000, "≤ 1.05"),
    Training("unigram-te-32k", "te.train.txt", "unigram", 32000, "≤ 0.9"),
    Training("unigram-mix-8k", "mix", "unigram", 8000, "keep ≤ 0.7"),
    Training("unigram-mix-32k", "mix", "unigram", 32000, "keep ≤ 0.7"),
    Training("train-mix200-8k", "mix200", "bpe", 8000, "measured"),
    Training("train-mix1g-8k", "mix1g", "bpe", 8000, "measured"),
]
ROWS = [t.name for t in TRAININGS] + ["decode", "transformers"]
#: What runs without --rows: every row but the large mixes.
DEFAULT_ROWS = [row for row in ROWS if not row.startswith(("train-mix200", "train-mix1g"))]
#: Lines of te.extra the transformers row encodes as one batch.
HF_LINES = 2000


def corpus_file(name: str, work: Path) -> Path:
    """The corpus of a row: a file of the corpora, or a mix written once into ``work``."""
    if name in LARGE_MIXES:
        return large_mix(name, work)
    if name != "mix":
        return CORPORA / name
    path = work / "mix.txt"
    if not path.exists():
        parts, size = [], 0
        while size < MIX_BYTES:
            for source in MIX_SOURCES:
                data = (CORPORA / source).read_bytes()
                parts.append(data[: MIX_BYTES - size])
                size += len(parts[-1])
                if size >= MIX_BYTES:
                    break
        text = b"".join(parts)
        path.write_bytes(text[: text.rfind(b"\n") + 1])
    return path


def large_mix(name: str, work: Path) -> Path:
    """``LARGE_MIXES[name]`` bytes: copies of the 50 MB mix, copy k's lines shuffled with seed
    k, the last copy cut at a line end; written once into ``work``."""
    path = work / f"{name}.txt"
    if path.exists():
        return path
    lines = corpus_file("mix", work).read_bytes().splitlines(keepends=True)
    size, copy = 0, 0
    with open(path, "wb") as out:
        while size < LARGE_MIXES[name]:
            order = list(lines)
            random.Random(copy).shuffle(order)
            for line in order:
                out.write(line)
                size += len(line)
                if size >= LARGE_MIXES[name]:
                    break
            copy += 1
    return path


def compare_training(
    row: Training, work: Path, repeat: int, threads: int
) -> tuple[Measured, Measured, float]:
    """Raw and ours alternating, ``repeat`` times: the fastest of each (its memory beside) and
    the median of the paired wall-time ratios (ours ÷ the raw run just before it)."""
    corpus = corpus_file(row.corpus, work)
    launcher = Path(sys.executable).with_name("brahmic-pua")
    raw: dict[str, object] = {"input": str(corpus), "model_prefix": str(work / f"{row.name}-raw")}
    raw |= {"model_type": row.model_type, "vocab_size": row.vocab_size, "num_threads": threads}
    raw["minloglevel"] = 2
    raw_command = [sys.executable, "-c", RAW_TRAIN, json.dumps({**raw, **RAW_SPM_OPTIONS})]
    ours_command = [str(launcher), "train", "--input", str(corpus)]
    ours_command += ["--model_prefix", str(work / f"{row.name}-ours")]
    ours_command += ["--model_type", row.model_type, "--vocab_size", str(row.vocab_size)]
    ours_command += ["--num_threads", str(threads), "--progress=false"]
    best: dict[str, Measured] = {}
    ratios = []
    for _ in range(repeat):
        pair = {}
        for kind, command in (("raw", raw_command), ("ours", ours_command)):
            done = pair[kind] = measured(command)
            if kind not in best or done.wall < best[kind].wall:
                best[kind] = done
        ratios.append(pair["ours"].wall / pair["raw"].wall)
    return best["raw"], best["ours"], statistics.median(ratios)


def te_models(work: Path, threads: int) -> tuple[Path, Path]:
    """The raw and our te.train 8k BPE models of the first training row (trained here once
    where that row did not run)."""
    raw, ours = work / f"{TRAININGS[0].name}-raw.model", work / f"{TRAININGS[0].name}-ours.model"
    if not (raw.exists() and ours.exists()):
        compare_training(TRAININGS[0], work, 1, threads)
    return raw, ours


def compare_decode(work: Path, repeat: int, threads: int) -> dict[str, tuple[float, float]]:
    """Decode the held-out ids of te.train 8k BPE models: our processor on ours, stock on
    ours, each against stock on the raw model (in this process, alternating)."""
    import sentencepiece

    import brahmic_pua

    raw_path, ours_path = te_models(work, threads)
    data = (CORPORA / "te.extra.txt").read_bytes()[:DECODE_BYTES]
    lines = data[: data.rfind(b"\n")].decode("utf-8").split("\n")
    raw = sentencepiece.SentencePieceProcessor(model_file=str(raw_path))
    ours = brahmic_pua.SentencePieceProcessor(model_file=str(ours_path))
    stock_on_ours = sentencepiece.SentencePieceProcessor(model_file=str(ours_path))
    raw_ids, ours_ids = raw.encode(lines), ours.encode(lines)
    runs: dict[str, Callable[[], object]] = {
        "raw": lambda: raw.decode(raw_ids),
        "ours": lambda: ours.decode(ours_ids),
        "stock on ours": lambda: stock_on_ours.decode(ours_ids),
    }
    best = best_of(runs, repeat)
    assert best["ours"][1] == best["stock on ours"][1]  # the same text, both ways
    return {
        "decode, our processor": (best["raw"][0], best["ours"][0]),
        "decode, stock spm on our model": (best["raw"][0], best["stock on ours"][0]),
    }


def compare_transformers(work: Path, repeat: int, threads: int) -> dict[str, tuple[float, float]]:
    """``tok(lines)`` (and padded) of BrahmicPuaTokenizer on our te.train 8k BPE model against
    a plain fast tokenizer (transformers' SpmConverter of the raw model,
    bench/bench_hf_batch.py), on the first HF_LINES lines of te.extra."""
    from functools import partial
    from itertools import islice

    from bench_hf_batch import fast_tokenizer

    from brahmic_pua.hf import BrahmicPuaTokenizer
    from brahmic_pua.io.lines import file_lines

    raw_path, ours_path = te_models(work, threads)
    lines = list(islice(file_lines(CORPORA / "te.extra.txt"), HF_LINES))
    ours: Any = BrahmicPuaTokenizer(ours_path, pad_token="</s>")
    fast = fast_tokenizer(raw_path)
    found = {}
    for name, options in (("tok(lines)", {}), ("tok(lines, padding)", {"padding": True})):
        runs = {"fast": partial(fast, lines, **options), "ours": partial(ours, lines, **options)}
        best = best_of(runs, repeat)
        found[f"HF {name}"] = (best["fast"][0], best["ours"][0])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", nargs="+", choices=ROWS, default=DEFAULT_ROWS, metavar="ROW")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, best kept")
    parser.add_argument("--num_threads", type=int, default=1)
    parser.add_argument(
        "--count",
        choices=["auto", "python", "arrow"],
        default="auto",
        help=f"our trainer's count ({COUNT_ENV}): auto is Arrow from "
        f"{ARROW_MIN_BYTES >> 20} MB where pyarrow is installed (the arrow extra), python the "
        "pure count",
    )
    parser.add_argument("--list", action="store_true", help="print the rows and stop")
    args = parser.parse_args()
    if args.list:
        for row in TRAININGS:
            print(f"{row.name}: {row.model_type} {row.vocab_size} on {row.corpus}")
        print(f"decode: te.train 8k BPE models on the first {DECODE_BYTES:,} bytes of te.extra")
        print(f"transformers: the same models, a batch of the first {HF_LINES:,} lines of te.extra")
        return
    if args.count != "auto":
        os.environ[COUNT_ENV] = args.count  # the trainers' processes inherit it
    print(f"our count: {args.count}" + ("" if pyarrow_importable() else " (pyarrow not installed)"))
    if args.repeat < 3:
        print(f"note: best of {args.repeat}; the issue's numbers are best of 3 or more")
    header = f"{'row':34}{'corpus':>10}{'raw':>9}{'ours':>9}{'ratio':>8}  target"
    lines = [header, "-" * len(header)]
    with tempfile.TemporaryDirectory(prefix="bench_cost_") as folder:
        work = Path(folder)
        for row in TRAININGS:
            if row.name not in args.rows:
                continue
            size = corpus_file(row.corpus, work).stat().st_size / 1e6
            raw, ours, ratio = compare_training(row, work, args.repeat, args.num_threads)
            title = f"{row.model_type.upper() if row.model_type == 'bpe' else 'Unigram'} train"
            title += f" {row.vocab_size // 1000}k"
            lines.append(
                f"{title + ', ' + row.corpus:34}{size:>8.1f}MB{raw.wall:>8.2f}s{ours.wall:>8.2f}s"
                f"{ratio:>8.2f}  {row.target}"
            )
            lines.append(
                f"{'  CPU seconds':34}{'':>10}{raw.cpu:>8.2f}s{ours.cpu:>8.2f}s"
                f"{ours.cpu / raw.cpu:>8.2f}"
            )
            target = "≤ 1.20" if row.corpus == "mix" and row.model_type == "bpe" else ""
            lines.append(
                f"{'  peak RSS':34}{'':>10}{raw.peak_mb:>7.0f}MB{ours.peak_mb:>7.0f}MB"
                f"{ours.peak_mb / raw.peak_mb:>8.2f}  {target}"
            )
            print(lines[-3], lines[-2], lines[-1], sep="\n", flush=True)
        if "decode" in args.rows:
            targets = {"decode, our processor": "≤ 1.0", "decode, stock spm on our model": ""}
            decoded = compare_decode(work, args.repeat, args.num_threads)
            for name, (raw_s, ours_s) in decoded.items():
                lines.append(
                    f"{name:34}{DECODE_BYTES / 1e6:>8.1f}MB{raw_s:>8.3f}s{ours_s:>8.3f}s"
                    f"{ours_s / raw_s:>8.2f}  {targets[name]}"
                )
                print(lines[-1], flush=True)
        if "transformers" in args.rows:
            for name, (raw_s, ours_s) in compare_transformers(
                work, args.repeat, args.num_threads
            ).items():
                lines.append(
                    f"{name:34}{HF_LINES:>7,} ln{raw_s:>8.3f}s{ours_s:>8.3f}s"
                    f"{ours_s / raw_s:>8.2f}  ≤ 1.1 (raw = fast tokenizer)"
                )
                print(lines[-1], flush=True)
    print(f"\nours ÷ raw spm, {args.repeat} alternating runs (training: median paired ratio):")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
