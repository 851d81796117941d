"""Hypothesis strategies: arbitrary Unicode mixed with the characters that break tokenizers."""

from __future__ import annotations

import unicodedata
from typing import Literal

from hypothesis import strategies as st

from brahmic_pua.orthography import CharClass, can_follow, classify

TELUGU = "కఖగఘజఞటతదనపమయరలవసహఅఆఇఉఎఒాిీుూెేైొోౌ్ంఃౝ఼ౕౖ"
DEVANAGARI = "कखगजञटतदनपमयरलवशषसहअआइईउऊएओािीुूेैोौ्ंःँ़ॅक़।॥ॐऽ०१"
OTHER_BRAHMIC = "ক্যাঅ্যাৎஸ்ரீக்ஷമ്ലൻ്‌ಕ್ಷಾર્થଙ୍କਸ੍ਵਾසිංහල්‍ර"
VIETNAMESE = "aăâeêioôơuưy\u0300\u0301\u0302\u0303\u0306\u0309\u031b\u0323"
NASTY = (
    "\ue000\ue001\ue002\ue003\ue004\ue0ff\uf8ff\U000f0000\U000f0001\U0010fffd"  # PUA
    "\u2581\u2585\u2582"  # spm's space marker, the line-dropping block, NepBPE's ▂
    "\u200c\u200d\ufeff\u00ad\u2060"  # joiners and invisible characters
    "\x00\t\n\r\x0b\x1b\x7f\x85\u2028"  # controls and separators
    "\ufdd0\ufdd1\ufdef\ufffe\uffff"  # noncharacters (the piece sentinels)
    "\u0308\u20dd\ufe0f\U0001f468\u200d\U0001f469"  # generic marks and an emoji sequence
    " a1.,-"
)
ALPHABET = TELUGU + DEVANAGARI + OTHER_BRAHMIC + VIETNAMESE + NASTY

SURROGATES: tuple[Literal["Cs"]] = ("Cs",)
any_char = st.characters(exclude_categories=SURROGATES)
script_char = st.sampled_from(ALPHABET)

#: Mostly Brahmic and nasty characters, with any code point of any plane mixed in.
texts = st.text(st.one_of(script_char, script_char, script_char, any_char), max_size=60)
nfd_texts = texts.map(lambda s: unicodedata.normalize("NFD", s))
nasty_texts = st.one_of(texts, nfd_texts, st.text(any_char, max_size=40))


def parquet_rows(max_size: int) -> st.SearchStrategy[list[str | None]]:
    """Rows of a Parquet text column: nulls, nasty texts, and rows that hold line ends, CRs,
    BOMs, or line separators that are no line end."""
    special = ["", "\n", "\r\n", "a\r\nb", "\ufeffక", "\ufeff\ufeffx", "x\r", "\r"]
    special += ["\u2028\x85", "క\n\n"]
    return st.lists(st.one_of(st.none(), nasty_texts, st.sampled_from(special)), max_size=max_size)


@st.composite
def valid_tokens(draw: st.DrawFn) -> str:
    """A chain of the ⊸ relation that starts with a consonant or independent vowel."""
    pool = TELUGU + DEVANAGARI + VIETNAMESE + "\u200c\u200d\u0308"
    starts = [c for c in pool if classify(c) in (CharClass.CONSONANT, CharClass.INDEPENDENT_VOWEL)]
    token = draw(st.sampled_from(starts))
    for _ in range(draw(st.integers(0, 6))):
        options = [c for c in pool if can_follow(classify(token[-1]), classify(c))]
        token += draw(st.sampled_from(options))
    return token
