"""``brahmic_pua.hf.BrahmicPuaTokenizer``: a transformers tokenizer that gives brahmic_pua's ids
and text back, on every line of real corpora, through every transformers entry point.

transformers is the optional ``hf`` extra: where it is missing these tests skip, with the reason
shown as a warning too, except under CI (the CI variable set), which installs the extra and so
must fail. The two import tests run either way.
"""

from __future__ import annotations

import ast
import functools
import json
import pickle
import re
import subprocess
import sys
import unicodedata
from itertools import accumulate, pairwise
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import sentencepiece as stock
from conftest import TE_SAMPLE, require_extra, sample, sample_held_out, slow
from hypothesis import given
from hypothesis import strategies as st
from strategies import texts

import brahmic_pua
from brahmic_pua.cli.demo import sample_lines
from brahmic_pua.segment import segment
from brahmic_pua.trainer import train_model

#: The held-out lines first: text the sample models did not train on.
TELUGU = sample_held_out("te") + sample("te")
HINDI = sample("hi")
PRIVATE_USE = re.compile("[\ue000-\uf8ff\U000f0000-\U0010ffff]")
INSTALL = "pip install 'brahmic-pua[hf]'"


def load(hf: ModuleType, model: Path | str, **options: Any) -> Any:
    tokenizer: Any = hf.BrahmicPuaTokenizer(model, **options)
    return tokenizer


def processor(model: Path | str) -> brahmic_pua.SentencePieceProcessor:
    return brahmic_pua.SentencePieceProcessor(model_file=model)


# -- parity with brahmic_pua, line by line ---------------------------------------------------


@pytest.mark.parametrize(
    ("model_name", "lines"),
    [("unigram", TELUGU), ("bpe", TELUGU), ("mixed", HINDI)],
    ids=["te-unigram", "te-bpe", "hi-mixed"],
)
def test_ids_tokens_and_text_equal_brahmic_pua_on_every_line(
    hf: ModuleType, sample_models: dict[str, Path], model_name: str, lines: list[str]
) -> None:
    sp, tok = processor(sample_models[model_name]), load(hf, sample_models[model_name])
    want = sp.encode(lines)
    texts = sp.decode(want)  # N(line): what any round trip can give back
    got = tok(lines, add_special_tokens=False)["input_ids"]  # a batch call
    assert got == want
    assert tok.decode(got) == texts  # a batch decode
    with_bos = tok(lines)["input_ids"]
    assert with_bos == [[sp.bos_id(), *ids] for ids in want]
    assert tok.decode(with_bos, skip_special_tokens=True) == texts
    for line, ids, text in zip(lines, want, texts, strict=True):
        tokens = tok.convert_ids_to_tokens(ids)
        assert tokens == tok.tokenize(line)
        assert tok.convert_tokens_to_ids(tokens) == ids
        assert tok.convert_tokens_to_string(tokens) == text
        if not PRIVATE_USE.search(line):  # readable: no PUA code unless the text has one
            assert not any(PRIVATE_USE.search(token) for token in tokens), line
    assert tok.encode(lines[0]) == with_bos[0]  # the single-text entry points
    assert tok.decode(with_bos[0]) == f"{tok.bos_token} {texts[0]}"  # ▁ after <s>: a space


#: Whitespace at a text's ends and between its words: spaces, tabs, runs of them.
WHITESPACE = st.sampled_from(["", " ", "  ", "   ", "\t", "\t\t", " \t", "\t ", " \t "])
#: Words of real text, and nasty text without < (which would spell <s>, a special token).
WORD = st.one_of(
    st.sampled_from(" ".join(TELUGU[:150]).split()), texts.map(lambda t: t.replace("<", "("))
)


@functools.cache
def cached(hf: ModuleType, model: Path) -> tuple[brahmic_pua.SentencePieceProcessor, Any]:
    """One processor and tokenizer per model (hypothesis calls a test hundreds of times)."""
    return processor(model), load(hf, model)


