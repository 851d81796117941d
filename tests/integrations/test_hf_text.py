"""BrahmicPuaTokenizer around added and special tokens written in the text: transformers'
``legacy=False`` rule (brahmic_pua/integrations/hf_text.py), ids and text back.

The oracle for the ids is transformers' own ``legacy=False`` pipeline (its converter from an
spm model to a ``tokenizers`` pipeline, as LlamaTokenizer builds it), on a plain spm model that
keeps its spaces as brahmic_pua models do: brahmic_pua's own models cannot be converted (the
``tokenizers`` normalizer is not spm's), and on a plain model BrahmicPuaTokenizer runs stock
spm, so the rule is what is compared. On brahmic_pua models: the tokens of the examples, in
pieces stock spm gives, and the text back under hypothesis.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import sentencepiece as stock
from conftest import sample_held_out, sample_training
from hypothesis import given
from hypothesis import strategies as st
from strategies import texts

import brahmic_pua
from brahmic_pua.model.proto import model_pb2

#: Special tokens: the model's <s>, </s> and <unk>, and one added as special.
SPECIALS = ["<s>", "</s>", "<unk>", "<new1>"]
#: An added token that is not special: kept by skip_special_tokens.
EXTRA = "<extra>"
WORDS = [*" ".join(sample_held_out("te")).split(" ")[:400], "Hello", "world", "42", "a.b"]


@cache
def tokenizer(hf: ModuleType, model: Path | str) -> Any:
    """One per model (hypothesis calls a test hundreds of times); the tests do not change it."""
    tok: Any = hf.BrahmicPuaTokenizer(model)
    tok.add_tokens(["<new1>"], special_tokens=True)
    tok.add_tokens([EXTRA])
    return tok


@pytest.fixture(scope="module", params=["unigram", "bpe"])
def spaced(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A plain spm model that keeps every space (``remove_extra_whitespaces=False``) and
    normalizes nothing, as transformers' converter reproduces it."""
    prefix = tmp_path_factory.mktemp("spaced") / str(request.param)
    stock.SentencePieceTrainer.train(
        sentence_iterator=iter(sample_training("te")),
        model_prefix=str(prefix),
        vocab_size=1500,
        model_type=request.param,
        remove_extra_whitespaces=False,
        normalization_rule_name="identity",
        byte_fallback=True,
        minloglevel=2,
    )
    return f"{prefix}.model"


BYTE_PIECE = re.compile(r"<0x[0-9A-F]{2}>")


@cache
def transformers_legacy_false(model: str) -> Any:
    """transformers' fast pipeline for ``model`` with ``legacy=False``, the specials added."""
    from tokenizers import AddedToken
    from transformers.convert_slow_tokenizer import SpmConverter

    proto = model_pb2.ModelProto.FromString(Path(model).read_bytes())
    pieces = proto.pieces
    bpe = proto.trainer_spec.model_type == 2
    vocab: Any = (
        {p.piece: i for i, p in enumerate(pieces)} if bpe else [(p.piece, p.score) for p in pieces]
    )
    fast = SpmConverter.build_tokenizer_from_spm_proto(proto, vocab, legacy=False)
    fast.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in SPECIALS])
    fast.add_tokens([AddedToken(EXTRA, special=False, normalized=False)])
    return fast


#: Texts of words, runs of spaces and special tokens, in any order.
token_texts = st.lists(
    st.one_of(
        st.sampled_from(SPECIALS),
        st.sampled_from([" ", "  ", "   "]),
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join),
    ),
    max_size=7,
).map("".join)


@given(text=token_texts)
def test_ids_and_text_are_transformers_legacy_false(hf: ModuleType, spaced: str, text: str) -> None:
    tok, fast = tokenizer(hf, spaced), transformers_legacy_false(spaced)
    encoded = tok(text, add_special_tokens=False, return_offsets_mapping=True)
    want = fast.encode(text)
    assert encoded["input_ids"] == want.ids
    assert tok.convert_ids_to_tokens(encoded["input_ids"]) == want.tokens
    for skip in (False, True):
        assert tok.decode(want.ids, skip_special_tokens=skip) == fast.decode(
            want.ids, skip_special_tokens=skip
        )
    # transformers gives spm's dummy ▁ the first character's span; spm, (0, 0): it has none
    dummy = 1 if want.tokens[:1] == ["▁"] and not text.startswith(" ") else 0
    # A byte piece's span is stock spm's (tests/runtime/test_offsets.py: the character on its last
    # byte); transformers' fast pipeline gives a run of byte pieces other spans.
    spans = [
        (ours, theirs)
        for ours, theirs, token in zip(
            encoded["offset_mapping"][dummy:],
            want.offsets[dummy:],
            want.tokens[dummy:],
            strict=True,
        )
        if not BYTE_PIECE.fullmatch(token)
    ]
    assert [ours for ours, _ in spans] == [theirs for _, theirs in spans]


