"""The word and character maps of a BrahmicPuaTokenizer output row: what ``BatchEncoding``'s
``word_ids()``, ``sequence_ids()``, ``tokens()``, ``token_to_chars()``, ``char_to_token()``...
read from a fast tokenizer's ``tokenizers.Encoding``.

transformers' Python tokenizers have none (those methods raise "not available when using Python
based tokenizers"): a slow tokenizer knows no offsets. BrahmicPuaTokenizer knows them (stock
spm's), so with ``return_offsets_mapping=True`` each row gets a :class:`RowMaps`, which answers
as ``tokenizers.Encoding`` does: ``None`` for a special token the tokenizer added and for
padding; words numbered from 0 in each sequence of a pair.

Words: given words (``is_split_into_words=True``) are the words; in a text, a word starts at
each piece that starts with ``▁`` (a space, or spm's dummy prefix), at each added token (a word
of its own, as a fast tokenizer splits them), and at the first piece after one.

A row's maps are made by :func:`with_spans`; a batch that transformers encodes a row at a time
collects its rows' maps through :func:`row_maps`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from transformers import BatchEncoding

from brahmic_pua.integrations.hf_text import Encoded

Span = tuple[int, int]


@dataclass(frozen=True)
class RowMaps:
    """One row: per token its id, token, characters, word and sequence (``None`` for special
    tokens added around the text and for padding)."""

    ids: list[int]
    tokens: list[str]
    offsets: list[Span]
    word_ids: list[int | None]
    sequence_ids: list[int | None]

    @property
    def n_sequences(self) -> int:
        return len({s for s in self.sequence_ids if s is not None}) or 1

    def padded(self, length: int, left: bool, pad_id: Any, pad_token: Any) -> RowMaps:
        """The row padded to ``length`` tokens on one side, as transformers pads its ids."""
        missing = length - len(self.ids)
        if missing <= 0:
            return self

        def pad(values: list[Any], value: Any) -> list[Any]:
            return [value] * missing + values if left else values + [value] * missing

        return RowMaps(
            pad(self.ids, pad_id),
            pad(self.tokens, pad_token),
            pad(self.offsets, (0, 0)),
            pad(self.word_ids, None),
            pad(self.sequence_ids, None),
        )

    def _tokens_of(self, sequence: int) -> list[int]:
        return [i for i, s in enumerate(self.sequence_ids) if s == sequence]

    def token_to_sequence(self, token: int) -> int | None:
        return self.sequence_ids[token]

    def token_to_word(self, token: int) -> int | None:
        return self.word_ids[token]

    def token_to_chars(self, token: int) -> Span | None:
        return None if self.sequence_ids[token] is None else self.offsets[token]

    def word_to_tokens(self, word: int, sequence_index: int = 0) -> Span | None:
        found = [i for i in self._tokens_of(sequence_index) if self.word_ids[i] == word]
        return (found[0], found[-1] + 1) if found else None

    def word_to_chars(self, word: int, sequence_index: int = 0) -> Span | None:
        tokens = self.word_to_tokens(word, sequence_index)
        if tokens is None:
            return None
        return self.offsets[tokens[0]][0], self.offsets[tokens[1] - 1][1]

    def char_to_token(self, char: int, sequence_index: int = 0) -> int | None:
        for i in self._tokens_of(sequence_index):
            start, end = self.offsets[i]
            if start <= char < end:
                return i
        return None

    def char_to_word(self, char: int, sequence_index: int = 0) -> int | None:
        token = self.char_to_token(char, sequence_index)
        return None if token is None else self.word_ids[token]


def word_starts(pieces: list[str]) -> list[bool]:
    """Which pieces of a stretch (between added tokens) start a word: its first, and each
    one with ``▁``."""
    return [k == 0 or piece.startswith("▁") for k, piece in enumerate(pieces)]


#: The maps of the rows of a batch that transformers encodes a row at a time (:func:`row_maps`).
ROW_MAPS: ContextVar[list[RowMaps] | None] = ContextVar("brahmic_pua_row_maps", default=None)


@contextmanager
def row_maps() -> Iterator[list[RowMaps]]:
    """The maps of the rows encoded with offsets while transformers' ``_encode_plus`` runs:
    for a batch it calls ``_encode_plus`` on each row and keeps only the row's keys, so the
    maps each row's output holds would be lost. A context variable, not an argument (a
    keyword would travel through transformers' own ``**kwargs``) nor an attribute (a tokenizer
    may encode in several threads at once); each call collects its own rows, so a row that
    goes transformers' way inside a batch does not add to the batch's."""
    rows: list[RowMaps] = []
    collecting = ROW_MAPS.set(rows)
    try:
        yield rows
    finally:
        ROW_MAPS.reset(collecting)


def with_spans(
    tok: Any,
    first: Encoded,
    second: Encoded | None,
    return_tensors: Any,
    options: dict[str, Any],
) -> Any:
    """A row's output with its offsets and maps: ``tok.prepare_for_model`` on stand-ins,
    ``-1 - k`` for the k-th token: it truncates, adds special tokens and pads as it does for
    ids, and each stand-in left in its output (or its overflow) says which token, and so
    which span, stands there; its own tokens (ids ≥ 0) are special or padding, ``(0, 0)``."""
    ids = first.ids + ([] if second is None else second.ids)
    spans: list[Span] = (first.spans or []) + ([] if second is None else second.spans or [])
    stand_ins = [-1 - k for k in range(len(ids))]
    cut = len(first.ids)
    out = tok.prepare_for_model(
        stand_ins[:cut], pair_ids=None if second is None else stand_ins[cut:], **options
    )
    data = dict(out)
    data["offset_mapping"] = [spans[-1 - k] if k < 0 else (0, 0) for k in data["input_ids"]]
    words = first.words + ([] if second is None else second.words)
    maps = RowMaps(
        ids=[ids[-1 - k] if k < 0 else k for k in data["input_ids"]],
        tokens=[],
        offsets=data["offset_mapping"],
        word_ids=[words[-1 - k] if k < 0 else None for k in data["input_ids"]],
        sequence_ids=[None if k >= 0 else int(-1 - k >= cut) for k in data["input_ids"]],
    )
    maps.tokens.extend(tok.convert_ids_to_tokens(maps.ids))
    for key in ("input_ids", "overflowing_tokens"):
        if key in data:
            data[key] = [ids[-1 - k] if k < 0 else k for k in data[key]]
    return BatchEncoding(data, encoding=[maps], tensor_type=return_tensors, prepend_batch_axis=True)
