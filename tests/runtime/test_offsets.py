"""Protos, offset mappings and ``normalize(..., with_offsets=True)`` on brahmic_pua models.

The oracle is stock sentencepiece on the same ``.model`` and the caller's own text: its
normalizer aligns the pieces with that text through the compiled rules, so its surfaces,
``begin``/``end`` and offsets are what brahmic_pua must give, pieces shown as text. Where stock's
ids differ from brahmic_pua's (the documented exceptions to parity), the protos carry
brahmic_pua's ids and still cover the caller's text exactly. Decode protos, which stock gets
wrong on these models (Private Use surfaces, offsets into the codes), are checked against
stock's decode of each piece alone.
"""

from __future__ import annotations

import pickle
import random
import unicodedata
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
import sentencepiece as stock
from conftest import NEPALI, sample_held_out, sample_training
from hypothesis import given
from hypothesis import strategies as st
from strategies import nasty_texts

import brahmic_pua as spm
from brahmic_pua.codec.layout import ESCAPE, is_private_use
from brahmic_pua.trainer import train_model

#: Letters, combining marks NFC reorders or composes, Telugu and Devanagari signs and joiners:
#: the spellings where stock, given the text as typed, can segment otherwise than brahmic_pua.
MARKS = (
    "ai kఅక సకू।\u0300\u0301\u0303\u0323\u032f\u0327"
    "\u0c3c\u0c4d\u0c3e\u0c46\u0c56\u0c55\u0902\u0901\u093c\u094d\u200d\u200c"
)
marked_texts = st.text(st.sampled_from(MARKS), min_size=1, max_size=12).map(
    lambda text: unicodedata.normalize("NFD", text) if len(text) % 2 else text
)


@pytest.fixture(scope="module")
def offset_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Telugu under nfc, Hindi and Nepali under nepali-lm (ZWJ deleted, spellings folded), and
    Telugu without byte fallback (unknown pieces)."""
    folder = tmp_path_factory.mktemp("offsets")
    runs: dict[str, dict[str, Any]] = {
        "te": {"sentence_iterator": iter(sample_training("te")), "vocab_size": 1500},
        "ne": {
            "sentence_iterator": iter(sample_training("hi") + NEPALI * 8),
            "vocab_size": 1200,
            "normalization": "nepali-lm",
        },
        "te-unk": {
            "sentence_iterator": iter(sample_training("te")),
            "vocab_size": 1500,
            "byte_fallback": False,
        },
    }
    for name, options in runs.items():
        train_model(model_prefix=str(folder / name), **options)
    return {name: str(folder / f"{name}.model") for name in runs}


def _pair(offset_models: dict[str, str], name: str) -> tuple[spm.SentencePieceProcessor, Any]:
    """brahmic_pua's processor and stock's on one model, loaded once per model."""
    return _loaded(offset_models[name])


@cache
def _loaded(path: str) -> tuple[spm.SentencePieceProcessor, Any]:
    return spm.SentencePieceProcessor(model_file=path), stock.SentencePieceProcessor(
        model_file=path
    )


def _spm_text(data: bytes) -> str:
    """UTF-8 as spm reads it: each byte outside a valid character one U+FFFD."""
    escaped = data.decode("utf-8", "surrogateescape")
    return "".join("\ufffd" if "\udc80" <= ch <= "\udcff" else ch for ch in escaped)


def _is(field: str | bytes, data: bytes) -> bool:
    """A proto string field holds ``data``: as text, or (protobuf's way with text that is not
    UTF-8) as the bytes themselves, or as spm reads them."""
    return field == data if isinstance(field, bytes) else field == _spm_text(data)


def _covers(proto: Any, given: str | bytes) -> None:
    """Surfaces and byte begin/end tile the text given, each surface its own span."""
    data = given if isinstance(given, bytes) else given.encode()
    assert _is(proto.text, data)
    end = 0
    for piece in proto.pieces:
        assert piece.begin == end <= piece.end
        assert _is(piece.surface, data[piece.begin : piece.end])
        end = piece.end
    assert end == len(data)


def _char_offsets(proto: Any, given: str | bytes) -> list[tuple[int, int]]:
    """The proto's byte begin/end as offset_mapping gives them: characters of a str, bytes of
    bytes."""
    if isinstance(given, bytes):
        return [(piece.begin, piece.end) for piece in proto.pieces]
    starts = [0]
    for ch in given:
        starts.append(starts[-1] + len(ch.encode()))
    char = {start: i for i, start in enumerate(starts)}
    return [(char[piece.begin], char[piece.end]) for piece in proto.pieces]


def _raised(call: Callable[[Any], object], processor: Any) -> type[BaseException] | None:
    try:
        call(processor)
    except Exception as error:  # the type is the result: stock and ours must raise alike
        return type(error)
    return None


def _check_encode(ours: spm.SentencePieceProcessor, theirs: Any, given: str | bytes) -> bool:
    """Every aligned output of ``given``; True where stock's ids are ours (then everything is
    stock's), False where they are not (then ours still covers the text)."""
    ids = ours.encode(given)
    shown = ours.encode(given, out_type=str)
    proto = ours.encode(given, out_type="proto")
    mapping = ours.encode_as_offset_mapping(given)
    assert [piece.id for piece in proto.pieces] == mapping["ids"] == ids
    assert [piece.piece for piece in proto.pieces] == shown
    assert mapping["pieces"] == ([p.encode() for p in shown] if isinstance(given, bytes) else shown)
    assert not any(is_private_use(ch) for piece in shown for ch in piece)
    _covers(proto, given)
    assert mapping["offsets"] == _char_offsets(proto, given)
    assert ours.encode(given, out_type="serialized_proto") == proto.SerializeToString()
    theirs_proto = theirs.encode(given, out_type="proto")
    if [piece.id for piece in theirs_proto.pieces] != ids:
        return False
    assert proto.text == theirs_proto.text
    assert [(p.surface, p.begin, p.end) for p in proto.pieces] == [
        (p.surface, p.begin, p.end) for p in theirs_proto.pieces
    ]
    assert mapping["offsets"] == theirs.encode(given, out_type="offset_mapping")["offsets"]
    return True


