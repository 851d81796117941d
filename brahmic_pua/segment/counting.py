"""Counting a corpus: how often each cluster and each character occurs, in one streamed pass."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache

import regex

from brahmic_pua.io.lines import batched
from brahmic_pua.segment.arrow_count import WordPieces, WordsOut, count_pieces
from brahmic_pua.segment.patterns import brahmic_start_charset, cluster_source
from brahmic_pua.segment.sure_cuts import SURROGATE, check_no_surrogates, split_pieces

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
    #: The texts' space-separated words with their counts, when asked for and when they fit in
    #: :data:`MAX_WORDS` (the trainer's word-start pass would otherwise read the corpus again).
    words: Counter[str] | None = None
    #: The distinct pieces of the words (cut before every sure start) with their counts, when
    #: the count cut every word and they fit in :data:`MAX_PIECES` (the trainer works out spm's
    #: alphabet from them: :mod:`brahmic_pua.trainer.coverage_forecast`).
    pieces: Counter[str] | None = None


#: Distinct pieces kept in the counts at most (a syllable each under fixtoken: 7,461 on the
#: 50 MB mix of the corpora; a word each under akshara).
MAX_PIECES = 1 << 17
#: Distinct words segmented together: a million at once made a list of millions of pieces.
#: 8,192 holds the count's peak memory on te.train to 19 MB (42 MB at 65,536) at the same speed.
WORDS_AT_ONCE = 8192
#: Distinct words held before they are segmented and let go (about 40 MB of them).
MAX_WORDS = 1 << 18


def count_corpus(texts: Iterable[str], policy: str) -> CorpusCounts:
    """Cluster and character frequencies of ``texts``; see :func:`count_batches`."""
    return count_batches(batched(texts), policy)


def count_batches(
    batches: Iterable[list[str]],
    policy: str,
    keep_words: bool = False,
    arrow: bool = False,
    words_out: WordsOut | None = None,
) -> CorpusCounts:
    """Cluster and character frequencies of texts given in batches.

    Words repeat, so each distinct word is segmented once (per window, below). Every policy but
    grapheme has a cluster boundary around each space (a cluster holding one is that space
    alone), so a text's clusters are its words' clusters and its spaces. A batch is split into
    words at once (its texts joined by spaces, which are counted out again), and words of equal
    count are segmented together the same way, :data:`WORDS_AT_ONCE` at a time. Past
    :data:`MAX_WORDS` distinct words they are segmented and let go, so memory stays bounded on
    any corpus. ``keep_words``: the words are kept in :attr:`CorpusCounts.words` if they never
    grew past that bound (not for grapheme, which does not split words).

    ``arrow``: split, count and cut the words in Arrow (:mod:`brahmic_pua.segment.arrow_count`:
    the same counts, in compiled code), as the trainer asks for a corpus big enough
    (its count's plan, :mod:`~brahmic_pua.trainer.count_plan`); off by default, since importing
    pyarrow costs more than it saves on small text (a codec built from a few lines).
    Grapheme is always counted in Python.

    ``words_out``: every word, with its count, is handed there too (grapheme, which does not
    split words, has none to hand).
    """
    assert words_out is None or policy != "grapheme", "grapheme counts no words"
    if policy == "grapheme":
        return _count_graphemes(batches)
    if arrow:
        found = count_pieces(batches, policy, keep_words, MAX_WORDS, check_batch, words_out)
        return _from_pieces(found, policy)
    return _count_words(batches, policy, keep_words, words_out)


def _count_graphemes(batches: Iterable[list[str]]) -> CorpusCounts:
    """Grapheme clusters of each text, matched whole: a grapheme cluster may hold a space, so
    the texts are not split into words (and no word is kept or handed over)."""
    pattern = lookup_pattern("grapheme")
    counts = CorpusCounts()
    done = 0
    for batch in batches:
        check_batch(batch, done)
        done += len(batch)
        for text in batch:
            counts.clusters.update(pattern.findall(text))
            counts.characters.update(text)
    return counts


def _count_words(
    batches: Iterable[list[str]], policy: str, keep_words: bool, words_out: WordsOut | None
) -> CorpusCounts:
    """The pure count of a policy that splits words: each batch split into words at once, the
    distinct words segmented a window at a time (:data:`MAX_WORDS`), the joins' spaces counted
    out again and the texts' in (see :func:`count_batches`)."""
    pattern = lookup_pattern(policy)
    kept = keep_words
    words: Counter[str] = Counter()
    counts = CorpusCounts()
    pieces: Counter[str] = Counter()
    whole: Counter[str] = Counter()  # texts counted whole, where no sentinel was free
    spaces = joins = done = 0
    for batch in batches:
        check_batch(batch, done)
        done += len(batch)
        split = " ".join(batch).split(" ")
        spaces += len(split) - len(batch)
        words.update(split)
        if len(words) > MAX_WORDS:  # memory stays bounded; counts add up the same
            if words_out is not None:
                words_out.counted(words)
            joins += _segment_words(words, counts, pieces, policy, pattern, whole)
            words.clear()
            kept = False
    if words_out is not None:
        words_out.counted(words)
    joins += _segment_words(words, counts, pieces, policy, pattern, whole)
    if kept:
        counts.words = words
    if len(pieces) + len(whole) <= MAX_PIECES:
        counts.pieces = pieces + whole  # (a piece may start with a space that joined words)
    add_pieces(counts, pieces, 1, pattern)
    _respace(counts.characters, joins, spaces)  # the joins' spaces out, the text's in
    if pattern.fullmatch(" "):
        _respace(counts.clusters, joins, spaces)
    return counts


def _from_pieces(found: WordPieces, policy: str) -> CorpusCounts:
    """The counts of the Arrow count's pieces, segmented here as the pure count's are."""
    pattern = lookup_pattern(policy)
    counts = CorpusCounts(words=found.words)
    add_pieces(counts, found.whole, 1, pattern)
    add_pieces(counts, found.pieces, 1, pattern)
    if len(found.pieces) + len(found.whole) <= MAX_PIECES:
        counts.pieces = found.pieces + found.whole
    _respace(counts.characters, 0, found.spaces)
    if pattern.fullmatch(" "):
        _respace(counts.clusters, 0, found.spaces)
    return counts


def _segment_words(
    words: Counter[str],
    counts: CorpusCounts,
    pieces: Counter[str],
    policy: str,
    pattern: re.Pattern[str] | regex.Pattern[str],
    whole: Counter[str],
) -> int:
    """Add the pieces of ``words`` to ``pieces`` (or, where no sentinel is free, their clusters
    and characters to ``counts``, and the text to ``whole``), words of equal count cut
    together; the spaces that joined them, to be counted out again."""
    by_count: dict[int, list[str]] = {}
    for word, n in words.items():
        by_count.setdefault(n, []).append(word)
    joins = 0
    for n, group in by_count.items():
        for chunk in batched(group, WORDS_AT_ONCE):
            joined = " ".join(chunk)
            joins += n * (len(chunk) - 1)
            cut = split_pieces(joined, policy)
            if cut is None:  # every sentinel occurs in the text: count it whole
                add_pieces(counts, Counter({joined: 1}), n, pattern)
                whole[joined] += n
            else:
                for piece, k in Counter(cut).items():
                    pieces[piece] += k * n
    return joins


def check_batch(batch: list[str], before: int) -> None:
    """No lone surrogate in the batch; the error names the text (numbered from 1)."""
    if not SURROGATE.search("".join(batch)):
        return
    for number, text in enumerate(batch, before + 1):
        try:
            check_no_surrogates(text)
        except ValueError as error:
            raise ValueError(f"text {number}: {error}") from None


def _respace(counter: Counter[str], joins: int, spaces: int) -> None:
    """``counter`` with ``joins`` spaces taken out and ``spaces`` put in."""
    counter[" "] += spaces - joins
    if not counter[" "]:
        del counter[" "]


def add_pieces(
    counts: CorpusCounts,
    pieces: Counter[str],
    weight: int,
    pattern: re.Pattern[str] | regex.Pattern[str],
) -> None:
    """Add ``weight`` times the clusters and characters of every piece, with its count."""
    for piece, n in pieces.items():
        for cluster in pattern.findall(piece):
            counts.clusters[cluster] += n * weight
        for ch, k in Counter(piece).items():
            counts.characters[ch] += k * n * weight
