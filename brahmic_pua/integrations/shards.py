"""``encode_corpus``: text and Parquet files in, token-id shards out, for language-model training.

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

One run at a time writes a directory: a run holds an ``flock`` on ``.encode-corpus.lock`` in it
(with its pid and command, for the one-line refusal a second run gets), and the kernel drops the
lock when the run ends, however it ends. Worker processes die with the run (kill -9 included).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager, suppress
from multiprocessing import get_context
from pathlib import Path

from brahmic_pua.integrations.shard_job import (
    MARKER,
    Record,
    ShardJob,
    encode_shard,
    marker_bound,
    read_marker,
    shard_agrees,
)
from brahmic_pua.io.atomic import write_atomic
from brahmic_pua.io.lines import expand_inputs
from brahmic_pua.io.lock import Held, exclusive
from brahmic_pua.io.npy import DTYPES, HEADER_BYTES, dtype_for
from brahmic_pua.io.parquet import (
    DEFAULT_COLUMN,
    Unit,
    check_column,
    check_text_column,
    is_parquet,
    plan_units,
    unit_bytes,
)
from brahmic_pua.io.progress import Progress
from brahmic_pua.io.wording import counted
from brahmic_pua.io.workers import exit_with_parent, kill_workers, sigint_ignored_by_children
from brahmic_pua.model.model_file import read_model_file
from brahmic_pua.runtime.processor import SentencePieceProcessor
from brahmic_pua.trainer.engine import ENGINES
from brahmic_pua.trainer.signals import signals_deferred

FORMAT = "brahmic_pua.shards/1"
DEFAULT_SHARD_BYTES = 32 << 20
INDEX = "index.json"
#: The lock file of the run that writes a directory; removed when the run ends.
LOCK = ".encode-corpus.lock"
#: Names this module writes, temporary files (``.NAME.HEX.tmp``, see atomic) and the lock included.
OWN_NAMES = re.compile(
    r"\.?(shard_\d{5,}\.npy(\.COMPLETE)?|index\.json)(\.[0-9a-f]+\.tmp)?|\.encode-corpus\.lock"
)


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
    text_column: str | None = None,
) -> Record:
    """Encode ``inputs`` (files or globs) with ``model`` into id shards under ``output`` and
    return the index (also written as ``index.json``). Shards are ``shard_bytes`` of input
    text each (default 32 MiB, cut at line ends) or ``shard_lines`` lines; ``engine="ray"``
    runs ``workers`` Ray actors (on the cluster at ``ray_address``, else a local one).

    A Parquet input (``*.parquet``) is read as ``train`` reads it, the rows of ``text_column``
    (default ``text``) as lines (:mod:`brahmic_pua.io.parquet`), and cut into shards at row
    groups: about ``shard_bytes`` of its column, uncompressed, or ``shard_lines`` rows each (a
    row holding line feeds is several lines), a shard never holding another file's lines."""
    _check_arguments(engine, workers, ray_address, shard_bytes, shard_lines)
    if shard_lines is None and shard_bytes is None:
        shard_bytes = DEFAULT_SHARD_BYTES
    files, column = _input_files(inputs, text_column)
    data, processor = _load(model)
    eos = processor.eos_id()
    dtype = dtype_for(processor.get_piece_size())
    settings = _settings(data, files, dtype, eos, shard_bytes, shard_lines)
    if any(map(is_parquet, files)):  # (only then: a text run's settings are as they were)
        settings["text_column"] = column or DEFAULT_COLUMN
    groups = plan_units(files, column, max_bytes=shard_bytes, max_lines=shard_lines)
    if not groups:
        raise ValueError("the inputs are empty: there is nothing to encode")
    directory, created = _create(Path(output).absolute())
    try:
        with _locked(directory):
            _prepare(directory)
            return _write(
                model,
                data,
                processor,
                settings,
                groups,
                directory,
                engine=engine,
                workers=workers,
                ray_address=ray_address,
                progress=progress,
            )
    except BaseException:
        # A run that made the directory and failed before writing anything (an input that is
        # not UTF-8, Ctrl-C) leaves nothing behind; rmdir fails, harmlessly, once it holds a file.
        if created:
            with suppress(OSError):
                directory.rmdir()
        raise