@given(nasty_texts, st.sampled_from(["te", "ne", "te-unk"]), st.booleans())
def test_encode_protos_and_offsets_are_stocks_on_the_callers_text(
    offset_models: dict[str, str], text: str, name: str, as_bytes: bool
) -> None:
    ours, theirs = _pair(offset_models, name)
    _check_encode(ours, theirs, text.encode() if as_bytes else text)


@given(marked_texts, st.sampled_from(["te", "ne"]), st.booleans())
def test_where_stock_segments_otherwise_offsets_still_cover_the_text(
    offset_models: dict[str, str], text: str, name: str, as_bytes: bool
) -> None:
    """Runs of marks NFC reorders, ZWJs N deletes: stock on the text as typed may split
    otherwise; ours keeps its ids, and its offsets and N-offsets still point into the text."""
    ours, theirs = _pair(offset_models, name)
    _check_encode(ours, theirs, text.encode() if as_bytes else text)
    normalized, offsets = ours.normalize(text, with_offsets=True)
    assert normalized == ours.normalize(text) and offsets == sorted(offsets)
    assert len(offsets) == len(normalized) + 1 and offsets[-1] == len(text)


def test_documented_exceptions_to_parity_keep_our_ids(offset_models: dict[str, str]) -> None:
    """Texts where stock, given the raw text, segments otherwise (docs/guarantees.md): the
    offsets follow brahmic_pua's ids; what N composed is one span, on the piece that ends it."""
    ours, theirs = _pair(offset_models, "te")
    ipa = "a [i\u032f\u0303] b"  # IPA ĩ̯ typed in NFD order: NFC reorders the marks
    assert ours.encode(ipa) != theirs.encode(ipa)
    assert not _check_encode(ours, theirs, ipa)
    offsets = ours.encode(ipa, out_type="offset_mapping")["offsets"]
    assert [span for span in offsets if span[0] < 6 and span[1] > 3] == [(3, 6)]  # ĩ̯ whole
    mixed: list[str | bytes] = [ipa, "క్రాంతి", ipa.encode(), b""]  # stock given N(text) or not
    assert ours.encode(mixed, out_type="offset_mapping", return_bytes=False) == [
        ours.encode(text, out_type="offset_mapping", return_bytes=False) for text in mixed
    ]
    ours, theirs = _pair(offset_models, "ne")
    text = "स\u200d\u200dू सँग"  # two ZWJs inside a cluster; सँग folds to संग
    assert ours.encode(text) != theirs.encode(text)
    assert not _check_encode(ours, theirs, text)
    assert ours.encode(text, out_type="offset_mapping")["offsets"][-1][1] == len(text)
    assert _check_encode(ours, theirs, "\u200d")  # N deletes all of it: the text goes as typed


