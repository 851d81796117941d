"""The types in :class:`~brahmic_pua.runtime.processor.SentencePieceProcessor`'s signatures:
its keyword options, out types and inputs, for the ``typing.overload`` declarations that let a
type checker tell what each call returns (``encode(str) -> list[int]``, ``encode(list[str],
out_type=str) -> list[list[str]]``, ``out_type="proto"`` → :class:`SentencePieceText`...).

sentencepiece 0.2.3's own stub types every encode and decode as returning ``Any``; these are the
shapes its code returns, as its stub names the inputs (``__init__.pyi``). A list is a batch: a
tuple of texts is not (stock encodes a list as a batch and nothing else). One gap remains on
purpose: a call without ``out_type`` / ``return_type`` is typed as returning ids, the
constructor's default; a processor constructed with another ``out_type`` returns that type, so
pass it at the call where the type matters.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypedDict

import sentencepiece as stock

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: What ``encode`` takes as one text, and as a batch (a list; bytes and str may be mixed, the
#: first text deciding whether offsets count bytes).
Text: TypeAlias = str | bytes
Texts: TypeAlias = list[str] | list[bytes] | list[str | bytes]
#: ``out_type`` / ``return_type`` left out, or int: ids.
Ids: TypeAlias = type[int] | None
Numpy: TypeAlias = Literal["numpy"]
Proto: TypeAlias = Literal["proto"]
Serialized: TypeAlias = Literal["serialized_proto"]
Offsets: TypeAlias = Literal["offset_mapping"]
#: Every out type ``encode`` takes; ``decode`` takes str, bytes and the last three.
Aligned: TypeAlias = Literal["proto", "serialized_proto", "offset_mapping"]
OutKind: TypeAlias = type[int] | type[str] | type[bytes] | Numpy | Aligned
DecodeKind: TypeAlias = type[str] | type[bytes] | Aligned
#: An out type given, or None: the constructor's (ids by default; str for a decode).
OutType: TypeAlias = OutKind | None
#: ``out_type="numpy"``: one int32 array of ids per text.
IdArray: TypeAlias = "NDArray[np.int32]"
#: What ``decode`` takes as one sequence (ids or pieces, or one of either) and as a batch;
#: pieces as bytes get offset mappings in bytes.
IdsToDecode: TypeAlias = int | list[int] | tuple[int, ...]
PiecesToDecode: TypeAlias = str | bytes | list[str] | list[bytes]
OneToDecode: TypeAlias = IdsToDecode | PiecesToDecode
#: Rows of ids as lists or tuples: ``Sequence[Sequence[int]]`` would hold a list of bytes
#: pieces too (bytes are a sequence of ints), which is one text, not a batch.
IdBatchToDecode: TypeAlias = Sequence[list[int]] | Sequence[tuple[int, ...]]
BatchToDecode: TypeAlias = IdBatchToDecode | list[list[str]] | list[list[bytes]]
BytesToDecode: TypeAlias = bytes | list[bytes]
TextOrIdsToDecode: TypeAlias = IdsToDecode | str | list[str]
TextOrIdBatchToDecode: TypeAlias = IdBatchToDecode | list[list[str]]
#: Anything ``decode`` takes, a numpy array of ids (one row or a batch) and rows typed only as
#: sequences included: what it returns is then known at run time only.
AnyToDecode: TypeAlias = (
    "OneToDecode | BatchToDecode | Sequence[Sequence[int]] | NDArray[np.integer[Any]]"
)


class Special(TypedDict, total=False):
    """What every encode form takes: the special pieces and the order."""

    add_bos: bool | None
    add_eos: bool | None
    reverse: bool | None
    emit_unk_piece: bool | None


class Threads(TypedDict, total=False):
    num_threads: int | None
    thread_pool: stock.ThreadPool | None


class SampleOptions(Special, Threads, total=False):
    """``sample_encode_as_*``'s keywords besides ``nbest_size`` and ``alpha``."""


class EncodeOptions(SampleOptions, total=False):
    """``encode``'s keywords besides the out type; ``None`` takes the constructor's."""

    enable_sampling: bool | None
    nbest_size: int | None
    alpha: float | None


class NBestOptions(Special, total=False):
    """``nbest_encode_as_*``'s keywords besides ``nbest_size``."""


class ParallelOptions(Special, Threads, total=False):
    """``parallel_encode``'s keywords besides the out type."""

    chunk_len: int | None


class StockOptions(TypedDict, total=False):
    """Stock's constructor keywords besides the model: the defaults of every encode call."""

    out_type: OutType
    add_bos: bool
    add_eos: bool
    reverse: bool
    emit_unk_piece: bool
    enable_sampling: bool
    nbest_size: int
    alpha: float
    num_threads: int
    return_type: OutType


class ProcessorOptions(StockOptions, total=False):
    """brahmic_pua's constructor keywords besides the model: stock's and ``normalization``."""

    normalization: str | None
