"""BrahmicPuaTokenizer on a batch of texts: ``tok(texts, ...)`` encodes them in one pass (one
batch call of spm), and gives what transformers' row-at-a-time path gives, key for key.

The oracle is assembled through the public API alone: each text encoded on its own
(``tok(text, ...)``, no padding, no tensors), the rows then padded by ``tok.pad``, which is
transformers' batch path, step for step, for a batch of single texts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from conftest import installed, require_extra, sample_held_out
from hypothesis import given
from hypothesis import strategies as st
from strategies import nasty_texts

import brahmic_pua

#: The model's special tokens, one added as special, and one added as a plain token.
TOKENS = ["<s>", "</s>", "<unk>", "<new1>", "<extra>"]
#: Long lines of real text (thousands of characters), for truncation and the length warning.
LONG = [" ".join(sample_held_out("te")[i : i + 15]) for i in (0, 15)]
#: "pt" where torch is installed; test_torch_tensors_are_drawn_where_torch_is says so where not.
TENSORS = [None, "np"] + (["pt"] if installed("torch") else [])

#: Texts with the tokens' text in them (where transformers cuts a text), texts that start with a
#: space (the ``▁`` rule of brahmic_pua.integrations.hf_text), empty and long ones, and any text.
texts = st.one_of(
    nasty_texts,
    st.lists(st.one_of(nasty_texts, st.sampled_from(TOKENS)), min_size=1, max_size=4).map("".join),
    st.tuples(st.sampled_from([" ", "  "]), nasty_texts).map("".join),
    st.sampled_from(["", " ", "  ", *LONG]),
)
#: Every option of ``__call__`` the batch path reads, in every combination.
options = st.fixed_dictionaries(
    {
        "padding": st.sampled_from([False, True, "max_length"]),
        "truncation": st.sampled_from(
            [None, False, True, "longest_first", "only_first", "only_second"]
        ),
        "max_length": st.none() | st.integers(0, 40),
        "pad_to_multiple_of": st.none() | st.sampled_from([1, 4, 8]),
        "padding_side": st.sampled_from([None, "left", "right"]),
        "return_tensors": st.sampled_from(TENSORS),
        "return_attention_mask": st.sampled_from([None, True, False]),
        "return_token_type_ids": st.sampled_from([None, True, False]),
        "return_special_tokens_mask": st.booleans(),
        "return_length": st.booleans(),
        "add_special_tokens": st.booleans(),
        "split_special_tokens": st.booleans(),
    }
)
#: (add_bos_token, add_eos_token): Llama's, T5's, both, none.
FLAGS = [(True, False), (False, True), (True, True), (False, False)]


@pytest.fixture(scope="module", params=["unigram", "bpe", "plain"])
def model(
    request: pytest.FixtureRequest, sample_models: dict[str, Path], plain_hindi_model: str
) -> str:
    """brahmic_pua's models, and a plain spm one (it drops extra spaces: the other rule of
    which processor encodes a text that starts with a space)."""
    return plain_hindi_model if request.param == "plain" else str(sample_models[request.param])


@cache
def tokenizer(hf: ModuleType, model: str, bos: bool, eos: bool) -> Any:
    """One per model and flags (hypothesis calls a test hundreds of times)."""
    tok: Any = hf.BrahmicPuaTokenizer(model, add_bos_token=bos, add_eos_token=eos)
    tok.pad_token = tok.eos_token
    tok.add_tokens(["<new1>"], special_tokens=True)
    tok.add_tokens(["<extra>"])
    return tok


def plain(value: Any) -> Any:
    """A value as lists, with an array's dtype and shape: ragged rows give object arrays."""
    if isinstance(value, np.ndarray):
        listed = value.tolist()
        return str(value.dtype), value.shape, plain(listed) if value.dtype == object else listed
    if hasattr(value, "numpy"):  # a torch tensor
        return str(value.dtype), tuple(value.shape), value.tolist()
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def outcome(run: Callable[[], Any]) -> Any:
    """What ``run`` returned, each key's value as :func:`plain` gives it, or the type of the
    error it raised (a ragged batch as torch tensors raises, one at a time or not)."""
    try:
        result = run()
    except ValueError as error:
        return type(error)
    return {key: plain(value) for key, value in result.items()}


def test_torch_tensors_are_drawn_where_torch_is() -> None:
    """The batch property draws return_tensors="pt" only with torch: its absence is a visible
    skip here (a failure under CI), not a silent narrowing of the property."""
    require_extra("torch", "experiment", "batches as torch tensors")
    assert "pt" in TENSORS


