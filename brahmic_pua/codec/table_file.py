"""The codec table as data, and its JSON form with a format version and a content fingerprint."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from brahmic_pua.codec.layout import CAPACITY, FIRST_CODE, PUA_RANGES
from brahmic_pua.io.digest import json_fingerprint
from brahmic_pua.io.wording import counted
from brahmic_pua.orthography.unicode_tables import SCRIPT_NAMES, UNICODE_VERSION
from brahmic_pua.segment.patterns import POLICIES

FORMAT = "brahmic_pua.codec"
FORMAT_VERSION = 1
REBUILD = "rebuild it with PUACodec.build(...).save(...)"

#: The longest cluster a codec document may hold, in code points. The builder gives no code to
#: a cluster longer than 16 (``codec.MAX_CLUSTER_LENGTH``) and the longest in the corpora here
#: has 5, so 64 refuses no table brahmic_pua writes, even if that cap grows, while it bounds
#: what a hostile table makes the rule compiler, the display and the checks below chew on.
MAX_FILE_CLUSTER = 64
#: A count is a corpus frequency: an int64 holds any corpus, and a bound keeps ints small.
MAX_COUNT = 2**63 - 1
_KEYS = frozenset(
    {"format", "format_version", "policy", "scripts", "unicode_version", "entries", "blocks"}
    | {"fingerprint"}
)
_BMP_LAST = PUA_RANGES[0][1]
_PLANE15, _PLANE16 = PUA_RANGES[1], PUA_RANGES[2]
#: What a cluster may not hold: a lone surrogate, a Private Use code point, ▁ or U+2585.
_FORBIDDEN = re.compile(
    "["
    + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ((0xD800, 0xDFFF), *PUA_RANGES))
    + "\\u2581\\u2585]"
)

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

    @cached_property
    def fingerprint(self) -> str:
        """The content's fingerprint, computed when first asked for: the trainer builds a
        table of every cluster and keeps only a cut-down copy of it (a fingerprint of 23,583
        entries took 0.02 s of a 0.5 s training)."""
        return json_fingerprint(
            _body(self.policy, self.scripts, self.unicode_version, self.entries, self.blocks)
        )

    @classmethod
    def create(
        cls, policy: str, scripts: tuple[str, ...], entries: list[Entry], blocks: list[Block]
    ) -> CodecTable:
        return cls(policy, scripts, UNICODE_VERSION, tuple(entries), tuple(blocks))


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
    try:
        body = json.loads(document)
    except (ValueError, RecursionError) as error:  # JSONDecodeError, the int digit limit
        reason = "nested too deeply" if isinstance(error, RecursionError) else error
        raise CodecFileError(
            f"{source}: not a brahmic_pua codec file (corrupt or truncated JSON: {reason}); "
            f"{REBUILD}"
        ) from None
    return table_from_document(body, source)


def table_from_document(body: object, source: str) -> CodecTable:
    """:func:`check_document`, with its reason as one CodecFileError naming ``source``."""
    try:
        return check_document(body)
    except ValueError as error:
        raise CodecFileError(f"{source}: {error}; {REBUILD}") from None


def check_document(body: object) -> CodecTable:
    """The table in a parsed codec document, or a ValueError whose text is one line saying why.

    A codec document is untrusted input (a codec file, or the codec inside a model's manifest,
    which anyone can edit and re-sign: the fingerprint is an integrity check, not a signature),
    so its schema is checked before anything is built from it: every key with its type, every
    code a table code (Private Use, from U+E003), every cluster a non-empty string of at most
    :data:`MAX_FILE_CLUSTER` code points without a character the codec escapes, every count
    and size bounded. Each loop is flat and linear in the document, whatever it holds.
    """
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise ValueError("not a brahmic_pua codec file")
    version = body.get("format_version")
    if type(version) is not int or version != FORMAT_VERSION:
        raise ValueError(
            f"codec format version {quoted(version)}, but this brahmic_pua reads version "
            f"{FORMAT_VERSION}"
        )
    if body.get("unicode_version") != UNICODE_VERSION:
        raise ValueError(
            f"built with Unicode {quoted(body.get('unicode_version'))} tables, this "
            f"brahmic_pua has Unicode {UNICODE_VERSION}"
        )
    try:
        table = _parse(body)
    except ValueError as error:
        raise ValueError(f"malformed codec file ({error})") from None
    if body.get("fingerprint") != table.fingerprint:
        raise ValueError("content does not match its fingerprint (edited or corrupted)")
    return table


def quoted(value: object) -> str:
    """A JSON value as an error message names it, in one short line whatever it is: a list or
    an object by its size (its repr may be megabytes, or too deep to write), an int of
    thousands of digits by their number, a string cut short (repr escapes line breaks)."""
    if isinstance(value, list):
        return f"a list of {counted(len(value), 'item')}"
    if isinstance(value, dict):
        return f"an object of {counted(len(value), 'key')}"
    if type(value) is int and abs(value) >= 10**40:
        return f"an integer of {counted(len(str(abs(value))), 'digit')}"
    text = repr(value[:40] + "..." if isinstance(value, str) and len(value) > 40 else value)
    return text


def _list(value: object, what: str, longest: int) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"{what} is {quoted(value)}, not a list")
    if len(value) > longest:
        raise ValueError(f"{what} has {counted(len(value), 'item')}, more than {longest:,}")
    return value


def _int(value: object, what: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:  # bool is an int subclass: refused
        raise ValueError(f"{what} is {quoted(value)}, not an integer in {low}..{high}")
    return value


def _code(value: object, what: str) -> int:
    """A table code: a Private Use code point from FIRST_CODE, checked without ``chr`` (which
    overflows on ``10**30``) and refusing a float (``1e999`` reads as ``inf``)."""
    if type(value) is not int:
        raise ValueError(f"{what} is {quoted(value)}, not an integer")
    if not (
        FIRST_CODE <= value <= _BMP_LAST
        or _PLANE15[0] <= value <= _PLANE15[1]
        or _PLANE16[0] <= value <= _PLANE16[1]
    ):
        raise ValueError(f"{what} {quoted(value)} is outside the Private Use Area (from U+E003)")
    return value


def _name(value: object, what: str, names: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in names:
        raise ValueError(f"{what} is {quoted(value)}, not one of {', '.join(names[:4])}, ...")
    return value


def _parse(body: dict[str, Any]) -> CodecTable:
    """Check the schema of ``body`` (see :func:`check_document`); ValueError says what is off."""
    keys = set(body)
    if keys != _KEYS:
        wrong = sorted(_KEYS - keys) or sorted(keys - _KEYS)
        raise ValueError(f"{'missing' if _KEYS - keys else 'unexpected'} key {quoted(wrong[0])}")
    policy = _name(body["policy"], "policy", POLICIES)
    scripts = tuple(
        _name(s, "a script", SCRIPT_NAMES)
        for s in _list(body["scripts"], "scripts", len(SCRIPT_NAMES))
    )
    entries: list[Entry] = []
    for item in _list(body["entries"], "entries", CAPACITY):
        if not isinstance(item, list) or len(item) != 3:
            raise ValueError(f"an entry is {quoted(item)}, not [code, cluster, count]")
        code, cluster, count = item
        entry = (_code(code, "a code"), _cluster(cluster), _int(count, "a count", 0, MAX_COUNT))
        entries.append(entry)
    blocks: list[Block] = []
    for item in _list(body["blocks"], "blocks", CAPACITY):
        if not isinstance(item, list) or len(item) != 3:
            raise ValueError(f"a block is {quoted(item)}, not [first, last, script]")
        first, last = _code(item[0], "a block's first code"), _code(item[1], "a block's last code")
        script = _name(item[2], "a block's script", SCRIPT_NAMES)
        if first > last or (blocks and first <= blocks[-1][1]):
            raise ValueError("blocks out of order or overlapping")
        blocks.append((first, last, script))
    if not isinstance(body["fingerprint"], str):
        raise ValueError(f"the fingerprint is {quoted(body['fingerprint'])}, not a string")
    codes = {code for code, _, _ in entries}
    clusters = {cluster for _, cluster, _ in entries}
    if len(codes) != len(entries) or len(clusters) != len(entries):
        raise ValueError("duplicate code or cluster")
    return CodecTable(policy, scripts, UNICODE_VERSION, tuple(entries), tuple(blocks))


def _cluster(value: object) -> str:
    """A cluster: a non-empty str of at most MAX_FILE_CLUSTER code points, without a character
    the codec escapes (a Private Use code point, ▁, U+2585: the builder never gives one a code,
    and decoding would not invert it) or a lone surrogate (not text; UTF-8 cannot write it)."""
    if not isinstance(value, str) or not 0 < len(value) <= MAX_FILE_CLUSTER:
        raise ValueError(
            f"a cluster is {quoted(value)}, not a string of 1 to {MAX_FILE_CLUSTER} characters"
        )
    if _FORBIDDEN.search(value):
        raise ValueError(
            f"a cluster {quoted(value)} holds a Private Use code point, U+2581, U+2585 or a lone "
            "surrogate"
        )
    return value