# -- on a brahmic_pua model -------------------------------------------------------------------


def pieces(model: Path, text: str) -> list[str]:
    """Stock spm's pieces of a text, shown as text."""
    found: list[str] = brahmic_pua.SentencePieceProcessor(model_file=model).encode(
        text, out_type=str
    )
    return found


#: (text, its tokens): a word ``w`` is ``pieces(w)``, the pieces spm gives the text ``w``
#: (``▁`` + the word); a space before a special token is ``▁``; the text back is the text.
EXAMPLES = [
    ("ఇది <new1> ఒక", ["ఇది", "▁", "<new1>", "ఒక"]),
    ("ఇది <new1>", ["ఇది", "▁", "<new1>"]),
    ("<new1> ఇది", ["<new1>", "ఇది"]),
    ("<new1><new1>", ["<new1>", "<new1>"]),
    ("<new1> <new1>", ["<new1>", "▁", "<new1>"]),
    ("ఇది  <new1>  ఒక", ["ఇది", "▁", "▁", "<new1>", "▁", "ఒక"]),
    ("ఇది </s><s> ఒక", ["ఇది", "▁", "</s>", "<s>", "ఒక"]),
    ("ఇది <extra> ఒక", ["ఇది", "▁", EXTRA, "ఒక"]),
    ("<s>", ["<s>"]),
    ("", []),
]


@pytest.mark.parametrize(("text", "shape"), EXAMPLES)
def test_one_space_beside_a_special_token_is_one_piece(
    hf: ModuleType, sample_models: dict[str, Path], text: str, shape: list[str]
) -> None:
    model = sample_models["unigram"]
    tok = tokenizer(hf, model)
    literal = {*SPECIALS, EXTRA, "▁"}
    want = [
        piece for part in shape for piece in ([part] if part in literal else pieces(model, part))
    ]
    ids = tok(text, add_special_tokens=False)["input_ids"]
    assert tok.convert_ids_to_tokens(ids) == want
    assert ids == tok.convert_tokens_to_ids(want)
    assert tok.decode(ids) == text


def test_a_word_right_after_a_special_token_has_no_space(
    hf: ModuleType, sample_models: dict[str, Path]
) -> None:
    model = sample_models["unigram"]
    tok = tokenizer(hf, model)
    ids = tok("ఇది<new1>ఒక", add_special_tokens=False)["input_ids"]
    tokens = tok.convert_ids_to_tokens(ids)
    assert tokens[: tokens.index("<new1>") + 1] == [*pieces(model, "ఇది"), "<new1>"]
    after = tokens[tokens.index("<new1>") + 1 :]
    assert "".join(after) == "ఒక" and not any("▁" in token for token in after)
    assert tok.decode(ids) == "ఇది<new1>ఒక"


def test_a_space_that_starts_the_text_is_its_first_words_prefix(
    hf: ModuleType, sample_models: dict[str, Path]
) -> None:
    """As transformers' legacy=False: ``" w"`` is the tokens of the word ``w`` (what
    pretokenized words give), so that space is not given back."""
    model = sample_models["unigram"]
    tok = tokenizer(hf, model)
    for text in (" ఇది ఒక", "  ఇది"):
        ids = tok(text, add_special_tokens=False)["input_ids"]
        assert tok.convert_ids_to_tokens(ids) == (["▁"] if text.startswith("  ") else []) + (
            pieces(model, text.strip())
        )
        assert tok.decode(ids) == text[1:]
    words = tok(["ఇది", "ఒక"], is_split_into_words=True, add_special_tokens=False)
    assert words["input_ids"] == tok(" ఇది ఒక", add_special_tokens=False)["input_ids"]


