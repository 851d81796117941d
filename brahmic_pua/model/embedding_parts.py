"""What every vocabulary piece is made of: its characters or its clusters, as shared part ids.

A model whose token embedding is composed (its own row plus the mean of its parts' rows) needs,
per token id, the ids of the parts that spell the piece. With cluster-safe pieces that is what
lets కానికి and గానికి share the parameters of the five characters they have in common, where a
plain embedding learns each consonant's variant of the suffix on its own. The index is read from
the piece texts (a brahmic_pua model's Private Use codes decoded to the clusters they stand for),
so it is the same for a brahmic_pua model and for a stock sentencepiece model of the same text:

>>> from brahmic_pua.model.embedding_parts import parts_of
>>> parts_of("▁కానికి", "char")
[' ', 'క', 'ా', 'న', 'ి', 'క', 'ి']
>>> parts_of("▁కానికి", "cluster")
[' ', 'కా', 'ని', 'కి']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from brahmic_pua.model.processor_types import Vocabulary
from brahmic_pua.model.script_ids import piece_texts, special_kind
from brahmic_pua.segment import segment

#: What a piece is cut into: its code points, or its fixtoken clusters.
Unit = Literal["char", "cluster"]
UNITS: tuple[Unit, ...] = ("char", "cluster")

#: spm's word-boundary mark; a part stands for the space it marks.
_SPACE_MARK = "\u2581"


def parts_of(text: str, unit: Unit) -> list[str]:
    """The parts spelling a piece's ``text`` in order, spm's ▁ as a space."""
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {', '.join(UNITS)}, not {unit!r}")
    spelled = text.replace(_SPACE_MARK, " ")
    if unit == "char":
        return list(spelled)
    return [part for run in _space_runs(spelled) for part in _clusters(run)]


def _space_runs(text: str) -> list[str]:
    """``text`` cut before and after every space, so that a space is a part of its own (the
    segmenter would glue a space to a following mark it cannot stand without)."""
    runs: list[str] = []
    for i, word in enumerate(text.split(" ")):
        if i:
            runs.append(" ")
        if word:
            runs.append(word)
    return runs


def _clusters(run: str) -> list[str]:
    return [" "] if run == " " else segment(run)


@dataclass(frozen=True)
class PieceParts:
    """Per vocabulary id, the ids of the parts that spell the piece (``rows``), and the parts
    themselves (``parts``, in order of first use). Control, unknown, unused and byte-fallback
    pieces stand for no text of their own: their rows are empty."""

    unit: Unit
    parts: tuple[str, ...]
    rows: tuple[tuple[int, ...], ...]

    def shared(self, a: int, b: int) -> int:
        """How many parts pieces ``a`` and ``b`` have in common, counted with multiplicity."""
        left, right = list(self.rows[a]), list(self.rows[b])
        common = 0
        for part in left:
            if part in right:
                right.remove(part)
                common += 1
        return common


def piece_parts(processor: Vocabulary, unit: Unit = "char") -> PieceParts:
    """The parts of every piece of ``processor`` (brahmic_pua's or stock sentencepiece's)."""
    texts = piece_texts(processor)
    special = [special_kind(processor, i) is not None for i in range(len(texts))]
    return index_parts(texts, special, unit)


def index_parts(texts: Sequence[str], special: Sequence[bool], unit: Unit) -> PieceParts:
    """:func:`piece_parts` from the piece texts and which ids are special."""
    ids: dict[str, int] = {}
    rows: list[tuple[int, ...]] = []
    for text, skip in zip(texts, special, strict=True):
        if skip:
            rows.append(())
            continue
        rows.append(tuple(ids.setdefault(part, len(ids)) for part in parts_of(text, unit)))
    return PieceParts(unit, tuple(ids), tuple(rows))
