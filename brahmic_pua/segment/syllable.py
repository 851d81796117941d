"""Ghimire et al. (ICON 2023) pronunciation-aware syllables, rebuilt from the rules (seeds/003).

The lossless policy lives in :mod:`brahmic_pua.segment.patterns`; this module holds the seed's
three-character complex consonants and its *lossy* ASR preprocessing, which is opt-in.
"""

from __future__ import annotations

import regex

from brahmic_pua.segment.sure_cuts import check_no_surrogates

#: The seed's 33 plain consonants; with the six listed clusters they make its 39 complex consonants.
SEED_CONSONANTS = "कखगघङचछजझञटठडढणतथदधनपफबभमयरलवशषसह"
VIRAMA = "\u094d"
COMPLEX_CONSONANTS: tuple[str, ...] = (
    "क्ष",
    "ज्ञ",
    "द्ध",
    "द्य",
    "त्त",
    "द्व",
    *(c + VIRAMA + "र" for c in SEED_CONSONANTS),
)

#: The seed's optional folding of letters pronounced alike in spoken Nepali.
ASR_FOLDING = str.maketrans({"ई": "इ", "श": "स", "ष": "स", "ऊ": "उ", "ी": "ि", "ू": "ु"})
_PUNCTUATION = regex.compile(r"[\p{P}\p{S}।॥]")
_SPACES = regex.compile(r"\s+")


def asr_normalize(text: str, *, punctuation: bool = True, fold: bool = True) -> str:
    """The seed's ASR preprocessing. LOSSY: the original text cannot be recovered.

    ``punctuation`` replaces punctuation and symbols with a space and collapses whitespace runs;
    ``fold`` merges ई→इ, ऊ→उ, ी→ि, ू→ु, श/ष→स. Apply it before ``segment(…, "syllable")`` only
    when the units feed a speech model, never before the PUA codec. A lone surrogate is the
    ValueError ``encode`` gives.
    """
    check_no_surrogates(text)
    if punctuation:
        text = _SPACES.sub(" ", _PUNCTUATION.sub(" ", text))
    if fold:
        text = text.translate(ASR_FOLDING)
    return text