def test_real_lines_and_their_nfd_forms_match_stock(offset_models: dict[str, str]) -> None:
    for name, lines in (("te", sample_held_out("te")[:60]), ("ne", NEPALI)):
        ours, theirs = _pair(offset_models, name)
        for line in [*lines, *(unicodedata.normalize("NFD", line) for line in lines)]:
            assert _check_encode(ours, theirs, line), line
        batch = ours.encode(lines, out_type="offset_mapping")
        assert batch == [ours.encode(line, out_type="offset_mapping") for line in lines]


def test_every_form_takes_protos_like_stock(offset_models: dict[str, str]) -> None:
    """Batches, serialized protos, sampling, n-best and parallel encoding, bytes offsets, and
    stock's own refusals."""
    ours, theirs = _pair(offset_models, "te")
    lines = sample_held_out("te")[:5]
    protos = ours.encode(lines, out_type="proto")
    assert protos == [ours.encode_as_proto(line) for line in lines]
    assert ours.encode(lines, return_type="serialized_proto") == [
        p.SerializeToString() for p in protos
    ]
    as_bytes = ours.encode([line.encode() for line in lines], out_type="offset_mapping")
    assert as_bytes == _theirs_with_shown_pieces(ours, theirs, lines)
    assert ours.encode(lines, out_type="offset_mapping", return_bytes=True) == as_bytes
    spm.set_random_generator_seed(3)
    sampled = [ours.sample_encode_as_proto(lines[0], nbest_size=-1, alpha=0.5) for _ in range(4)]
    spm.set_random_generator_seed(3)
    ids = [ours.sample_encode_as_ids(lines[0], nbest_size=-1, alpha=0.5) for _ in range(4)]
    assert [[p.id for p in proto.pieces] for proto in sampled] == ids
    for proto in sampled:
        _covers(proto, lines[0])
    nbest = ours.nbest_encode_as_proto(lines[0], nbest_size=3)
    assert [[p.id for p in n.pieces] for n in nbest.nbests] == ours.nbest_encode_as_ids(lines[0], 3)
    for proto in nbest.nbests:
        _covers(proto, lines[0])
        assert [p.piece for p in proto.pieces] == ours.id_to_piece([p.id for p in proto.pieces])
    whole = " ".join(lines)
    parallel = ours.parallel_encode_as_proto(whole, chunk_len=64, num_threads=2)
    assert parallel == ours.encode_as_proto(whole)
    refusals: list[Callable[[Any], object]] = [
        lambda sp: sp.nbest_encode(lines[0], out_type="offset_mapping"),
        lambda sp: sp.parallel_encode(lines[0], chunk_len=8, out_type="offset_mapping"),
        lambda sp: sp.encode(lines[0], out_type="proto", add_bos=True),
        lambda sp: sp.encode(lines[0], out_type="proto", return_bytes=True),
    ]
    for call in refusals:
        assert _raised(call, ours) == _raised(call, theirs) is not None


def _theirs_with_shown_pieces(ours: Any, theirs: Any, lines: list[str]) -> list[Any]:
    """Stock's offset mappings of UTF-8 lines, pieces as brahmic_pua shows them."""
    out = theirs.encode([line.encode() for line in lines], out_type="offset_mapping")
    for mapping in out:
        mapping["pieces"] = [piece.encode() for piece in ours.id_to_piece(mapping["ids"])]
    return list(out)


