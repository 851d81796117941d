"""The corpus count of :mod:`brahmic_pua.segment.counting` in Arrow's compiled kernels, used
when pyarrow (the ``arrow`` extra) is importable: the same counts, so the same model files.

The pure count spends its time in Python's ``Counter`` over ``str.split(" ")`` and in cutting
each distinct word into pieces (``str.translate`` + ``str.split``), a Python call per chunk and
a loop per piece. Here the texts are split on U+0020 (``utf8`` ``split_pattern``: exactly
``str.split(" ")``, consecutive spaces giving empty words, and no other whitespace), the words
counted (``value_counts``), and the distinct words cut before every sure start of the policy
(a regular expression that inserts the sentinel, then ``split_pattern`` on it) with the pieces'
counts summed per piece (``group_by``), all in C. Only the distinct pieces (syllables, some
tens of thousands) reach Python, to be segmented by the same
:func:`~brahmic_pua.segment.counting.add_pieces` as the pure count.

Why the counts are equal: every policy but grapheme (which this path leaves to the pure count)
has a cluster boundary around each space, so a text's clusters and characters are its words'
plus its spaces; and the pieces of a word segment as the word does in place. The pure count
joins words with spaces before cutting (and counts those spaces out again); cutting each word
on its own gives the same clusters and characters. Memory stays bounded as in the pure count:
the words of about :data:`WINDOW_BYTES` of text are held at once, past
:data:`~brahmic_pua.segment.counting.MAX_WORDS` distinct words they are cut and let go (and
then not kept, as there), and :data:`CUT_ROWS` words are cut at a time.

The trainer counts in Arrow where its input is :data:`ARROW_MIN_BYTES` or more (or Parquet, or
an iterator), and pyarrow imports; its count's plan says so
(:mod:`brahmic_pua.trainer.count_plan`, which also reads the switches the tests compare both
counts by).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol

from brahmic_pua.segment.sure_cuts import SENTINELS, sure_starts

#: Text (in bytes) whose words are held before they are counted together: one ``value_counts``
#: over many batches instead of one per batch of 2,048 lines; a bound on the words held, and on
#: the hash table that counts them.
#: 4 MB: on the 50 MB mix, the count's peak memory 212 MB (the pure count's: 126 MB) at the
#: speed of 8 MB (216 MB); a window of 32 MB took 285 MB.
WINDOW_BYTES = 4 << 20
#: How many times the pure count's bound on distinct words (``max_words``) the Arrow count
#: holds before it cuts them and lets them go: a word is some 40 bytes in an Arrow table against
#: some 150 in a ``Counter``, and a word let go is cut again when it comes back (on the 200 MB
#: mix, cutting the same words again and again took a fifth of the count).
HELD_WORDS = 4
#: Distinct words cut into pieces at once: the pieces of many words, before they are summed,
#: take several times the words' memory.
CUT_ROWS = 1 << 16


#: Input smaller than this is counted in Python: importing pyarrow and its kernels costs 0.05 to
#: 0.1 s and 60 MB of resident library code (measured: 33 MB for the trainer's imports, 93 MB
#: with pyarrow's), more than the count saves on a small corpus (te.train, 5 MB: no faster, and
#: 215 MB at the peak against 140 MB).
ARROW_MIN_BYTES = 16 << 20


def pyarrow_importable() -> bool:
    """Whether pyarrow's compute module imports here (the arrow extra)."""
    try:
        import pyarrow.compute  # noqa: F401
    except ImportError:
        return False
    return True


class WordsOut(Protocol):
    """Where a count hands the words it counted, each window's as it is let go (a word may come
    in several windows): the trainer writes them for spm (:mod:`brahmic_pua.trainer.spm_words`).
    Both counts hand them over, so it is defined here, below the pure count, which imports
    this module."""

    def counted(self, words: Counter[str]) -> None:
        """Words and their counts, from the pure count."""

    def counted_table(self, table: Any) -> None:
        """Words and their counts, from the Arrow count: a table of ``word`` and ``n``."""


@dataclass
class WordPieces:
    """What the Arrow count hands back to :func:`~brahmic_pua.segment.counting.count_batches`,
    which segments it by the pure count's own code: the pieces of every word with their counts,
    the words counted whole (where no sentinel was free), the words themselves where asked for
    and within ``max_words``, and the spaces between words."""

    pieces: Counter[str] = field(default_factory=Counter)
    whole: Counter[str] = field(default_factory=Counter)
    words: Counter[str] | None = None
    spaces: int = 0


def count_pieces(
    batches: Iterable[list[str]],
    policy: str,
    keep_words: bool,
    max_words: int,
    check: Callable[[list[str], int], None],
    words_out: WordsOut | None = None,
) -> WordPieces:
    """The words of ``batches`` (split on U+0020) cut into pieces and counted, in Arrow; past
    ``max_words`` distinct words, cut and let go (and not kept). A batch Arrow cannot take (a
    lone surrogate) goes to ``check`` (with the number of texts before it) for its error.
    ``words_out``: every word, with its count, handed there too, as it is let go."""
    import pyarrow as pa
    import pyarrow.compute as pc

    assert policy != "grapheme", "grapheme does not split words: the pure count counts it"
    count = _Count(policy, keep_words, max_words, words_out)
    done = 0
    for batch in batches:
        try:
            texts = pa.array(batch, pa.string())
        except (UnicodeError, pa.ArrowException):
            check(batch, done)
            raise
        done += len(batch)
        words = pc.list_flatten(pc.split_pattern(texts, " "))
        count.found.spaces += len(words) - len(batch)
        count.add(words)
    found = count.finish()
    del count
    # What Arrow's allocator holds goes back to the system now: SentencePiece trains next, and
    # its peak would otherwise come on top of the count's (on the 50 MB mix, 450 MB against the
    # pure count's 347 MB).
    pa.default_memory_pool().release_unused()
    return found


