"""BrahmicPuaTokenizer's ``return_offsets_mapping=True`` and the word and character maps of
its output (``word_ids()``, ``char_to_token()``...): characters of the caller's own string.

Offsets are the processor's (``encode(text, out_type="offset_mapping")``) for each stretch
between added tokens, moved to where the stretch is in the text; an added token's span is its
text. The oracles: the text itself (each token's span holds what the token stands for; the
spans tile the text), brahmic_pua.segment's clusters, and transformers' own ``legacy=False``
pipeline (tests/integrations/test_hf_text.py compares offsets with it on a plain model).
"""

from __future__ import annotations

import unicodedata
from functools import cache
from itertools import accumulate
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import sample_held_out
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import nasty_texts

from brahmic_pua.segment import segment

ADDED = ["<s>", "</s>", "<new1>", "<extra>"]
LINES = [line for line in sample_held_out("te") if line][:40]


def tokenizer(hf: ModuleType, model: Path, **options: Any) -> Any:
    tok: Any = hf.BrahmicPuaTokenizer(model, **options)
    tok.add_tokens(["<new1>"], special_tokens=True)
    tok.add_tokens(["<extra>"])
    return tok


def no_brackets(text: str) -> str:
    """Text that spells no added token."""
    return text.replace("<", "(").replace(">", ")")


@cache
def shared(hf: ModuleType, model: Path) -> Any:
    """One per model for the hypothesis tests (called hundreds of times); they do not change it."""
    return tokenizer(hf, model)


def spans_of(tok: Any, text: str) -> tuple[list[int], list[tuple[int, int]]]:
    encoded = tok(text, add_special_tokens=False, return_offsets_mapping=True)
    return encoded["input_ids"], [tuple(span) for span in encoded["offset_mapping"]]


with_added = st.lists(
    st.one_of(st.sampled_from([*ADDED, " ", "  "]), nasty_texts.map(no_brackets)), max_size=6
).map("".join)


@pytest.mark.parametrize("model_name", ["unigram", "bpe"])
@given(text=with_added)
def test_spans_tile_the_text_and_added_tokens_hold_their_text(
    hf: ModuleType, sample_models: dict[str, Path], model_name: str, text: str
) -> None:
    """Any text (literal PUA, ▁, joiners, controls, NFD, orphan marks) with added tokens:
    the spans run in order from 0 to the end, each where the last ended (the dummy ▁ of
    spm is empty), and the ids are those without offsets."""
    tok = shared(hf, sample_models[model_name])
    ids, spans = spans_of(tok, text)
    assert ids == tok(text, add_special_tokens=False)["input_ids"]
    assert len(spans) == len(ids)
    ends = [0] + [end for _, end in spans]
    assert [start for start, _ in spans] == ends[:-1]
    assert all(start <= end for start, end in spans)
    assert ends[-1] == len(text) or (not ids and not text)
    for id, (start, end) in zip(ids, spans, strict=True):
        token = tok.convert_ids_to_tokens(id)
        if token in ADDED:
            assert text[start:end] == token


#: Text the model has the clusters of (its held-out lines, their words in NFD too), with
#: spaces and added tokens between.
known = st.lists(
    st.one_of(
        st.sampled_from([*ADDED, " ", "  "]),
        st.sampled_from(LINES).flatmap(
            lambda line: st.sampled_from([line, unicodedata.normalize("NFD", line)])
        ),
    ),
    max_size=5,
).map("".join)


@pytest.mark.parametrize("model_name", ["unigram", "bpe"])
@given(text=known)
def test_each_span_is_what_its_token_stands_for_in_whole_clusters(
    hf: ModuleType, sample_models: dict[str, Path], model_name: str, text: str
) -> None:
    tok = shared(hf, sample_models[model_name])
    ids, spans = spans_of(tok, text)
    tokens = tok.convert_ids_to_tokens(ids)
    assume(not any(token.startswith("<0x") or token == "<unk>" for token in tokens))
    clusters = {0, *accumulate(map(len, segment(text)))}
    for token, (start, end) in zip(tokens, spans, strict=True):
        assert start in clusters and end in clusters, (token, text[start:end])
        if token in ADDED:
            continue
        shown = unicodedata.normalize("NFC", text[start:end]).replace(" ", "▁")
        # spm's dummy ▁ (a text that starts with a word) stands for no character
        assert token == shown or (start == 0 and token == "▁" + shown), (token, shown)


