"""Decoding without the denormalizer pass (brahmic_pua.model.decoding) gives
exactly stock spm's text on the same model: for real encoded lines, for any ids (byte, control,
unknown and escape pieces included), and for the ids it must leave to stock."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as stock
from conftest import sample, sample_held_out
from hypothesis import given
from hypothesis import strategies as st

import brahmic_pua as spm
from brahmic_pua.model.decoding import PlainDecoder
from brahmic_pua.model.display import NORMAL
from brahmic_pua.model.model_proto import parse_model
from brahmic_pua.trainer import train_model


@pytest.fixture(scope="module")
def decoders(
    sample_models: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    """(brahmic_pua, stock) processors for the shared models, for a model whose vocabulary
    holds escapes and stand-ins (▁, U+2585 and Private Use text in its corpus), and for a
    grapheme model (spaces inside clusters, pieces that display alike)."""
    work = tmp_path_factory.mktemp("decoding")
    odd = [
        f"{line} \u2581{line[:9]} \u2585 \ue000\ue003{line[3:7]} \uf8ff▁▁ \ue001\ue002"
        for line in sample("te")
    ]
    special = {"escapes": (odd, "fixtoken"), "grapheme": (sample("te"), "grapheme")}
    paths = dict(sample_models)
    for name, (lines, policy) in special.items():
        prefix = work / name
        train_model(
            sentence_iterator=iter(lines),
            model_prefix=str(prefix),
            vocab_size=1500,
            model_type="bpe",
            policy=policy,
        )
        paths[name] = Path(f"{prefix}.model")
    return {
        name: (spm.SentencePieceProcessor(model_file=str(p)), stock.SentencePieceProcessor(str(p)))
        for name, p in paths.items()
    }


def plain_decoder(processor: spm.SentencePieceProcessor) -> PlainDecoder:
    """The decoder the processor builds for its model (``brahmic_pua.model.decoding``), built
    here from the same public parts: the model's bytes, its codec and stock on the model."""
    data = processor.serialized_model_proto()
    assert processor.manifest is not None
    return PlainDecoder(
        data, processor.manifest.codec, stock.SentencePieceProcessor(model_proto=data), {}
    )


def _ids(processor: spm.SentencePieceProcessor) -> st.SearchStrategy[int]:
    """Any id, with the ones the fast path must refuse (byte and escape pieces) often."""
    plain = plain_decoder(processor)
    special = [*sorted(plain.watched), 0, 1, 2, processor.piece_to_id("<0xE0>")]
    return st.one_of(
        st.integers(0, processor.get_piece_size() - 1),
        st.sampled_from(special),
        st.integers(3, 258),
    )


NAMES = ("unigram", "bpe", "mixed", "escapes", "grapheme")


@pytest.mark.parametrize("name", NAMES)
def test_real_lines_decode_as_stock_fast(decoders: dict[str, Any], name: str) -> None:
    ours, theirs = decoders[name]
    lines = sample_held_out("te") + sample_held_out("hi")[:100]
    ids = ours.encode(lines)
    assert plain_decoder(ours).exact
    if name not in ("escapes", "grapheme"):
        assert plain_decoder(ours).takes(ids)
    assert ours.decode(ids) == theirs.decode(ids)
    assert ours.decode(ids, num_threads=2, out_type=bytes) == theirs.decode(ids, out_type=bytes)
    assert [ours.decode(row) for row in ids[:50]] == [theirs.decode(row) for row in ids[:50]]


@pytest.mark.parametrize("name", NAMES)
def test_any_ids_decode_as_stock(decoders: dict[str, Any], name: str) -> None:
    ours, theirs = decoders[name]

    @given(st.lists(st.lists(_ids(ours), max_size=12), max_size=6))
    def check(batch: list[list[int]]) -> None:
        assert ours.decode(batch) == theirs.decode(batch)
        for row in batch:
            assert ours.decode(row) == theirs.decode(row)

    check()


def test_watched_ids_decode_as_stock(decoders: dict[str, Any]) -> None:
    ours, theirs = decoders["escapes"]
    plain = plain_decoder(ours)
    assert any(ours.id_to_piece(i) in ("<0xEE>", "<0xEF>") for i in plain.watched)
    assert plain.unsafe  # pieces holding escapes or stand-ins
    code = ours.codec.code_of("కా")
    assert code is not None
    for text in (code, "\ue000" + code, "\ue001", "\uf900", "\ufeff", "\U000f0003", "\ue0ff"):
        ids = [ours.piece_to_id(f"<0x{b:02X}>") for b in text.encode()]  # bytes of a code
        for row in (ids, [*ids, 300], [300, *ids, ours.piece_to_id("▁")]):
            assert ours.decode(row) == theirs.decode(row)
            assert ours.decode([row, [300]]) == theirs.decode([row, [300]])
    rng = random.Random(0)
    watched = sorted(plain.watched)
    for _ in range(300):
        row = [rng.choice(watched) for _ in range(3)] + [rng.randrange(300, 1500)]
        rng.shuffle(row)
        assert ours.decode(row) == theirs.decode(row)
    assert not plain.takes("ab") and not plain.takes((1, 2))
    for bad in ([1, "a"], [[1], ["a"]], [1.5], [10**9], [[1, 2], 3], [1, [2]], [[[1]]]):
        with pytest.raises(Exception) as ours_error:  # stock decides what these are
            ours.decode(bad)
        with pytest.raises(Exception) as stock_error:
            theirs.decode(bad)
        assert type(ours_error.value) is type(stock_error.value)


def test_pieces_that_would_decode_alike_keep_their_own(sample_models: dict[str, Path]) -> None:
    """A piece of raw text equal to what a code's piece decodes to: spm refuses two equal
    pieces, so the code's piece keeps its code and its ids go to stock."""
    model = parse_model(sample_models["bpe"].read_bytes())
    ours = spm.SentencePieceProcessor(model_file=str(sample_models["bpe"]))
    code = ours.codec.code_of("కా") if ours.codec else None
    coded = next(i for i, p in enumerate(model.pieces) if p.piece == code)
    raw = next(i for i, p in enumerate(model.pieces) if p.type == NORMAL and i > 2000)
    model.pieces[raw].piece = "కా"
    data = model.SerializeToString()  # the manifest rides along as an unknown field
    ours, theirs = spm.SentencePieceProcessor(model_proto=data), stock.SentencePieceProcessor()
    theirs.LoadFromSerializedProto(data)
    assert plain_decoder(ours).unsafe == {coded}
    for ids in ([coded, raw], [raw, 5, coded, 300], [[coded], [raw, raw], [300]]):
        assert ours.decode(ids) == theirs.decode(ids)
