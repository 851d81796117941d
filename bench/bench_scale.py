"""Scaling, measured side by side in one run: peak memory and training time of brahmic_pua
against raw spm_train as the corpus grows (5 MB → 32 MB → 300 MB), and encode-corpus
throughput on one process, two processes and two Ray workers (ids compared byte for byte).

    python bench/bench_scale.py [--sizes 5,32,300] [--vocab_size 8000] [--model_type unigram]
        [--sample 1000000] [--work /tmp/brahmic_pua_scale] [--engines local,ray] [--no-encode]

Every training runs in a child process of its own, raw spm and brahmic_pua one after the other
on the same file with the same options, so both see the same machine load; peak RSS is the
child's ru_maxrss (os.wait4), or the RSS of the child and its worker processes together (sampled
every 20 ms) where that is higher. Raw spm is
``sentencepiece.SentencePieceTrainer.train(input=FILE)``, what spm_train runs, with the identity
normalizer and character_coverage=1.0; both get byte_fallback, split_digits, no whitespace
collapsing, the same max_sentence_length and num_threads. Corpora: 5 MB is te.train.txt, 32 MB
ne.train.txt, 300 MB every corpus in ../shared/corpora concatenated four times (written under
--work, never in the repository). Above 32 MB both train on ``input_sentence_size=--sample``
lines (``shuffle_input_sentence``): spm holds that sample in memory either way; brahmic_pua
counts clusters over the whole corpus first, streamed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from common import CORPORA, OURS_TRAIN, RAW_SPM_OPTIONS, RAW_TRAIN, measured

SIZES = {5: "te.train.txt", 32: "ne.train.txt"}
CLI = [sys.executable, "-m", "brahmic_pua.cli.main"]


def corpus_of(size: int, work: Path) -> Path:
    if size in SIZES:
        return CORPORA / SIZES[size]
    target = work / f"all_{size}mb.txt"
    if not target.exists():
        files = sorted(CORPORA.glob("*.txt"))
        total = sum(f.stat().st_size for f in files)
        copies = -(-size * 1_000_000 // total)
        partial = target.with_suffix(".partial")
        with open(partial, "wb") as out:
            for _ in range(copies):
                for name in files:
                    data = name.read_bytes()
                    out.write(data if data.endswith(b"\n") else data + b"\n")
        partial.rename(target)
    return target


def train_row(size: int, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    corpus = corpus_of(size, work)
    common: dict[str, Any] = {
        "input": str(corpus),
        "vocab_size": args.vocab_size,
        "model_type": args.model_type,
        "byte_fallback": True,
        "split_digits": True,
        "remove_extra_whitespaces": False,
        "max_sentence_length": 1 << 16,
        "num_threads": args.num_threads,
        "minloglevel": 2,
    }
    if size > max(SIZES):
        common.update(input_sentence_size=args.sample, shuffle_input_sentence=True)
    raw = {**common, **RAW_SPM_OPTIONS, "model_prefix": str(work / f"raw_{size}")}
    row: dict[str, Any] = {"size": size, "corpus": corpus.name, "mb": corpus.stat().st_size / 1e6}
    done = measured([sys.executable, "-c", RAW_TRAIN, json.dumps(raw)])
    row["raw"] = (done.wall, done.peak_mb)
    for engine in args.engines:  # one folder each: the model records its prefix's name
        (work / engine).mkdir(exist_ok=True)
        ours = {**common, "model_prefix": str(work / engine / f"ours_{size}"), "engine": engine}
        done = measured([sys.executable, "-c", OURS_TRAIN, json.dumps(ours)])
        row[engine] = (done.wall, done.peak_mb)
    if len(args.engines) > 1:
        models = [(work / e / f"ours_{size}.model").read_bytes() for e in args.engines]
        row["identical"] = all(m == models[0] for m in models)
    print(json.dumps(row), file=sys.stderr, flush=True)
    return row


def encode_rows(model: Path, corpus: Path, work: Path) -> list[tuple[str, float, bool]]:
    """encode-corpus on one file: 1 process, 2 processes, 2 Ray actors (when Ray is there)."""
    runs = [("local, 1 worker", ["--workers", "1"]), ("local, 2 workers", ["--workers", "2"])]
    if importlib.util.find_spec("ray") is not None:
        runs.append(("ray, 2 workers", ["--engine", "ray", "--workers", "2"]))
    rows, reference = [], None
    for name, extra in runs:
        out = work / f"shards_{name.replace(', ', '_').replace(' ', '')}"
        subprocess.run(["rm", "-rf", str(out)], check=True)
        command = [*CLI, "encode-corpus", "--model", str(model), "--output", str(out)]
        seconds = measured(
            [*command, *extra, str(corpus), "--shard-bytes", "4000000", "--progress=false"]
        ).wall
        files = {p.name: p.read_bytes() for p in sorted(out.glob("shard_*.npy"))}
        reference = files if reference is None else reference
        rows.append((name, seconds, files == reference))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="5,32,300")
    parser.add_argument("--vocab_size", type=int, default=8000)
    parser.add_argument("--model_type", default="unigram")
    parser.add_argument("--num_threads", type=int, default=2)
    parser.add_argument("--sample", type=int, default=1_000_000)
    parser.add_argument("--engines", default="local", help="local, or local,ray")
    parser.add_argument("--work", type=Path, default=Path("/tmp/brahmic_pua_scale"))
    parser.add_argument("--no-encode", dest="encode", action="store_false")
    args = parser.parse_args()
    args.engines = args.engines.split(",")
    args.work.mkdir(parents=True, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = [train_row(size, args, args.work) for size in sizes]

    print(f"\ntraining, {args.model_type} vocab {args.vocab_size}, num_threads {args.num_threads}")
    engines = "".join(f"{'ours ' + e + ' s':>15}" for e in args.engines)
    print(f"{'corpus':>22}{'raw s':>9}{engines}{'time ×':>8}{'raw MB':>9}{'ours MB':>9}", end="")
    print(f"{'RSS ×':>7}{'sample':>10}")
    for row in rows:
        raw_s, raw_mb = row["raw"]
        ours_s, ours_mb = row[args.engines[0]]
        times = "".join(f"{row[e][0]:15.1f}" for e in args.engines)
        sample = f"{args.sample:,}" if row["size"] > max(SIZES) else "all"
        name = f"{row['corpus']} {row['mb']:.0f} MB"
        print(
            f"{name:>22}{raw_s:9.1f}{times}{ours_s / raw_s:8.2f}"
            f"{raw_mb:9.0f}{ours_mb:9.0f}{ours_mb / raw_mb:7.2f}{sample:>10}"
        )
        if "identical" in row:
            print(f"{'':>22}models of all engines byte-identical: {row['identical']}")
    base = rows[0]
    growth = [
        f"{r['mb'] / base['mb']:.1f}× data: raw {r['raw'][0] / base['raw'][0]:.1f}×, "
        f"ours {r[args.engines[0]][0] / base[args.engines[0]][0]:.1f}×"
        for r in rows[1:]
    ]
    if growth:
        print("time growth from the first corpus: " + "; ".join(growth))

    if args.encode and 32 in sizes:
        corpus = CORPORA / SIZES[32]
        model = args.work / args.engines[0] / "ours_32.model"
        print(f"\nencode-corpus {corpus.name} ({corpus.stat().st_size / 1e6:.0f} MB), 4 MB shards")
        for name, seconds, same in encode_rows(model, corpus, args.work):
            rate = corpus.stat().st_size / 1e6 / seconds
            print(f"{name:>22}{seconds:9.1f} s{rate:8.1f} MB/s  ids identical: {same}")


if __name__ == "__main__":
    main()
