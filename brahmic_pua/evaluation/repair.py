"""fixToken repair of a plain SentencePiece model that already exists (the paper, §3.3).

Most people will not retrain: they have a stock spm model and ids made with it. Two repairs meet
them there:

* :class:`IdRepair` re-segments a model's ids so that every token starts at a fixtoken cluster
  boundary (:func:`brahmic_pua.segment`): a dependent that cannot start a token moves into the
  token before it, the paper's ``fixToken``. The result uses only ids of the same model, decodes
  to the same text and never has more orphan-mark tokens than the input.
* :func:`repair_vocabulary` copies the model with its mark-start pieces set UNUSED, so stock spm
  never emits them; ids keep their numbers.

Id repair, step by step. The ids are read as units: a NORMAL piece, or a maximal run of byte
pieces that is valid UTF-8 (the characters it spells). Everything else is a barrier kept where
it is, and nothing moves across it: control and unknown pieces, user-defined and UNUSED pieces,
and byte runs that are not valid UTF-8 or that spell a literal ▁ (it decodes as ▁ there, as a
space in a piece). Between barriers the units' text is cut into fixtoken clusters. A unit that
starts inside a cluster is joined to the units before it; each such group (a span) is
re-spelled: every unit start is moved right to the next cluster boundary (fixToken), and each
resulting token is spelled with the fewest vocabulary pieces that start at cluster boundaries
(ties: fewer orphan-mark pieces, then the higher total score), a cluster the vocabulary cannot
spell going to byte pieces when the model has byte fallback. A span keeps its original ids when
it cannot be spelled so, or when its spelling has more orphan-mark tokens than the original
(an orphan mark in the text itself, after a space or at the start, is a cluster of its own:
fixToken leaves it where it is, and so does this repair).

A fixToken token that is not in the vocabulary is split, not merged with its neighbours: the
repair moves boundaries as little as it can, so a language model trained on the model's own
segmentation sees almost the same tokens.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from brahmic_pua.evaluation.metrics import (
    fertility,
    orphan_mark_ids,
    orphan_marks_per_1000,
    total_tokens,
)
from brahmic_pua.io.wording import counted
from brahmic_pua.model.display import (
    NORMAL,
    SPACE,
    mark_start_ids,
    set_unused,
)
from brahmic_pua.model.loader import load_model
from brahmic_pua.model.manifest import ModelFileError
from brahmic_pua.model.model_file import read_model_file
from brahmic_pua.model.model_proto import BYTE, parse_model
from brahmic_pua.model.processor_types import StockProcessor, Vocabulary
from brahmic_pua.segment import segment

EXAMPLES = 8

#: One unit of an id sequence: the text of a NORMAL piece or of a valid byte run (None for a
#: barrier), and the ids it came from.
Unit = tuple[str | None, list[int]]
TextUnit = tuple[str, list[int]]
#: (tokens, orphan-mark tokens, minus the total score) of a spelling: smaller is better.
Cost = tuple[int, int, float]


def load_plain(data: bytes, source: str = "model") -> StockProcessor:
    """Stock sentencepiece's processor for a plain model; a one-line :class:`ModelFileError`
    for anything else (not a model; a brahmic_pua model, whose pieces never split a cluster)."""
    loaded = load_model(data, source)
    if loaded.manifest is not None:
        raise ModelFileError(
            f"{source} is a brahmic_pua model: its pieces already start at cluster boundaries, "
            "so there is nothing to repair; give the plain sentencepiece model to repair"
        )
    return loaded.processor


class IdRepair:
    """fixToken over a plain model's ids (see the module docstring). ``processor`` is stock spm
    on the model, ``orphans`` its orphan-mark ids
    (:func:`brahmic_pua.evaluation.metrics.orphan_mark_ids`).
    ``use_bytes=False``: a cluster without a piece keeps its span's ids instead of bytes."""

    def __init__(self, data: bytes, source: str = "model", *, use_bytes: bool = True) -> None:
        self.processor = load_plain(data, source)
        model = parse_model(data)
        self.size = len(model.pieces)
        self.orphans = orphan_mark_ids(self.processor)
        self._text: list[str | None] = [None] * self.size
        self._byte: list[int] = [-1] * self.size  # the byte of a byte piece
        self._normal: dict[str, int] = {}
        self._score: list[float] = [p.score for p in model.pieces]
        byte_ids: dict[int, int] = {}
        for i, piece in enumerate(model.pieces):
            if piece.type == NORMAL:
                self._text[i] = piece.piece
                self._normal[piece.piece] = i
            elif piece.type == BYTE:
                value = int(piece.piece[3:5], 16)
                self._byte[i] = value
                byte_ids[value] = i
        #: id of each byte value, when every byte has a piece (byte fallback) and ``use_bytes``
        #: allows spelling a cluster in bytes, else empty.
        spell = use_bytes and len(byte_ids) == 256
        self._bytes = [byte_ids[b] for b in range(256)] if spell else []
        self._longest = max(map(len, self._normal), default=0)

    @classmethod
    def from_file(cls, path: str, *, use_bytes: bool = True) -> IdRepair:
        """The repair of the model file ``path``, read by the one bounded model reader."""
        return cls(read_model_file(path), path, use_bytes=use_bytes)

    def repair(self, ids: Sequence[int]) -> list[int]:
        """``ids`` with every token moved to start at a cluster boundary (module docstring).
        An id outside the vocabulary is an IndexError, as stock sentencepiece's decode says."""
        out: list[int] = []
        run: list[TextUnit] = []
        for text, unit_ids in self._units(ids):
            if text is None:
                out += self._repair_run(run)
                out += unit_ids
                run = []
            else:
                run.append((text, unit_ids))
        return out + self._repair_run(run)

    def _units(self, ids: Sequence[int]) -> list[Unit]:
        units: list[Unit] = []
        run: list[int] = []
        for i in ids:
            if not 0 <= i < self.size:
                raise IndexError(
                    f"piece id {i} is out of range: the model has {counted(self.size, 'piece')}"
                )
            if self._byte[i] >= 0:
                run.append(i)
                continue
            if run:
                units.append((self._byte_text(run), run))
                run = []
            units.append((self._text[i], [i]))
        if run:
            units.append((self._byte_text(run), run))
        return units

    def _byte_text(self, run: list[int]) -> str | None:
        """The characters a byte run spells, or None (a barrier) where moving them could change
        the decoded text: bytes that are not UTF-8, or a literal ▁ (spm's space in a piece)."""
        try:
            text = bytes(self._byte[i] for i in run).decode("utf-8")
        except UnicodeDecodeError:
            return None
        return None if SPACE in text else text

    def _repair_run(self, units: list[TextUnit]) -> list[int]:
        """Units between two barriers: spans that start inside a cluster re-spelled."""
        text = "".join(t for t, _ in units)
        starts = list(accumulate((len(t) for t, _ in units), initial=0))
        cuts = list(accumulate(map(len, segment(text, "fixtoken")), initial=0))
        boundaries = set(cuts)
        out: list[int] = []
        first = 0
        while first < len(units):
            last = first + 1
            while last < len(units) and starts[last] not in boundaries:
                last += 1
            original = [i for _, unit_ids in units[first:last] for i in unit_ids]
            if last - first == 1:
                out += original
            else:
                end = starts[last]
                moved = {cuts[bisect.bisect_left(cuts, s)] for s in starts[first:last]}
                token_starts = sorted(c for c in moved if c < end)
                out += self._respell(text, cuts, token_starts, end, original)
            first = last
        return out

    def _respell(
        self, text: str, cuts: list[int], token_starts: list[int], end: int, original: list[int]
    ) -> list[int]:
        """The fixToken tokens of one span in vocabulary ids, or the span's original ids when
        they cannot be spelled or the spelling has more orphan-mark tokens."""
        out: list[int] = []
        for start, stop in zip(token_starts, [*token_starts[1:], end], strict=True):
            inner = cuts[bisect.bisect_left(cuts, start) : bisect.bisect_right(cuts, stop)]
            spelled = self._spell(text, inner)
            if spelled is None:
                return original
            out += spelled
        if self._orphan_count(out) > self._orphan_count(original):
            return original
        return out

    def _spell(self, text: str, cuts: list[int]) -> list[int] | None:
        """Fewest vocabulary pieces for ``text[cuts[0]:cuts[-1]]``, each starting and ending at
        one of ``cuts`` (cluster boundaries); a cluster without ▁ may go to byte pieces."""
        best: list[tuple[Cost, list[int]] | None] = [None] * len(cuts)
        best[0] = ((0, 0, 0.0), [])
        for a in range(len(cuts) - 1):
            here = best[a]
            if here is None:
                continue
            (tokens, orphans, score), ids = here
            for b in range(a + 1, len(cuts)):
                if cuts[b] - cuts[a] > self._longest:
                    break
                piece = self._normal.get(text[cuts[a] : cuts[b]])
                if piece is not None:
                    cost = (
                        tokens + 1,
                        orphans + (piece in self.orphans),
                        score - self._score[piece],
                    )
                    _relax(best, b, cost, [*ids, piece])
            cluster = text[cuts[a] : cuts[a + 1]]
            if self._bytes and SPACE not in cluster:
                spelled = [self._bytes[b] for b in cluster.encode("utf-8")]
                _relax(best, a + 1, (tokens + len(spelled), orphans, score), [*ids, *spelled])
        found = best[-1]
        return None if found is None else found[1]

    def _orphan_count(self, ids: Iterable[int]) -> int:
        return sum(i in self.orphans for i in ids)


