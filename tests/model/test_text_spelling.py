"""A BPE model spelled in text (model/text_spelling.py): stock sentencepiece on it gives the ids
our processor gives on the model itself, its pieces are the text our processor shows, and no
piece holds a Private Use character.

The oracle is our processor on the original model (its ids, and its pieces shown as clusters),
which the spelling code does not run; stock sentencepiece runs the spelled model.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as stock
from conftest import PRIVATE_USE, RARE, examples, mixed_held_out, sample_held_out, sample_training
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import ALPHABET, nasty_texts

import brahmic_pua
from brahmic_pua.model.manifest import read
from brahmic_pua.model.model_proto import BYTE, CONTROL, NORMAL, UNUSED, parse_model
from brahmic_pua.model.text_spelling import NotSpellable, spell_in_text
from brahmic_pua.trainer import train_model


@cache
def codes_of(model: Path) -> set[str]:
    manifest = read(model.read_bytes(), str(model))[1]
    assert manifest is not None
    return {code for code, _ in manifest.codec.code_pairs()}


@cache
def original(model: Path, as_stock: bool) -> Any:
    """Ours (or stock) on the model itself, loaded once per model."""
    return (stock if as_stock else brahmic_pua).SentencePieceProcessor(model_file=str(model))


@cache
def spelled(model: Path) -> stock.SentencePieceProcessor:
    """Stock on the model's text-spelled form, built once per model (0.2 s: the property calls
    this for each example)."""
    return stock.SentencePieceProcessor(model_proto=spell_in_text(model.read_bytes()).data)


def same_ids_and_text(model: Path, texts: list[str], *, as_stock: bool = False) -> None:
    """Stock on the spelled model gives our ids and our decoded text; ``as_stock``: the ids
    and text stock gives on the model itself (on text where stock and our processor differ
    already: combining accents the rules do not put in NFC, tests/model/test_rules.py)."""
    ours = original(model, as_stock)
    theirs = spelled(model)
    codes = codes_of(model)
    for text in texts:
        ids = theirs.encode(text)
        # Where the text holds one of the table's codes as a literal, the original writes it
        # as an escape and the cluster's piece, the spelled model in bytes: both decode it.
        if not codes.intersection(text):
            assert ids == ours.encode(text), text
        assert theirs.decode(ids) == ours.decode(ours.encode(text)), text


@pytest.mark.parametrize("name", ["sample", "mixed"])
def test_stock_gives_our_ids_on_held_out_text(
    sample_models: dict[str, Path], mixed_bpe_model: Path, name: str
) -> None:
    same_ids_and_text(
        sample_models["bpe"] if name == "sample" else mixed_bpe_model, mixed_held_out()
    )


@settings(max_examples=examples(300))
@given(text=st.one_of(nasty_texts, st.text(st.sampled_from(ALPHABET + RARE), max_size=80)))
def test_stock_gives_the_ids_it_gives_on_the_model_itself_on_any_text(
    mixed_bpe_model: Path, text: str
) -> None:
    same_ids_and_text(mixed_bpe_model, [text], as_stock=True)


def test_pieces_are_the_text_our_processor_shows_with_the_same_ids(mixed_bpe_model: Path) -> None:
    ours = brahmic_pua.SentencePieceProcessor(model_file=str(mixed_bpe_model))
    original = parse_model(mixed_bpe_model.read_bytes())
    spelled = parse_model(spell_in_text(mixed_bpe_model.read_bytes()).data)
    assert len(spelled.pieces) == len(original.pieces)
    for i, (before, after) in enumerate(zip(original.pieces, spelled.pieces, strict=True)):
        assert after.type == before.type
        if before.type in (NORMAL, BYTE, CONTROL):
            assert after.piece == ours.id_to_piece(i)
        assert not PRIVATE_USE.search(after.piece), (i, after.piece)


def test_a_cluster_is_built_through_its_prefixes_before_any_other_merge(
    mixed_bpe_model: Path,
) -> None:
    """Every piece that is one cluster of two or more characters scores above every piece that
    is not; the others keep their scores."""
    manifest = read(mixed_bpe_model.read_bytes(), "m")[1]
    assert manifest is not None
    clusters = {cluster for _, cluster in manifest.codec.code_pairs()}
    original = parse_model(mixed_bpe_model.read_bytes())
    spelled = parse_model(spell_in_text(mixed_bpe_model.read_bytes()).data)
    chain, other = [], []
    for before, after in zip(original.pieces, spelled.pieces, strict=True):
        if after.type == NORMAL and after.piece in clusters and len(after.piece) > 1:
            chain.append(after.score)
        else:
            other.append(after.score)
            assert after.score == before.score
    assert chain and min(chain) > max(other)


def test_a_prefix_that_never_stands_alone_costs_its_cluster_its_code(mixed_bpe_model: Path) -> None:
    """The trainer closes a BPE table under prefixes: शृं keeps no code when शृ has none, and
    every kept cluster's prefixes are kept."""
    manifest = read(mixed_bpe_model.read_bytes(), "m")[1]
    assert manifest is not None
    clusters = {cluster for _, cluster in manifest.codec.code_pairs()}
    assert RARE not in clusters and "श" in clusters
    for cluster in clusters:
        assert all(cluster[:k] in clusters for k in range(2, len(cluster))), cluster
    assert spell_in_text(mixed_bpe_model.read_bytes()).coded == ()


