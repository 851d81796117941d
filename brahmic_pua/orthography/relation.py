"""The ⊸ relation (the paper, §3.1): which class may immediately follow which inside a token.

The relation is given twice, on purpose, as the paper does: once declaratively as constructors
(:data:`RULES`, one per Agda constructor or documented extension) and once as the decision
procedure :func:`can_follow`, written as a case analysis. The tests check that the two agree on
every pair (soundness and completeness of ``can_follow``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from brahmic_pua.orthography.charclass import CharClass

C = CharClass


class Transition(Enum):
    """Names of the constructors of ⊸: the paper's seven, then the documented extensions."""

    DEAD_CONSONANT = "DeadConsonant"  # Consonant ⊸ Virama
    VOWEL_SYMBOL = "VowelSymbol"  # Consonant ⊸ DependentVowel
    NEXT_VOWEL = "NextVowel"  # t ⊸ IndependentVowel
    NEXT_CONSONANT = "NextConsonant"  # t ⊸ Consonant
    VOWEL_SUFFIX_1 = "VowelSuffix1"  # Consonant ⊸ VowelSuffix
    VOWEL_SUFFIX_2 = "VowelSuffix2"  # IndependentVowel ⊸ VowelSuffix
    VOWEL_SUFFIX_3 = "VowelSuffix3"  # DependentVowel ⊸ VowelSuffix
    # Extensions for real Brahmic text.
    NUKTA_SIGN = "NuktaSign"  # Consonant ⊸ Nukta
    NUKTA_CONSONANT = "NuktaConsonant"  # a consonant with nukta is a consonant
    MEDIAL_SIGN = "MedialSign"  # consonant-like ⊸ Medial (Tibetan, Myanmar stacks)
    MEDIAL_CONSONANT = "MedialConsonant"  # a consonant with a medial is a consonant
    VOWEL_SIGN_ON_VOWEL = "VowelSignOnVowel"  # Marathi अॅ, Bengali অ্যা
    VOWEL_SIGN_STACK = "VowelSignStack"  # two-part vowels typed in pieces; Myanmar ို
    VIRAMA_AFTER_VOWEL_SIGN = "ViramaAfterVowelSign"  # Malayalam samvruthokaram ു്
    SUFFIX_STACK = "SuffixStack"  # ं + ः, Vedic accents after anusvara
    JOINER_AFTER_VIRAMA = "JoinerAfterVirama"  # क्‍ष (ZWJ), क्‌ष (ZWNJ)
    JOINER_AFTER_SIGN = "JoinerAfterSign"  # র‍্য, chillu + ZWNJ, ligature breakers
    SIGN_AFTER_JOINER = "SignAfterJoiner"  # র‍্য, Marathi अ‍ॅ
    # The Vietnamese instance (§3.5), with the base widened to every letter.
    MARK_V = "Markv"  # Base ⊸ Diacritic
    TONE_AFTER_BASE = "ToneAfterBasev"  # Base ⊸ Tone
    TONE_AFTER_DIACRITIC = "ToneAfterDiacriticv"  # Diacritic ⊸ Tone
    # NFD sorts the dot below (combining class 220) before a circumflex or breve (230): ệ is
    # e + U+0323 + U+0302 once decomposed, so decomposed text needs Tone ⊸ Diacritic too.
    DIACRITIC_AFTER_DOT_BELOW = "DiacriticAfterDotBelow"
    NEXT_BASE = "NextBasev"  # t ⊸ Base
    # Characters outside every grammar.
    NEXT_OTHER = "NextOther"  # t ⊸ Other: space, digits, punctuation start afresh
    COMBINING_MARK = "CombiningMark"  # any letter or mark ⊸ Mark (é as e + U+0301)
    MARK_STACK = "MarkStack"  # Mark ⊸ Diacritic | Tone (Greek ΐ, pinyin ǘ)


ANY: frozenset[CharClass] = frozenset(CharClass)
CONSONANT_LIKE: frozenset[CharClass] = frozenset({C.CONSONANT, C.NUKTA, C.MEDIAL})
SIGN_BEARERS: frozenset[CharClass] = ANY - {C.OTHER, C.JOINER, C.NON_JOINER}
JOINER_BEARERS: frozenset[CharClass] = frozenset(
    {C.CONSONANT, C.INDEPENDENT_VOWEL, C.DEPENDENT_VOWEL, C.VOWEL_SUFFIX, C.NUKTA, C.MEDIAL}
)


@dataclass(frozen=True)
class Rule:
    """One constructor: every class in ``before`` may be followed by every class in ``after``."""

    name: Transition
    before: frozenset[CharClass]
    after: frozenset[CharClass]


def _rule(name: Transition, before: frozenset[CharClass] | CharClass, *after: CharClass) -> Rule:
    bef = before if isinstance(before, frozenset) else frozenset({before})
    return Rule(name, bef, frozenset(after))