@pytest.mark.parametrize("model_name", ["unigram", "bpe"])
@given(
    lead=WHITESPACE,
    words=st.lists(st.tuples(WORD, WHITESPACE), max_size=5),
    trail=WHITESPACE,
)
def test_whitespace_at_either_end_gives_the_processors_ids_and_text(
    hf: ModuleType,
    sample_models: dict[str, Path],
    model_name: str,
    lead: str,
    words: list[tuple[str, str]],
    trail: str,
) -> None:
    """A text that starts (or ends) with spaces or tabs gets the processor's ids, the
    dummy ▁ and each space's ▁ both, and its spaces back from decode."""
    sp, tok = cached(hf, sample_models[model_name])
    text = lead + "".join(word + space for word, space in words) + trail
    want = sp.encode(text)
    assert tok(text, add_special_tokens=False)["input_ids"] == want
    assert tok([text, "ఇది"], add_special_tokens=False)["input_ids"][0] == want  # a batch
    assert tok.tokenize(text) == sp.id_to_piece(want)
    ids = tok(text)["input_ids"]
    assert ids == [sp.bos_id(), *want]
    assert tok.decode(ids, skip_special_tokens=True) == sp.decode(want)
    assert tok.decode(want) == sp.decode(want)


def test_whole_vocabulary_is_readable_and_invertible(
    hf: ModuleType, sample_models: dict[str, Path]
) -> None:
    sp, tok = processor(sample_models["unigram"]), load(hf, sample_models["unigram"])
    ids = list(range(len(sp)))
    tokens = tok.convert_ids_to_tokens(ids)
    assert tokens == sp.id_to_piece(ids)
    assert not [token for token in tokens if PRIVATE_USE.search(token)]
    assert tok.convert_tokens_to_ids(tokens) == ids
    assert tok.vocab_size == len(tok) == len(tok.get_vocab()) == len(sp)
    assert "క్ష" in tok.get_vocab()


def test_plain_spm_model_gives_stock_ids_and_text(hf: ModuleType, tmp_path: Path) -> None:
    """A model without a manifest is passed to stock sentencepiece unchanged."""
    train, held = sample_lines()
    prefix = str(tmp_path / "plain")
    stock.SentencePieceTrainer.train(
        sentence_iterator=iter(train),
        model_prefix=prefix,
        vocab_size=1000,
        minloglevel=2,
        byte_fallback=True,
    )
    sp, tok = (
        stock.SentencePieceProcessor(model_file=prefix + ".model"),
        load(hf, prefix + ".model"),
    )
    want = sp.encode(held)
    assert tok(held, add_special_tokens=False)["input_ids"] == want
    assert tok.decode(want) == sp.decode(want)
    assert tok.convert_ids_to_tokens(want[0]) == sp.id_to_piece(want[0])


# -- batches: padding, truncation, tensors ----------------------------------------------------


def test_padding_truncation_and_attention_masks(
    hf: ModuleType, sample_models: dict[str, Path]
) -> None:
    sp, tok = processor(sample_models["unigram"]), load(hf, sample_models["unigram"])
    lines = [line for line in TELUGU if line][:16]
    full = [[sp.bos_id(), *ids] for ids in sp.encode(lines)]
    with pytest.raises(ValueError, match="pad"):  # the model has no pad piece: as Llama
        tok(lines, padding=True)
    tok.pad_token = tok.eos_token
    batch = tok(lines, padding=True)
    longest = max(map(len, full))
    for ids, row, mask in zip(full, batch["input_ids"], batch["attention_mask"], strict=True):
        assert row == ids + [sp.eos_id()] * (longest - len(ids))
        assert mask == [1] * len(ids) + [0] * (longest - len(ids))
    assert tok.decode(batch["input_ids"], skip_special_tokens=True) == sp.decode(sp.encode(lines))
    cut = tok(lines, padding="max_length", truncation=True, max_length=8, padding_side="left")
    for ids, row, mask in zip(full, cut["input_ids"], cut["attention_mask"], strict=True):
        kept = ids[:8]
        assert row == [sp.eos_id()] * (8 - len(kept)) + kept
        assert mask == [0] * (8 - len(kept)) + [1] * len(kept)
        assert tok.decode(row, skip_special_tokens=True) == sp.decode(kept[1:])
    assert all(
        len(row) % 16 == 0 for row in tok(lines, padding=True, pad_to_multiple_of=16)["input_ids"]
    )
    array = tok(lines[:2], padding=True, return_tensors="np")["input_ids"]
    assert array.shape == (2, max(map(len, full[:2])))