def _relax(best: list[tuple[Cost, list[int]] | None], at: int, cost: Cost, ids: list[int]) -> None:
    current = best[at]
    if current is None or cost < current[0]:
        best[at] = (cost, ids)


@dataclass(frozen=True)
class VocabularyRepair:
    """What :func:`repair_vocabulary` did: the pieces it set UNUSED and the lone marks it kept."""

    disabled: tuple[str, ...]
    kept: tuple[str, ...]
    byte_fallback: bool

    def lines(self) -> list[str]:
        listed = ", ".join(self.disabled[:EXAMPLES]) + (
            ", …" if len(self.disabled) > EXAMPLES else ""
        )
        disabled = f"{counted(len(self.disabled), 'mark-start piece')} set UNUSED"
        lines = [disabled + (f" ({listed})" if listed else "")]
        if self.kept:
            why = "asked to keep them" if self.byte_fallback else "no byte fallback to spell them"
            lines.append(
                f"{counted(len(self.kept), 'lone mark')} kept ({why}): {' '.join(self.kept)}"
            )
        return lines


def repair_vocabulary(
    data: bytes, *, keep_lone_marks: bool = False, source: str = "model"
) -> tuple[bytes, VocabularyRepair]:
    """A copy of a plain model whose NORMAL pieces that start with a combining mark (after a
    leading ▁) are UNUSED, so stock spm spells that text otherwise; ids keep their numbers.

    A lone mark (a one-character piece) is text the model must be able to spell: it is kept
    when the model has no byte fallback, or when ``keep_lone_marks`` asks for it; otherwise it
    goes too and an orphan mark in the text (after a space, at a line start, after a cluster
    the vocabulary lacks) is spelled in byte pieces, which never count as orphan-mark tokens.
    """
    load_plain(data, source)
    model = parse_model(data)
    byte_fallback = bool(model.trainer_spec.byte_fallback)
    ids, spared = mark_start_ids(
        model, keep=lambda piece: len(piece) == 1 and (keep_lone_marks or not byte_fallback)
    )
    disabled = tuple(model.pieces[i].piece for i in ids)
    kept = tuple(model.pieces[i].piece for i in spared)
    set_unused(model, ids)
    report = VocabularyRepair(disabled, kept, byte_fallback)
    return model.SerializeToString(), report


@dataclass(frozen=True)
class Measure:
    """Tokens, fertility and orphan-mark tokens per 1000 of some rows of ids for some texts."""

    tokens: int
    fertility: float
    orphans_per_1000: float


def measure(processor: Vocabulary, rows: Sequence[Sequence[int]], texts: Sequence[str]) -> Measure:
    return Measure(
        total_tokens(rows), fertility(rows, texts), orphan_marks_per_1000(rows, processor)
    )
