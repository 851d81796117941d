"""What a type checker infers for the processor's calls (``mypy --strict tests`` checks every
``assert_type`` here), and that the values at run time are of those types.

``typing.assert_type`` does nothing at run time, so each call also runs, on a small model, and
its value is checked against the type claimed.
"""

from __future__ import annotations

from typing import Any, assert_type

import numpy as np
import pytest
from conftest import sample_training
from numpy.typing import NDArray

import brahmic_pua as spm
from brahmic_pua.model.processor_types import Processor
from brahmic_pua.runtime.offsets import (
    NBestSentencePieceText,
    OffsetMapping,
    SentencePieceText,
    TextOffsetMapping,
)
from brahmic_pua.trainer import train_model

TEXT, LINES = "క్రాంతి తెలుగు", ["క్రాంతి", "తెలుగు"]


@pytest.fixture(scope="module")
def sp(tmp_path_factory: pytest.TempPathFactory) -> spm.SentencePieceProcessor:
    prefix = tmp_path_factory.mktemp("types") / "te"
    train_model(
        sentence_iterator=iter(sample_training("te")), model_prefix=str(prefix), vocab_size=1000
    )
    return spm.SentencePieceProcessor(model_file=f"{prefix}.model")


def _of(value: object, kind: type, inner: type | None = None) -> bool:
    """``value`` is a ``kind`` (of ``inner`` items, where given)."""
    if not isinstance(value, kind):
        return False
    return inner is None or all(isinstance(item, inner) for item in value)  # type: ignore[attr-defined]


def test_encode_types(sp: spm.SentencePieceProcessor) -> None:
    assert _of(assert_type(sp.encode(TEXT), list[int]), list, int)
    assert _of(assert_type(sp.encode(TEXT.encode()), list[int]), list, int)
    assert _of(assert_type(sp.encode(TEXT, out_type=int), list[int]), list, int)
    assert _of(assert_type(sp.encode(TEXT, out_type=str), list[str]), list, str)
    assert _of(assert_type(sp.encode(TEXT, return_type=bytes), list[bytes]), list, bytes)
    assert _of(assert_type(sp.encode(LINES), list[list[int]]), list, list)
    assert _of(assert_type(sp.encode(LINES, out_type=str), list[list[str]]), list, list)
    assert _of(assert_type(sp.encode(TEXT, out_type="numpy"), NDArray[np.int32]), np.ndarray)
    assert _of(assert_type(sp.encode(LINES, out_type="numpy"), list[NDArray[np.int32]]), list)
    proto = assert_type(sp.encode(TEXT, out_type="proto"), SentencePieceText)
    assert_type(proto.pieces[0].surface, str)
    assert_type(proto.pieces[0].begin, int)
    assert _of(assert_type(sp.encode(LINES, return_type="proto"), list[SentencePieceText]), list)
    assert _of(assert_type(sp.encode(TEXT, out_type="serialized_proto"), bytes), bytes)
    mapping = assert_type(sp.encode(TEXT, out_type="offset_mapping"), OffsetMapping[str])
    assert _of(mapping["pieces"], list, str) and _of(mapping["offsets"], list, tuple)
    in_bytes = sp.encode(TEXT.encode(), out_type="offset_mapping")
    assert _of(assert_type(in_bytes, OffsetMapping[bytes])["pieces"], list, bytes)
    asked = sp.encode(TEXT, out_type="offset_mapping", return_bytes=True)
    assert _of(assert_type(asked, OffsetMapping[bytes])["pieces"], list, bytes)
    batch = sp.encode(LINES, out_type="offset_mapping")
    assert _of(assert_type(batch, list[OffsetMapping[str]]), list, dict)
    assert _of(assert_type(sp.Encode(TEXT, add_bos=True), list[int]), list, int)
    assert _of(assert_type(sp.encode_as_ids(LINES), list[list[int]]), list, list)
    assert _of(assert_type(sp.encode_as_pieces(TEXT), list[str]), list, str)
    assert_type(sp.encode_as_proto(TEXT), SentencePieceText)
    assert_type(sp.encode_as_offset_mapping(TEXT), OffsetMapping[str])
    assert_type(sp.encode_as_numpy(TEXT), NDArray[np.int32])