def test_pytorch_tensors(hf: ModuleType, sample_models: dict[str, Path]) -> None:
    require_extra("torch", "experiment", "PyTorch tensors")
    import torch

    sp, tok = (
        processor(sample_models["unigram"]),
        load(hf, sample_models["unigram"], pad_token="</s>"),
    )
    lines = [line for line in TELUGU if line][:4]
    batch = tok(lines, padding=True, return_tensors="pt")
    assert isinstance(batch["input_ids"], torch.Tensor) and batch["input_ids"].dtype == torch.long
    assert batch["attention_mask"].sum(dim=1).tolist() == [1 + len(i) for i in sp.encode(lines)]
    assert tok.decode(batch["input_ids"], skip_special_tokens=True) == sp.decode(sp.encode(lines))


# -- special and added tokens -----------------------------------------------------------------


def test_special_tokens_are_the_models_pieces(
    hf: ModuleType, sample_models: dict[str, Path]
) -> None:
    sp, tok = processor(sample_models["unigram"]), load(hf, sample_models["unigram"])
    assert (tok.unk_token_id, tok.bos_token_id, tok.eos_token_id) == (
        sp.unk_id(),
        sp.bos_id(),
        sp.eos_id(),
    )
    assert (tok.unk_token, tok.bos_token, tok.eos_token) == ("<unk>", "<s>", "</s>")
    assert tok.pad_token is None and sp.pad_id() == -1
    assert (tok.add_bos_token, tok.add_eos_token) == (True, False)  # as LlamaTokenizer


def test_pad_piece_of_a_model_trained_with_one(hf: ModuleType, tmp_path: Path) -> None:
    train, held = sample_lines()
    prefix = str(tmp_path / "padded")
    train_model(sentence_iterator=iter(train), model_prefix=prefix, vocab_size=2000, pad_id=3)
    tok = load(hf, prefix + ".model")
    assert (tok.pad_token, tok.pad_token_id) == ("<pad>", 3)
    batch = tok(held[:3], padding=True)
    assert {row[-1] for row in batch["input_ids"]} >= {3}
    assert tok.decode(batch["input_ids"], skip_special_tokens=True) == held[:3]


@pytest.mark.parametrize(
    ("bos", "eos", "shape"),
    [(True, False, "b.."), (False, True, "..e"), (True, True, "b..e"), (False, False, "..")],
)
def test_bos_and_eos_flags(
    hf: ModuleType, sample_models: dict[str, Path], bos: bool, eos: bool, shape: str
) -> None:
    sp = processor(sample_models["unigram"])
    tok = load(hf, sample_models["unigram"], add_bos_token=bos, add_eos_token=eos)
    ids = sp.encode(TELUGU[0])
    expected = [sp.bos_id()] * bos + ids + [sp.eos_id()] * eos
    encoded = tok(TELUGU[0], return_special_tokens_mask=True)
    assert encoded["input_ids"] == expected
    assert encoded["special_tokens_mask"] == [1] * bos + [0] * len(ids) + [1] * eos
    assert tok.decode(expected, skip_special_tokens=True) == sp.decode(ids)
    shown = tok.decode(expected)
    assert shown.startswith("<s>") == shape.startswith("b")
    assert shown.endswith("</s>") == shape.endswith("e")


def test_special_token_text_and_added_tokens_round_trip(
    hf: ModuleType, sample_models: dict[str, Path]
) -> None:
    sp, tok = processor(sample_models["unigram"]), load(hf, sample_models["unigram"])
    assert tok.add_tokens(["<extra>", "నమస్కారం"]) == 2
    assert tok.convert_tokens_to_ids(["<extra>", "నమస్కారం"]) == [len(sp), len(sp) + 1]
    text = "రాముడు <extra> వచ్చాడు</s> నమస్కారం<s>"
    ids = tok(text, add_special_tokens=False)["input_ids"]
    assert {sp.eos_id(), sp.bos_id(), len(sp), len(sp) + 1} <= set(ids)
    assert tok.decode(ids) == text  # no space added around a special token, nothing cleaned
    assert tok.decode(ids, clean_up_tokenization_spaces=True) == text
    assert tok.convert_tokens_to_string(tok.convert_ids_to_tokens(ids)) == text
    assert tok.decode(ids, skip_special_tokens=True) == "రాముడు <extra> వచ్చాడు నమస్కారం"
    # as stock spm: the special tokens' text is text
    spelled = tok(text, add_special_tokens=False, split_special_tokens=True)["input_ids"]
    assert spelled == sp.encode(text)
    assert tok.decode(spelled) == text


