"""What a training wrote and did: :class:`TrainReport`, returned by ``train_model`` and said
in one summary line (on stderr with ``progress``, or where spm's log was asked for).

Apart from brahmic_pua/trainer/train.py so that the training reads at one sitting; the report
reads only what the steps measured.
"""

from __future__ import annotations

from dataclasses import dataclass

from brahmic_pua.io.wording import counted
from brahmic_pua.nepbpe.filters import FilterReport
from brahmic_pua.trainer.alphabet import AlphabetPlan


@dataclass(frozen=True, kw_only=True)
class TrainReport:
    """What a training wrote and did, for its summary line and for callers of train_model;
    fields by name (fourteen of them)."""

    model_file: str
    vocab_file: str
    lines: int
    clusters: int
    alphabet: AlphabetPlan
    max_sentence_length: int
    lines_too_long: int
    lines_with_block: int
    disabled_pieces: int
    warnings: tuple[str, ...] = ()
    filters: FilterReport | None = None
    word_starts: int = 0  # Unigram pieces swapped for "▁" + a piece (trainer/word_starts.py)
    #: The model's pieces, and how many of them are UNUSED (disabled: no encoding writes them,
    #: and their ids stay so that every other id keeps its number).
    vocab_size: int = 0
    unused: int = 0

    def summary(self) -> str:
        a = self.alphabet
        written = (
            f"{self.model_file} and {self.vocab_file}" if self.model_file else "the model_writer"
        )
        parts = [
            f"wrote {written}: {counted(self.lines, 'line')}, "
            f"{counted(self.clusters, 'cluster')} in the table, {a.kept:,} of "
            f"{counted(a.symbols, 'symbol')} kept (character_coverage={a.character_coverage:.6f}), "
            f"{counted(self.disabled_pieces, 'piece')} starting with a mark disabled"
        ]
        if self.lines_too_long:
            parts.append(
                f"{counted(self.lines_too_long, 'line')} longer than max_sentence_length="
                f"{self.max_sentence_length} bytes skipped by SentencePiece (a larger "
                "max_sentence_length keeps such lines)"
            )
        if self.lines_with_block:
            parts.append(
                f"{counted(self.lines_with_block, 'line contains', 'lines contain')} U+2585, "
                "which spm drops: trained with it escaped (encoding is unaffected)"
            )
        if self.word_starts:
            parts.append(
                f"{counted(self.word_starts, 'little-used piece')} swapped for word starts"
            )
        if self.filters is not None:
            parts += self.filters.lines()
            if self.unused and self.vocab_size:
                parts.append(
                    f"unused pieces: {self.unused:,} of {counted(self.vocab_size, 'id')} "
                    f"({100 * self.unused / self.vocab_size:.1f}% of an embedding table whose "
                    "rows no encoding trains; the ids stay so that every other id keeps its "
                    "number)"
                )
        return "; ".join(parts)