def test_sampled_nbest_and_parallel_types(sp: spm.SentencePieceProcessor) -> None:
    assert _of(assert_type(sp.sample_encode_as_ids(TEXT, -1, 0.5), list[int]), list, int)
    assert _of(assert_type(sp.sample_encode_as_pieces(LINES), list[list[str]]), list, list)
    assert_type(sp.sample_encode_as_proto(TEXT), SentencePieceText)
    best = assert_type(sp.nbest_encode(TEXT, nbest_size=2), list[list[int]])
    assert _of(best, list, list)
    assert_type(sp.nbest_encode(LINES, nbest_size=2, out_type=str), list[list[list[str]]])
    nbest = assert_type(sp.nbest_encode_as_proto(TEXT, 2), NBestSentencePieceText)
    assert_type(nbest.nbests[0].text, str)
    assert_type(sp.nbest_encode_as_ids(LINES, 2), list[list[list[int]]])
    assert _of(assert_type(sp.parallel_encode(TEXT, chunk_len=8), list[int]), list, int)
    assert_type(sp.parallel_encode_as_pieces(TEXT, chunk_len=8), list[str])
    assert_type(sp.parallel_encode_as_proto(TEXT, chunk_len=8), SentencePieceText)


def test_decode_types(sp: spm.SentencePieceProcessor) -> None:
    ids, rows = sp.encode(TEXT), sp.encode(LINES)
    pieces = sp.encode(TEXT, out_type=str)
    assert _of(assert_type(sp.decode(ids), str), str)
    assert _of(assert_type(sp.decode(ids[0]), str), str)
    assert _of(assert_type(sp.decode(tuple(ids)), str), str)
    assert _of(assert_type(sp.decode(rows), list[str]), list, str)
    assert _of(assert_type(sp.decode(pieces), str), str)
    assert _of(assert_type(sp.decode([p.encode() for p in pieces]), bytes), bytes)
    assert _of(assert_type(sp.decode(ids, out_type=bytes), bytes), bytes)
    assert _of(assert_type(sp.decode(rows, return_type=bytes), list[bytes]), list, bytes)
    assert_type(sp.decode(ids, out_type="proto"), SentencePieceText)
    assert_type(sp.decode(rows, out_type="proto"), list[SentencePieceText])
    assert_type(sp.decode(ids, out_type="serialized_proto"), bytes)
    mapping = assert_type(sp.decode(ids, out_type="offset_mapping"), TextOffsetMapping[str])
    assert _of(mapping["text"], str)
    in_bytes = sp.decode(ids, out_type="offset_mapping", return_bytes=True)
    assert _of(assert_type(in_bytes, TextOffsetMapping[bytes])["text"], bytes)
    assert_type(sp.decode(rows, out_type="offset_mapping"), list[TextOffsetMapping[str]])
    assert_type(sp.decode_ids(ids), str)
    assert_type(sp.decode_ids(rows), list[str])
    assert_type(sp.decode_pieces(pieces), str)
    assert_type(sp.decode_ids_as_proto(ids), SentencePieceText)
    assert_type(sp.decode_pieces_as_proto([pieces]), list[SentencePieceText])
    assert_type(sp.Decode(ids), str)
    array: Any = sp.encode(TEXT, out_type="numpy")
    assert sp.decode(array) == sp.decode(ids)  # a numpy array: a row or a batch, Any


def test_vocabulary_and_normalize_types(sp: spm.SentencePieceProcessor) -> None:
    assert _of(assert_type(sp.id_to_piece(5), str), str)
    assert _of(assert_type(sp.id_to_piece([5, 6]), list[str]), list, str)
    assert _of(assert_type(sp.piece_to_id("▁"), int), int)
    assert _of(assert_type(sp.piece_to_id(["▁", "x"]), list[int]), list, int)
    assert _of(assert_type(sp["▁"], int), int)
    assert _of(assert_type(sp.get_score(5), float), float)
    assert _of(assert_type(sp.is_byte([5, 6]), list[bool]), list, bool)
    assert _of(assert_type(sp.is_control(1), bool), bool)
    assert _of(assert_type(sp.IdToPiece(5), str), str)
    assert _of(assert_type(sp.normalize(TEXT), str), str)
    assert _of(assert_type(sp.normalize(TEXT.encode()), bytes), bytes)
    assert _of(assert_type(sp.normalize(LINES), list[str]), list, str)
    normalized = assert_type(sp.normalize(TEXT, with_offsets=True), tuple[str, list[int]])
    assert _of(normalized[1], list, int)
    assert_type(sp.normalize(TEXT.encode(), with_offsets=True), tuple[bytes, list[int]])
    assert_type(sp.normalize(LINES, with_offsets=True), list[tuple[str, list[int]]])
    assert _of(assert_type(sp.calculate_entropy(TEXT, 0.5), float), float)
    assert _of(assert_type(sp.calculate_entropy(LINES, 0.5), list[float]), list, float)
    processor: Processor = sp  # the protocol the rest of brahmic_pua takes
    assert processor.decode(processor.encode(LINES)) == LINES
