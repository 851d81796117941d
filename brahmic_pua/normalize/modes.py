"""N, the normalization applied before segmentation; ``decode(encode(s)) == N(s)``.

Modes (NepBPE Phase 1 for the Nepali ones):

- ``nfc`` (default): Unicode NFC, so canonically equivalent spellings become one.
- ``none``: the text as given.
- ``nepali-lm``: N_LM = NFC ∘ Fold_full ∘ NFC ∘ StripZWJ ∘ NFC. Spelling variants are folded
  (सँग / संग / सङ्ग → संग) and ZWJ is removed. The seed writes StripZWJ after the fold; that
  order is not idempotent ("सङ्‍ग" with a ZWJ escapes the fold, loses the ZWJ, and is folded by
  the next application), so the ZWJ goes first.
- ``nepali-ocr``: N_OCR = NFC ∘ Fold_minimal ∘ NFC: only encoding variants of one glyph are
  folded, ZWJ is kept, सँग / संग / सङ्ग stay distinct.

ZWNJ is kept in every mode. N(N(s)) == N(s) for every mode: the folding tables are checked by
:func:`brahmic_pua.normalize.folding.validate_folding_rules` when they load.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cache, partial

from brahmic_pua.normalize.folding import NO_FOLDING, ZWJ, FoldingTable, nepali_table
from brahmic_pua.normalize.nfc import nfc
from brahmic_pua.segment.sure_cuts import check_no_surrogates

MODES: tuple[str, ...] = ("nfc", "none", "nepali-lm", "nepali-ocr")
_TABLES = {"nepali-lm": "lm", "nepali-ocr": "ocr"}


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"unknown normalization {mode!r}: choose one of {', '.join(MODES)}")
    return mode


@dataclass(frozen=True)
class Normalizer:
    """N for one mode and folding table (a model carries its own table in its manifest)."""

    mode: str
    folding: FoldingTable

    @property
    def strips_zwj(self) -> bool:
        return self.mode == "nepali-lm"

    @property
    def composes(self) -> bool:
        """Whether N includes NFC (every mode but ``none``)."""
        return self.mode != "none"

    def __call__(self, text: str) -> str:
        if not self.composes:
            return text
        text = nfc(text)
        if self.strips_zwj and ZWJ in text:
            text = nfc(text.replace(ZWJ, ""))
        if self.folding.rules:
            text = nfc(self.folding.apply(text))
        return text

    def lines(self, lines: list[str]) -> list[str]:
        """N of each line. Under ``nfc`` each line is first checked, in C (``map`` of
        ``unicodedata.is_normalized``), and only a line that is not NFC is normalized: most
        are, and a Python call per line costs more than the check. Not one check of the lines
        joined: a character that may compose with the one before it (Devanagari's nukta,
        Tamil's and Bengali's aa signs) makes CPython's check normalize the whole text to
        compare, so one such line in a batch cost a full NFC of the batch (ne.train: 0.14 s
        joined, 0.03 s a line at a time; te.extra 0.16 s and 0.014 s). The check is linear:
        CPython's quick check stops at the first mark out of canonical order, and it only
        normalizes a text whose marks are in order."""
        if not self.composes:
            return lines
        if self.mode == "nfc":
            normal = list(map(_is_nfc, lines))
            if all(normal):
                return lines
            return [line if ok else self(line) for line, ok in zip(lines, normal, strict=True)]
        return [self(line) for line in lines]


#: Whether a text is NFC, as a C callable (``map`` makes no Python call per line).
_is_nfc = partial(unicodedata.is_normalized, "NFC")


@cache
def normalizer(mode: str, folding: FoldingTable | None = None) -> Normalizer:
    """N for ``mode``; the Nepali modes use the shipped table unless given another."""
    check_mode(mode)
    if folding is None:
        folding = nepali_table(_TABLES[mode]) if mode in _TABLES else NO_FOLDING
    elif folding.rules and mode not in _TABLES:
        raise ValueError(f"normalization={mode!r} has no folding; use nepali-lm or nepali-ocr")
    return Normalizer(mode, folding)


def normalize(text: str, mode: str = "nfc") -> str:
    """N(text) for ``mode`` (see the module docstring), with the shipped folding tables.

    >>> from brahmic_pua import normalize
    >>> normalize("\u0c46\u0c56") == "\u0c48"  # Telugu ై typed in two parts
    True
    >>> normalize("सङ्ग दु:ख", "nepali-lm")
    'संग दुःख'

    A lone surrogate is the ValueError ``encode`` gives (checked here, not in
    :class:`Normalizer`, which runs on every encode: stock names it there after refusing it).
    """
    check_no_surrogates(text)
    return normalizer(mode)(text)