def _input_files(inputs: Sequence[str], text_column: str | None) -> tuple[list[str], str | None]:
    """The input files, globs expanded, as absolute paths (Ray workers may run elsewhere, and
    the index says where each line was), and the Parquet column, checked in each Parquet
    input before anything is encoded."""
    files = [os.path.abspath(name) for name in expand_inputs(inputs)]
    column = check_text_column(text_column, files)
    for name in filter(is_parquet, files):
        check_column(name, column or DEFAULT_COLUMN)
    return files, column


def _check_arguments(
    engine: str,
    workers: int,
    ray_address: str | None,
    shard_bytes: int | None,
    shard_lines: int | None,
) -> None:
    """Refuse arguments that do not go together, before any file is read."""
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


def _load(model: str | Path) -> tuple[bytes, SentencePieceProcessor]:
    """The model's bytes (for its sha256 and the workers) and its processor; refused without
    an eos piece, which ends every line in a shard."""
    data = read_model_file(model)
    processor = SentencePieceProcessor.from_proto(data, source=str(model))
    if processor.eos_id() < 0:
        raise ValueError(
            f"{model} has no eos piece (eos_id=-1): shards end every line with eos; "
            "train with eos_id set (brahmic_pua's default is 2)"
        )
    return data, processor


def _write(
    model: str | Path,
    data: bytes,
    processor: SentencePieceProcessor,
    settings: Record,
    groups: list[list[Unit]],
    directory: Path,
    *,
    engine: str,
    workers: int,
    ray_address: str | None,
    progress: bool,
) -> Record:
    """The shards still missing and the index, written under the directory's lock."""
    dtype, eos = settings["dtype"], settings["eos_id"]
    jobs = [
        ShardJob(str(directory), f"shard_{n:05d}.npy", tuple(g), dtype, eos, settings)
        for n, g in enumerate(groups)
    ]
    done, damaged = _finished(directory, settings, jobs)
    todo = [job for job in jobs if job.name not in done]
    tracker = _Progress(progress, jobs, done)
    if damaged:
        tracker.bar.note(
            f"encoding {len(damaged)} complete shard(s) again: {_listed(damaged)} (shard and "
            "marker disagree: sha256, size or counts changed since written)"
        )
    if engine == "ray":
        from brahmic_pua.integrations.distributed import encode_on_ray

        encode_on_ray(data, todo, workers, ray_address, tracker.update, progress=progress)
    elif workers == 1 or len(todo) <= 1:
        for job in todo:
            tracker.update(encode_shard(processor, job))
    else:
        _encode_in_processes(data, todo, workers, tracker.update)
    tracker.finish()
    index = _index(model, processor, settings, tracker.records(jobs))
    write_atomic(directory / INDEX, json.dumps(index, ensure_ascii=False, indent=1).encode())
    return index


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


def _create(directory: Path) -> tuple[Path, bool]:
    """The output directory, created if missing (not its parents), and whether this run made it
    (only then may a failed run remove it)."""
    if directory.exists() and not directory.is_dir():
        raise ValueError(f"output {directory} is a file: give a directory for the shards")
    try:
        directory.mkdir()
    except FileExistsError:
        return directory, False
    return directory, True


@contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """Hold the directory's lock for the block (io/lock.py), or raise ValueError naming the run
    that holds it: two runs in one directory would mix their shards, and each would delete the
    other's temporary files. The lock file is removed as the run ends."""
    try:
        with exclusive(directory / LOCK):
            yield
    except Held as held:
        raise ValueError(
            f"output {directory} is in use by another encode-corpus run ({held.holder}): "
            "wait for it to end, or give another directory"
        ) from None
    except FileNotFoundError as missing:
        if missing.filename != str(directory / LOCK):
            raise
        raise ValueError(f"output {directory} was removed as this run started") from None


def _prepare(directory: Path) -> Path:
    """Called under the lock: a directory that holds files of anything but encode-corpus is
    refused, and the temporary files of killed runs are removed."""
    names = sorted(p.name for p in directory.iterdir())
    foreign = [name for name in names if not OWN_NAMES.fullmatch(name)]
    if foreign:
        raise ValueError(
            f"output {directory} holds files encode-corpus did not write ({foreign[0]}"
            f"{', …' if len(foreign) > 1 else ''}): give a new or empty directory"
        )
    # Every run takes the lock before it writes, so under the lock no other live run writes here:
    # each temporary file is a leftover of a run that died (kill -9, power loss), safe to remove.
    for name in names:
        if name.endswith(".tmp"):
            (directory / name).unlink(missing_ok=True)
    return directory


