"""The corpus count of :mod:`brahmic_pua.segment.counting` in Arrow's compiled kernels, used
when pyarrow (the ``arrow`` extra) is importable: the same counts, so the same model files.

The pure count spends its time in Python's ``Counter`` over ``str.split(" ")`` and in cutting
each distinct word into pieces (``str.translate`` + ``str.split``), a Python call per chunk and
a loop per piece. Here the texts are split on U+0020 (``utf8`` ``split_pattern``: exactly
``str.split(" ")``, consecutive spaces giving empty words, and no other whitespace), the words
counted (``value_counts``), and the distinct words cut before every sure start of the policy
(a regular expression that inserts the sentinel, then ``split_pattern`` on it) with the pieces'
counts summed per piece (``group_by``), all in C. Only the distinct pieces (syllables, some
tens of thousands) reach Python, to be segmented by the same :func:`_add` as the pure count.

Why the counts are equal: every policy but grapheme (which this path leaves to the pure count)
has a cluster boundary around each space, so a text's clusters and characters are its words'
plus its spaces; and the pieces of a word segment as the word does in place. The pure count
joins words with spaces before cutting (and counts those spaces out again); cutting each word
on its own gives the same clusters and characters. Memory stays bounded as in the pure count:
the words of about :data:`WINDOW_BYTES` of text are held at once, and past
:data:`~brahmic_pua.segment.counting.MAX_WORDS` distinct words they are cut and let go.

``BRAHMIC_PUA_COUNT=python`` in the environment forces the pure count (the tests compare both).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from functools import cache
from typing import Any

from brahmic_pua.segment import counting
from brahmic_pua.segment.counting import CorpusCounts, check_batch, lookup_pattern
from brahmic_pua.segment.pieces import SENTINELS, sure_starts

#: The environment variable that picks the count: ``python`` forces the pure count.
COUNT_ENV = "BRAHMIC_PUA_COUNT"
#: Text (in bytes) whose words are held before they are counted together: one ``value_counts``
#: over many batches instead of one per batch of 2,048 lines.
WINDOW_BYTES = 32 << 20
#: Distinct words held before they are cut into pieces and let go. Arrow holds a word in its
#: bytes and an offset, not a Python object: 2 million words are some 50 MB, about what the
#: pure count's :data:`~brahmic_pua.segment.counting.MAX_WORDS` Python strings take, and each
#: word is cut once instead of once per 262,144 distinct words seen.
MAX_WORDS = 1 << 21


def arrow_wanted() -> bool:
    """Whether the count runs in Arrow: pyarrow importable and not turned off by
    ``BRAHMIC_PUA_COUNT=python``."""
    if os.environ.get(COUNT_ENV, "").strip().lower() == "python":
        return False
    try:
        import pyarrow.compute  # noqa: F401
    except ImportError:
        return False
    return True


def count_batches_arrow(
    batches: Iterable[list[str]], policy: str, keep_words: bool = False
) -> CorpusCounts:
    """:func:`~brahmic_pua.segment.counting.count_batches` (not for ``grapheme``) in Arrow."""
    import pyarrow as pa
    import pyarrow.compute as pc

    assert policy != "grapheme", "grapheme does not split words: the pure count counts it"
    pattern = lookup_pattern(policy)
    counts = CorpusCounts()
    words: Any = None  # a table of distinct words and counts (Arrow), or None
    window: list[Any] = []  # flattened words of texts not yet counted
    held = spaces = done = 0
    kept = keep_words
    pieces: Any = None

    def fold(words: Any) -> Any:
        """``words`` with the window's words counted in, the window emptied."""
        found = pc.value_counts(pa.chunked_array(window, pa.string()))
        window.clear()
        table = pa.table({"word": found.field(0), "n": found.field(1)})
        return table if words is None else _summed(pa.concat_tables([words, table]), "word")

    for batch in batches:
        try:
            texts = pa.array(batch, pa.string())
        except (UnicodeError, pa.ArrowException):  # a lone surrogate: the pure count's error
            check_batch(batch, done)
            raise
        done += len(batch)
        flat = pc.list_flatten(pc.split_pattern(texts, " "))
        spaces += len(flat) - len(batch)
        window.append(flat)
        held += flat.nbytes
        if held >= WINDOW_BYTES:
            words, held = fold(words), 0
            kept = kept and words.num_rows <= counting.MAX_WORDS
            if words.num_rows > MAX_WORDS:  # memory stays bounded; the sums are the same
                pieces = _cut(words, pieces, policy, counts)
                words, kept = None, False
    if window:
        words = fold(words)
    if words is not None:
        kept = kept and words.num_rows <= counting.MAX_WORDS
        if kept:
            counts.words = Counter(dict(zip(*_columns(words), strict=True)))
        pieces = _cut(words, pieces, policy, counts)
    elif kept:
        counts.words = Counter()
    if pieces is not None:
        counting.add_pieces(counts, Counter(dict(zip(*_columns(pieces), strict=True))), 1, pattern)
    counts.characters[" "] += spaces
    if pattern.fullmatch(" ") and spaces:
        counts.clusters[" "] += spaces
    if not counts.characters[" "]:
        del counts.characters[" "]
    return counts


def _columns(table: Any) -> tuple[list[str], list[int]]:
    return table.column(0).to_pylist(), table.column(1).to_pylist()


def _summed(table: Any, key: str) -> Any:
    """Rows of equal ``key`` as one, their counts added (in one thread: a fixed order)."""
    return (
        table.group_by(key, use_threads=False)
        .aggregate([("n", "sum")])
        .rename_columns([key, "n"])
        .select([key, "n"])
    )


def _cut(words: Any, pieces: Any, policy: str, counts: CorpusCounts) -> Any:
    """``pieces`` (a table of pieces and counts, or None) with the pieces of ``words`` added,
    each word cut before every sure start of ``policy`` (as
    :func:`~brahmic_pua.segment.pieces.split_pieces` cuts); where every sentinel occurs in the
    words, each word is counted whole into ``counts`` instead."""
    import pyarrow as pa
    import pyarrow.compute as pc

    texts = words.column("word")
    sentinel = next(
        (s for s in SENTINELS if not pc.any(pc.match_substring(texts, s)).as_py()), None
    )
    if sentinel is None:  # each word its own piece: slower, the same counts
        whole = Counter(dict(zip(*_columns(words), strict=True)))
        counting.add_pieces(counts, whole, 1, lookup_pattern(policy))
        return pieces
    marked = pc.replace_substring_regex(texts, pattern=_piece(policy), replacement=sentinel + r"\0")
    split = pc.split_pattern(marked, sentinel)
    weights = pc.take(words.column("n"), pc.list_parent_indices(split))
    table = pa.table({"piece": pc.list_flatten(split), "n": weights})
    if pieces is not None:
        table = pa.concat_tables([pieces, table])
    return _summed(table, "piece")


@cache
def _piece(policy: str) -> str:
    """A regular expression (RE2) for a piece: a sure start of ``policy`` and the characters
    up to the next (one match a piece, not one a sure start: a quarter faster)."""
    points = sorted(sure_starts(policy))
    ranges: list[tuple[int, int]] = []
    for cp in points:
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    parts = (f"\\x{{{a:x}}}" if a == b else f"\\x{{{a:x}}}-\\x{{{b:x}}}" for a, b in ranges)
    starts = "".join(parts)
    return f"[{starts}][^{starts}]*"
