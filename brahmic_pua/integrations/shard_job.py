"""One id shard: the job that says what to write, the code that writes it, shared by every
engine of ``encode-corpus`` (this process, worker processes, Ray actors), so that each writes the
same bytes, and the check of a shard a previous run marked complete.

A marker is untrusted input too: a resumed run believes a shard complete only when its marker
is one this module wrote (read bounded, its fields of the right types) and every count it
claims agrees with the shard itself (:func:`shard_agrees`), since the index is made of them.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brahmic_pua.io.atomic import atomic_output, write_atomic
from brahmic_pua.io.bounded import TooLarge, read_bounded
from brahmic_pua.io.digest import file_sha256
from brahmic_pua.io.lines import BLOCK, batched
from brahmic_pua.io.npy import HEADER_BYTES, header, id_array, write_ids
from brahmic_pua.io.parquet import RowGroups, Unit, unit_bytes, unit_lines
from brahmic_pua.runtime.processor import SentencePieceProcessor

MARKER = ".COMPLETE"
#: What a marker holds besides the run's settings and its shard's input ranges: the shard's
#: name, five counts and a sha256, under 300 bytes as written; the rest is room to spare.
MARKER_FIELDS_BYTES = 4096
#: What one input range adds to a marker beyond its file's name (which the settings hold
#: already): two offsets of at most 20 digits and the JSON around them.
MARKER_RANGE_BYTES = 64
#: A marker's fields that are counts (whole numbers, 0 or more).
_COUNTS = ("tokens", "lines", "bytes", "npy_bytes")

Record = dict[str, Any]


@dataclass(frozen=True)
class ShardJob:
    """One shard to write: its input ranges, and what its marker must record."""

    directory: str
    name: str
    #: Byte ranges of text files, or row groups of a Parquet file (brahmic_pua.io.parquet).
    spans: tuple[Unit, ...]
    dtype: str
    eos_id: int
    #: The run's settings, ``text_column`` among them where an input is Parquet (the column
    #: read as lines).
    settings: Record


def encode_shard(processor: SentencePieceProcessor, job: ShardJob) -> Record:
    """Write the shard (temporary file, rename), then its marker; return the marker's record.

    The ids are streamed: the header is written with a placeholder length and filled in at the
    end, so a worker holds one batch of lines, not a shard. The marker records the shard's
    sha256 (read back once written: the header comes first but is known last), so a resumed
    run keeps only shards whose bytes are the ones written, not merely of the right size."""
    path = Path(job.directory, job.name)
    eos = job.eos_id
    tokens = lines = 0
    with atomic_output(path) as text:
        stream = text.buffer
        stream.write(header(job.dtype, 0))
        for span in job.spans:
            for batch in batched(unit_lines(span, job.settings.get("text_column"))):
                ids = id_array(job.dtype)
                for row in processor.encode(batch):
                    ids.extend(row)
                    ids.append(eos)
                write_ids(stream, ids)
                tokens += len(ids)
                lines += len(batch)
        stream.seek(0)
        stream.write(header(job.dtype, tokens))
    record = {
        "file": job.name,
        "tokens": tokens,
        "lines": lines,
        "bytes": sum(map(unit_bytes, job.spans)),
        "npy_bytes": HEADER_BYTES + tokens * id_array(job.dtype).itemsize,
        "sha256": file_sha256(path),
        "inputs": _ranges(job),
        "settings": job.settings,
    }
    write_atomic(f"{path}{MARKER}", json.dumps(record, ensure_ascii=False).encode("utf-8"))
    return record


def _ranges(job: ShardJob) -> list[list[Any]]:
    """The job's units as its marker and the index list them: ``[file, start, end]`` of a byte
    range, ``[file, first, stop, "row groups"]`` of a Parquet file's row groups."""
    return [
        [unit.path, unit.first, unit.stop, "row groups"]
        if isinstance(unit, RowGroups)
        else [unit.path, unit.start, unit.end]
        for unit in job.spans
    ]


def marker_bound(settings: Record) -> int:
    """The most bytes a marker of a run with ``settings`` takes: the settings, its shard's input
    ranges (at most one per input file, each its file's name, held in the settings, and two
    offsets) and its own fields. A marker is read no further: one linked to /dev/zero was read
    until memory ran out."""
    written = len(json.dumps(settings, ensure_ascii=False).encode("utf-8"))
    return 2 * written + MARKER_RANGE_BYTES * len(settings["inputs"]) + MARKER_FIELDS_BYTES


def read_marker(path: Path, bound: int) -> Record:
    """The record of the marker ``path``, read at most ``bound`` bytes: a JSON object with the
    fields :func:`encode_shard` writes, each of its type (``sha256`` may be absent: markers of
    older brahmic_pua). Anything else is one ValueError line saying how to go on."""
    try:
        record = json.loads(read_bounded(path, bound, "marker", regular_only=True))
        reason = _malformed(record, path.name.removesuffix(MARKER))
    except TooLarge as error:
        reason = error.reason
    except RecursionError:
        reason = "nested too deeply"
    except ValueError:  # not UTF-8 or not JSON (json's own errors are ValueErrors)
        reason = "not JSON"
    if reason is not None:
        raise ValueError(f"{path} is damaged ({reason}): delete it to encode its shard again")
    return dict(record)


def _malformed(record: object, name: str) -> str | None:
    """What is wrong with the fields of a parsed marker for the shard ``name``, or None."""
    if not isinstance(record, dict):
        return "not a JSON object"
    if record.get("file") != name:
        return f"its file is not {name}"
    for key in _COUNTS:
        value = record.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            return f"{key} is not a count"
    if not isinstance(record.get("settings"), dict):
        return "settings is not an object"
    if not isinstance(record.get("inputs"), list):
        return "inputs is not a list"
    if not isinstance(record.get("sha256", ""), str):
        return "sha256 is not a string"
    return None


def shard_agrees(job: ShardJob, record: Record) -> bool:
    """Whether the shard file is what its marker (:func:`read_marker`, of this run's settings)
    says: the job's input ranges, a size of ``npy_bytes`` = header + ``tokens`` ids, the header
    :func:`encode_shard` writes for them, the marker's sha256, and ``lines`` eos ids, the last
    id one of them (each line's ids end in eos, and no line's own ids hold it). The shard is
    read once, a block at a time."""
    itemsize = id_array(job.dtype).itemsize
    tokens, size = record["tokens"], record["npy_bytes"]
    if (
        record["inputs"] != _ranges(job)
        or record["bytes"] != sum(map(unit_bytes, job.spans))
        or size != HEADER_BYTES + tokens * itemsize
        or "sha256" not in record
    ):
        return False
    path = Path(job.directory, job.name)
    if not path.is_file() or path.stat().st_size != size:
        return False
    hasher, eos, last = hashlib.sha256(), 0, None
    with open(path, "rb") as stream:
        head = stream.read(HEADER_BYTES)
        if head != header(job.dtype, tokens):
            return False
        hasher.update(head)
        # BLOCK is a multiple of every item size, so each block holds whole ids.
        while block := stream.read(BLOCK):
            hasher.update(block)
            ids = id_array(job.dtype)
            ids.frombytes(block[: len(block) - len(block) % itemsize])
            if sys.byteorder == "big":
                ids.byteswap()
            eos += ids.count(job.eos_id)
            last = ids[-1] if ids else last
    ends_in_eos = tokens == 0 or last == job.eos_id
    return hasher.hexdigest() == record["sha256"] and eos == record["lines"] and ends_in_eos
