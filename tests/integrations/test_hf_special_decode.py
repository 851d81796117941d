"""BrahmicPuaTokenizer's decode around special tokens (stock spm's text, spaces kept) and its
save/load under a ``filename_prefix``. Needs the optional ``hf`` extra (transformers): where it is
missing the tests skip visibly, and fail under CI (see ``require_extra`` in conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import sentencepiece as stock

import brahmic_pua

SAMPLE = Path(brahmic_pua.__file__).parent / "data" / "te.sample.txt"
FIRST, SECOND = "తెలుగు భాష", "చాలా బాగుంది"


@pytest.fixture(scope="module")
def small(hf: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """1000-piece models on te.sample: a brahmic_pua one and a plain one (stock spm)."""
    work = tmp_path_factory.mktemp("hf_special_decode")
    brahmic_pua.SentencePieceTrainer.train(
        input=str(SAMPLE), model_prefix=str(work / "brahmic"), vocab_size=1000, progress=False
    )
    stock.SentencePieceTrainer.train(
        input=str(SAMPLE), model_prefix=str(work / "plain"), vocab_size=1000, minloglevel=2
    )
    return {kind: str(work / f"{kind}.model") for kind in ("brahmic", "plain")}


def tokenizer(hf: ModuleType, model: str, **options: Any) -> Any:
    made: Any = hf.BrahmicPuaTokenizer(model, **options)
    return made


@pytest.mark.parametrize("kind", ["brahmic", "plain"])
def test_decode_skipping_special_tokens_keeps_the_space_after_them(
    hf: ModuleType, small: dict[str, str], kind: str
) -> None:
    """``</s><s>`` between two sentences, and a pair: skipped, the text is stock spm's decode
    of the ids (which drops control ids), ``▁`` after them still a space."""
    sp = brahmic_pua.SentencePieceProcessor(model_file=small[kind])
    tok = tokenizer(hf, small[kind])
    ids = [*sp.encode(FIRST), sp.eos_id(), sp.bos_id(), *sp.encode(SECOND)]
    want = f"{FIRST} {SECOND}"
    if kind == "plain":
        assert stock.SentencePieceProcessor(model_file=small[kind]).decode(ids) == want
    assert tok.decode(ids, skip_special_tokens=True) == want
    pair = tok(FIRST, SECOND)["input_ids"]
    assert pair.count(sp.bos_id()) == 2  # <s> before each sequence
    assert tok.decode(pair, skip_special_tokens=True) == want
    eos = tokenizer(hf, small[kind], add_eos_token=True)
    pairs = eos([FIRST, SECOND], [SECOND, FIRST])["input_ids"]
    assert eos.batch_decode(pairs, skip_special_tokens=True) == [want, f"{SECOND} {FIRST}"]
    assert tok.decode(ids).count(tok.eos_token) == 1  # not skipped: shown as text


@pytest.mark.parametrize("kind", ["brahmic", "plain"])
def test_decode_skipping_special_tokens_anywhere_equals_stock(
    hf: ModuleType, small: dict[str, str], kind: str
) -> None:
    """Special ids put between any two pieces of real lines: skipped, the text is the
    decode of the ids without them (for the plain model, stock spm's of the ids with them)."""
    sp = brahmic_pua.SentencePieceProcessor(model_file=small[kind])
    plain = stock.SentencePieceProcessor(model_file=small[kind])
    tok = tokenizer(hf, small[kind])
    lines = [line for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line][-30:]
    specials = [sp.eos_id(), sp.bos_id()]
    for ids in sp.encode(lines):
        want = sp.decode(ids)
        for at in range(len(ids) + 1):
            spliced = [*ids[:at], *specials, *ids[at:]]
            assert tok.decode(spliced, skip_special_tokens=True) == want, (at, spliced)
            if kind == "plain":
                assert plain.decode(spliced) == want


def test_save_pretrained_with_a_filename_prefix_round_trips(
    hf: ModuleType, small: dict[str, str], tmp_path: Path
) -> None:
    tok = tokenizer(hf, small["brahmic"], add_eos_token=True)
    tok.add_tokens(["<extra>"])
    saved = tmp_path / "saved"
    tok.save_pretrained(saved, filename_prefix="x")
    files = {path.name for path in saved.iterdir()}
    assert {"x-brahmic_pua.model", "x-tokenizer_config.json"} <= files
    again = hf.BrahmicPuaTokenizer.from_pretrained(saved)
    text = f"{FIRST} <extra> {SECOND}"
    assert again(text)["input_ids"] == tok(text)["input_ids"]
    assert (again.add_bos_token, again.add_eos_token, len(again)) == (True, True, len(tok))
    config = json.loads((saved / "x-tokenizer_config.json").read_text(encoding="utf-8"))
    assert "vocab_file" not in config

    other = tokenizer(hf, small["brahmic"], add_bos_token=False)
    other.save_pretrained(saved, filename_prefix="y")  # two tokenizers in one directory
    with pytest.raises(ValueError, match="filename_prefix"):
        hf.BrahmicPuaTokenizer.from_pretrained(saved)
    chosen = hf.BrahmicPuaTokenizer.from_pretrained(saved, filename_prefix="y")
    assert (chosen.add_bos_token, chosen.add_eos_token, len(chosen)) == (False, False, len(other))
    assert chosen(text)["input_ids"] == other(text)["input_ids"]
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match=r"holds no brahmic_pua\.model"):
        hf.BrahmicPuaTokenizer.from_pretrained(empty)
