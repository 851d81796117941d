"""``encode_corpus``: text files in, token-id shards out, for language-model training.

An output directory holds ``shard_00000.npy``, ``shard_00001.npy``, … (1-D ``.npy`` arrays of
uint16, or uint32 when the vocabulary has more than 65,536 pieces): every input line's ids, as
``SentencePieceProcessor.encode`` gives them for that line, followed by the model's eos id, one
flat stream per shard as nanoGPT-style loaders read with ``np.memmap``/``np.load(mmap_mode="r")``.
Lines are read as the trainer reads them (:mod:`brahmic_pua.io.lines`). ``index.json``, written
last, lists the shards with their token, line and input-byte counts, the model's sha256, the
dtype and the settings.

Each shard is written to a temporary file and renamed; then its ``.COMPLETE`` marker (its counts
and the run's settings) is written beside it. A run that stops (a crash, Ctrl-C) is resumed by
running the same command again: shards whose marker matches are skipped, everything else is
encoded again. A directory written with another model, other inputs or other shard sizes is
refused in one line rather than mixed. The engine and the number of workers change how fast a run
is, never its output, so a run can be resumed with another engine.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path

from brahmic_pua.integrations.shard_job import MARKER, Record, ShardJob, encode_shard
from brahmic_pua.io.atomic import write_atomic
from brahmic_pua.io.lines import expand_inputs, plan_spans
from brahmic_pua.io.npy import DTYPES, HEADER_BYTES, dtype_for
from brahmic_pua.io.progress import Progress
from brahmic_pua.model.manifest import ModelFileError
from brahmic_pua.runtime.processor import SentencePieceProcessor
from brahmic_pua.trainer.engine import ENGINES

FORMAT = "brahmic_pua.shards/1"
DEFAULT_SHARD_BYTES = 32 << 20
INDEX = "index.json"
#: Names this module writes, temporary files (``.NAME.HEX.tmp``, see atomic) included.
OWN_NAMES = re.compile(r"\.?(shard_\d{5,}\.npy(\.COMPLETE)?|index\.json)(\.[0-9a-f]+\.tmp)?")


def encode_corpus(
    model: str | Path,
    inputs: Sequence[str],
    output: str | Path,
    *,
    shard_bytes: int | None = None,
    shard_lines: int | None = None,
    engine: str = "local",
    workers: int = 1,
    ray_address: str | None = None,
    progress: bool = False,
) -> Record:
    """Encode ``inputs`` (files or globs) with ``model`` into id shards under ``output`` and
    return the index (also written as ``index.json``). Shards are ``shard_bytes`` of input
    text each (default 32 MiB, cut at line ends) or ``shard_lines`` lines; ``engine="ray"``
    runs ``workers`` Ray actors (on the cluster at ``ray_address``, else a local one)."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: choose one of {', '.join(ENGINES)}")
    if workers < 1:
        raise ValueError(f"workers={workers} must be 1 or more")
    if shard_bytes is not None and shard_lines is not None:
        raise ValueError("give shard_bytes or shard_lines, not both")
    for name, value in (("shard_bytes", shard_bytes), ("shard_lines", shard_lines)):
        if value is not None and value < 1:
            raise ValueError(f"{name}={value} must be 1 or more")
    if ray_address is not None and engine != "ray":
        raise ValueError("ray_address is for engine='ray'")
    if shard_lines is None and shard_bytes is None:
        shard_bytes = DEFAULT_SHARD_BYTES
    # Absolute paths: Ray workers may run elsewhere, and the index says where each line was.
    files = [os.path.abspath(name) for name in expand_inputs(inputs)]
    data = _read_model(model)
    try:
        processor = SentencePieceProcessor(model_proto=data)
    except ModelFileError as error:  # it names "model_proto"; the user gave a file
        raise ModelFileError(f"{model}: {str(error).removeprefix('model_proto: ')}") from None
    eos = processor.eos_id()
    if eos < 0:
        raise ValueError(
            f"{model} has no eos piece (eos_id=-1): shards end every line with eos; "
            "train with eos_id set (brahmic_pua's default is 2)"
        )
    dtype = dtype_for(processor.get_piece_size())
    settings = _settings(data, files, dtype, eos, shard_bytes, shard_lines)
    groups = plan_spans(files, max_bytes=shard_bytes, max_lines=shard_lines)
    if not groups:
        raise ValueError("the inputs are empty: there is nothing to encode")
    directory = _prepare(Path(output).absolute())
    done = _finished(directory, settings)
    jobs = [
        ShardJob(str(directory), f"shard_{n:05d}.npy", tuple(g), dtype, eos, settings)
        for n, g in enumerate(groups)
    ]
    todo = [job for job in jobs if job.name not in done]
    shown = _Progress(progress, jobs, done)
    if engine == "ray":
        from brahmic_pua.integrations.distributed import encode_on_ray

        encode_on_ray(data, todo, workers, ray_address, shown.update)
    elif workers == 1 or len(todo) <= 1:
        for job in todo:
            shown.update(encode_shard(processor, job))
    else:
        _encode_in_processes(data, todo, workers, shown.update)
    shown.finish()
    index = _index(model, processor, settings, shown.records(jobs))
    write_atomic(directory / INDEX, json.dumps(index, ensure_ascii=False, indent=1).encode())
    return index


