"""Unigram word starts (trainer/word_starts.py): in PUA text Unigram training leaves many a
word's "▁" standing alone; the pass after training gives words their "▁" + piece back, keeps
every guarantee, and leaves BPE alone. The mechanism is pinned here; fertility itself is
measured by bench/bench_fertility.py."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as stock
from conftest import sample_held_out, sample_training

import brahmic_pua
from brahmic_pua.model.display import NORMAL, starts_with_mark
from brahmic_pua.model.model_proto import parse_model
from brahmic_pua.trainer import TrainReport, train_model

LINES = sample_training("te")


def _train(work: Path, **options: Any) -> TrainReport:
    """A 2000-piece model; the same file name in every folder, so files can be compared."""
    work.mkdir()
    return train_model(
        sentence_iterator=iter(LINES), model_prefix=str(work / "m"), vocab_size=2000, **options
    )


def _lone_space_share(model_file: str) -> float:
    sp = brahmic_pua.SentencePieceProcessor(model_file=model_file)
    rows = sp.encode(LINES)
    space = sp.piece_to_id("\u2581")
    share: float = sum(row.count(space) for row in rows) / sum(map(len, rows))
    return share


@pytest.fixture(scope="module")
def unigram(tmp_path_factory: pytest.TempPathFactory) -> tuple[TrainReport, TrainReport]:
    """The same Unigram model with the pass (the default) and without it."""
    work = tmp_path_factory.mktemp("word_starts")
    return _train(work / "on"), _train(work / "off", complete_word_starts=False)


def test_word_starts_keep_their_space(unigram: tuple[TrainReport, TrainReport]) -> None:
    on, off = unigram
    assert on.word_starts > 0 and off.word_starts == 0
    noun = "piece" if on.word_starts == 1 else "pieces"
    assert f"{on.word_starts:,} little-used {noun} swapped" in on.summary()
    assert _lone_space_share(on.model_file) < _lone_space_share(off.model_file) / 2


def test_swapped_model_keeps_the_guarantees(unigram: tuple[TrainReport, TrainReport]) -> None:
    model_file = unigram[0].model_file
    ours = brahmic_pua.SentencePieceProcessor(model_file=model_file)
    held = sample_held_out("te")
    ids = ours.encode(held)
    assert ids == stock.SentencePieceProcessor(model_file=model_file).encode(held)
    assert ours.decode(ids) == [unicodedata.normalize("NFC", line) for line in held]
    usable = (i for i in range(ours.get_piece_size()) if not (ours.is_byte(i) or ours.is_unused(i)))
    assert not any(starts_with_mark(ours.id_to_piece(i)) for i in usable)
    model = parse_model(Path(model_file).read_bytes())
    scores = [p.score for p in model.pieces if p.type == NORMAL]
    assert scores == sorted(scores, reverse=True)  # spm's Unigram order
    assert len({p.piece for p in model.pieces}) == len(model.pieces)


def test_bpe_is_left_alone(tmp_path: Path) -> None:
    on = _train(tmp_path / "on", model_type="bpe")
    off = _train(tmp_path / "off", model_type="bpe", complete_word_starts="false")
    assert on.word_starts == 0
    assert Path(on.model_file).read_bytes() == Path(off.model_file).read_bytes()