def test_a_table_not_closed_under_prefixes_keeps_the_open_clusters_coded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model trained without the closure (as brahmic_pua did before it): the cluster whose
    prefix has no piece keeps its code, stock still gives our ids, and the summary names it."""
    import brahmic_pua.trainer.train as train

    monkeypatch.setattr(train, "spellable", lambda clusters, policy, model_type: clusters)
    prefix = tmp_path / "open"
    lines = sample_training("hi")[:200] + [f"{RARE}खला"] * 30
    train_model(
        sentence_iterator=iter(lines), model_prefix=str(prefix), vocab_size=1500, model_type="bpe"
    )
    model = Path(f"{prefix}.model")
    spelled = spell_in_text(model.read_bytes())
    assert RARE in spelled.coded
    assert RARE in spelled.summary()
    texts = [RARE, f"{RARE}खला शृ", f"x{RARE}", *spelled.coded, *sample_held_out("hi")[:50]]
    same_ids_and_text(model, texts)


def test_a_unigram_model_is_refused_in_one_line(sample_models: dict[str, Path]) -> None:
    with pytest.raises(NotSpellable, match=r"unigram model: only a BPE model") as raised:
        spell_in_text(sample_models["unigram"].read_bytes(), "u.model")
    assert "\n" not in str(raised.value) and str(raised.value).startswith("u.model")


def test_a_plain_model_is_refused_in_one_line(plain_hindi_model: str) -> None:
    with pytest.raises(NotSpellable, match=r"plain SentencePiece model .* text already"):
        spell_in_text(Path(plain_hindi_model).read_bytes())


def test_an_akshara_model_is_refused_in_one_line(tmp_path: Path) -> None:
    prefix = tmp_path / "ak"
    train_model(
        sentence_iterator=iter(sample_training("te")[:300]),
        model_prefix=str(prefix),
        vocab_size=1500,
        model_type="bpe",
        policy="akshara",
    )
    with pytest.raises(NotSpellable, match="akshara policy"):
        spell_in_text(Path(f"{prefix}.model").read_bytes())


def test_disabled_pieces_stay_disabled_and_unreachable(mixed_bpe_model: Path) -> None:
    spelled = parse_model(spell_in_text(mixed_bpe_model.read_bytes()).data)
    unused = [p.piece for p in spelled.pieces if p.type == UNUSED]
    assert unused and all(piece.startswith(" ") for piece in unused)
    assert len({p.piece for p in spelled.pieces}) == len(spelled.pieces)
