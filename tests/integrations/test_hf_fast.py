"""transformers without remote code (integrations/hf_fast.py): a saved BPE BrahmicPuaTokenizer
folder loads through ``AutoTokenizer`` as a fast tokenizer with our ids, decode and offsets
(two documented conventions aside), and ``trust_remote_code=True`` still loads ours.

The oracle is BrahmicPuaTokenizer itself (ids from brahmic_pua's processor, tested against
stock sentencepiece elsewhere); transformers builds the fast one from the saved files.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from types import ModuleType
from typing import Any

from conftest import NEPALI, sample_held_out

TEXTS = sample_held_out("te") + NEPALI
TEXTS += [unicodedata.normalize("NFD", t) for t in TEXTS] + ["", " ", "  క  x"]


def saved(hf: ModuleType, model: Path, folder: Path, **options: Any) -> Path:
    hf.BrahmicPuaTokenizer(model, **options).save_pretrained(folder)
    return folder


def auto(folder: Path, **options: Any) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(folder, **options)


def test_auto_tokenizer_loads_a_fast_tokenizer_with_our_ids_without_remote_code(
    hf: ModuleType, mixed_bpe_model: Path, tmp_path: Path
) -> None:
    folder = saved(hf, mixed_bpe_model, tmp_path / "bpe")
    ours = hf.BrahmicPuaTokenizer.from_pretrained(folder)
    fast = auto(folder)
    assert type(fast).__name__ != "BrahmicPuaTokenizer" and fast.is_fast
    assert fast(TEXTS)["input_ids"] == ours(TEXTS)["input_ids"]
    pairs = ours(TEXTS[:40], TEXTS[40:80])["input_ids"]
    assert fast(TEXTS[:40], TEXTS[40:80])["input_ids"] == pairs
    ids = ours(TEXTS)["input_ids"]
    for skip in (True, False):
        decoded = fast.batch_decode(ids, skip_special_tokens=skip)
        assert decoded == ours.batch_decode(ids, skip_special_tokens=skip)
    padded = {"padding": True, "return_tensors": None}
    ours.pad_token = fast.pad_token = ours.eos_token
    assert (
        fast(TEXTS[:20], **padded)["attention_mask"] == ours(TEXTS[:20], **padded)["attention_mask"]
    )


def test_offsets_are_ours_but_for_two_conventions_of_fast_tokenizers(
    hf: ModuleType, mixed_bpe_model: Path, tmp_path: Path
) -> None:
    """tokenizers gives the dummy ▁ alone the first character's span and every byte of a
    character the character's span; ours (stock's) gives the dummy and the bytes before a
    character's last an empty span. On NFC text: where NFC composes characters, tokenizers
    aligns the composed one with the first of them only (docs/runtimes.md)."""
    folder = saved(hf, mixed_bpe_model, tmp_path / "bpe")
    ours = hf.BrahmicPuaTokenizer.from_pretrained(folder)
    fast = auto(folder)
    texts = [t for t in TEXTS if unicodedata.normalize("NFC", t) == t]
    mine = ours(texts, return_offsets_mapping=True)
    theirs = fast(texts, return_offsets_mapping=True)["offset_mapping"]
    for ids, spans, other in zip(mine["input_ids"], mine["offset_mapping"], theirs, strict=True):
        tokens = ours.convert_ids_to_tokens(ids)
        assert len(other) == len(spans)
        for token, (start, end), (begin, stop) in zip(tokens, spans, other, strict=True):
            if (start, end) != (begin, stop):
                assert start == end == begin and stop > begin
                assert token == "\u2581" or token.startswith("<0x"), token


def test_remote_code_and_the_explicit_class_still_load_ours(
    hf: ModuleType, mixed_bpe_model: Path, tmp_path: Path
) -> None:
    folder = saved(hf, mixed_bpe_model, tmp_path / "bpe")
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["tokenizer_class"] == "PreTrainedTokenizerFast"
    assert config["auto_map"]["AutoTokenizer"][0].endswith("BrahmicPuaTokenizer")
    assert type(auto(folder, trust_remote_code=True)).__name__ == "BrahmicPuaTokenizer"
    assert type(hf.BrahmicPuaTokenizer.from_pretrained(folder)).__name__ == "BrahmicPuaTokenizer"


def test_eos_added_as_ours_adds_it(hf: ModuleType, mixed_bpe_model: Path, tmp_path: Path) -> None:
    options = {"add_bos_token": False, "add_eos_token": True}
    folder = saved(hf, mixed_bpe_model, tmp_path / "eos", **options)
    ours = hf.BrahmicPuaTokenizer.from_pretrained(folder)
    assert auto(folder)(TEXTS[:30])["input_ids"] == ours(TEXTS[:30])["input_ids"]


def test_a_unigram_folder_has_no_fast_file_and_keeps_our_class(
    hf: ModuleType, sample_models: dict[str, Path], mixed_bpe_model: Path, tmp_path: Path
) -> None:
    """Saved over a BPE model's folder, the Unigram model leaves no tokenizer.json behind
    (AutoTokenizer would load the BPE one)."""
    folder = saved(hf, mixed_bpe_model, tmp_path / "f")
    assert (folder / "tokenizer.json").is_file()
    saved(hf, sample_models["unigram"], folder)
    assert not (folder / "tokenizer.json").exists()
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["tokenizer_class"] == "BrahmicPuaTokenizer"