T = Transition
RULES: tuple[Rule, ...] = (
    _rule(T.DEAD_CONSONANT, C.CONSONANT, C.VIRAMA),
    _rule(T.VOWEL_SYMBOL, C.CONSONANT, C.DEPENDENT_VOWEL),
    _rule(T.NEXT_VOWEL, ANY, C.INDEPENDENT_VOWEL),
    _rule(T.NEXT_CONSONANT, ANY, C.CONSONANT),
    _rule(T.VOWEL_SUFFIX_1, C.CONSONANT, C.VOWEL_SUFFIX),
    _rule(T.VOWEL_SUFFIX_2, C.INDEPENDENT_VOWEL, C.VOWEL_SUFFIX),
    _rule(T.VOWEL_SUFFIX_3, C.DEPENDENT_VOWEL, C.VOWEL_SUFFIX),
    _rule(T.NUKTA_SIGN, C.CONSONANT, C.NUKTA),
    _rule(T.NUKTA_CONSONANT, C.NUKTA, C.VIRAMA, C.DEPENDENT_VOWEL, C.VOWEL_SUFFIX),
    _rule(T.MEDIAL_SIGN, CONSONANT_LIKE, C.MEDIAL),
    _rule(T.MEDIAL_CONSONANT, C.MEDIAL, C.VIRAMA, C.DEPENDENT_VOWEL, C.VOWEL_SUFFIX),
    _rule(T.VOWEL_SIGN_ON_VOWEL, C.INDEPENDENT_VOWEL, C.DEPENDENT_VOWEL, C.VIRAMA),
    _rule(T.VOWEL_SIGN_STACK, C.DEPENDENT_VOWEL, C.DEPENDENT_VOWEL),
    _rule(T.VIRAMA_AFTER_VOWEL_SIGN, C.DEPENDENT_VOWEL, C.VIRAMA),
    _rule(T.SUFFIX_STACK, C.VOWEL_SUFFIX, C.VOWEL_SUFFIX),
    _rule(T.JOINER_AFTER_VIRAMA, C.VIRAMA, C.JOINER, C.NON_JOINER),
    _rule(T.JOINER_AFTER_SIGN, JOINER_BEARERS, C.JOINER, C.NON_JOINER),
    _rule(T.SIGN_AFTER_JOINER, C.JOINER, C.VIRAMA, C.DEPENDENT_VOWEL),
    _rule(T.SIGN_AFTER_JOINER, C.NON_JOINER, C.VIRAMA),
    _rule(T.MARK_V, C.BASE, C.DIACRITIC),
    _rule(T.TONE_AFTER_BASE, C.BASE, C.TONE),
    _rule(T.TONE_AFTER_DIACRITIC, C.DIACRITIC, C.TONE),
    _rule(T.DIACRITIC_AFTER_DOT_BELOW, C.TONE, C.DIACRITIC),
    _rule(T.NEXT_BASE, ANY, C.BASE),
    _rule(T.NEXT_OTHER, ANY, C.OTHER),
    _rule(T.COMBINING_MARK, SIGN_BEARERS, C.MARK),
    _rule(T.MARK_STACK, C.MARK, C.DIACRITIC, C.TONE),
)


def transitions(a: CharClass, b: CharClass) -> list[Transition]:
    """Every constructor witnessing ``a ⊸ b`` (empty when ``b`` may not follow ``a``)."""
    return [r.name for r in RULES if a in r.before and b in r.after]


def can_follow(a: CharClass, b: CharClass) -> bool:
    """Decide ``a ⊸ b`` by case analysis on ``b`` (the paper's ``canFollow``)."""
    match b:
        case C.CONSONANT | C.INDEPENDENT_VOWEL | C.BASE | C.OTHER:
            return True
        case C.VIRAMA:
            return a in (
                C.CONSONANT,
                C.INDEPENDENT_VOWEL,
                C.DEPENDENT_VOWEL,
                C.NUKTA,
                C.MEDIAL,
                C.JOINER,
                C.NON_JOINER,
            )
        case C.DEPENDENT_VOWEL:
            return a in (
                C.CONSONANT,
                C.INDEPENDENT_VOWEL,
                C.DEPENDENT_VOWEL,
                C.NUKTA,
                C.MEDIAL,
                C.JOINER,
            )
        case C.VOWEL_SUFFIX:
            return a in (
                C.CONSONANT,
                C.INDEPENDENT_VOWEL,
                C.DEPENDENT_VOWEL,
                C.VOWEL_SUFFIX,
                C.NUKTA,
                C.MEDIAL,
            )
        case C.NUKTA:
            return a == C.CONSONANT
        case C.MEDIAL:
            return a in (C.CONSONANT, C.NUKTA, C.MEDIAL)
        case C.JOINER | C.NON_JOINER:
            return a in (
                C.CONSONANT,
                C.INDEPENDENT_VOWEL,
                C.DEPENDENT_VOWEL,
                C.VOWEL_SUFFIX,
                C.VIRAMA,
                C.NUKTA,
                C.MEDIAL,
            )
        case C.DIACRITIC:
            return a in (C.BASE, C.MARK, C.TONE)
        case C.TONE:
            return a in (C.BASE, C.DIACRITIC, C.MARK)
        case C.MARK:
            return a not in (C.OTHER, C.JOINER, C.NON_JOINER)
    raise AssertionError(f"unhandled class {b!r}")  # pragma: no cover - the match is exhaustive
