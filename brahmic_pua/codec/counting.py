"""Counting a corpus: how often each cluster and each character occurs, in one streamed pass."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache

import regex

from brahmic_pua.segment.patterns import brahmic_start_charset, cluster_source
from brahmic_pua.segment.pieces import check_no_surrogates, split_pieces

_SPECIALS = "\ue000-\uf8ff\U000f0000-\U0010fffd\u2581\u2585"


@cache
def lookup_pattern(policy: str) -> re.Pattern[str] | regex.Pattern[str]:
    """The clusters the codec looks up: those starting where a mapped cluster can start.

    Everything else is skipped by the regex engine in C. Grapheme clusters can begin with any
    character, so for ``grapheme`` every cluster is matched.
    """
    source = cluster_source(policy)
    if policy == "grapheme":
        return regex.compile(source)
    return re.compile(f"(?=[{brahmic_start_charset()}{_SPECIALS}]){source}")


@dataclass
class CorpusCounts:
    clusters: Counter[str] = field(default_factory=Counter)
    characters: Counter[str] = field(default_factory=Counter)


def count_corpus(texts: Iterable[str], policy: str) -> CorpusCounts:
    """Cluster and character frequencies; pieces repeat, so each distinct piece is done once."""
    pattern = lookup_pattern(policy)
    pieces: Counter[str] = Counter()
    counts = CorpusCounts()
    for number, text in enumerate(texts, 1):
        try:
            check_no_surrogates(text)
        except ValueError as error:
            raise ValueError(f"text {number}: {error}") from None
        split = split_pieces(text, policy)
        if split is None:
            counts.clusters.update(pattern.findall(text))
            counts.characters.update(text)
        else:
            pieces.update(split)
    for piece, n in pieces.items():
        for cluster in pattern.findall(piece):
            counts.clusters[cluster] += n
        for ch, k in Counter(piece).items():
            counts.characters[ch] += k * n
    return counts
