"""The generated script tables against ``regex``'s own Script data, on every code point.

``char_class`` (the filters' notion of a character's script) reads the committed tables
(``unicode_script``), not ``regex`` at run time, so a user's ``regex`` version cannot change
which pieces a filter disables. The oracle asks ``regex`` itself, through a pattern of one
``\\p{sc=NAME}`` group per script built from ``regex._regex_core`` (regex's, not ours): with
the ``regex`` the tables were generated from, the two must agree on every code point but the
surrogates.
"""

from __future__ import annotations

import itertools
import unicodedata
from functools import cache
from typing import Any

import pytest
import regex
import regex._regex_core as regex_core
from conftest import slow

from brahmic_pua.model.display import SPACE
from brahmic_pua.nepbpe.filters import PUNCTUATION, char_class
from brahmic_pua.orthography import script_of_char, unicode_script
from brahmic_pua.orthography.unicode_tables import (
    OTHER_SCRIPT_RANGES,
    REGEX_VERSION,
    SCRIPT_RANGES,
)

SURROGATES = range(0xD800, 0xE000)
ALL_CHARS = "".join(chr(cp) for cp in range(0x110000) if cp not in SURROGATES)

# -- the oracle: filters.py's implementation before the tables had every script --------------

_NEUTRAL_SCRIPTS = frozenset({"COMMON", "INHERITED", "UNKNOWN"})
_ZW = frozenset("\u200c\u200d")


@cache
def _unicode_scripts() -> regex.Pattern[str]:
    """The old pattern: one group per real script, named by its long name."""
    names: dict[int, str] = {}
    properties: dict[str, Any] = vars(regex_core)["PROPERTIES"]  # not in types-regex's stub
    for name, value in properties["SCRIPT"][1].items():
        names.setdefault(value, name)  # the long name comes first
    wanted = sorted(n for n in names.values() if n not in _NEUTRAL_SCRIPTS)
    return regex.compile("|".join(rf"(?P<{n}>\p{{sc={n}}})" for n in wanted))


@cache
def regex_scripts() -> dict[str, str]:
    """The old pattern's answer for every character it matches (lower-cased group name).

    ``finditer`` over the string of all characters tries the pattern at every position, as the
    old ``match`` did one character at a time, but in one pass: 3x faster, which keeps this
    file's tests within seconds. The pattern has no context, so the answers are the same.
    """
    found: dict[str, str] = {}
    for match in _unicode_scripts().finditer(ALL_CHARS):
        assert match.lastgroup is not None
        found[match.group()] = match.lastgroup.lower()
    return found


def old_char_class(ch: str) -> str | None:
    """filters.char_class as it was, its regex lookup read from :func:`regex_scripts`."""
    category = unicodedata.category(ch)
    if ch == SPACE or ch.isspace() or ch in _ZW or category == "Nd":
        return None
    if category.startswith("P"):
        return PUNCTUATION
    script = script_of_char(ch)
    if script is not None:
        return script
    return regex_scripts().get(ch)


same_regex = pytest.mark.skipif(
    regex.__version__ != REGEX_VERSION, reason="tables come from another regex"
)

# -- tests ------------------------------------------------------------------------------------


@slow  # every code point
@same_regex
def test_char_class_matches_the_regex_implementation_everywhere() -> None:
    new = char_class.__wrapped__  # uncached: 1.1M distinct characters would only churn the cache
    expected = list(map(old_char_class, ALL_CHARS))
    got = list(map(new, ALL_CHARS))
    if got != expected:
        wrong = [
            (f"U+{ord(c):04X}", e, g)
            for c, e, g in zip(ALL_CHARS, expected, got, strict=True)
            if e != g
        ]
        pytest.fail(f"{len(wrong)} code points differ (U+, old, new), e.g. {wrong[:5]}")


@slow  # every code point
@same_regex
def test_script_tables_are_regex_scripts() -> None:
    """Both tables together are exactly ``regex``'s Script of every character of a real script
    (``regex`` alone, no ``script_of_char`` first: a Brahmic script's name, too, is the one
    ``regex`` gives); the lookup itself is checked on every code point above."""
    tables = {
        chr(cp): script
        for first, last, script in (*SCRIPT_RANGES, *OTHER_SCRIPT_RANGES)
        for cp in range(first, last + 1)
    }
    assert tables == regex_scripts()


@pytest.mark.parametrize(
    ("ch", "expected"),
    [
        ("a", "latin"),
        ("Ж", "cyrillic"),
        ("α", "greek"),
        ("ع", "arabic"),
        ("高", "han"),
        ("が", "hiragana"),
        ("カ", "katakana"),
        ("한", "hangul"),
        ("\U00020000", "han"),  # CJK Extension B, outside the BMP
        ("क", "devanagari"),  # a Brahmic script: from SCRIPT_RANGES, same spelling
        ("ꯀ", "meeteimayek"),  # long name, separators dropped
        ("!", None),  # Common
        ("₹", None),  # Common
        ("\u0300", None),  # Inherited
        ("\u0378", None),  # Unknown (unassigned)
        ("\ue000", None),  # Unknown (private use)
    ],
)
def test_unicode_script_examples(ch: str, expected: str | None) -> None:
    assert unicode_script(ch) == expected


def test_unicode_script_wants_one_character() -> None:
    with pytest.raises(ValueError, match="one character"):
        unicode_script("ab")


def test_script_tables_are_sorted_and_disjoint() -> None:
    """Both tables are bisected: each must be sorted and its runs disjoint; and a code point is
    in at most one of the two (a Brahmic script is only in ``SCRIPT_RANGES``)."""
    for table in (SCRIPT_RANGES, OTHER_SCRIPT_RANGES):
        assert all(a <= b for a, b, _ in table)
        assert all(prev[1] < nxt[0] for prev, nxt in itertools.pairwise(table))
    brahmic = {v for _, _, v in SCRIPT_RANGES}
    assert brahmic.isdisjoint(v for _, _, v in OTHER_SCRIPT_RANGES)
    merged = sorted((a, b) for a, b, _ in (*SCRIPT_RANGES, *OTHER_SCRIPT_RANGES))
    assert all(prev[1] < nxt[0] for prev, nxt in itertools.pairwise(merged))
