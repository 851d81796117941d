"""A BPE model's tokenizer.json (integrations/hf_json.py) in Hugging Face tokenizers: our ids
and our decoded text on raw text, NFC or not, with no brahmic_pua code in front.

The oracle is our processor on the model itself; tokenizers (Rust) runs the file. tokenizers.js
and transformers run it in tests/peers/test_runtimes.py.
"""

from __future__ import annotations

import json
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import (
    NEPALI,
    PRIVATE_USE,
    RARE,
    examples,
    mixed_held_out,
    require_extra,
    sample_held_out,
    sample_training,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import ALPHABET, nasty_texts

import brahmic_pua
from brahmic_pua.cli.main import main
from brahmic_pua.integrations.hf_json import STAND_INS, tokenizer_json
from brahmic_pua.model.manifest import read
from brahmic_pua.model.text_spelling import NotSpellable
from brahmic_pua.trainer import train_model

require_extra("tokenizers", "hf", "the tokenizer.json export")
from tokenizers import Tokenizer  # noqa: E402  (after the check: a skip without the extra)
from tokenizers.normalizers import NFC  # noqa: E402


@cache
def processor(model: Path) -> brahmic_pua.SentencePieceProcessor:
    return brahmic_pua.SentencePieceProcessor(model_file=str(model))


@cache
def fast(model: Path) -> Any:
    """The model's tokenizer.json in tokenizers, built once per model (0.3 s: the properties
    call this for each example)."""
    return Tokenizer.from_str(tokenizer_json(model.read_bytes()).text)


def old_nfc(text: str) -> bool:
    """Whether tokenizers' NFC gives another text than Python's: its tables predate Unicode 14
    for some marks (U+0C3C, Telugu nukta, has combining class 0 there), a documented
    difference (docs/runtimes.md)."""
    return NFC().normalize_str(text) != unicodedata.normalize("NFC", text)


def same_ids_and_text(model: Path, texts: list[str]) -> None:
    ours = processor(model)
    theirs = fast(model)
    encodings = theirs.encode_batch(texts, add_special_tokens=False)
    for text, encoding in zip(texts, encodings, strict=True):
        if old_nfc(text):
            continue
        ids = ours.encode(text)
        if not PRIVATE_USE.search(text):  # a literal code: written in bytes (docs/runtimes.md)
            assert encoding.ids == ids, text
        assert theirs.decode(encoding.ids, skip_special_tokens=False) == ours.decode(ids), text


@pytest.mark.parametrize("name", ["sample", "mixed"])
def test_tokenizers_gives_our_ids_on_held_out_text(
    sample_models: dict[str, Path], mixed_bpe_model: Path, name: str
) -> None:
    same_ids_and_text(
        sample_models["bpe"] if name == "sample" else mixed_bpe_model, mixed_held_out()
    )


@settings(max_examples=examples(300))
@given(
    text=st.one_of(
        nasty_texts,
        st.text(st.sampled_from(ALPHABET + RARE), max_size=80),
        st.text(st.sampled_from("కాిం్\u200d\u200cxశృ ") | st.sampled_from(STAND_INS[:3])),
    )
)
def test_tokenizers_gives_our_ids_on_any_text(mixed_bpe_model: Path, text: str) -> None:
    """Nasty text too: literal stand-ins (NFC turns them into other characters first), ▁,
    U+2585, controls, marks that join nothing, NFD."""
    same_ids_and_text(mixed_bpe_model, [text])


def test_every_piece_keeps_its_id_and_the_stand_ins_come_after(mixed_bpe_model: Path) -> None:
    data = mixed_bpe_model.read_bytes()
    made = tokenizer_json(data)
    document = json.loads(made.text)
    ours = brahmic_pua.SentencePieceProcessor(model_proto=data)
    vocab = document["model"]["vocab"]
    by_id = {i: token for token, i in vocab.items()}
    marks = {stand_in: mark for mark, stand_in in made.stand_ins.items()}
    for i in range(ours.get_piece_size()):
        if ours.is_unused(i):
            continue
        shown = "".join(marks.get(ch, ch) for ch in by_id[i])
        assert shown == ours.id_to_piece(i), i
    extra = [by_id[i] for i in range(made.pieces, len(vocab))]
    assert extra == list(made.stand_ins.values())
    assert made.summary().startswith(f"{made.pieces:,} pieces with the model's ids")


def export(runner: CliRunner, model: Path, out: Path) -> Any:
    return runner.invoke(
        main, ["export", "--model", str(model), "--to", "tokenizer.json", "--output", str(out)]
    )


def test_a_unigram_model_is_refused_in_one_line(
    runner: CliRunner, sample_models: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "tokenizer.json"
    result = export(runner, sample_models["unigram"], out)
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert "only a BPE model" in result.output and not out.exists()


def test_the_command_writes_a_file_tokenizers_loads(
    runner: CliRunner, sample_models: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "tokenizer.json"
    result = export(runner, sample_models["bpe"], out)
    assert result.exit_code == 0, result.output
    assert result.output.count("\n") == 1 and "characters written as stand-ins" in result.output
    texts = sample_held_out("te")
    ours = brahmic_pua.SentencePieceProcessor(model_file=str(sample_models["bpe"]))
    loaded = Tokenizer.from_file(str(out))
    assert [e.ids for e in loaded.encode_batch(texts, add_special_tokens=False)] == ours.encode(
        texts
    )


def test_a_nepali_lm_model_gives_our_ids(tmp_path: Path) -> None:
    """N's folding as one Replace per rule (the shipped table's patterns do not overlap), ZWJs
    deleted: our ids on the written Nepali lines and on each spelling the fold joins."""
    prefix = tmp_path / "lm"
    train_model(
        sentence_iterator=iter(NEPALI[:20] * 3 + sample_training("hi")[:300]),
        model_prefix=str(prefix),
        vocab_size=1500,
        model_type="bpe",
        normalization="nepali-lm",
    )
    variants = ["सँग", "संग", "सङ्ग", "सङ्‍ग", "हुंदा", "दु:ख", "प्राय:", "।।।", "क‍ष", "x सँगै"]
    texts = NEPALI[20:] + sample_held_out("hi")[:50] + variants
    model = Path(f"{prefix}.model")
    same_ids_and_text(model, texts + [unicodedata.normalize("NFD", t) for t in texts])
    # pinned, documented: a text that N empties is spm's ▁ and nothing in tokenizers
    assert processor(model).encode("\u200d") == [processor(model).piece_to_id("\u2581")]
    assert fast(model).encode("\u200d", add_special_tokens=False).ids == []


def test_a_folding_table_whose_patterns_overlap_is_refused(tmp_path: Path) -> None:
    """कखग: the fold takes कख (घग), replacements in another order खग (कघ)."""
    table = tmp_path / "fold.tsv"
    table.write_text("कख\tघ\nखग\tघ\n", encoding="utf-8")  # a normalization: both → घ
    prefix = tmp_path / "ocr"
    train_model(
        sentence_iterator=iter(NEPALI[:20] * 3 + ["कखग खग कख"] * 5),
        model_prefix=str(prefix),
        vocab_size=600,
        model_type="bpe",
        normalization="nepali-ocr",
        folding_rules=str(table),
    )
    with pytest.raises(NotSpellable, match="folding patterns 'कख' and 'खग' overlap") as raised:
        tokenizer_json(Path(f"{prefix}.model").read_bytes(), "ocr.model")
    assert "\n" not in str(raised.value)


def test_a_table_not_closed_under_prefixes_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import brahmic_pua.trainer.train as train

    monkeypatch.setattr(train, "spellable", lambda clusters, policy, model_type: clusters)
    prefix = tmp_path / "open"
    lines = sample_training("hi")[:200] + [f"{RARE}खला"] * 30
    train_model(
        sentence_iterator=iter(lines), model_prefix=str(prefix), vocab_size=1500, model_type="bpe"
    )
    data = Path(f"{prefix}.model").read_bytes()
    manifest = read(data, "m")[1]
    assert manifest is not None and manifest.codec.code_of(RARE) is not None
    with pytest.raises(NotSpellable, match=r"keep their code .* train it again"):
        tokenizer_json(data, "open.model")


def test_tokenizers_nfc_of_a_telugu_nukta_is_the_documented_difference(
    sample_models: dict[str, Path],
) -> None:
    """Pinned: ూ ్ ఼ typed in that order. Python's NFC (Unicode 14) puts the nukta first; the
    NFC of tokenizers 0.23.3 leaves them, so its ids differ there. If this fails, tokenizers
    has caught up: drop the exception from docs/runtimes.md and from :func:`old_nfc`."""
    text = "\u0c42\u0c4d\u0c3c"
    assert old_nfc(text)
    ours = brahmic_pua.SentencePieceProcessor(model_file=str(sample_models["bpe"]))
    theirs = fast(sample_models["bpe"])
    assert theirs.encode(text, add_special_tokens=False).ids != ours.encode(text)


def test_a_model_without_nfc_is_refused(tmp_path: Path) -> None:
    """Without NFC in front, a literal stand-in (a CJK compatibility ideograph) would reach the
    vocabulary and decode as the mark it stands for."""
    prefix = tmp_path / "none"
    train_model(
        sentence_iterator=iter(sample_training("te")[:300]),
        model_prefix=str(prefix),
        vocab_size=1200,
        model_type="bpe",
        normalization="none",
    )
    with pytest.raises(NotSpellable, match="normalization=none") as raised:
        tokenizer_json(Path(f"{prefix}.model").read_bytes(), "none.model")
    assert "\n" not in str(raised.value)
