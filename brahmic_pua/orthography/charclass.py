"""The character classes of the paper's formal model (§3.1), plus what real text needs.

Kept free of any table import so the table generator can use it too.
"""

from __future__ import annotations

from enum import IntEnum


class CharClass(IntEnum):
    """What role a code point plays in a written cluster.

    The first five are the paper's ``UnicodeBrahmic``; the rest extend the model to real text:

    * ``NUKTA`` — a dot that modifies a consonant (क + ़ = क़); the result is still a consonant.
    * ``MEDIAL`` — subjoined or medial consonant signs (Tibetan, Myanmar): attach to a consonant.
    * ``JOINER`` / ``NON_JOINER`` — ZWJ U+200D and ZWNJ U+200C, which steer conjunct rendering.
    * ``BASE`` / ``DIACRITIC`` / ``TONE`` — the paper's Vietnamese instance (§3.5). ``BASE`` is
      every letter outside the Brahmic grammars (Latin, Greek, Arabic, CJK…): it may carry marks.
    * ``MARK`` — any other combining mark (U+0308, Arabic harakat…): attaches to a letter or mark.
    * ``OTHER`` — space, digits, punctuation, symbols, controls, unassigned, private use.
    """

    CONSONANT = 0
    INDEPENDENT_VOWEL = 1
    DEPENDENT_VOWEL = 2
    VOWEL_SUFFIX = 3
    VIRAMA = 4
    NUKTA = 5
    MEDIAL = 6
    JOINER = 7
    NON_JOINER = 8
    BASE = 9
    DIACRITIC = 10
    TONE = 11
    MARK = 12
    OTHER = 13


#: Classes whose characters may begin a token (the paper's ``IsValidBrahmicStart``, widened
#: to the Vietnamese base and to characters outside every grammar).
STARTERS: frozenset[CharClass] = frozenset(
    {CharClass.CONSONANT, CharClass.INDEPENDENT_VOWEL, CharClass.BASE, CharClass.OTHER}
)

#: Classes that can never begin a valid token: they continue the token before them.
DEPENDENTS: frozenset[CharClass] = frozenset(set(CharClass) - STARTERS)