def _finished(
    directory: Path, settings: Record, jobs: list[ShardJob]
) -> tuple[dict[str, Record], list[str]]:
    """The shards a previous run completed with these settings (other settings are refused),
    and the names of shards that are not what their markers say (changed since written, or
    recorded without a sha256: they are encoded again). A marker that is not one this module
    writes is refused in one line (shard_job.read_marker). Checking reads every complete shard
    once, at disk speed."""
    done: dict[str, Record] = {}
    damaged: list[str] = []
    planned = {job.name: job for job in jobs}
    bound = marker_bound(settings)
    for marker in sorted(directory.glob(f"shard_*.npy{MARKER}")):
        record = read_marker(marker, bound)
        previous = record["settings"]
        if previous != settings:
            raise ValueError(
                f"output {directory} holds shards of another run ({_difference(previous, settings)}"
                "): resume with the same model, inputs and shard size, or use a new directory"
            )
        job = planned.get(record["file"])
        if job is None:  # not one of this run's shards (none is, with these settings)
            continue
        if shard_agrees(job, record):
            done[job.name] = record
        elif (directory / job.name).is_file():
            damaged.append(job.name)
    return done, damaged


def _listed(names: list[str], most: int = 3) -> str:
    listed = ", ".join(names[:most])
    return listed + (f" and {len(names) - most} more" if len(names) > most else "")


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


def _load_worker(model: bytes, parent: int) -> None:
    """A pool process loads the model once; spm uses one thread, the pool is the parallelism."""
    exit_with_parent(parent)
    _WORKER.append(SentencePieceProcessor(model_proto=model, num_threads=1))


def _encode_in_worker(job: ShardJob) -> Record:
    return encode_shard(_WORKER[0], job)


def _encode_in_processes(
    model: bytes, jobs: list[ShardJob], workers: int, done: Callable[[Record], None]
) -> None:
    """Shards on a local process pool (spawned: the parent may hold spm threads). The workers
    are started with SIGINT ignored and signals held back (a start interrupted halfway leaves
    processes nothing tracks), and are killed at once when a shard fails or the run is
    interrupted: a Ctrl-C or SIGTERM prints the run's one line, not each worker's traceback."""
    pool = ProcessPoolExecutor(
        min(workers, len(jobs)), get_context("spawn"), _load_worker, (model, os.getpid())
    )
    try:
        with signals_deferred(), sigint_ignored_by_children():  # spawned at these submits
            pending: set[Future[Record]] = {pool.submit(_encode_in_worker, job) for job in jobs}
        while pending:
            finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for future in finished:
                done(future.result())
    except BaseException:
        kill_workers(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class _Progress:
    """Shards as they finish, on the one progress display; keeps every shard's record."""

    def __init__(self, enabled: bool, jobs: list[ShardJob], done: dict[str, Record]) -> None:
        self.done = dict(done)
        self.total = len(jobs)
        self.total_bytes = sum(unit_bytes(unit) for job in jobs for unit in job.spans)
        self.started = time.monotonic()
        self.new_bytes = 0
        self.bar = Progress(enabled, "encoding shards", self.total_bytes or None)
        if done:
            self.bar.note(
                f"resuming: {len(done):,} of {counted(self.total, 'shard')} already complete"
            )
        self.bar.update(self._bytes(), self._detail())

    def update(self, record: Record) -> None:
        self.done[record["file"]] = record
        self.new_bytes += record["bytes"]
        self.bar.update(self._bytes(), self._detail())

    def _bytes(self) -> int:
        return sum(r["bytes"] for r in self.done.values())

    def _detail(self) -> str:
        records = self.done.values()
        tokens = sum(r["tokens"] for r in records)
        rate = self.new_bytes / 1e6 / max(time.monotonic() - self.started, 1e-9)
        return (
            f"encoded {len(records):,}/{counted(self.total, 'shard')}, "
            f"{self._bytes() / 1e6:,.1f}/{self.total_bytes / 1e6:,.1f} MB, "
            f"{counted(tokens, 'token')}, {rate:,.1f} MB/s"
        )

    def finish(self) -> None:
        self.bar.finish(self._detail())

    def records(self, jobs: list[ShardJob]) -> list[Record]:
        return [self.done[job.name] for job in jobs]


def _index(
    model: str | Path,
    processor: SentencePieceProcessor,
    settings: Record,
    records: list[Record],
) -> Record:
    keep = ("file", "tokens", "lines", "bytes", "sha256", "inputs")
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