def test_special_tokens_padding_and_pairs_have_no_characters(
    hf: ModuleType, sample_models: dict[str, Path]
) -> None:
    tok = tokenizer(hf, sample_models["unigram"], add_eos_token=True, pad_token="</s>")
    first, second = LINES[0], LINES[1]
    alone = [spans_of(tok, line)[1] for line in (first, second)]
    pair = tok(first, second, return_offsets_mapping=True)  # <s> first </s> second </s>
    assert pair["offset_mapping"] == [(0, 0), *alone[0], (0, 0), *alone[1], (0, 0)]
    assert pair.sequence_ids() == [None, *[0] * len(alone[0]), None, *[1] * len(alone[1]), None]
    batch = tok([first, second], padding=True, return_offsets_mapping=True, return_tensors="np")
    assert batch["offset_mapping"].shape == (*batch["input_ids"].shape, 2)
    for row, spans, mask in zip(
        batch["offset_mapping"].tolist(), alone, batch["attention_mask"], strict=True
    ):
        assert [tuple(span) for span in row] == [(0, 0), *spans, (0, 0)] + [(0, 0)] * (
            len(mask) - sum(mask)
        )
    left = tok([first, second], padding=True, padding_side="left", return_offsets_mapping=True)
    short = min(range(2), key=lambda i: len(alone[i]))
    missing = len(left["input_ids"][short]) - len(alone[short]) - 2
    assert left["offset_mapping"][short][: missing + 1] == [(0, 0)] * (missing + 1)


def test_truncated_rows_keep_the_spans_of_their_tokens(
    hf: ModuleType, sample_models: dict[str, Path]
) -> None:
    tok = tokenizer(hf, sample_models["unigram"])
    line = LINES[2]
    ids, spans = spans_of(tok, line)
    right = tok(
        line,
        truncation=True,
        max_length=6,
        return_offsets_mapping=True,
        stride=2,
        return_overflowing_tokens=True,
    )
    assert right["input_ids"] == [tok.bos_token_id, *ids[:5]]
    assert right["offset_mapping"] == [(0, 0), *spans[:5]]
    assert right["overflowing_tokens"] == ids[3:]
    tok.truncation_side = "left"
    cut = tok(line, truncation=True, max_length=6, return_offsets_mapping=True)
    assert cut["input_ids"] == [tok.bos_token_id, *ids[-5:]]
    assert cut["offset_mapping"] == [(0, 0), *spans[-5:]]


def test_word_ids_of_given_words_and_of_a_text(
    hf: ModuleType, sample_models: dict[str, Path]
) -> None:
    tok = tokenizer(hf, sample_models["unigram"])
    words = LINES[3].split()[:5]
    given_words = tok(words, is_split_into_words=True, return_offsets_mapping=True)
    word_ids = given_words.word_ids()
    assert word_ids[0] is None  # <s>
    assert [w for w in word_ids if w is not None] == sorted(w for w in word_ids if w is not None)
    for index, word in enumerate(words):
        first, last = given_words.word_to_tokens(index)
        assert set(word_ids[first:last]) == {index}
        spans = given_words["offset_mapping"][first:last]
        assert spans[0][0] == 0 and spans[-1][1] == len(word)  # within the word, as fast ones
    text = " ".join(words[:3]) + " <new1> x"
    encoded = tok(text, return_offsets_mapping=True, add_special_tokens=False)
    tokens = encoded.tokens()
    assert tokens == tok.convert_ids_to_tokens(encoded["input_ids"])
    starts = [i for i, token in enumerate(tokens) if token.startswith("▁") or token == "<new1>"]
    word_of = encoded.word_ids()
    assert [word_of[i] for i in starts] == list(range(len(starts)))
    at = text.index("<new1>")
    token = encoded.char_to_token(at)
    assert tokens[token] == "<new1>" and encoded.token_to_chars(token) == (at, at + 6)
    assert encoded.char_to_word(at) == word_of[token]
    assert encoded.word_to_chars(0) == (0, len(words[0]))
    assert encoded.sequence_ids() == [0] * len(tokens)


