"""Look up a character's class, script and Indic_Syllabic_Category in the generated tables."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache

from brahmic_pua.orthography.charclass import CharClass
from brahmic_pua.orthography.unicode_tables import (
    CLASS_RANGES,
    INSC_RANGES,
    OTHER_SCRIPT_RANGES,
    SCRIPT_RANGES,
)


def _index(ranges: Sequence[tuple[int, int, str]]) -> tuple[list[int], list[int], list[str]]:
    return [r[0] for r in ranges], [r[1] for r in ranges], [r[2] for r in ranges]


_CLASS = _index(CLASS_RANGES)
_SCRIPT = _index(SCRIPT_RANGES)
_INSC = _index(INSC_RANGES)
_OTHER_SCRIPT = _index(OTHER_SCRIPT_RANGES)


def _lookup(table: tuple[list[int], list[int], list[str]], cp: int) -> str | None:
    starts, ends, values = table
    i = bisect_right(starts, cp) - 1
    if i >= 0 and cp <= ends[i]:
        return values[i]
    return None


def _code_point(ch: str) -> int:
    if len(ch) != 1:
        raise ValueError(f"expected one character, got {len(ch)}: {ch!r}")
    return ord(ch)


@lru_cache(maxsize=4096)
def classify(ch: str) -> CharClass:
    """The :class:`CharClass` of one character (OTHER for anything outside every grammar)."""
    name = _lookup(_CLASS, _code_point(ch))
    return CharClass.OTHER if name is None else CharClass[name]


def script_of_char(ch: str) -> str | None:
    """Lower-case Unicode Script name if ``ch`` belongs to a Brahmic script, else ``None``."""
    return _lookup(_SCRIPT, _code_point(ch))


def unicode_script(ch: str) -> str | None:
    """Lower-case long Unicode Script name of ``ch`` (``devanagari``, ``latin``, ``han``), or
    ``None`` for Common, Inherited and Unknown, which are no script of their own.

    Read from the committed tables, not from ``regex`` at run time, so the answer does not
    depend on the ``regex`` version installed.
    """
    cp = _code_point(ch)
    return _lookup(_SCRIPT, cp) or _lookup(_OTHER_SCRIPT, cp)


def indic_category(ch: str) -> str | None:
    """Indic_Syllabic_Category (upper case, no separators) of ``ch``; ``None`` for Other."""
    return _lookup(_INSC, _code_point(ch))


def charset(ranges: Iterable[tuple[int, int]]) -> str:
    """Body of a regex character class matching the code point ranges (overlapping or
    touching ranges merged)."""
    merged: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(last, merged[-1][1]))
        else:
            merged.append((first, last))
    return "".join(_member(a) if a == b else f"{_member(a)}-{_member(b)}" for a, b in merged)


def _member(cp: int) -> str:
    """One code point in a character class: the character itself where nothing can read it as
    syntax (not ASCII, not a surrogate), else an escape. The parser takes a literal at a
    fraction of an escape's cost, and the patterns built here name thousands of code points:
    the fixtoken cluster pattern compiled in 0.026 s written with escapes, 0.012 s so."""
    if cp < 0x80 or 0xD800 <= cp <= 0xDFFF:
        return f"\\U{cp:08X}"
    return chr(cp)


@cache
def class_charset(classes: frozenset[CharClass]) -> str:
    """Body of a regex character class matching every character of the given classes.

    OTHER is the complement of the table, so it cannot be asked for here.
    """
    if CharClass.OTHER in classes:
        raise ValueError("OTHER is the complement of the tables; use a negated class instead")
    names = {c.name for c in classes}
    return charset((a, b) for a, b, v in CLASS_RANGES if v in names)


@cache
def insc_charset(categories: frozenset[str]) -> str:
    """Body of a regex character class matching the given Indic_Syllabic_Category values."""
    return charset((a, b) for a, b, v in INSC_RANGES if v in categories)


@cache
def script_charset(scripts: frozenset[str] | None = None) -> str:
    """Body of a regex character class matching every character of the given Brahmic scripts."""
    return charset((a, b) for a, b, v in SCRIPT_RANGES if scripts is None or v in scripts)


def script_characters(script: str) -> list[str]:
    """Every character of one Brahmic script, in code point order."""
    return [chr(cp) for a, b, v in SCRIPT_RANGES if v == script for cp in range(a, b + 1)]
