"""Lossless segmentation of any text into orthographic clusters."""

from __future__ import annotations

from brahmic_pua.segment.patterns import POLICIES, cluster_regex
from brahmic_pua.segment.pieces import split_pieces
from brahmic_pua.segment.syllable import asr_normalize

_CACHE_LIMIT = 1 << 17
_piece_cache: dict[tuple[str, str], list[str]] = {}


def segment(text: str, policy: str = "fixtoken") -> list[str]:
    """Split ``text`` into clusters; ``"".join(segment(text, policy)) == text`` always.

    ``fixtoken`` (default): a boundary only before a character that may start a token, or before
    a dependent mark that cannot follow the character before it (an orphan, its own cluster).
    ``akshara``: fixtoken clusters joined into conjuncts (C virama C …). ``syllable``: Ghimire et
    al.'s Devanagari syllables. ``grapheme``: Unicode extended grapheme clusters.
    """
    pattern = cluster_regex(policy)
    pieces = split_pieces(text, policy)
    if pieces is None:
        return pattern.findall(text)
    if len(_piece_cache) > _CACHE_LIMIT:
        _piece_cache.clear()
    clusters: list[str] = []
    for piece in pieces:
        found = _piece_cache.get((policy, piece))
        if found is None:
            found = _piece_cache[(policy, piece)] = pattern.findall(piece)
        clusters += found
    return clusters


__all__ = ["POLICIES", "asr_normalize", "segment"]
