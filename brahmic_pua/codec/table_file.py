"""The codec table as data, and its JSON form with a format version and a content fingerprint."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from brahmic_pua.codec.layout import FIRST_CODE, is_private_use
from brahmic_pua.io.digest import json_fingerprint
from brahmic_pua.orthography.unicode_tables import UNICODE_VERSION
from brahmic_pua.segment.patterns import POLICIES

FORMAT = "brahmic_pua.codec"
FORMAT_VERSION = 1

Entry = tuple[int, str, int]  # code, cluster, corpus count
Block = tuple[int, int, str]  # first code, last code, script


class CodecFileError(ValueError):
    """A codec file that is corrupt, truncated, edited, or from another format version."""


@dataclass(frozen=True)
class CodecTable:
    policy: str
    scripts: tuple[str, ...]
    unicode_version: str
    entries: tuple[Entry, ...]
    blocks: tuple[Block, ...]
    fingerprint: str

    @classmethod
    def create(
        cls, policy: str, scripts: tuple[str, ...], entries: list[Entry], blocks: list[Block]
    ) -> CodecTable:
        body = _body(policy, scripts, UNICODE_VERSION, entries, blocks)
        return cls(
            policy, scripts, UNICODE_VERSION, tuple(entries), tuple(blocks), json_fingerprint(body)
        )


def _body(
    policy: str,
    scripts: tuple[str, ...],
    unicode_version: str,
    entries: list[Entry] | tuple[Entry, ...],
    blocks: list[Block] | tuple[Block, ...],
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "policy": policy,
        "scripts": list(scripts),
        "unicode_version": unicode_version,
        "entries": [list(e) for e in entries],
        "blocks": [list(b) for b in blocks],
    }


def table_document(table: CodecTable) -> dict[str, Any]:
    body = _body(table.policy, table.scripts, table.unicode_version, table.entries, table.blocks)
    body["fingerprint"] = table.fingerprint
    return body


def write_table(table: CodecTable) -> str:
    return json.dumps(table_document(table), ensure_ascii=False, separators=(",", ":")) + "\n"


def read_table(document: str, source: str) -> CodecTable:
    """Parse and check a codec document; every failure is one CodecFileError saying what to do."""
    rebuild = "rebuild it with PUACodec.build(...).save(...)"
    try:
        body = json.loads(document)
    except json.JSONDecodeError as error:
        raise CodecFileError(
            f"{source}: not a brahmic_pua codec file (corrupt or truncated JSON: {error}); "
            f"{rebuild}"
        ) from None
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise CodecFileError(f"{source}: not a brahmic_pua codec file; {rebuild}")
    if body.get("format_version") != FORMAT_VERSION:
        raise CodecFileError(
            f"{source}: codec format version {body.get('format_version')!r}, but this "
            f"brahmic_pua reads version {FORMAT_VERSION}; {rebuild}"
        )
    if body.get("unicode_version") != UNICODE_VERSION:
        raise CodecFileError(
            f"{source}: built with Unicode {body.get('unicode_version')!r} tables, this "
            f"brahmic_pua has Unicode {UNICODE_VERSION}; {rebuild}"
        )
    try:
        table = _parse(body)
    except (KeyError, TypeError, ValueError) as error:
        raise CodecFileError(f"{source}: malformed codec file ({error}); {rebuild}") from None
    expected = json_fingerprint(
        _body(table.policy, table.scripts, table.unicode_version, table.entries, table.blocks)
    )
    if body.get("fingerprint") != expected:
        raise CodecFileError(
            f"{source}: content does not match its fingerprint (edited or corrupted); {rebuild}"
        )
    return table


def _parse(body: dict[str, Any]) -> CodecTable:
    entries = tuple((int(c), str(s), int(n)) for c, s, n in body["entries"])
    blocks = tuple((int(a), int(b), str(s)) for a, b, s in body["blocks"])
    codes = [code for code, _, _ in entries]
    clusters = [cluster for _, cluster, _ in entries]
    if len(set(codes)) != len(codes) or len(set(clusters)) != len(clusters):
        raise ValueError("duplicate code or cluster")
    if any(code < FIRST_CODE or not is_private_use(chr(code)) for code in codes):
        raise ValueError("a code outside the Private Use Area")
    if any(not cluster for cluster in clusters):
        raise ValueError("an empty cluster")
    if body["policy"] not in POLICIES:
        raise ValueError(f"unknown policy {body['policy']!r}")
    scripts = tuple(str(s) for s in body["scripts"])
    return CodecTable(
        str(body["policy"]),
        scripts,
        str(body["unicode_version"]),
        entries,
        blocks,
        str(body.get("fingerprint")),
    )
