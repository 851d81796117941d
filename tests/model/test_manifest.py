"""The manifest field (ModelProto field 1729) as protobuf reads and writes it.

The bytes brahmic_pua writes are compared with an oracle built here by hand from the wire format
(the model, then the tag of field 1729 with wire type 2, a varint length, the payload), not with
anything the code under test computes: model files must stay byte-identical to those written
before the field went through protobuf, and every model written then must stay readable.
Damaged fields (a wrong wire type, truncation) must be one line of :class:`ModelFileError`.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
import sentencepiece as stock
from hypothesis import given
from hypothesis import strategies as st

from brahmic_pua.codec import PUACodec
from brahmic_pua.model import display
from brahmic_pua.model.manifest import Manifest, ModelFileError, embed, extract, has_manifest
from brahmic_pua.model.model_proto import (
    BYTE,
    CONTROL,
    MANIFEST,
    NORMAL,
    UNKNOWN,
    UNUSED,
    USER_DEFINED,
    model_pb2,
    parse_model,
)
from brahmic_pua.normalize.folding import nepali_table

LINES = ["కూడా రాముడు వచ్చాడు", "the quick brown fox", "రాముడు కూడా", "नेपाल राम्रो छ"] * 5
#: 1729 << 3 | 2 as a varint, worked out by hand: 13834 = 0x360A → 0x0A | 0x80, then 0x6C.
TAG = b"\x8a\x6c"


def _varint(value: int) -> bytes:
    """The protobuf base-128 varint, written independently of the code under test."""
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field(number: int, wire: int, body: bytes) -> bytes:
    """One hand-built top-level field: its key, then ``body`` as given (length included)."""
    return _varint(number << 3 | wire) + body


def _oracle(model: bytes, payload: bytes) -> bytes:
    """What the model file must be: the model, then field 1729, length-delimited, last."""
    return model + TAG + _varint(len(payload)) + payload


@pytest.fixture(scope="module")
def plain_model_bytes() -> bytes:
    """A real (tiny) plain SentencePiece model, serialized by spm itself."""
    stream = io.BytesIO()
    stock.SentencePieceTrainer.train(
        sentence_iterator=iter(LINES),
        model_writer=stream,
        model_type="char",
        vocab_size=40,
        hard_vocab_limit=False,
        minloglevel=2,
    )
    return stream.getvalue()


@pytest.fixture(scope="module")
def manifests() -> dict[str, Manifest]:
    codec = PUACodec.build(LINES, "akshara", scripts=["telugu", "devanagari"])
    return {
        "nfc": Manifest(codec, "nfc"),
        "nepali-lm": Manifest(codec, "nepali-lm", nepali_table("nepali-lm")),
    }


def _one_line_error(data: bytes, match: str) -> None:
    with pytest.raises(ModelFileError, match=match) as caught:
        extract(data, "x.model")
    assert "\n" not in str(caught.value)


def test_piece_types_are_spms_numbers() -> None:
    assert (NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE) == (1, 2, 3, 4, 5, 6)
    assert (display.NORMAL, display.USER_DEFINED, display.UNUSED) == (NORMAL, USER_DEFINED, UNUSED)
    piece_type = model_pb2.ModelProto.SentencePiece.Type
    assert [piece_type.Name(t) for t in range(1, 7)] == [
        "NORMAL",
        "UNKNOWN",
        "CONTROL",
        "USER_DEFINED",
        "UNUSED",
        "BYTE",
    ]


@pytest.mark.parametrize("mode", ["nfc", "nepali-lm"])
def test_manifest_round_trips(
    plain_model_bytes: bytes, manifests: dict[str, Manifest], mode: str
) -> None:
    manifest = manifests[mode]
    data = embed(plain_model_bytes, manifest)
    read = extract(data, "x.model")
    assert read is not None and read.to_bytes() == manifest.to_bytes()
    assert read.normalization == mode and read.folding == manifest.folding
    assert extract(plain_model_bytes, "plain.model") is None
    ours, theirs = (stock.SentencePieceProcessor(model_proto=m) for m in (data, plain_model_bytes))
    assert ours.encode(LINES) == theirs.encode(LINES)  # stock spm skips the field


def test_has_manifest_tells_the_field_from_its_absence(
    plain_model_bytes: bytes, manifests: dict[str, Manifest]
) -> None:
    """Without reading the manifest: a field 1729 whose payload is no manifest still counts
    (``read`` refuses it), and bytes that are no model are the one error."""
    assert not has_manifest(plain_model_bytes, "plain.model")  # written by stock spm alone
    for manifest in manifests.values():
        assert has_manifest(embed(plain_model_bytes, manifest), "x.model")
    assert has_manifest(_oracle(plain_model_bytes, b"not json"), "x.model")
    with pytest.raises(ModelFileError):
        has_manifest(b"plain text, no model", "x.model")


def test_written_bytes_equal_the_hand_built_oracle(
    plain_model_bytes: bytes, manifests: dict[str, Manifest]
) -> None:
    manifest, other = manifests["nfc"], manifests["nepali-lm"]
    expected = _oracle(plain_model_bytes, manifest.to_bytes())
    assert embed(plain_model_bytes, manifest) == expected
    # A model that has a manifest gets it replaced, not a second one, wherever the old one was.
    assert embed(_oracle(plain_model_bytes, other.to_bytes()), manifest) == expected
    assert embed(TAG + _varint(3) + b"old" + plain_model_bytes, manifest) == expected
    # The same bytes as protobuf's own serialization of the message with the extension set.
    message: Any = parse_model(plain_model_bytes)
    message.Extensions[MANIFEST] = manifest.to_bytes()
    assert message.SerializeToString() == expected


def test_the_field_is_read_wherever_it_stands(
    plain_model_bytes: bytes, manifests: dict[str, Manifest]
) -> None:
    payload = manifests["nfc"].to_bytes()
    field = TAG + _varint(len(payload)) + payload
    message: Any = parse_model(plain_model_bytes)
    first, rest = message.pieces[0].SerializeToString(), message.pieces[1:]
    middle = _field(1, 2, _varint(len(first)) + first) + field
    middle += b"".join(_field(1, 2, _varint(p.ByteSize()) + p.SerializeToString()) for p in rest)
    for name in ("trainer_spec", "normalizer_spec", "denormalizer_spec"):
        number = message.DESCRIPTOR.fields_by_name[name].number
        if message.HasField(name):
            body = getattr(message, name).SerializeToString()
            middle += _field(number, 2, _varint(len(body)) + body)
    rebuilt: Any = parse_model(middle)
    rebuilt.ClearExtension(MANIFEST)
    assert rebuilt == message  # the hand-built model is the same message, field 1729 aside
    for data in (field + plain_model_bytes, middle):
        read = extract(data, "x.model")
        assert read is not None and read.to_bytes() == payload
        assert embed(data, manifests["nfc"]) == _oracle(plain_model_bytes, payload)


@pytest.mark.parametrize(
    ("wire", "body"),
    [(0, _varint(5)), (1, bytes(8)), (5, bytes(4)), (3, _varint(1729 << 3 | 4))],
    ids=["varint", "fixed64", "fixed32", "group"],
)
def test_a_wrong_wire_type_is_one_clean_error(
    plain_model_bytes: bytes, wire: int, body: bytes
) -> None:
    data = plain_model_bytes + _field(1729, wire, body)
    _one_line_error(data, f"damaged brahmic_pua manifest .*wire type {wire}, not 2")
    with pytest.raises(ModelFileError, match=f"wire type {wire}"):
        embed(data, Manifest(PUACodec.build(["క"], "akshara"), "nfc"))


def test_truncated_or_empty_fields_are_one_clean_error(
    plain_model_bytes: bytes, manifests: dict[str, Manifest]
) -> None:
    data = _oracle(plain_model_bytes, manifests["nfc"].to_bytes())
    tail = len(data) - len(plain_model_bytes)
    for keep in (1, len(TAG), len(TAG) + 1, tail // 2, tail - 1):
        _one_line_error(data[: len(plain_model_bytes) + keep], "not a SentencePiece model")
    _one_line_error(plain_model_bytes[: len(plain_model_bytes) // 2], "not a SentencePiece model")
    _one_line_error(plain_model_bytes + TAG + _varint(2**40), "not a SentencePiece model")
    _one_line_error(_oracle(plain_model_bytes, b""), "damaged brahmic_pua manifest")
    with pytest.raises(ModelFileError, match="not a SentencePiece model"):
        embed(data[:-1], manifests["nfc"])


@given(payload=st.binary(max_size=3000))
def test_any_payload_round_trips_through_the_field(
    plain_model_bytes: bytes, payload: bytes
) -> None:
    data = _oracle(plain_model_bytes, payload)
    message: Any = parse_model(data)
    assert message.HasExtension(MANIFEST) and message.Extensions[MANIFEST] == payload
    assert message.SerializeToString() == data
    message.ClearExtension(MANIFEST)
    assert message.SerializeToString() == plain_model_bytes
    try:  # random bytes are not a manifest: a clean error, never a protobuf traceback
        extract(data, "x.model")
    except ModelFileError as error:
        assert "\n" not in str(error)


@given(data=st.binary(max_size=200))
def test_any_bytes_are_a_model_or_one_clean_error(data: bytes) -> None:
    try:
        extract(data, "x.model")
    except ModelFileError as error:
        assert "\n" not in str(error)