def test_bos_added_before_a_text_decodes_as_written_before_it(
    hf: ModuleType, sample_models: dict[str, Path]
) -> None:
    """``<s>`` + the ids of ``w`` are also the ids of the text ``"<s> w"``: decoded with the
    space (as transformers' legacy=False tokenizers do), skipped without it."""
    tok = tokenizer(hf, sample_models["unigram"])
    ids = tok("ఇది ఒక")["input_ids"]
    assert ids == tok("<s> ఇది ఒక", add_special_tokens=False)["input_ids"]
    assert tok.decode(ids) == "<s> ఇది ఒక"
    assert tok.decode(ids, skip_special_tokens=True) == "ఇది ఒక"


#: Stretches of nasty text (no < or >, which would spell tokens) between added tokens.
stretches = texts.map(lambda text: text.replace("<", "(").replace(">", ")"))
with_tokens = st.lists(st.one_of(st.sampled_from([*SPECIALS, EXTRA]), stretches), max_size=6)


def expected(parts: list[str], keep: set[str]) -> str:
    """The text back: each stretch normalized (NFC) on its own, the tokens in ``keep`` as
    written; a space that starts it is the first piece's prefix, not given back."""
    text = "".join(part if part in keep else unicodedata.normalize("NFC", part) for part in parts)
    return text[1:] if text.startswith(" ") else text


@pytest.mark.parametrize("model_name", ["unigram", "bpe"])
@given(parts=with_tokens)
def test_text_with_added_tokens_comes_back(
    hf: ModuleType, sample_models: dict[str, Path], model_name: str, parts: list[str]
) -> None:
    tok = tokenizer(hf, sample_models[model_name])
    parts = [part for part in parts if part]
    text = "".join(parts)
    ids = tok(text, add_special_tokens=False)["input_ids"]
    tokens = tok.convert_ids_to_tokens(ids)
    assert ids.count(tok.convert_tokens_to_ids("<new1>")) == parts.count("<new1>")
    everything = {*SPECIALS, EXTRA}
    assert tok.decode(ids) == expected(parts, everything)
    assert tok.convert_tokens_to_string(tokens) == expected(parts, everything)
    kept = [part for part in parts if part not in SPECIALS]
    assert tok.decode(ids, skip_special_tokens=True) == expected(kept, {EXTRA})
    # as stock spm, but for a space that starts the text: the ▁ of what follows it
    sp = brahmic_pua.SentencePieceProcessor(model_file=sample_models[model_name])
    spelled = tok(text, add_special_tokens=False, split_special_tokens=True)["input_ids"]
    lead = text.startswith(" ")
    assert spelled == (sp.encode(text[lead:]) if text != " " else [sp.piece_to_id("▁")])


def runs(items: list[tuple[str, bool]]) -> list[str]:
    """Added tokens as they are, each run of text between them joined."""
    out: list[str] = []
    for item, added in items:
        if not added and out and out[-1][:1] == "t":
            out[-1] += item
        else:
            out.append(("a" if added else "t") + item)
    return out


@given(
    parts=st.lists(st.one_of(st.sampled_from(["<l>", "<r>", "<w>", "<n>"]), stretches), max_size=6),
)
def test_text_is_cut_where_transformers_cuts_it(
    hf: ModuleType, sample_models: dict[str, Path], parts: list[str]
) -> None:
    """Added tokens that strip the whitespace beside them or stand only as a whole word
    (``lstrip``, ``rstrip``, ``single_word``): the added tokens and the text between them are
    the ones transformers' ``PreTrainedTokenizer.tokenize`` finds (its ``_tokenize`` made to
    hand back what it is given); ours are read from the offsets."""
    from transformers import AddedToken, PreTrainedTokenizer

    tok = hf.BrahmicPuaTokenizer(sample_models["unigram"])
    added = ["<l>", "<r>", "<w>", "<n>"]
    tok.add_tokens(
        [
            AddedToken("<l>", lstrip=True),
            AddedToken("<r>", rstrip=True),
            AddedToken("<w>", single_word=True),
            AddedToken("<n>", special=True),
        ]
    )
    text = "".join(parts)
    encoded = tok(text, add_special_tokens=False, return_offsets_mapping=True)
    tokens = tok.convert_ids_to_tokens(encoded["input_ids"])
    ours = [
        (text[start:end], token in added)
        for token, (start, end) in zip(tokens, encoded["offset_mapping"], strict=True)
    ]
    tok._tokenize = lambda stretch, **kwargs: [stretch]
    theirs = [(t, t in added) for t in PreTrainedTokenizer.tokenize(tok, text)]
    assert runs(ours) == runs(theirs)
