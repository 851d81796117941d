"""Cut text, in C, at positions where every policy is sure to have a cluster boundary.

Per-cluster regex matching costs about a microsecond a cluster in Python. Most of that work is
avoidable: a boundary falls before every character that is a "sure start" for a policy (a space,
ASCII, a Brahmic independent vowel; for fixtoken every consonant too), whatever came before it.
``str.translate`` puts a sentinel before each such character and ``str.split`` cuts there. Pieces
repeat (the same syllables, the same words), so callers cache the work done per piece, and each
piece segments on its own exactly as it would in place.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import TypeVar

from brahmic_pua.orthography.charclass import DEPENDENTS, CharClass
from brahmic_pua.orthography.unicode_tables import CLASS_RANGES, SCRIPT_RANGES

#: Sentinels tried in turn; a text that holds all 32 noncharacters takes the slow path.
SENTINELS = tuple(chr(cp) for cp in range(0xFDD0, 0xFDF0))

#: Characters outside the Brahmic tables that still start a cluster under every policy:
#: ASCII (controls, space, Latin, digits), Latin-1 punctuation, General Punctuation, dandas.
_COMMON_STARTS = [*range(0x00, 0x80), *range(0xA0, 0xC0), *range(0x2000, 0x2070), 0x0964, 0x0965]
_DEPENDENT_NAMES = {c.name for c in DEPENDENTS}
_DEPENDENT_CPS = {cp for a, b, v in CLASS_RANGES if v in _DEPENDENT_NAMES for cp in range(a, b + 1)}

SURROGATE = re.compile("[\ud800-\udfff]")


def check_no_surrogates(text: str) -> None:
    """Raise ValueError naming the index of the first lone surrogate in ``text``: the one
    error every public function that takes text gives for one (a lone surrogate is no text:
    UTF-8 cannot write it, stock's C++ cannot take it)."""
    found = SURROGATE.search(text)
    if found:
        raise ValueError(
            f"lone surrogate U+{ord(found.group()):04X} at index {found.start()}: "
            "the text is not valid Unicode; decode its bytes with errors='replace' first"
        )


def check_texts(value: object) -> None:
    """:func:`check_no_surrogates` on a text, or on each text of a list or tuple (of lists:
    a batch of pieces), the error then naming the text by its index. Anything else (bytes,
    ids) holds no surrogate and passes."""
    if isinstance(value, str):
        check_no_surrogates(value)
    elif isinstance(value, list | tuple):
        for n, item in enumerate(value):
            try:
                check_texts(item)
            except ValueError as error:
                raise ValueError(f"text {n} of the list: {error}") from None


def name_refused_surrogate(given: object) -> None:
    """Called where stock sentencepiece refused ``given`` (``except (RuntimeError,
    TypeError):``, then ``raise``): pybind cannot pass a lone surrogate to C++ and raises a
    ``RuntimeError`` (a str) or ``TypeError`` (a list) that names no character. This raises
    :func:`check_no_surrogates`' ValueError in its place, or returns (the caller re-raises
    stock's error). The text is searched only after stock refused it and a ``try`` costs
    nothing, so a call that succeeds pays nothing (a ``with`` would cost each call about
    0.3 µs, a third of ``piece_to_id``)."""
    try:
        check_texts(given)
    except ValueError as error:
        raise error from None  # stock's refusal says nothing the ValueError does not


@cache
def _brahmic_code_points() -> frozenset[int]:
    return frozenset(cp for a, b, _ in SCRIPT_RANGES for cp in range(a, b + 1))


def _brahmic_starts(classes: frozenset[CharClass]) -> set[int]:
    wanted = {c.name for c in classes}
    members = {cp for a, b, v in CLASS_RANGES if v in wanted for cp in range(a, b + 1)}
    return members & _brahmic_code_points()


@cache
def sure_starts(policy: str) -> frozenset[int]:
    """Code points before which ``policy`` always puts a boundary (empty for grapheme)."""
    if policy == "grapheme":
        return frozenset()
    brahmic = {CharClass.INDEPENDENT_VOWEL}
    if policy == "fixtoken":  # consonants continue conjuncts in akshara and syllable
        brahmic.add(CharClass.CONSONANT)
    common = {cp for cp in _COMMON_STARTS if cp not in _DEPENDENT_CPS}  # not ZWJ, ZWNJ
    return frozenset(common) | frozenset(_brahmic_starts(frozenset(brahmic)))


@cache
def _passthrough() -> dict[int, str]:
    """Identity entries for the characters Brahmic text is made of: ``str.translate`` is about
    twice as fast when a lookup hits than when it has to raise and swallow a KeyError."""
    every = _brahmic_code_points() | _DEPENDENT_CPS | set(_COMMON_STARTS)
    return {cp: chr(cp) for cp in every}


@cache
def _table(policy: str, sentinel: str) -> dict[int, str]:
    return {**_passthrough(), **{cp: sentinel + chr(cp) for cp in sure_starts(policy)}}


def split_pieces(text: str, policy: str) -> list[str] | None:
    """``text`` cut before every sure start of ``policy``; None when no sentinel is free.

    ``"".join(pieces) == text``; the first piece may be empty.
    """
    if policy == "grapheme":
        return None
    for sentinel in SENTINELS:
        if sentinel not in text:
            return text.translate(_table(policy, sentinel)).split(sentinel)
    return None


def passthrough_map() -> dict[int, str]:
    """A fresh copy of the identity translate entries, for tables that add their own."""
    return dict(_passthrough())


V = TypeVar("V")


class PieceMemo(dict[str, V]):
    """Work done once per distinct piece. Hits cost no Python call: ``map(memo.__getitem__,
    pieces)`` runs in C, and only a miss calls ``compute``."""

    def __init__(self, compute: Callable[[str], V]) -> None:
        super().__init__()
        self.compute = compute

    def __missing__(self, piece: str) -> V:
        value = self[piece] = self.compute(piece)
        return value
