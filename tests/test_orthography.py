"""The paper's formal model (§3): classes, ⊸, fixToken, combine, and their lemmas."""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st
from strategies import TELUGU, VIETNAMESE, texts, valid_tokens

from brahmic_pua.orthography import (
    DEPENDENTS,
    RULES,
    STARTERS,
    UNICODE_VERSION,
    CharClass,
    Transition,
    can_follow,
    classify,
    combine,
    fix_token,
    indic_category,
    is_valid_token,
    script_of_char,
    transitions,
)
from brahmic_pua.orthography.unicode_tables import CLASS_RANGES, REGEX_VERSION, SCRIPT_RANGES

C = CharClass
TOOLS = Path(__file__).resolve().parent.parent / "tools"
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


@pytest.mark.skipif(regex.__version__ != REGEX_VERSION, reason="tables come from another regex")
def test_generated_tables_are_reproducible() -> None:
    spec = importlib.util.spec_from_file_location("generate_tables", TOOLS / "generate_tables.py")
    assert spec is not None and spec.loader is not None
    generate_tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate_tables)
    committed = generate_tables.TARGET.read_text("utf-8")
    assert generate_tables.render(generate_tables.unicode_version()) == committed


# -- the relation ----------------------------------------------------------------------------


@pytest.mark.parametrize(("a", "b"), list(itertools.product(CharClass, CharClass)))
def test_can_follow_is_sound_and_complete(a: CharClass, b: CharClass) -> None:
    """The decision procedure agrees with the constructors on every pair."""
    assert can_follow(a, b) == bool(transitions(a, b))


def test_paper_relation_on_the_five_classes() -> None:
    """On the paper's five classes ⊸ is the paper's relation plus five documented extensions."""
    five = [C.CONSONANT, C.INDEPENDENT_VOWEL, C.DEPENDENT_VOWEL, C.VOWEL_SUFFIX, C.VIRAMA]
    paper = {
        (C.CONSONANT, C.VIRAMA),
        (C.CONSONANT, C.DEPENDENT_VOWEL),
        (C.CONSONANT, C.VOWEL_SUFFIX),
        (C.INDEPENDENT_VOWEL, C.VOWEL_SUFFIX),
        (C.DEPENDENT_VOWEL, C.VOWEL_SUFFIX),
        *((t, C.INDEPENDENT_VOWEL) for t in five),
        *((t, C.CONSONANT) for t in five),
    }
    extensions = {
        (C.INDEPENDENT_VOWEL, C.DEPENDENT_VOWEL),
        (C.INDEPENDENT_VOWEL, C.VIRAMA),
        (C.DEPENDENT_VOWEL, C.DEPENDENT_VOWEL),
        (C.DEPENDENT_VOWEL, C.VIRAMA),
        (C.VOWEL_SUFFIX, C.VOWEL_SUFFIX),
    }
    ours = {(a, b) for a in five for b in five if can_follow(a, b)}
    assert ours == paper | extensions
    names = {t.value for a, b in paper for t in transitions(a, b)}
    assert {"DeadConsonant", "VowelSymbol", "NextVowel", "NextConsonant"} <= names
    assert {"VowelSuffix1", "VowelSuffix2", "VowelSuffix3"} <= names


def test_vietnamese_instance() -> None:
    """§3.5: one diacritic then one tone; stacked diacritics or tones are invalid."""
    assert transitions(C.BASE, C.DIACRITIC) == [Transition.MARK_V]
    assert is_valid_token("e\u0302\u0301")  # ế
    assert is_valid_token("e\u0323\u0302")  # ệ in NFD order (dot below sorts first)
    assert not is_valid_token("e\u0302\u0306")  # two diacritics
    assert not is_valid_token("e\u0301\u0300")  # two tones
    assert all(can_follow(t, C.BASE) for t in CharClass)  # NextBasev


def test_every_rule_names_a_transition() -> None:
    assert {r.name for r in RULES} == set(Transition)
    assert all(r.before and r.after for r in RULES)


def test_nothing_dependent_follows_other() -> None:
    assert not any(can_follow(C.OTHER, b) for b in DEPENDENTS)
    assert all(can_follow(a, b) for a in CharClass for b in STARTERS)


# -- fixToken --------------------------------------------------------------------------------


def test_paper_telugu_example() -> None:
    """§3.3: candidate వి జ, remainder ్ ఞ ా → token విజ్, rest ఞా."""
    assert fix_token("\u0c35\u0c3f\u0c1c", "\u0c4d\u0c1e\u0c3e") == (
        "\u0c35\u0c3f\u0c1c\u0c4d",
        "\u0c1e\u0c3e",
    )


@given(texts, texts)
def test_fix_token_completeness(candidate: str, remainder: str) -> None:
    token, rest = fix_token(candidate, remainder)
    assert token + rest == candidate + remainder
    assert token.startswith(candidate)


@given(texts, texts)
def test_fix_token_remainder_ok(candidate: str, remainder: str) -> None:
    _, rest = fix_token(candidate, remainder)
    assert rest == "" or classify(rest[0]) in STARTERS


@given(valid_tokens(), st.data())
def test_fix_token_preserves_validity(full: str, data: st.DataObject) -> None:
    """If the candidate and candidate ++ remainder are valid tokens, so is the repaired token."""
    cut = data.draw(st.integers(1, len(full)))
    candidate, remainder = full[:cut], full[cut:]
    assert is_valid_token(candidate) and is_valid_token(full)
    token, _ = fix_token(candidate, remainder)
    assert is_valid_token(token)


@given(texts, texts)
def test_fix_token_is_idempotent(candidate: str, remainder: str) -> None:
    token, rest = fix_token(candidate, remainder)
    assert fix_token(token, rest) == (token, rest)


# -- combine, the partial semigroup ----------------------------------------------------------

short = st.text(st.sampled_from(TELUGU + VIETNAMESE + " 1"), min_size=1, max_size=5)


@given(short, short, short)
def test_combine_is_associative(x: str, y: str, z: str) -> None:
    """Orthography2.assoc: xy and (xy)z defined ⇒ yz and x(yz) defined, and equal."""
    xy = combine(x, y)
    xyz = combine(xy, z) if xy is not None else None
    if xyz is not None:
        yz = combine(y, z)
        assert yz is not None
        assert combine(x, yz) == xyz


@given(short, short)
def test_combine_is_defined_exactly_at_valid_boundaries(x: str, y: str) -> None:
    expected = x + y if can_follow(classify(x[-1]), classify(y[0])) else None
    assert combine(x, y) == expected


@given(valid_tokens(), valid_tokens())
def test_valid_tokens_form_a_semigroup(x: str, y: str) -> None:
    """§3.2: concatenation is total on valid tokens and stays valid."""
    xy = combine(x, y)
    assert xy == x + y
    assert is_valid_token(xy)


def test_combine_has_no_unit() -> None:
    assert combine("", "క") is None
    assert combine("క", "") is None
    assert combine("క", "ి") == "కి"
    assert combine(" ", "ి") is None


def test_is_valid_token_examples() -> None:
    assert is_valid_token("క్రాంతి")
    assert not is_valid_token("్క")
    assert not is_valid_token("")
    assert not is_valid_token(" ్")


@given(texts)
def test_normalization_is_idempotent(text: str) -> None:
    from brahmic_pua import normalize

    once = normalize(text)
    assert normalize(once) == once
    assert normalize(text, "none") == text
