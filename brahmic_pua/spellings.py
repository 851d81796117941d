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
from collections.abc import Iterator
from functools import cache, lru_cache
from itertools import pairwise, permutations

MAX_RUN = 6  # marks in one run reordered exhaustively (6! = 720 orders); longer runs keep theirs
MAX_SPELLINGS = 256  # per text: stacked marks multiply, the common spellings come first


@cache
def composites() -> dict[str, tuple[str, ...]]:
    """Full canonical decomposition → the characters that decompose to it (all of Unicode,
    Hangul syllables included: Korean names in NFD occur even in Bengali Wikipedia)."""
    found: dict[str, list[str]] = {}
    for cp in range(0x2FA1E):  # nothing above U+2FA1D has a canonical decomposition
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        decomposed = unicodedata.normalize("NFD", ch)
        if decomposed != ch:
            found.setdefault(decomposed, []).append(ch)
    return {key: tuple(chars) for key, chars in found.items()}


def decomposing_characters() -> Iterator[str]:
    """Every character whose NFD differs from itself."""
    for chars in composites().values():
        yield from chars


@lru_cache(maxsize=1 << 16)  # rule building asks for the same characters every training
def spellings(text: str) -> tuple[str, ...]:
    """Canonically equivalent spellings of ``text`` (``text`` itself first), at most
    ``MAX_SPELLINGS``, in a fixed order."""
    if alone(text):
        return (text,)
    seen = dict.fromkeys([text])
    for order in _orders(unicodedata.normalize("NFD", text)):
        for spelled in _compositions(order):
            seen.setdefault(spelled)
            if len(seen) >= MAX_SPELLINGS:
                return tuple(seen)
    return tuple(seen)


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
            parts = [[*p, r] for p in parts for r in _run_orders(run)]
            run = []
        if ch:
            parts = [[*p, ch] for p in parts]
    for p in parts:
        yield "".join(p)


def _run_orders(run: list[str]) -> list[str]:
    if len(run) > MAX_RUN:
        return ["".join(run)]
    canonical = "".join(run)
    orders = dict.fromkeys([canonical])
    for perm in permutations(run):
        candidate = "".join(perm)
        if unicodedata.normalize("NFD", candidate) == canonical:
            orders.setdefault(candidate)
    return list(orders)


@cache
def _longest_decomposition() -> int:
    return max(map(len, composites()))


def _compositions(order: str) -> list[str]:
    """``order`` with every choice of contiguous pieces written precomposed (built from the
    end: the spellings of each tail, extended by every way to write the piece before it)."""
    table = composites()
    longest = _longest_decomposition()
    size = len(order)
    tails: list[list[str]] = [[] for _ in range(size)] + [[""]]
    for i in range(size - 1, -1, -1):
        for k in range(1, min(longest, size - i) + 1):
            piece = order[i : i + k]
            heads = (piece, *table.get(piece, ())) if k == 1 else table.get(piece, ())
            tails[i] += [head + rest for head in heads for rest in tails[i + k]]
    return tails[0]