def _check_decode(ours: spm.SentencePieceProcessor, theirs: Any, ids: list[int]) -> None:
    """The decode proto of ``ids``: stock's text and ids, pieces shown, and each piece's
    surface the text stock decodes for that piece alone, at its place in the text."""
    proto = ours.decode(ids, out_type="proto")
    text = ours.decode(ids)
    assert proto.text == text == theirs.decode(ids)
    assert [p.id for p in proto.pieces] == ids
    assert [p.piece for p in proto.pieces] == ours.id_to_piece(ids)
    _covers(proto, text)
    space = theirs.piece_to_id("▁")
    model_pieces = theirs.id_to_piece(ids)
    for i, piece in enumerate(proto.pieces):
        near = range(max(i - 1, 0), i + 1)  # a byte run or an escape pair spans pieces
        if any(theirs.is_byte(ids[j]) or ESCAPE in model_pieces[j] for j in near):
            continue
        first = all(theirs.is_control(j) for j in ids[:i])  # its ▁ is the dummy prefix
        assert piece.surface == theirs.decode([ids[i]] if first else [space, ids[i]])
    mapping = ours.decode(ids, out_type="offset_mapping")
    assert mapping["text"] == text and mapping["ids"] == ids
    assert mapping["offsets"] == _char_offsets(proto, text)
    pieces = ours.id_to_piece(ids)
    if not any(ours.is_unknown(ids)):  # an unknown piece decodes as given, not as <unk>
        assert ours.decode(pieces, out_type="proto") == proto
    in_bytes = ours.decode(ids, out_type="offset_mapping", return_bytes=True)
    assert in_bytes["text"] == text.encode() and in_bytes["pieces"] == [p.encode() for p in pieces]
    assert in_bytes["offsets"] == [(p.begin, p.end) for p in proto.pieces]


@given(nasty_texts, st.sampled_from(["te", "ne", "te-unk"]))
def test_decode_protos_give_each_piece_its_text(
    offset_models: dict[str, str], text: str, name: str
) -> None:
    ours, theirs = _pair(offset_models, name)
    _check_decode(ours, theirs, ours.encode(text))


@given(st.randoms(use_true_random=False), st.sampled_from(["te", "ne", "te-unk"]))
def test_decode_protos_of_any_ids_cover_the_text(
    offset_models: dict[str, str], rng: random.Random, name: str
) -> None:
    """Ids no encoding writes too: unused pieces, escapes and byte runs in any order."""
    ours, _ = _pair(offset_models, name)
    ids = [rng.randrange(len(ours)) for _ in range(rng.randint(0, 12))]
    proto = ours.decode_ids_as_proto(ids)
    assert proto.text == ours.decode(ids) and [p.id for p in proto.pieces] == ids
    _covers(proto, proto.text)


@pytest.mark.parametrize("ids", [[1], [1, 2], [2, 1, 1], []])
def test_a_decode_proto_of_pieces_that_write_nothing_is_stocks(
    offset_models: dict[str, str], ids: list[int]
) -> None:
    """Control pieces decode to no text: their proto is stock's (it was an IndexError)."""
    ours, theirs = _pair(offset_models, "te")
    assert ours.decode_ids_as_proto(ids).SerializeToString() == (
        theirs.decode_ids_as_proto(ids).SerializeToString()
    )


def test_decode_forms(offset_models: dict[str, str]) -> None:
    ours, _ = _pair(offset_models, "te")
    rows = ours.encode(sample_held_out("te")[:4])
    protos = ours.decode(rows, out_type="proto")
    assert protos == [ours.decode_ids_as_proto(row) for row in rows]
    assert ours.decode(rows, return_type="serialized_proto") == [
        p.SerializeToString() for p in protos
    ]
    pieces = [ours.id_to_piece(row) for row in rows]
    assert ours.decode_pieces_as_proto(pieces) == protos
    assert [m["text"] for m in ours.decode(rows, out_type="offset_mapping")] == ours.decode(rows)
    as_bytes = ours.decode([[p.encode() for p in row] for row in pieces], out_type="offset_mapping")
    assert [m["text"] for m in as_bytes] == [text.encode() for text in ours.decode(rows)]
    with pytest.raises(ValueError, match="return_bytes"):
        ours.decode(rows[0], out_type="proto", return_bytes=True)
    with pytest.raises(IndexError, match="piece id 99999 is out of range"):
        ours.decode([5, 99999], out_type="proto")


