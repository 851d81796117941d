"""Lossless segmentation of any text into orthographic clusters."""

from __future__ import annotations

from itertools import chain

from brahmic_pua.segment.patterns import POLICIES, cluster_regex
from brahmic_pua.segment.sure_cuts import PieceMemo, check_no_surrogates, split_pieces
from brahmic_pua.segment.syllable import asr_normalize

_CACHE_LIMIT = 1 << 17
_memos: dict[str, PieceMemo[list[str]]] = {}


def segment(text: str, policy: str = "fixtoken") -> list[str]:
    """Split ``text`` into clusters; ``"".join(segment(text, policy)) == text`` always. A
    lone surrogate (no text) is the ValueError ``encode`` gives for it.

    ``fixtoken`` (default): a boundary only before a character that may start a token, or before
    a dependent mark that cannot follow the character before it (an orphan, its own cluster).
    ``akshara``: fixtoken clusters joined into conjuncts (C virama C …). ``syllable``: Ghimire et
    al.'s Devanagari syllables. ``grapheme``: Unicode extended grapheme clusters.

    >>> from brahmic_pua import segment
    >>> segment("క్రాంతి")
    ['క్', 'రాం', 'తి']
    >>> segment("क्षेत्रमा", "akshara")
    ['क्षे', 'त्र', 'मा']
    """
    check_no_surrogates(text)
    pattern = cluster_regex(policy)
    pieces = split_pieces(text, policy)
    if pieces is None:
        return pattern.findall(text)
    memo = _memos.get(policy)
    if memo is None or len(memo) > _CACHE_LIMIT:
        memo = _memos[policy] = PieceMemo(pattern.findall)
    return list(chain.from_iterable(map(memo.__getitem__, pieces)))


__all__ = ["POLICIES", "asr_normalize", "segment"]