# -- saving and loading -----------------------------------------------------------------------


def test_save_and_from_pretrained_round_trip(
    hf: ModuleType, sample_models: dict[str, Path], tmp_path: Path
) -> None:
    tok = load(hf, sample_models["unigram"], add_eos_token=True)
    tok.add_special_tokens({"pad_token": "<pad>"})
    tok.add_tokens(["<extra>"])
    tok.add_bos_token = False
    saved = tmp_path / "saved"
    tok.save_pretrained(saved)
    files = {path.name for path in saved.iterdir()}
    assert {"brahmic_pua.model", "tokenizer_config.json", "tokenization_brahmic_pua.py"} <= files
    assert not files & {"tokenizer.json", "tokenizer.model"}  # no file a generic loader takes
    assert (saved / "brahmic_pua.model").read_bytes() == sample_models["unigram"].read_bytes()
    config = json.loads((saved / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["auto_map"]["AutoTokenizer"][0] == "tokenization_brahmic_pua.BrahmicPuaTokenizer"
    again = hf.BrahmicPuaTokenizer.from_pretrained(saved)
    text = "రాముడు <extra> వచ్చాడు"
    assert again(text)["input_ids"] == tok(text)["input_ids"]
    assert (again.add_bos_token, again.add_eos_token) == (False, True)
    assert (again.pad_token, again.pad_token_id, len(again)) == ("<pad>", len(tok) - 2, len(tok))
    single = hf.BrahmicPuaTokenizer.from_pretrained(sample_models["unigram"])  # a bare .model works
    assert single(text)["input_ids"] == load(hf, sample_models["unigram"])(text)["input_ids"]


def saved_files(folder: Path) -> set[str]:
    """Every file under ``folder``, as ``save_pretrained`` names it (the folder joined)."""
    return {str(folder / path.relative_to(folder)) for path in folder.rglob("*") if path.is_file()}


#: Tokenizers with each file ``save_pretrained`` may write: added tokens beyond the model's
#: pieces (added_tokens.json), a chat template (chat_template.jinja), named templates too
#: (additional_chat_templates/*.jinja); by the options to the tokenizer and a filename prefix.
SAVED = {
    "bare": ({}, None),
    "added-prefixed": ({"extra_special_tokens": ["<new1>"]}, "p"),
    "template": ({"chat_template": "{{ messages[0]['content'] }}"}, None),
    "templates-prefixed": ({"chat_template": {"default": "d", "tool_use": "t"}}, "p"),
}


@pytest.mark.parametrize(("options", "prefix"), SAVED.values(), ids=SAVED.keys())
def test_save_pretrained_returns_the_files_it_wrote_and_only_those(
    hf: ModuleType,
    sample_models: dict[str, Path],
    tmp_path: Path,
    options: dict[str, Any],
    prefix: str | None,
) -> None:
    """Into an empty folder: what it returns is what is there. Into the same folder again,
    from a tokenizer without added tokens or template: what it returns is what is there
    (no file of the first save is left to be read back as this tokenizer's)."""
    model = sample_models["unigram"]
    first = load(hf, model, **options)
    returned = first.save_pretrained(tmp_path, filename_prefix=prefix)
    assert len(set(returned)) == len(returned)
    assert set(returned) == saved_files(tmp_path)
    loaded = hf.BrahmicPuaTokenizer.from_pretrained(tmp_path, filename_prefix=prefix)
    assert (loaded.chat_template, len(loaded)) == (first.chat_template, len(first))
    bare = load(hf, model)
    returned = bare.save_pretrained(tmp_path, filename_prefix=prefix)
    assert set(returned) == saved_files(tmp_path)
    loaded = hf.BrahmicPuaTokenizer.from_pretrained(tmp_path, filename_prefix=prefix)
    assert (loaded.chat_template, len(loaded)) == (None, len(bare))


# -- chat templates ---------------------------------------------------------------------------

#: A ChatML-like template, its turns marked by two tokens added as special.
CHATML = (
    "{% for message in messages %}<|im_start|>{{ message['role'] + '\\n' }}"
    "{{ message['content'] }}<|im_end|>{{ '\\n' }}{% endfor %}"
)
CHAT = [
    {"role": "system", "content": "క్రాంతి"},
    {"role": "user", "content": "ఇది ఒక"},
    {"role": "assistant", "content": "క్రాంతి వచ్చాడు"},
]


def test_without_a_chat_template_the_error_says_how_to_set_one(
    hf: ModuleType, sample_models: dict[str, Path], tmp_path: Path
) -> None:
    load(hf, sample_models["unigram"]).save_pretrained(tmp_path)
    tok = hf.BrahmicPuaTokenizer.from_pretrained(tmp_path)
    with pytest.raises(ValueError, match=r"chat_template=brahmic_pua\.hf\.CHAT_TEMPLATE"):
        tok.apply_chat_template(CHAT, tokenize=False)
    given = tok.apply_chat_template(CHAT, chat_template=hf.CHAT_TEMPLATE, tokenize=False)
    assert given.startswith("<s>system: క్రాంతి</s>")  # a template given to the call


@pytest.mark.parametrize("named", [False, True], ids=["one", "named"])
@pytest.mark.parametrize("prefix", [None, "p"])
def test_a_chat_template_given_to_the_tokenizer_survives_save_and_load(
    hf: ModuleType, sample_models: dict[str, Path], tmp_path: Path, named: bool, prefix: str | None
) -> None:
    """``chat_template=`` (one template, or named ones) is written by ``save_pretrained``
    and read by ``from_pretrained``, with or without a filename prefix; the loaded tokenizer
    renders the chat as written and encodes it as transformers' contract says, the text
    with ``add_special_tokens=False``: its markers the added special tokens."""
    template = {"default": CHATML, "short": "{{ messages[0]['content'] }}"} if named else CHATML
    markers = ["<|im_start|>", "<|im_end|>"]
    tok = load(hf, sample_models["unigram"], chat_template=template, extra_special_tokens=markers)
    start = f"{prefix}-" if prefix else ""
    returned = tok.save_pretrained(tmp_path, filename_prefix=prefix)
    assert str(tmp_path / f"{start}chat_template.jinja") in returned
    assert (tmp_path / f"{start}chat_template.jinja").read_text(encoding="utf-8") == CHATML
    again = hf.BrahmicPuaTokenizer.from_pretrained(tmp_path, filename_prefix=prefix)
    assert again.chat_template == template
    text = again.apply_chat_template(CHAT, tokenize=False)
    assert text == "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in CHAT)
    ids = again.apply_chat_template(CHAT, return_dict=False)
    assert ids == again(text, add_special_tokens=False)["input_ids"]
    assert ids == tok.apply_chat_template(CHAT, return_dict=False)
    start_id, end_id = again.convert_tokens_to_ids(markers)
    assert [id for id in ids if id in (start_id, end_id)] == [start_id, end_id] * len(CHAT)
    assert again.decode(ids) == text
    if named:
        assert again.apply_chat_template(CHAT, chat_template="short", tokenize=False) == "క్రాంతి"


@functools.cache
def chat_tokenizer(hf: ModuleType, model: Path) -> Any:
    return load(hf, model, chat_template=hf.CHAT_TEMPLATE)


def chat_text(
    chat: list[dict[str, str]], prompt: bool
) -> tuple[str, list[tuple[int, int]], list[tuple[int, int]]]:
    """CHAT_TEMPLATE's text of a chat, written out by hand, where it put <s> and </s>, and
    its generation blocks: each reply, from the space before it to the </s> after it."""
    text, markers, replies = "", [], []
    for message in chat:
        markers.append((len(text), len(text) + 3))
        text += f"<s>{message['role']}:"
        reply = len(text)
        text += f" {message['content']}"
        markers.append((len(text), len(text) + 4))
        text += "</s>"
        if message["role"] == "assistant":
            replies.append((reply, len(text)))
    if prompt:
        markers.append((len(text), len(text) + 3))
        text += "<s>assistant:"
    return text, markers, replies


#: Message texts: words of real text, and nasty text without < (which would spell <s>).
CONTENT = st.lists(WORD, min_size=1, max_size=3).map(" ".join)


@given(contents=st.lists(CONTENT, min_size=1, max_size=4), prompt=st.booleans())
def test_chat_template_marks_turns_with_the_models_own_pieces_on_cluster_boundaries(
    hf: ModuleType, sample_models: dict[str, Path], contents: list[str], prompt: bool
) -> None:
    """CHAT_TEMPLATE, for a model trained without one: each turn ``<s>role: text</s>``, the
    model's own <s> and </s> where the template wrote them and nowhere else, each on a
    cluster boundary of the chat's text (brahmic_pua.segment's): no marker cuts a cluster
    of a message, whatever it starts or ends with; the text comes back from decode, each
    stretch between markers normalized (NFC) on its own."""
    tok = chat_tokenizer(hf, sample_models["unigram"])
    roles = ["user", "assistant"]
    chat = [{"role": roles[i % 2], "content": text} for i, text in enumerate(contents)]
    text, markers, _ = chat_text(chat, prompt)
    assert tok.apply_chat_template(chat, tokenize=False, add_generation_prompt=prompt) == text
    encoded = tok(text, add_special_tokens=False, return_offsets_mapping=True)
    ids = tok.apply_chat_template(chat, add_generation_prompt=prompt, return_dict=False)
    assert ids == encoded["input_ids"]
    specials = (tok.bos_token_id, tok.eos_token_id)
    spans = zip(ids, encoded["offset_mapping"], strict=True)
    found = [span for id, span in spans if id in specials]
    assert found == markers
    boundaries = {0, *accumulate(map(len, segment(text)))}
    assert {at for span in markers for at in span} <= boundaries
    cuts = [0, *(at for span in markers for at in span), len(text)]
    parts = [text[a:b] for a, b in pairwise(cuts)]
    back = [part if i % 2 else unicodedata.normalize("NFC", part) for i, part in enumerate(parts)]
    assert tok.decode(ids) == "".join(back)


def test_assistant_tokens_mask_marks_the_replies_and_their_end(
    hf: ModuleType, sample_models: dict[str, Path]
) -> None:
    """``return_assistant_tokens_mask=True`` (transformers reads it off a fast tokenizer's
    offsets): 1 on each token that holds a character of a reply or of the ``</s>`` after it,
    the generation block of CHAT_TEMPLATE; one chat, and a padded batch as tensors."""
    tok = load(hf, sample_models["unigram"], chat_template=hf.CHAT_TEMPLATE, pad_token="</s>")
    chats = [CHAT, [*CHAT[1:], {"role": "user", "content": "సరే"}, CHAT[2]]]
    masks = []
    for chat in chats:
        out = tok.apply_chat_template(chat, return_assistant_tokens_mask=True)
        assert "offset_mapping" not in out  # not asked for
        text, _, replies = chat_text(chat, prompt=False)
        spans = tok(text, add_special_tokens=False, return_offsets_mapping=True)
        assert out["input_ids"] == spans["input_ids"]
        want = [
            int(any(a < end and start < b for start, end in replies))
            for a, b in spans["offset_mapping"]
        ]
        assert out["assistant_masks"] == want
        assert 0 < sum(want) < len(want)
        masks.append(want)
    batch = tok.apply_chat_template(
        chats, return_assistant_tokens_mask=True, padding=True, return_tensors="np"
    )
    width = max(map(len, masks))
    assert batch["assistant_masks"].tolist() == [m + [0] * (width - len(m)) for m in masks]


def test_auto_tokenizer_loads_the_installed_class(
    hf: ModuleType, sample_models: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from transformers import AutoTokenizer, dynamic_module_utils

    # transformers copies the shim module into its cache: a temporary one, not ~/.cache
    monkeypatch.setattr(dynamic_module_utils, "HF_MODULES_CACHE", str(tmp_path / "modules"))
    monkeypatch.setattr(sys, "path", [*sys.path])
    tok = load(hf, sample_models["unigram"])
    tok.save_pretrained(tmp_path / "saved")
    with pytest.raises(ValueError, match="trust_remote_code"):
        AutoTokenizer.from_pretrained(tmp_path / "saved")
    auto = AutoTokenizer.from_pretrained(tmp_path / "saved", trust_remote_code=True)
    assert type(auto) is hf.BrahmicPuaTokenizer  # the installed class, not a copy of it
    assert auto(TELUGU[:50])["input_ids"] == tok(TELUGU[:50])["input_ids"]
    auto.save_pretrained(
        tmp_path / "again"
    )  # still the shim, not a copy of brahmic_pua/integrations/hf.py
    assert not (tmp_path / "again" / "hf.py").exists()
    config = json.loads((tmp_path / "again" / "tokenizer_config.json").read_text("utf-8"))
    assert config["auto_map"] == {
        "AutoTokenizer": ["tokenization_brahmic_pua.BrahmicPuaTokenizer", None]
    }


def test_pickle_round_trip(hf: ModuleType, sample_models: dict[str, Path]) -> None:
    tok = load(hf, sample_models["bpe"], pad_token="</s>")
    tok.add_tokens(["<extra>"])
    copy = pickle.loads(pickle.dumps(tok))
    lines = [*TELUGU[:20], "x <extra> y"]
    assert copy(lines, padding=True)["input_ids"] == tok(lines, padding=True)["input_ids"]
    assert copy.decode(tok(lines[-1])["input_ids"]) == "<s> x <extra> y"


@slow  # the example's 2,000 lines
def test_parity_example_counts(hf: ModuleType, sample_models: dict[str, Path]) -> None:
    """examples/hf_parity.py: transformers' own spm backend decodes none of the lines."""
    example = Path(__file__).resolve().parents[2] / "examples" / "hf_parity.py"
    done = subprocess.run(
        [
            sys.executable,
            str(example),
            "--model",
            str(sample_models["unigram"]),
            "--lines",
            TE_SAMPLE,
            "--count",
            "200",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    rows = {line[:34].strip(): line[34:].split() for line in done.stdout.splitlines()[3:]}
    assert rows["BrahmicPuaTokenizer"] == ["200", "200", "200", "0"]
    assert rows["SentencePieceBackend(vocab_file=)"] == ["200", "0", "0", "200"]


# -- transformers through its public surface --------------------------------------------------

#: What transformers' Python tokenizers are written against: ``PythonBackend`` declares these
#: for a subclass to fill in (``_tokenize``, ``_convert_*``, ``_encode_plus`` raise
#: ``NotImplementedError``) or override (its own model tokenizers override ``_decode``, ``_pad``
#: and ``_from_pretrained``). Overriding one, and calling the base's from that override
#: (``super()._pad(...)`` in ``_pad``), is the contract; any other underscore name of theirs is
#: their state, which a release may rename or reshape.
HOOKS = frozenset(
    {
        "_tokenize",
        "_convert_token_to_id",
        "_convert_id_to_token",
        "_decode",
        "_encode_plus",
        "_pad",
        "_from_pretrained",
    }
)


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name != "_"


@functools.cache
def transformers_private_names() -> frozenset[str]:
    """Every underscore name transformers' tokenizer modules define or use as an attribute
    (``self._added_tokens_encoder``, ``BatchEncoding._encodings``, ``Trie._tokens``...), read
    off their source."""
    import transformers.tokenization_python
    import transformers.tokenization_utils_base

    names: set[str] = set()
    for module in (transformers.tokenization_python, transformers.tokenization_utils_base):
        tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and is_private(node.attr):
                names.add(node.attr)
            if isinstance(node, ast.FunctionDef) and is_private(node.name):
                names.add(node.name)
    return frozenset(names)


def private_uses(source: str, theirs: frozenset[str]) -> list[str]:
    """Where ``source`` reaches into an object that is not its own: an underscore attribute of
    transformers' (read, written or called) but a hook overridden and its base called from
    the override, an underscore attribute that ``source`` never assigns on ``self`` or
    defines (another object's), the same names as strings (``getattr(x, "_y")``, a keyword
    ``"_y"`` handed to transformers), a method of ours that overrides a private one of
    theirs, and an ``except`` that catches everything (``Exception``, bare) in place of what
    is raised."""
    tree = ast.parse(source)
    defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assigned = {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
        if isinstance(n.value, ast.Name) and n.value.id == "self"
    }
    ours = (defined | assigned) - theirs  # writing one of theirs does not make it ours
    found: list[str] = []

    def visit(node: ast.AST, function: str | None) -> None:
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.FunctionDef):
            if node.name in theirs - HOOKS:
                found.append(f"{where}: overrides transformers' {node.name}")
            function = node.name
        elif isinstance(node, ast.Attribute) and is_private(node.attr):
            value = node.value
            base = isinstance(value, ast.Call) and ast.unparse(value.func) == "super"
            if node.attr in theirs and not (node.attr in HOOKS and base and node.attr == function):
                found.append(f"{where}: {ast.unparse(node)} is transformers'")
            elif node.attr not in theirs and node.attr not in ours:
                found.append(f"{where}: {ast.unparse(node)} is not ours")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            named = re.fullmatch(r"_\w+", node.value) and is_private(node.value)
            if named and node.value not in ours:
                found.append(f"{where}: the name {node.value!r} is not ours")
        elif isinstance(node, ast.keyword) and node.arg is not None and is_private(node.arg):
            found.append(f"{where}: the keyword {node.arg} is not ours")
        elif isinstance(node, ast.ExceptHandler):
            caught = node.type
            if caught is None or ast.unparse(caught) in ("Exception", "BaseException"):
                found.append(f"{where}: catches everything")
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(tree, None)
    return found


def test_the_tokenizer_reaches_transformers_only_through_its_public_surface(
    hf: ModuleType,
) -> None:
    """hf.py overrides transformers' hooks and calls its public methods; it neither reads nor
    writes transformers' private state (``BatchEncoding._encodings``, the added-token dicts,
    ``Trie._tokens``), passes no private keyword through it, and catches named errors."""
    import brahmic_pua.integrations.hf as module

    source = Path(str(module.__file__)).read_text(encoding="utf-8")
    assert private_uses(source, transformers_private_names()) == []


def test_the_private_use_check_finds_each_kind(hf: ModuleType) -> None:
    """The check above can fail: each kind of reach it looks for, in a few lines, is found,
    and what a tokenizer may do (hooks, its own attributes) is not."""
    theirs = transformers_private_names()
    assert {"_encodings", "_added_tokens_encoder", "_eventual_warn_about_too_long_sequence"} <= (
        theirs
    )
    reaches = {
        "out._encodings = rows": "is transformers'",
        "n = self._added_tokens_encoder": "is transformers'",
        "self._eventual_warn_about_too_long_sequence(ids, None, True)": "is transformers'",
        "self._auto_map = {}": "is transformers'",
        "kwargs.setdefault('_row_maps', [])": "'_row_maps' is not ours",
        "getattr(self.tokens_trie, '_tokens', ())": "'_tokens' is not ours",
        "f(_rows=[])": "keyword _rows is not ours",
        "self.sp._model": "is not ours",
        "try:\n    f()\nexcept Exception:\n    pass": "catches everything",
        "class T:\n    def _add_tokens(self): ...": "overrides transformers' _add_tokens",
        "class T:\n    def _tokenize(self):\n        return super()._pad()": "is transformers'",
    }
    for code, why in reaches.items():
        found = private_uses(code, theirs)
        assert len(found) == 1 and why in found[0], (code, found)
    allowed = """class T:
    def _pad(self, inputs):
        self._mine = 1
        return super()._pad(inputs) + self._mine + self.__dict__.get("_mine")

    def _helper(self):
        try:
            return self._pad([])
        except ValueError:
            return None
"""
    assert private_uses(allowed, theirs) == ["line 8: self._pad is transformers'"]


# -- the optional import ----------------------------------------------------------------------


def test_import_brahmic_pua_does_not_import_transformers() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import sys, brahmic_pua; print('transformers' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "False"


def test_without_transformers_one_clear_import_error() -> None:
    code = "import sys; sys.modules['transformers'] = None; import brahmic_pua.hf"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        f"ImportError: brahmic_pua.hf needs transformers: {INSTALL}"
    )
