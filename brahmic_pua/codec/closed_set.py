"""Every valid fixtoken cluster of a script, so a codec covers them whatever its corpus held.

A cluster's canonical shape is a starter, an optional nukta, then one ending: nothing; a virama
(optionally + ZWJ or ZWNJ); a dependent vowel (optionally + a bindu or visarga); or a bindu or
visarga. Stacked signs, Vedic accents and Myanmar/Tibetan medial stacks are valid too, but there
are too many of them to enumerate; they get codes when the corpus has them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache
from itertools import pairwise

from brahmic_pua.orthography.charclass import STARTERS, CharClass
from brahmic_pua.orthography.classify import classify, indic_category, script_characters
from brahmic_pua.orthography.relation import can_follow

C = CharClass
CORE_SUFFIXES = frozenset({"BINDU", "VISARGA"})


@cache
def valid_clusters(script: str) -> tuple[str, ...]:
    """Canonical-shape clusters of one Brahmic script, each a valid token, in a fixed order."""
    return tuple(_canonical(script))


def _canonical(script: str) -> Iterator[str]:
    chars = script_characters(script)
    by_class: dict[CharClass, list[str]] = {c: [] for c in CharClass}
    for ch in chars:
        by_class[classify(ch)].append(ch)
    suffixes = [ch for ch in by_class[C.VOWEL_SUFFIX] if indic_category(ch) in CORE_SUFFIXES]
    endings = [""]
    for virama in by_class[C.VIRAMA]:
        endings += [virama, virama + "\u200d", virama + "\u200c"]
    for vowel in by_class[C.DEPENDENT_VOWEL]:
        endings += [vowel, *(vowel + s for s in suffixes)]
    endings += suffixes
    for consonant in by_class[C.CONSONANT]:
        for stem in (consonant, *(consonant + n for n in by_class[C.NUKTA])):
            yield from (stem + e for e in endings if _valid_shape(_shape(stem + e)))
    for vowel in by_class[C.INDEPENDENT_VOWEL]:
        yield from (vowel + e for e in ("", *suffixes) if _valid_shape(_shape(vowel + e)))


def _shape(cluster: str) -> tuple[CharClass, ...]:
    return tuple(classify(ch) for ch in cluster)


@cache
def _valid_shape(shape: tuple[CharClass, ...]) -> bool:
    """is_valid_token depends only on the classes, and shapes repeat thousands of times."""
    return shape[0] in STARTERS and all(can_follow(a, b) for a, b in pairwise(shape))


def closed_under_prefixes(clusters: Iterable[str]) -> list[str]:
    """The clusters whose every prefix of two or more characters is among the kept ones, in
    their order: a model whose table is closed so can be spelled in text
    (brahmic_pua.model.text_spelling), since BPE then rebuilds each cluster through pieces of
    its prefixes. A cluster whose prefix has no code (``शृं`` where ``शृ`` never stands alone)
    is left to the prefix's code and the bytes of its other characters."""
    given = list(clusters)
    kept: set[str] = set()
    for cluster in sorted(set(given), key=len):
        if all(cluster[:k] in kept for k in range(2, len(cluster))):
            kept.add(cluster)
    return [cluster for cluster in given if cluster in kept]
