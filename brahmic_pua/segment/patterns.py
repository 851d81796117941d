"""Regular expressions for the four segmentation policies, built from the generated tables.

Every pattern matches a whole cluster from wherever a cluster starts, so ``findall`` over a text
gives its segmentation and ``sub`` can map clusters without a Python loop per character.
"""

from __future__ import annotations

import re
from functools import cache

import regex

from brahmic_pua.orthography.charclass import DEPENDENTS, CharClass
from brahmic_pua.orthography.classify import class_charset, insc_charset, script_charset
from brahmic_pua.orthography.relation import can_follow
from brahmic_pua.segment.syllable import COMPLEX_CONSONANTS

POLICIES: tuple[str, ...] = ("fixtoken", "akshara", "syllable", "grapheme")

C = CharClass
BRAHMIC_DEPENDENTS = frozenset(
    {C.DEPENDENT_VOWEL, C.VOWEL_SUFFIX, C.VIRAMA, C.NUKTA, C.MEDIAL, C.JOINER, C.NON_JOINER}
)
CONJUNCT_VIRAMAS = frozenset({"VIRAMA", "INVISIBLESTACKER"})


def _set(classes: frozenset[CharClass]) -> str:
    return f"[{class_charset(classes)}]"


def _continuation() -> str:
    """One dependent character that may follow the character before it (a ⊸ step)."""
    by_predecessors: dict[frozenset[CharClass], set[CharClass]] = {}
    for b in sorted(DEPENDENTS):
        before = frozenset(a for a in CharClass if can_follow(a, b))
        if C.OTHER in before:  # no dependent may follow OTHER; the tables rely on it
            raise AssertionError(f"{b.name} may follow OTHER")
        by_predecessors.setdefault(before, set()).add(b)
    alternatives = [
        f"{_set(frozenset(after))}(?<={_set(before)}.)"
        for before, after in sorted(by_predecessors.items(), key=lambda kv: min(kv[1]))
    ]
    return "(?:" + "|".join(alternatives) + ")"


@cache
def fixtoken_cluster() -> str:
    """Any character, then every dependent that may follow its predecessor."""
    return f"(?s:.){_continuation()}*"


@cache
def akshara_cluster() -> str:
    """fixtoken clusters joined across a conjunct-forming virama (optionally + ZWJ) before a
    consonant: क्ष and క్ర stay whole, a word-final dead consonant stays a unit, ZWNJ breaks."""
    cluster = fixtoken_cluster()
    virama = f"[{insc_charset(CONJUNCT_VIRAMAS)}]"
    consonant = _set(frozenset({C.CONSONANT}))
    ends_dead = f"(?:(?<={virama})|(?<={virama}\u200d))"
    return f"(?:{cluster}{ends_dead}(?={consonant}))*{cluster}"


@cache
def syllable_cluster() -> str:
    """seeds/003: a complex consonant, consonant or vowel starts a unit and every sign attaches;
    signs with nothing to attach to form their own unit; anything else is one character."""
    complex_ = "|".join(COMPLEX_CONSONANTS)
    start = _set(frozenset({C.CONSONANT, C.INDEPENDENT_VOWEL}))
    sign = _set(BRAHMIC_DEPENDENTS)
    return f"(?:{complex_}|{start}){sign}*|{sign}+|(?s:.)"


def cluster_source(policy: str) -> str:
    """The regex source matching one cluster of ``policy``."""
    if policy == "fixtoken":
        return fixtoken_cluster()
    if policy == "akshara":
        return akshara_cluster()
    if policy == "syllable":
        return syllable_cluster()
    if policy == "grapheme":
        return r"\X"
    raise ValueError(f"unknown policy {policy!r}: choose one of {', '.join(POLICIES)}")


@cache
def cluster_regex(policy: str) -> re.Pattern[str] | regex.Pattern[str]:
    """Compiled :func:`cluster_source`; ``findall`` over a text is its segmentation.

    The stdlib engine runs these explicit character classes about 2.5× faster than ``regex``;
    only ``grapheme`` needs ``regex`` (for ``\\X``).
    """
    source = cluster_source(policy)
    return regex.compile(source) if policy == "grapheme" else re.compile(source)


@cache
def brahmic_start_charset() -> str:
    """Characters that can begin a cluster holding Brahmic text: every Brahmic-script character
    and every Brahmic sign (ZWJ, ZWNJ and Vedic marks are not in any one script)."""
    return script_charset(None) + class_charset(BRAHMIC_DEPENDENTS)