@pytest.mark.parametrize("side", ["right", "left"])
def test_a_batch_maps_each_row_as_that_row_alone(
    hf: ModuleType, sample_models: dict[str, Path], side: str
) -> None:
    """A batch with offsets (a row at a time, through transformers) answers ``word_ids(i)``,
    ``char_to_token(i, c)``... for each row as the row encoded alone does, shifted by its
    padding: the rows' maps travel in ``BatchEncoding(encoding=..., n_sequences=...)``."""
    tok = tokenizer(hf, sample_models["unigram"], pad_token="</s>", padding_side=side)
    texts = [(LINES[4],), ("ఒక <new1> రెండు",), (LINES[5][:7],)]
    pairs = [(LINES[6], LINES[7][:9]), ("x", "<extra> y")]
    for rows in (texts, pairs):
        batch = tok(*map(list, zip(*rows, strict=True)), padding=True, return_offsets_mapping=True)
        assert batch.is_fast and batch.n_sequences == len(rows[0])
        for i, row in enumerate(rows):
            alone = tok(*row, return_offsets_mapping=True)
            missing = len(batch["input_ids"][i]) - len(alone["input_ids"])
            shift = missing if side == "left" else 0

            def padded(values: list[Any], pad: Any, missing: int = missing) -> list[Any]:
                return [pad] * missing + values if side == "left" else values + [pad] * missing

            assert batch.tokens(i) == padded(alone.tokens(), "</s>")
            assert batch.word_ids(i) == padded(alone.word_ids(), None)
            assert batch.sequence_ids(i) == padded(alone.sequence_ids(), None)
            for char in range(len(row[0])):
                token = alone.char_to_token(char)
                assert batch.char_to_token(i, char) == (None if token is None else token + shift)


def test_an_encoding_inside_a_row_is_no_row_of_the_batch(
    hf: ModuleType, sample_models: dict[str, Path]
) -> None:
    """A subclass that encodes text of its own while a row is prepared (its
    prepare_for_tokenization calls the tokenizer): that encoding's maps stay its own, and the
    batch still maps each of its rows (they joined the batch's, which then had more maps than
    rows and none)."""

    class Nested(hf.BrahmicPuaTokenizer):  # type: ignore[misc, name-defined]
        inside = False

        def prepare_for_tokenization(self, text: str, *args: Any, **kwargs: Any) -> Any:
            if not self.inside:  # once: the inner call prepares its own text too
                self.inside = True
                self("నీరు", return_offsets_mapping=True)
                self.inside = False
            return super().prepare_for_tokenization(text, *args, **kwargs)

    tok = Nested(str(sample_models["unigram"]), pad_token="</s>")
    plain = tokenizer(hf, sample_models["unigram"], pad_token="</s>")
    texts, pairs = ["క్రాంతి వచ్చాడు", "ఒక"], ["ఇది", "రెండు"]
    batch = tok(texts, pairs, padding=True, return_offsets_mapping=True)
    expected = plain(texts, pairs, padding=True, return_offsets_mapping=True)
    assert batch["input_ids"] == expected["input_ids"]
    for i in range(len(texts)):
        assert batch.word_ids(i) == expected.word_ids(i)


def test_without_offsets_the_output_is_a_slow_tokenizers(
    hf: ModuleType, sample_models: dict[str, Path]
) -> None:
    """No offsets asked for, no maps: transformers' own answer, not a half-made one."""
    tok = tokenizer(hf, sample_models["unigram"])
    encoded = tok(LINES[0])
    assert "offset_mapping" not in encoded
    with pytest.raises(ValueError, match="Python based tokenizers"):
        encoded.word_ids()