def _read_model(model: str | Path) -> bytes:
    try:
        return Path(model).read_bytes()
    except OSError as error:
        raise ValueError(f"cannot read model {model}: {error.strerror}") from None


def _settings(
    model: bytes, files: list[str], dtype: str, eos: int, size: int | None, lines: int | None
) -> Record:
    """What the shards depend on; a marker records it, so a resumed run can be checked."""
    inputs = []
    for name in files:
        stat = os.stat(name)
        inputs.append([name, stat.st_size, stat.st_mtime_ns])
    return {
        "format": FORMAT,
        "model_sha256": hashlib.sha256(model).hexdigest(),
        "dtype": dtype,
        "eos_id": eos,
        "shard_bytes": size,
        "shard_lines": lines,
        "inputs": inputs,
    }


def _prepare(directory: Path) -> Path:
    """The output directory, created if missing (not its parents); one that holds files of
    anything but encode-corpus is refused. Temporary files of a killed run are removed."""
    if directory.exists() and not directory.is_dir():
        raise ValueError(f"output {directory} is a file: give a directory for the shards")
    directory.mkdir(exist_ok=True)
    names = sorted(p.name for p in directory.iterdir())
    foreign = [name for name in names if not OWN_NAMES.fullmatch(name)]
    if foreign:
        raise ValueError(
            f"output {directory} holds files encode-corpus did not write ({foreign[0]}"
            f"{', …' if len(foreign) > 1 else ''}): give a new or empty directory"
        )
    for name in names:
        if name.endswith(".tmp"):
            (directory / name).unlink(missing_ok=True)
    return directory


def _finished(directory: Path, settings: Record) -> dict[str, Record]:
    """The shards a previous run completed with these settings; other settings are refused."""
    done: dict[str, Record] = {}
    for marker in sorted(directory.glob(f"shard_*.npy{MARKER}")):
        try:
            record = json.loads(marker.read_bytes())
            previous, name, size = record["settings"], record["file"], record["npy_bytes"]
        except (ValueError, KeyError, TypeError):
            raise ValueError(f"{marker} is damaged: delete it to encode its shard again") from None
        if previous != settings:
            raise ValueError(
                f"output {directory} holds shards of another run ({_difference(previous, settings)}"
                "): resume with the same model, inputs and shard size, or use a new directory"
            )
        shard = directory / name
        if shard.is_file() and shard.stat().st_size == size:
            done[name] = record
    return done