def _check_normalized(normalizer: Any, theirs: Any, ours: Any, given: str | bytes) -> None:
    """``with_offsets``: the text normalize gives, one offset per character (byte) into the
    text given; where stock segments as ours and no piece is a byte or unknown, each piece
    starts in the normalized text where stock's offset mapping says it starts."""
    normalized, offsets = normalizer.normalize(given, with_offsets=True)
    assert normalized == normalizer.normalize(given)
    if not given:
        return
    assert len(offsets) == len(normalized) + 1 and offsets[-1] == len(given)
    assert offsets == sorted(offsets)
    ids = ours.encode(given)
    if isinstance(given, bytes) or ids != theirs.encode(given) or normalizer is not ours:
        return
    if any(ours.is_byte(ids)) or any(ours.is_unknown(ids)):
        return
    shown = ours.encode(given, out_type=str)
    assert "".join(shown) == normalized
    at = 0
    for piece, (begin, _) in zip(
        shown, theirs.encode(given, out_type="offset_mapping")["offsets"], strict=True
    ):
        assert not piece or offsets[at] == begin
        at += len(piece)


@given(st.one_of(nasty_texts, marked_texts), st.sampled_from(["te", "ne"]), st.booleans())
def test_normalize_with_offsets_points_into_the_callers_text(
    offset_models: dict[str, str], text: str, name: str, as_bytes: bool
) -> None:
    ours, theirs = _pair(offset_models, name)
    normalizer = spm.SentencePieceNormalizer(model_file=offset_models[name])
    given_text: str | bytes = text.encode() if as_bytes else text
    for each in (ours, normalizer):
        _check_normalized(each, theirs, ours, given_text)


def test_normalize_with_offsets_shows_clusters(offset_models: dict[str, str]) -> None:
    ours, theirs = _pair(offset_models, "te")
    text = "క్రాంతి తెలుగు"
    normalized = ("▁క్రాంతి▁తెలుగు", [0, 0, 0, 2, 2, 2, 5, 5, 7, 8, 8, 10, 10, 12, 12, 14])
    assert ours.normalize(text, with_offsets=True) == normalized
    assert ours.normalize([text], with_offsets=True) == [normalized]
    stock_normalized = theirs.normalize(text, with_offsets=True)  # the same, in PUA codes
    assert stock_normalized[1] == [0, 0, 2, 5, 7, 8, 10, 12, 14]
    data, offsets = ours.normalize(text.encode(), with_offsets=True)
    assert data == normalized[0].encode() and offsets[-1] == len(text.encode())
    assert ours.normalize(b"", with_offsets=True) == theirs.normalize(b"", with_offsets=True)
    raw = spm.SentencePieceNormalizer(
        model_file=offset_models["te"], add_dummy_prefix=False, escape_whitespaces=False
    )
    offsets = [0, 0, 2, 2, 2, 5, 5, 7, 8, 8, 10, 10, 12, 12, 14]  # no dummy ▁, a space
    assert raw.normalize(text, with_offsets=True) == (text, offsets)


@given(st.binary(max_size=24), st.sampled_from(["te", "ne"]))
def test_bytes_are_read_as_stock_reads_them(
    offset_models: dict[str, str], data: bytes, name: str
) -> None:
    """Invalid UTF-8: one U+FFFD per byte outside a character, as spm reads it."""
    ours, theirs = _pair(offset_models, name)
    assert ours.encode(data) == theirs.encode(data)
    _check_encode(ours, theirs, data)


def test_pickled_processor_keeps_aligned_outputs(offset_models: dict[str, str]) -> None:
    ours, _ = _pair(offset_models, "te")
    text = sample_held_out("te")[0]
    before = (ours.decode_ids_as_proto(ours.encode(text)), ours.encode_as_proto(text))
    again = pickle.loads(pickle.dumps(ours))
    assert (again.decode_ids_as_proto(again.encode(text)), again.encode_as_proto(text)) == before
