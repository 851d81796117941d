"""One id shard: the job that says what to write, and the code that writes it, shared by every
engine of ``encode-corpus`` (this process, worker processes, Ray actors), so that each writes the
same bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brahmic_pua.io.atomic import atomic_output, write_atomic
from brahmic_pua.io.digest import file_sha256
from brahmic_pua.io.lines import Span, batched, read_lines
from brahmic_pua.io.npy import HEADER_BYTES, header, id_array, write_ids
from brahmic_pua.runtime.processor import SentencePieceProcessor

MARKER = ".COMPLETE"

Record = dict[str, Any]


@dataclass(frozen=True)
class ShardJob:
    """One shard to write: its input ranges, and what its marker must record."""

    directory: str
    name: str
    spans: tuple[Span, ...]
    dtype: str
    eos_id: int
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
            for batch in batched(read_lines(span)):
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
        "bytes": sum(span.end - span.start for span in job.spans),
        "npy_bytes": HEADER_BYTES + tokens * id_array(job.dtype).itemsize,
        "sha256": file_sha256(path),
        "inputs": [[span.path, span.start, span.end] for span in job.spans],
        "settings": job.settings,
    }
    write_atomic(f"{path}{MARKER}", json.dumps(record, ensure_ascii=False).encode("utf-8"))
    return record
