"""The one fingerprint: ``"sha256:"`` and the hex digest of a body, and the canonical JSON
form that codec tables and model manifests hash.

An integrity check, not a signature: anyone who edits a body can compute its fingerprint again.
It catches damage and accidental edits; a model file from elsewhere stays untrusted input.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

PREFIX = "sha256:"


def fingerprint(body: bytes) -> str:
    """``sha256:<hex>`` of ``body``."""
    return PREFIX + hashlib.sha256(body).hexdigest()


def json_fingerprint(body: Mapping[str, Any]) -> str:
    """The fingerprint of ``body`` as canonical JSON: sorted keys, ASCII escapes, no spaces, so
    the same document always hashes alike, however it was written."""
    canonical = json.dumps(body, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return fingerprint(canonical.encode("ascii"))


def file_sha256(path: str | Path, block: int = 1 << 20) -> str:
    """The sha256 hex digest of a file's bytes, read in blocks (a shard can be gigabytes)."""
    hasher = hashlib.sha256()
    with open(path, "rb") as stream:
        while chunk := stream.read(block):
            hasher.update(chunk)
    return hasher.hexdigest()
