"""The ⊸ relation (the paper, §3.1): sound and complete against its rules, the paper's five-class
instance, the Vietnamese instance."""

from __future__ import annotations

import itertools

import pytest

from brahmic_pua.orthography import (
    DEPENDENTS,
    RULES,
    STARTERS,
    CharClass,
    Transition,
    can_follow,
    is_valid_token,
    transitions,
)

C = CharClass
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