def _difference(previous: Record, now: Record) -> str:
    if previous.get("format") != now["format"]:
        return f"format {previous.get('format')}, now {now['format']}"
    if previous.get("model_sha256") != now["model_sha256"]:
        return "another model"
    if previous.get("inputs") != now["inputs"]:
        return "other input files, or input files changed since"
    changed = [key for key in now if previous.get(key) != now[key]]
    return ", ".join(f"{key}={previous.get(key)}, now {now[key]}" for key in changed)


_WORKER: list[SentencePieceProcessor] = []


def _load_worker(model: bytes) -> None:
    """A pool process loads the model once; spm uses one thread, the pool is the parallelism."""
    _WORKER.append(SentencePieceProcessor(model_proto=model, num_threads=1))


def _encode_in_worker(job: ShardJob) -> Record:
    return encode_shard(_WORKER[0], job)


def _encode_in_processes(
    model: bytes, jobs: list[ShardJob], workers: int, done: Callable[[Record], None]
) -> None:
    """Shards on a local process pool (spawned: the parent may hold spm threads)."""
    pool = ProcessPoolExecutor(
        min(workers, len(jobs)), get_context("spawn"), _load_worker, (model,)
    )
    try:
        pending: set[Future[Record]] = {pool.submit(_encode_in_worker, job) for job in jobs}
        while pending:
            finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for future in finished:
                done(future.result())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class _Progress:
    """Shards as they finish, on the one progress display; keeps every shard's record."""

    def __init__(self, enabled: bool, jobs: list[ShardJob], done: dict[str, Record]) -> None:
        self.done = dict(done)
        self.total = len(jobs)
        self.total_bytes = sum(s.end - s.start for job in jobs for s in job.spans)
        self.started = time.monotonic()
        self.new_bytes = 0
        self.shown = Progress(enabled, "encoding shards", self.total_bytes or None)
        if done:
            self.shown.note(f"resuming: {len(done)} of {self.total} shards already complete")
        self.shown.update(self._bytes(), self._detail())

    def update(self, record: Record) -> None:
        self.done[record["file"]] = record
        self.new_bytes += record["bytes"]
        self.shown.update(self._bytes(), self._detail())

    def _bytes(self) -> int:
        return sum(r["bytes"] for r in self.done.values())

    def _detail(self) -> str:
        records = self.done.values()
        tokens = sum(r["tokens"] for r in records)
        rate = self.new_bytes / 1e6 / max(time.monotonic() - self.started, 1e-9)
        return (
            f"encoded {len(records)}/{self.total} shards, {self._bytes() / 1e6:,.1f}/"
            f"{self.total_bytes / 1e6:,.1f} MB, {tokens:,} tokens, {rate:,.1f} MB/s"
        )

    def finish(self) -> None:
        self.shown.finish(self._detail())

    def records(self, jobs: list[ShardJob]) -> list[Record]:
        return [self.done[job.name] for job in jobs]


def _index(
    model: str | Path,
    processor: SentencePieceProcessor,
    settings: Record,
    records: list[Record],
) -> Record:
    keep = ("file", "tokens", "lines", "bytes", "inputs")
    codec = processor.codec
    return {
        "format": FORMAT,
        "model": {
            "file": os.path.abspath(model),
            "sha256": settings["model_sha256"],
            "codec_fingerprint": codec.fingerprint if codec is not None else None,
            "vocab_size": processor.get_piece_size(),
        },
        "dtype": settings["dtype"],
        "numpy_dtype": DTYPES[settings["dtype"]][0],
        "header_bytes": HEADER_BYTES,
        "eos_id": settings["eos_id"],
        "layout": "each line's ids, then eos_id; one flat stream per shard",
        "tokens": sum(r["tokens"] for r in records),
        "lines": sum(r["lines"] for r in records),
        "bytes": sum(r["bytes"] for r in records),
        "settings": settings,
        "shards": [{key: r[key] for key in keep} for r in records],
    }
