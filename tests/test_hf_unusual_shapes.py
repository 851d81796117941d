"""``brahmic-pua audit`` on valid tokenizer.json files of unusual
shape (ids with gaps, an ``unk_token`` missing from the vocabulary), and BrahmicPuaTokenizer's
decode around special tokens (stock spm's text, spaces kept) and its save/load under a
``filename_prefix``.

Both need the optional ``hf`` extra (tokenizers, transformers): where it is missing the tests
skip visibly, and fail under CI (see ``require_extra`` in conftest.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import sentencepiece as stock
from click.testing import CliRunner
from conftest import require_extra

import brahmic_pua
from brahmic_pua.cli.main import main
from brahmic_pua.evaluation.audit import audit, audit_text, audit_vocabulary, load

SAMPLE = Path(brahmic_pua.__file__).parent / "data" / "te.sample.txt"
FIRST, SECOND = "తెలుగు భాష", "చాలా బాగుంది"


def run_audit(*args: str) -> Any:
    return CliRunner().invoke(main, ["audit", *args])


def tokenizers_module() -> ModuleType:
    """The optional tokenizers package (the hf extra)."""
    require_extra("tokenizers", "hf", "auditing a tokenizer.json")
    import tokenizers

    return tokenizers


def word_level(tmp_path: Path, vocab: dict[str, int], unk: str) -> Path:
    """A WordLevel tokenizer.json on whitespace-split words, saved by ``tokenizers`` itself
    (so a file ``tokenizers`` accepts)."""
    tk = tokenizers_module()
    tokenizer = tk.Tokenizer(tk.models.WordLevel(vocab=vocab, unk_token=unk))
    tokenizer.pre_tokenizer = tk.pre_tokenizers.WhitespaceSplit()
    path = tmp_path / "tokenizer.json"
    tokenizer.save(str(path))
    return path


# -- item 7: audit -----------------------------------------------------------------------------


def test_audit_word_level_vocabulary_with_gaps_in_its_ids(tmp_path: Path) -> None:
    """Ids 0, 1, 4, 7: the ids no token has are unused pieces, not an IndexError when the
    text's tokens (ids 4 and 7) are looked up."""
    path = word_level(tmp_path, {"<unk>": 0, "తెలుగు": 1, "భాష": 4, "చాలా": 7}, "<unk>")
    tokenizer = load(path)
    assert tokenizer.get_piece_size() == 8
    assert [i for i in range(8) if tokenizer.is_unused(i)] == [2, 3, 5, 6]
    assert tokenizer.is_unknown(0) and tokenizer.id_to_piece(4) == "భాష"
    report = audit(tokenizer, ["తెలుగు భాష చాలా", "ఇంగ్లీషు భాష"], model=str(path))
    vocabulary = report["vocabulary"]
    assert (vocabulary["size"], vocabulary["special"]) == (8, 5)  # <unk> and 4 unused ids
    assert vocabulary["scripts"]["telugu"]["pieces"] == 3
    assert report["text"]["tokens"] == 5 and report["text"]["unk_rate"] > 0
    text = tmp_path / "text.txt"
    text.write_text("తెలుగు భాష చాలా\n", encoding="utf-8")
    result = run_audit("--model", str(path), "--input", str(text))
    assert result.exit_code == 0, result.output
    assert "8 pieces (3 usable, 5 control/unknown/unused)" in result.output


def test_audit_word_level_vocabulary_without_its_unk_token(tmp_path: Path) -> None:
    """The vocabulary is audited; encoding a word outside it (which ``tokenizers`` cannot do
    without the unk token) is one line naming the fault, not a bare Exception."""
    path = word_level(tmp_path, {"తెలుగు": 0, "భాష": 1}, "<unk>")
    tokenizer = load(path)
    assert audit_vocabulary(tokenizer)["scripts"]["telugu"]["pieces"] == 2
    assert audit_text(tokenizer, ["తెలుగు భాష"])["tokens"] == 2  # words it has: no unk needed
    with pytest.raises(ValueError, match="unk_token '<unk>' is not in its vocabulary"):
        audit_text(tokenizer, ["తెలుగు చాలా"])
    assert run_audit("--model", str(path)).exit_code == 0  # the vocabulary alone
    text = tmp_path / "text.txt"
    text.write_text("తెలుగు చాలా\n", encoding="utf-8")
    result = run_audit("--model", str(path), "--input", str(text))
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert str(path) in result.output and "unk_token '<unk>' is not in" in result.output


# -- item 8: the transformers tokenizer --------------------------------------------------------


@pytest.fixture(scope="module")
def hf() -> ModuleType:
    """brahmic_pua.hf; a visible skip without transformers, a failure under CI."""
    require_extra("transformers", "hf", "the Hugging Face tokenizer")
    import brahmic_pua.hf

    return brahmic_pua.hf


@pytest.fixture(scope="module")
def small(hf: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """1000-piece models on te.sample: a brahmic_pua one and a plain one (stock spm)."""
    work = tmp_path_factory.mktemp("red_team_hf")
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
