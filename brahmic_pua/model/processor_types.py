"""What the rest of brahmic_pua calls on "a processor", as ``typing.Protocol`` types.

The metrics, the audit, evaluation, repair and the stream decoder take brahmic_pua's
:class:`~brahmic_pua.runtime.processor.SentencePieceProcessor`, stock sentencepiece's, and
for some of them a tokenizer that is not SentencePiece at all (a Hugging Face
``tokenizer.json``, OpenAI's o200k). Typing those parameters ``Any`` hid which calls each one
makes; these protocols name them, so a new tokenizer kind knows what to provide and mypy checks
every call. They are structural: nothing has to inherit from them, and stock's processor (typed
``Any``, sentencepiece ships no types) is accepted as it is.

Layers, each what some caller needs and no more:

* :class:`Encoder`: a batch of texts to rows of ids and back (``evaluate``'s minimum).
* :class:`Vocabulary`: the pieces and their kinds (``orphan_mark_ids``, the per-1000 rates,
  script ids, the audit's judgements).
* :class:`Scored`: a vocabulary with its pieces' scores (the ``.vocab`` lines, the
  segmentation entropy).
* :class:`Processor`: both, plus the serialized model, which stock sentencepiece re-reads for
  its piece alignment (``token_starts``) and the stream decoder for its piece table.
* :class:`StockProcessor`: stock sentencepiece's processor itself, as brahmic_pua drives it
  underneath its own (the runtime's processor, the one-pass decoder, llama.cpp's pre-step):
  every call made on it, with stock's keywords. Stock ships no types, so what it returns is
  ``Any`` here too: each caller says what it takes it to be.

Parameters are positional-only: implementations name them as they like (``input``, ``texts``,
``id``). They are ``runtime_checkable``, so ``isinstance`` tells which layer an object offers
(method names only: signatures are mypy's to check).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeAlias, runtime_checkable

#: A method of stock's processor (``encode``, ``decode``...), passed to code that calls it with
#: stock's keywords; untyped, as stock is.
StockMethod: TypeAlias = Callable[..., Any]


@runtime_checkable
class Encoder(Protocol):
    """Texts to rows of ids and back, a batch at a time, without special tokens."""

    def encode(self, input: list[str], /) -> Sequence[Sequence[int]]: ...

    def decode(self, input: Sequence[Sequence[int]], /) -> Sequence[str]: ...


@runtime_checkable
class Vocabulary(Protocol):
    """The pieces of a vocabulary by id, as spm shows them (``▁`` for a space, ``<0x..>`` for
    a byte), and what kind each is."""

    def get_piece_size(self) -> int: ...

    def id_to_piece(self, id: int, /) -> str: ...

    def is_byte(self, id: int, /) -> bool: ...

    def is_control(self, id: int, /) -> bool: ...

    def is_unknown(self, id: int, /) -> bool: ...

    def is_unused(self, id: int, /) -> bool: ...


@runtime_checkable
class Processor(Encoder, Vocabulary, Protocol):
    """A SentencePiece processor: brahmic_pua's or stock's, on a plain or brahmic_pua model."""

    def serialized_model_proto(self) -> bytes: ...


@runtime_checkable
class Scored(Vocabulary, Protocol):
    """A vocabulary whose pieces have scores (a SentencePiece model's): the ``.vocab`` lines
    and the segmentation entropy read them."""

    def get_score(self, id: int, /) -> float: ...


@runtime_checkable
class StockProcessor(Processor, Scored, Protocol):
    """Stock sentencepiece's ``SentencePieceProcessor``, as brahmic_pua drives it. The calls
    that pass stock's inputs and keywords through as the caller gave them are
    :data:`StockMethod` (stock's own stub types them as returning ``Any``); the vocabulary is
    :class:`Scored`'s."""

    @property
    def encode(self) -> StockMethod: ...

    @property
    def nbest_encode(self) -> StockMethod: ...

    @property
    def parallel_encode(self) -> StockMethod: ...

    @property
    def decode(self) -> StockMethod: ...

    @property
    def decode_pieces(self) -> StockMethod: ...

    @property
    def normalize(self) -> StockMethod: ...

    @property
    def piece_to_id(self) -> StockMethod: ...

    def unk_id(self) -> int: ...

    def bos_id(self) -> int: ...

    def eos_id(self) -> int: ...

    def pad_id(self) -> int: ...

    def LoadFromSerializedProto(self, serialized: bytes, /) -> bool: ...