@pytest.mark.filterwarnings("ignore:`max_length` is ignored when `padding`=`True`")
@given(
    batch=st.lists(texts, min_size=1, max_size=6),
    given_options=options,
    flags=st.sampled_from(FLAGS),
    truncation_side=st.sampled_from(["left", "right"]),
)
def test_a_batch_is_its_texts_encoded_one_by_one_then_padded(
    hf: ModuleType,
    model: str,
    batch: list[str],
    given_options: dict[str, Any],
    flags: tuple[bool, bool],
    truncation_side: str,
) -> None:
    tok = tokenizer(hf, model, *flags)
    tok.truncation_side = truncation_side
    call = dict(given_options)
    padding, max_length, multiple = call["padding"], call["max_length"], call["pad_to_multiple_of"]
    if (
        call["truncation"] not in (None, False)
        and padding
        and multiple
        and max_length is not None
        and max_length % multiple
    ):
        with pytest.raises(ValueError, match="multiple of pad_to_multiple_of"):
            tok(batch, **call)  # transformers refuses before any text is encoded
        return
    pad = {key: call.pop(key) for key in ("padding", "pad_to_multiple_of", "padding_side")}
    if call["truncation"] is None and padding is not False:
        call["truncation"] = False  # max_length alone truncates only where there is no padding
    tensors = call.pop("return_tensors")

    def one_by_one() -> Any:
        rows = [tok(text, **call) for text in batch]
        return tok.pad(
            rows,
            max_length=max_length,
            return_attention_mask=call["return_attention_mask"],
            return_tensors=tensors,
            **pad,
        )

    got = outcome(lambda: tok(batch, return_tensors=tensors, **pad, **call))
    assert got == outcome(one_by_one)


def test_batch_is_one_pass(
    hf: ModuleType, sample_models: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No text of the batch goes through ``prepare_for_model``, the per-row step; a text with
    an added token's text in it is encoded as on its own, the rest by spm's batch call."""
    sp = brahmic_pua.SentencePieceProcessor(model_file=sample_models["unigram"])
    tok = tokenizer(hf, str(sample_models["unigram"]), True, False)
    lines = sample_held_out("te")[:50]
    mixed = [*lines, "ఒక <extra> రెండు</s>", " ఒక", ""]
    alone = [tok(text)["input_ids"] for text in mixed]

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("prepare_for_model called for a row of a batch")

    monkeypatch.setattr(tok, "prepare_for_model", refuse)
    assert tok(lines)["input_ids"] == [[sp.bos_id(), *ids] for ids in sp.encode(lines)]
    assert tok(mixed)["input_ids"] == alone
    padded = tok(mixed, padding=True, truncation=True, max_length=12, return_tensors="np")
    assert padded["input_ids"].shape == (len(mixed), 12)


@pytest.fixture
def warnings_of_transformers() -> Iterator[list[str]]:
    """The messages transformers logs (its logger does not propagate to pytest's)."""
    found: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: found.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("transformers")
    logger.addHandler(handler)
    try:
        yield found
    finally:
        logger.removeHandler(handler)


def test_a_sequence_longer_than_the_model_warns_once_as_one_by_one(
    hf: ModuleType, sample_models: dict[str, Path], warnings_of_transformers: list[str]
) -> None:
    batch = ["ఒక", LONG[0], LONG[1]]
    for run in ("batch", "one by one"):
        tok = hf.BrahmicPuaTokenizer(sample_models["bpe"], model_max_length=64)
        if run == "batch":
            tok(batch)
        else:
            [tok(text) for text in batch]
    first, second = warnings_of_transformers
    assert first == second and first.startswith("Token indices sequence length is longer")
    assert f"({len(tok(LONG[0])['input_ids'])} > 64)" in first


def test_a_batch_of_chats_is_one_pass(
    hf: ModuleType, sample_models: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``apply_chat_template`` on several chats (which passes sanitize_control_tokens=False)
    takes the batch path as ``tok(texts)`` does, and gives each chat's ids as on its own."""
    tok = tokenizer(hf, str(sample_models["unigram"]), True, False)
    lines = sample_held_out("te")[:6]
    chats = [
        [{"role": "user", "content": a}, {"role": "assistant", "content": b}]
        for a, b in zip(lines[::2], lines[1::2], strict=True)
    ]
    template = hf.CHAT_TEMPLATE
    alone = [tok.apply_chat_template(c, chat_template=template, return_dict=False) for c in chats]

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("prepare_for_model called for a row of a batch")

    monkeypatch.setattr(tok, "prepare_for_model", refuse)
    together = tok.apply_chat_template(chats, chat_template=template, return_dict=False)
    assert together == alone
