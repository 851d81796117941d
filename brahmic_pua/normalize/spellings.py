"""Canonically equivalent spellings, so stock SentencePiece can apply NFC through its rules.

Stock spm applies only the compiled rules, not NFC, and real text is often not NFC (Telugu ై as
U+0C46 U+0C56, Devanagari precomposed nukta letters U+0958–U+095F). Every spelling ``s`` with
``NFD(s) == NFD(text)`` is found by (1) reordering each run of combining marks in every way
canonical ordering undoes (marks of equal combining class keep their order; class-0 characters
never move) and (2) composing any contiguous piece that is the full decomposition of a
character. Together these give every spelling: a string's pieces decompose to one such order.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterator
from functools import cache, lru_cache
from itertools import pairwise
from math import factorial

import brahmic_pua.normalize.unicode_ranges as unicode_ranges

MAX_RUN = 6  # marks in one run reordered exhaustively (6! = 720 orders); longer runs keep theirs
MAX_SPELLINGS = 256  # per text: stacked marks multiply, the common spellings come first
HANGUL_FIRST, HANGUL_LAST = "\uac00", "\ud7a3"
_JAMO_T = 28  # trailing consonants per leading consonant + vowel, "none" included


def recorded_unicode() -> bool:
    """Whether :mod:`~brahmic_pua.normalize.unicode_ranges` holds this Python's Unicode."""
    return unicodedata.unidata_version == unicode_ranges.UNIDATA_VERSION


def computed_decomposing() -> list[str]:
    """Every character whose NFD differs from itself, found by asking each code point."""
    found = []
    for cp in range(0x2FA1E):  # nothing above U+2FA1D has a canonical decomposition
        ch = chr(cp)
        if not 0xD800 <= cp <= 0xDFFF and unicodedata.normalize("NFD", ch) != ch:
            found.append(ch)
    return found


@cache
def combining_characters() -> str:
    """Every character with a non-zero canonical combining class, in code point order."""
    if recorded_unicode():
        runs = unicode_ranges.COMBINING
        return "".join(chr(cp) for first, last in runs for cp in range(first, last + 1))
    return "".join(chr(c) for c in range(0x110000) if unicodedata.combining(chr(c)))


@cache
def composites() -> dict[str, tuple[str, ...]]:
    """Full canonical decomposition → the characters that decompose to it (all of Unicode,
    Hangul syllables included: Korean names in NFD occur even in Bengali Wikipedia)."""
    if recorded_unicode():
        runs = unicode_ranges.DECOMPOSING
        characters = [chr(cp) for first, last in runs for cp in range(first, last + 1)]
    else:
        characters = computed_decomposing()
    found: dict[str, list[str]] = {}
    for ch in characters:
        found.setdefault(unicodedata.normalize("NFD", ch), []).append(ch)
    return {key: tuple(chars) for key, chars in found.items()}


def decomposing_characters() -> Iterator[str]:
    """Every character whose NFD differs from itself."""
    for chars in composites().values():
        yield from chars


@lru_cache(maxsize=1 << 16)  # rule building asks for the same characters every training
def spellings(text: str) -> tuple[str, ...]:
    """Canonically equivalent spellings of ``text`` (``text`` itself first), at most
    ``MAX_SPELLINGS``, in a fixed order."""
    if len(text) == 1 and HANGUL_FIRST <= text <= HANGUL_LAST:
        return _hangul(text)
    if alone(text):
        return (text,)
    seen = dict.fromkeys([text])
    for order in _orders(unicodedata.normalize("NFD", text)):
        for spelled in _compositions(order):
            seen.setdefault(spelled)
            if len(seen) >= MAX_SPELLINGS:
                return tuple(seen)
    return tuple(seen)


def _hangul(syllable: str) -> tuple[str, ...]:
    """What the general spelling gives for one Hangul syllable (11,172 of the characters that
    decompose, at a tenth of the cost): the syllable, its jamo, and for a syllable with a
    trailing consonant also the syllable without it + that consonant."""
    jamo = unicodedata.normalize("NFD", syllable)
    if len(jamo) == 2:
        return (syllable, jamo)
    index = ord(syllable) - ord(HANGUL_FIRST)
    return (syllable, jamo, chr(ord(syllable) - index % _JAMO_T) + jamo[2])


def spelling_floor(text: str) -> int:
    """A lower bound of ``len(spellings(text))``, found without spelling anything: each order
    of the marks gives at least one spelling of its own."""
    if alone(text):
        return 1
    count = 1
    for run in _runs(unicodedata.normalize("NFD", text)):
        count *= run_order_count(run)
        if count >= MAX_SPELLINGS:
            return MAX_SPELLINGS
    return count


