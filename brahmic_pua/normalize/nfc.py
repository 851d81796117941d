"""NFC in time linear in the text: exactly ``unicodedata.normalize("NFC", text)``, always.

Why: CPython puts marks in canonical order with an insertion sort, so NFC of one run of k
combining marks that it must reorder (``'క' + '఼్' * k``: nukta, class 7, and virama, class 9,
alternating) costs k² steps: a line of 240,000 such characters took 37 s to encode where stock
spm takes 0.03 s, and 300,000 of ``'a' + '\\u0301\\u0323' * k`` took minutes. Every place N is
applied to a caller's text (encode, offsets, training's counting) goes through :func:`nfc`.

How, and why it is exact: NFC(s) is the canonical composition of NFD(s), and CPython's NFC
computes NFD(s) first and composes that, so any text with the same NFD has the same NFC.
A run of characters whose decompositions begin with a non-starter (canonical combining class
not 0) is decomposed here, with the character before it, and each run of non-starters in it is
sorted stably by class: that is the canonical ordering, so the piece is its own NFD. The NFD of
the rest is untouched (the piece starts with a starter and the character after it decomposes
to a starter, and canonical ordering never moves a mark across a starter). CPython's insertion
sort is linear on a run already in order, and its composition scans a run once per starter, so
NFC of the rewritten text costs linear time and is NFC(s). Runs shorter than :data:`LONG_RUN`
are left to CPython: their cost is bounded per character.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from brahmic_pua.normalize.spellings import combining_characters, decomposing_characters

#: Runs of this many non-starters or more are put in canonical order here; shorter ones cost
#: CPython at most this many steps a character.
LONG_RUN = 32


def nfc(text: str) -> str:
    """``unicodedata.normalize("NFC", text)``, in time linear in ``len(text)``.

    >>> nfc("a\\u0301\\u0323") == "\\u1ea1\\u0301"  # ạ, then the acute
    True
    """
    if len(text) < LONG_RUN:
        return unicodedata.normalize("NFC", text)
    if unicodedata.is_normalized("NFC", text):  # linear: its quick check stops at disorder
        return text
    pieces: list[str] = []
    done = 0
    for run in _long_runs().finditer(text):
        start = max(run.start() - 1, done)  # with the starter before it
        pieces.append(text[done:start])
        pieces.append(_canonical_order(_decompose(text[start : run.end()])))
        done = run.end()
    if not pieces:
        return unicodedata.normalize("NFC", text)
    pieces.append(text[done:])
    return unicodedata.normalize("NFC", "".join(pieces))


def _decompose(text: str) -> str:
    """Each character's full canonical decomposition, in place, without reordering."""
    table = {ord(ch): d for ch in set(text) if (d := unicodedata.normalize("NFD", ch)) != ch}
    return text.translate(table) if table else text


def _canonical_order(decomposed: str) -> str:
    """``decomposed`` with each run of non-starters stably sorted by combining class."""
    return _non_starter_runs().sub(lambda run: _stable_by_class(run.group()), decomposed)


def _stable_by_class(run: str) -> str:
    """The marks of each class in turn, lowest class first, each class's in their order: a
    stable sort by class, in passes over ``run`` at C speed (a class of one mark is that mark
    as many times as it occurs; another is what a regex finds of its marks)."""
    classes: dict[int, list[str]] = {}
    for mark in set(run):
        classes.setdefault(unicodedata.combining(mark), []).append(mark)
    if len(classes) == 1:
        return run
    out = []
    for klass in sorted(classes):
        marks = classes[klass]
        if len(marks) == 1:
            out.append(marks[0] * run.count(marks[0]))
        else:
            found = re.findall(f"[{''.join(map(re.escape, marks))}]+", run)
            out.append("".join(found))
    return "".join(out)


@cache
def starts_with_non_starter() -> str:
    """A regex class of every character whose NFD begins with a non-starter: the marks, and
    the few starters (Tibetan U+0F73…) that decompose to marks. Built once, on first need, from
    the characters with a combining class and those NFD changes (read from
    :mod:`~brahmic_pua.normalize.unicode_ranges` where it holds this Python's Unicode): asking
    each of the 1.1 million code points took 0.12 s of the first long line that is not NFC."""
    chars = set(combining_characters())
    chars.update(ch for ch in decomposing_characters() if unicodedata.combining(_nfd(ch)[0]))
    return "".join(re.escape(ch) for ch in sorted(chars))


def _nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


@cache
def _long_runs() -> re.Pattern[str]:
    return re.compile(f"[{starts_with_non_starter()}]{{{LONG_RUN},}}")


@cache
def _non_starter_runs() -> re.Pattern[str]:
    marks = "".join(map(re.escape, combining_characters()))
    return re.compile(f"[{marks}]{{2,}}")
