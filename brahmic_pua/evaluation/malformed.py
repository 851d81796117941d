"""Malformed Brahmic text: dependent signs with nothing they can attach to.

A vowel sign, virama, nukta, medial or anusvara/visarga (a dependent of a Brahmic grammar) is
written on the character before it. Where that character is one it cannot follow (``can_follow``
of the paper's ⊸ relation is the oracle) or there is none (the text's or a line's start), a
renderer draws it on a dotted circle: text no one wrote. This module counts such signs in any
text, for the question a language-model trainer asks of a tokenizer: how often does a model
*write* such text? A brahmic_pua model's pieces cannot start with a dependent sign (its codes
keep clusters whole), but a plain model's can, and its samples then hold orphan signs; both can
still spell one out of byte-fallback pieces, so the count is measured, not assumed, for both.

ZWJ and ZWNJ are not counted (after a space or a Latin letter they are emoji and shaping
controls, not dotted circles), nor are the combining marks of other scripts (é as e + U+0301).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from brahmic_pua.orthography.charclass import CharClass
from brahmic_pua.orthography.classify import class_charset, classify
from brahmic_pua.orthography.relation import can_follow

C = CharClass
#: The signs counted: every dependent class of the Brahmic grammars but the joiners.
BRAHMIC_SIGNS: frozenset[CharClass] = frozenset(
    {C.DEPENDENT_VOWEL, C.VOWEL_SUFFIX, C.VIRAMA, C.NUKTA, C.MEDIAL}
)
#: Where an unattached sign sits: at the start of the text or of a line, after other
#: whitespace, or after a character it cannot follow (another sign, a digit, a Latin letter…).
KINDS = ("line_start", "after_space", "cannot_follow")


@cache
def _signs() -> re.Pattern[str]:
    return re.compile(f"[{class_charset(BRAHMIC_SIGNS)}]")


@dataclass(frozen=True)
class MalformedCount:
    """Unattached Brahmic signs in some text, by where they sit, and the text's length."""

    line_start: int = 0
    after_space: int = 0
    cannot_follow: int = 0
    characters: int = 0

    @property
    def total(self) -> int:
        return self.line_start + self.after_space + self.cannot_follow

    def per_1000(self) -> float:
        """Unattached signs per 1000 characters (0 for no text)."""
        return 1000 * self.total / self.characters if self.characters else 0.0

    def __add__(self, other: MalformedCount) -> MalformedCount:
        return MalformedCount(
            self.line_start + other.line_start,
            self.after_space + other.after_space,
            self.cannot_follow + other.cannot_follow,
            self.characters + other.characters,
        )


def unattached_signs(text: str) -> list[tuple[int, str]]:
    """``(index, kind)`` of every Brahmic sign in ``text`` that cannot attach to the character
    before it (``kind`` one of :data:`KINDS`). Only the signs are visited (found in C), so a
    text is read once, whatever its length."""
    found: list[tuple[int, str]] = []
    for match in _signs().finditer(text):
        i = match.start()
        before = text[i - 1] if i else "\n"
        if before in "\n\r":
            found.append((i, "line_start"))
        elif before.isspace():
            found.append((i, "after_space"))
        elif not can_follow(classify(before), classify(text[i])):
            found.append((i, "cannot_follow"))
    return found


def count_malformed(texts: Iterable[str]) -> MalformedCount:
    """:func:`unattached_signs` of every text, counted by kind, with the texts' characters;
    each text starts a line (a sign at its start has nothing before it)."""
    total = MalformedCount()
    for text in texts:
        kinds = [kind for _, kind in unattached_signs(text)]
        total += MalformedCount(
            kinds.count("line_start"),
            kinds.count("after_space"),
            kinds.count("cannot_follow"),
            len(text),
        )
    return total


__all__ = ["BRAHMIC_SIGNS", "KINDS", "MalformedCount", "count_malformed", "unattached_signs"]