def _runs(decomposed: str) -> Iterator[tuple[str, ...]]:
    """The runs of combining marks in ``decomposed``."""
    run: list[str] = []
    for ch in (*decomposed, ""):
        if ch and unicodedata.combining(ch):
            run.append(ch)
        elif run:
            yield tuple(run)
            run = []


@cache
def _involved() -> frozenset[str]:
    """Characters that are part of some character's decomposition."""
    return frozenset("".join(composites()))


def alone(text: str) -> bool:
    """True when ``text`` has no other spelling: nothing in it decomposes or composes, and no
    two adjacent marks of different combining classes could be swapped."""
    if not _involved().isdisjoint(text) or unicodedata.normalize("NFD", text) != text:
        return False
    classes = [unicodedata.combining(ch) for ch in text]
    return not any(a and b and a != b for a, b in pairwise(classes))


def _orders(decomposed: str) -> Iterator[str]:
    """Every order of ``decomposed`` that canonical ordering maps back to it."""
    parts: list[list[str]] = [[]]
    run: list[str] = []
    for ch in (*decomposed, ""):
        if ch and unicodedata.combining(ch):
            run.append(ch)
            continue
        if run:
            parts = [[*p, r] for p in parts for r in run_orders(tuple(run))]
            run = []
        if ch:
            parts = [[*p, ch] for p in parts]
    for p in parts:
        yield "".join(p)


@lru_cache(maxsize=1 << 12)
def run_orders(run: tuple[str, ...]) -> tuple[str, ...]:
    """The orders of one run of marks that canonical ordering (a stable sort by combining
    class) maps back to it: the interleavings that keep the order of the marks of each class,
    in the order ``itertools.permutations(run)`` meets them, ``run`` itself first."""
    canonical = "".join(run)
    if len(run) > MAX_RUN:
        return (canonical,)
    classes = [unicodedata.combining(ch) for ch in run]
    of_class = {k: [ch for ch, c in zip(run, classes, strict=True) if c == k] for k in classes}
    taken = dict.fromkeys(classes, 0)
    orders = dict.fromkeys([canonical])

    def walk(prefix: str, unused: list[int]) -> None:
        if not unused:
            orders.setdefault(prefix)
        for i in unused:  # ascending, as permutations() takes them
            k = classes[i]
            if run[i] == of_class[k][taken[k]]:
                taken[k] += 1
                walk(prefix + run[i], [j for j in unused if j != i])
                taken[k] -= 1

    walk("", list(range(len(run))))
    return tuple(orders)


@lru_cache(maxsize=1 << 12)
def run_order_count(run: tuple[str, ...]) -> int:
    """``len(run_orders(run))`` without listing them: the ways to interleave the classes."""
    if len(run) > MAX_RUN:
        return 1
    count = factorial(len(run))
    for size in Counter(unicodedata.combining(ch) for ch in run).values():
        count //= factorial(size)
    return count


@cache
def longest_decomposition() -> int:
    """Characters in the longest full canonical decomposition."""
    return max(map(len, composites()))


@cache
def _starts() -> frozenset[str]:
    """First characters of the decompositions: only there can a piece be written otherwise."""
    return frozenset(key[0] for key in composites())


def _compositions(order: str) -> list[str]:
    """``order`` with every choice of contiguous pieces written precomposed (built from the
    end: the spellings of each tail, extended by every way to write the piece before it).

    Only a position holding a character of :func:`_starts` branches; the text up to the next
    such position is carried along as it is.
    """
    table = composites()
    starts = _starts()
    longest = longest_decomposition()
    size = len(order)
    nearest = [size] * (size + 1)  # the first branching position at or after each
    for j in range(size - 1, -1, -1):
        nearest[j] = j if order[j] in starts else nearest[j + 1]
    if nearest[0] == size:
        return [order]
    tails: dict[int, list[str]] = {size: [""]}  # spellings of order[j:] at branching j

    def tail(i: int) -> list[str]:
        """Spellings of ``order[i:]``."""
        j = nearest[i]
        return [order[i:j] + rest for rest in tails[j]] if j > i else tails[j]

    for i in range(size - 1, -1, -1):
        if nearest[i] != i:
            continue
        spelled: list[str] = []
        for k in range(1, min(longest, size - i) + 1):
            piece = order[i : i + k]
            heads = (piece, *table.get(piece, ())) if k == 1 else table.get(piece, ())
            if heads:
                rests = tail(i + k)
                spelled += [head + rest for head in heads for rest in rests]
        tails[i] = spelled
    return tail(0)
