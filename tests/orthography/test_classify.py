"""Character classes (the paper, §3.1) as the generated tables give them: every Brahmic character
has a class, dependents are combining marks, the tables regenerate byte for byte."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import regex
from conftest import slow

from brahmic_pua.orthography import (
    DEPENDENTS,
    UNICODE_VERSION,
    CharClass,
    classify,
    indic_category,
    script_of_char,
)
from brahmic_pua.orthography.unicode_tables import CLASS_RANGES, REGEX_VERSION, SCRIPT_RANGES

C = CharClass
TOOLS = Path(__file__).resolve().parents[2] / "tools"
REQUIRED_SCRIPTS = (
    "devanagari",
    "bengali",
    "gurmukhi",
    "gujarati",
    "oriya",
    "tamil",
    "telugu",
    "kannada",
    "malayalam",
    "sinhala",
)


@pytest.mark.parametrize(
    ("ch", "expected"),
    [
        ("క", C.CONSONANT),
        ("అ", C.INDEPENDENT_VOWEL),
        ("ి", C.DEPENDENT_VOWEL),
        ("ం", C.VOWEL_SUFFIX),
        ("ః", C.VOWEL_SUFFIX),
        ("్", C.VIRAMA),
        ("\u0c3c", C.NUKTA),
        ("\u0c5d", C.CONSONANT),  # Telugu nukta, nakaara pollu
        ("क", C.CONSONANT),
        ("़", C.NUKTA),
        ("ँ", C.VOWEL_SUFFIX),
        ("ॐ", C.INDEPENDENT_VOWEL),
        ("\ua8e0", C.VOWEL_SUFFIX),
        ("\u1cd0", C.VOWEL_SUFFIX),  # Devanagari Ext., Vedic Ext.
        ("\u200d", C.JOINER),
        ("\u200c", C.NON_JOINER),
        ("a", C.BASE),
        ("\u0302", C.DIACRITIC),
        ("\u0306", C.DIACRITIC),
        ("\u031b", C.DIACRITIC),
        ("\u0301", C.TONE),
        ("\u0323", C.TONE),
        ("\u0308", C.MARK),
        (" ", C.OTHER),
        ("1", C.OTHER),
        ("।", C.OTHER),
        ("\ue000", C.OTHER),
        ("\u2581", C.OTHER),
        ("-", C.OTHER),
        ("\u00a0", C.OTHER),  # InSC calls these consonant placeholders
    ],
)
def test_classify_examples(ch: str, expected: CharClass) -> None:
    assert classify(ch) is expected


def test_classify_rejects_strings() -> None:
    with pytest.raises(ValueError, match="one character"):
        classify("కి")


@pytest.mark.parametrize("script", REQUIRED_SCRIPTS)
def test_required_scripts_are_covered(script: str) -> None:
    chars = [chr(cp) for a, b, s in SCRIPT_RANGES if s == script for cp in range(a, b + 1)]
    classes = {classify(ch) for ch in chars}
    assert {C.CONSONANT, C.INDEPENDENT_VOWEL, C.DEPENDENT_VOWEL, C.VIRAMA} <= classes
    assert all(script_of_char(ch) == script for ch in chars)


def test_dependent_classes_hold_only_combining_marks_and_joiners() -> None:
    """A character that cannot start a token is one that renders on a dotted circle alone."""
    dependent_names = {c.name for c in DEPENDENTS}
    mark = regex.compile(r"\p{M}")
    for first, last, name in CLASS_RANGES:
        for cp in range(first, last + 1):
            ch = chr(cp)
            is_mark = bool(mark.match(ch)) or ch in "\u200c\u200d"
            assert (name in dependent_names) == is_mark, f"U+{cp:04X} {name}"


def test_every_brahmic_character_has_a_brahmic_class() -> None:
    generic = {C.BASE, C.MARK, C.DIACRITIC, C.TONE}
    for first, last, _ in SCRIPT_RANGES:
        for cp in range(first, last + 1):
            assert classify(chr(cp)) not in generic, f"U+{cp:04X}"


def test_classes_come_from_indic_syllabic_category() -> None:
    assert indic_category("క") == "CONSONANT"
    assert indic_category("ి") == "VOWELDEPENDENT"
    assert indic_category("\u0c5d") == "CONSONANTDEAD"
    assert indic_category("a") is None
    assert UNICODE_VERSION.count(".") == 2


@slow  # generates the tables again
@pytest.mark.skipif(regex.__version__ != REGEX_VERSION, reason="tables come from another regex")
def test_generated_tables_are_reproducible() -> None:
    spec = importlib.util.spec_from_file_location("generate_tables", TOOLS / "generate_tables.py")
    assert spec is not None and spec.loader is not None
    generate_tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate_tables)
    committed = generate_tables.TARGET.read_text("utf-8")
    assert generate_tables.render(generate_tables.unicode_version()) == committed