class _Count:
    """One count's state, each part in bounded memory: the words not yet counted (a window),
    the windows' counts not yet merged, and the counts of the pieces of the words cut so far."""

    def __init__(
        self, policy: str, keep_words: bool, max_words: int, words_out: WordsOut | None
    ) -> None:
        self.policy = policy
        self.words_out = words_out
        self.kept = keep_words  # the words are kept while they fit ``max_words``
        self.max_words = max_words
        self.window: list[Any] = []  # flattened words of texts not yet counted
        self.held = 0  # their bytes
        self.tables: list[Any] = []  # the merged words (first), then windows' not yet merged
        self.merged = 0  # rows of the merged table
        self.rows = 0  # rows of the windows' tables not yet merged
        self.pieces: list[Any] = []  # pieces and counts of the words cut so far
        self.found = WordPieces()

    def add(self, words: Any) -> None:
        self.window.append(words)
        self.held += words.nbytes
        if self.held >= WINDOW_BYTES:
            self._fold()

    def _fold(self) -> None:
        """The window's words counted (one ``value_counts``) and let go."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if not self.window:
            return
        found = pc.value_counts(pa.chunked_array(self.window, pa.string()))
        self.window, self.held = [], 0
        self.tables.append(pa.table({"word": found.field(0), "n": found.field(1)}))
        self.rows += len(found)
        if self.rows > max(self.max_words, self.merged):  # merges stay linear in the corpus
            self._merge()

    def _merge(self) -> Any:
        """The windows' counts merged into one table of distinct words; past ``max_words``
        (the pure count's bound) no longer kept, and past :data:`HELD_WORDS` times that, cut
        into pieces and let go (None then)."""
        import pyarrow as pa

        words = self.tables[0] if len(self.tables) == 1 else _summed(pa.concat_tables(self.tables))
        self.tables, self.merged, self.rows = [words], words.num_rows, 0
        if words.num_rows > self.max_words:
            self.kept = False
        if words.num_rows <= self.max_words * HELD_WORDS:
            return words
        if self.words_out is not None:
            self.words_out.counted_table(words)
        self._cut(words)
        self.tables, self.merged = [], 0
        return None

    def _cut(self, words: Any) -> None:
        """The pieces of ``words`` counted into :attr:`pieces`, :data:`CUT_ROWS` at a time."""
        import pyarrow as pa

        for start in range(0, words.num_rows, CUT_ROWS):
            chunk = words.slice(start, CUT_ROWS)
            found = _pieces(chunk, self.policy)
            if found is None:  # every sentinel occurs in them: each word counted whole
                self.found.whole.update(_counter(chunk))
            else:
                self.pieces.append(found)
            if len(self.pieces) > 16:
                self.pieces = [_summed(pa.concat_tables(self.pieces))]

    def finish(self) -> WordPieces:
        import pyarrow as pa

        self._fold()
        words = self._merge() if self.tables else None
        if self.kept:
            self.found.words = Counter() if words is None else _counter(words)
        if words is not None:
            if self.words_out is not None:
                self.words_out.counted_table(words)
            self._cut(words)
        if self.pieces:
            self.found.pieces = _counter(_summed(pa.concat_tables(self.pieces)))
        return self.found


def _counter(table: Any) -> Counter[str]:
    """A table of keys and counts as a Counter, in the table's order."""
    keys: list[str] = table.column(0).to_pylist()
    values: list[int] = table.column(1).to_pylist()
    return Counter(dict(zip(keys, values, strict=True)))


def _summed(table: Any) -> Any:
    """Rows of equal key (the first column) as one, their counts (``n``) added; in one thread,
    so in a fixed order."""
    key = table.column_names[0]
    grouped = table.group_by(key, use_threads=False).aggregate([("n", "sum")])
    return grouped.rename_columns([key, "n"]).select([key, "n"])


def _pieces(words: Any, policy: str) -> Any:
    """A table of the pieces of ``words`` (a table of words and counts) with their counts,
    each word cut before every sure start of ``policy`` as
    :func:`~brahmic_pua.segment.sure_cuts.split_pieces` cuts; None where every sentinel occurs in
    the words."""
    import pyarrow as pa
    import pyarrow.compute as pc

    texts = words.column("word")
    free = (s for s in SENTINELS if not pc.any(pc.match_substring(texts, s)).as_py())
    sentinel = next(free, None)
    if sentinel is None:
        return None
    marked = pc.replace_substring_regex(texts, pattern=_piece(policy), replacement=sentinel + "\\0")
    split = pc.split_pattern(marked, sentinel)
    weights = pc.take(words.column("n"), pc.list_parent_indices(split))
    return _summed(pa.table({"piece": pc.list_flatten(split), "n": weights}))


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
