"""BrahmicPuaTokenizer around added and special tokens written in the text: transformers'
``legacy=False`` rule (brahmic_pua/integrations/hf_text.py), ids and text back.

The oracle for the ids is transformers' own ``legacy=False`` pipeline (its converter from an
spm model to a ``tokenizers`` pipeline, as LlamaTokenizer builds it), on a plain spm model that
keeps its spaces as brahmic_pua models do: brahmic_pua's own models cannot be converted (the
``tokenizers`` normalizer is not spm's), and on a plain model BrahmicPuaTokenizer runs stock
spm, so the rule is what is compared; but for a text that starts with a space, where spm's
dummy ``▁`` comes first (the pipeline leaves it out, and the space with it). On brahmic_pua
models: the tokens of the examples, in pieces stock spm gives, and the text back under
hypothesis. Where the text is cut at added tokens: transformers' own cut for special tokens,
and a brute-force search on the segmenter's clusters for the others.
"""

from __future__ import annotations

import copy as copy_module
import re
import unicodedata
from functools import cache
from itertools import accumulate
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import sentencepiece as stock
from conftest import sample_held_out, sample_training
from hypothesis import assume, example, given
from hypothesis import strategies as st
from strategies import texts

import brahmic_pua
from brahmic_pua.integrations.hf_text import cut, trie_tokens
from brahmic_pua.model.model_proto import model_pb2
from brahmic_pua.segment import segment

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
    # A text that starts with a space: spm's dummy ▁ (a piece of its own, spanning nothing),
    # then the pipeline's tokens, whose first ▁ is the space's.
    lead = int(text.startswith(" "))
    assert encoded["input_ids"] == [tok.convert_tokens_to_ids("▁")] * lead + want.ids
    assert tok.convert_ids_to_tokens(encoded["input_ids"]) == ["▁"] * lead + want.tokens
    assert encoded["offset_mapping"][:lead] == [(0, 0)] * lead
    for skip in (False, True):
        assert tok.decode(want.ids, skip_special_tokens=skip) == fast.decode(
            want.ids, skip_special_tokens=skip
        )
    # transformers gives spm's dummy ▁ the first character's span; spm, (0, 0): it has none
    dummy = 1 if want.tokens[:1] == ["▁"] and not lead else 0
    # A byte piece's span is stock spm's (tests/runtime/test_offsets.py: the character on its last
    # byte); transformers' fast pipeline gives a run of byte pieces other spans.
    spans = [
        (ours, theirs)
        for ours, theirs, token in zip(
            encoded["offset_mapping"][lead + dummy :],
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


def test_a_text_that_starts_with_a_space_is_encoded_as_spm_encodes_it(
    hf: ModuleType, sample_models: dict[str, Path]
) -> None:
    """spm's dummy ``▁`` and then the space's own: the space comes back from decode (a text
    without added tokens gets the processor's ids, tests/integrations/test_hf.py)."""
    model = sample_models["unigram"]
    tok = tokenizer(hf, model)
    for text in (" ఇది ఒక", "  ఇది", "\tఇది", " ", " ఇది <new1> ఒక"):
        ids = tok(text, add_special_tokens=False)["input_ids"]
        start = text.split("<")[0]
        assert tok.convert_ids_to_tokens(ids)[: len(pieces(model, start))] == pieces(model, start)
        assert tok.decode(ids) == text
    words = tok(["ఇది", "ఒక"], is_split_into_words=True, add_special_tokens=False)
    assert tok.convert_ids_to_tokens(words["input_ids"]) == pieces(model, " ఇది ఒక")


@pytest.mark.parametrize("model_name", ["unigram", "bpe"])
@given(
    words=st.lists(
        st.one_of(
            st.sampled_from(WORDS),
            texts.map(lambda text: "".join(text.replace("<", "(").split())).filter(bool),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_pretokenized_words_are_the_text_of_a_space_before_each(
    hf: ModuleType, sample_models: dict[str, Path], model_name: str, words: list[str]
) -> None:
    """As transformers reads words (its tokenizer suite compares them): ``" " + "
    ".join(words)``, whose ids are stock spm's; each word's offsets within the word."""
    model = sample_models[model_name]
    tok = tokenizer(hf, model)
    sp = brahmic_pua.SentencePieceProcessor(model_file=model)
    text = " " + " ".join(words)
    encoded = tok(words, is_split_into_words=True, return_offsets_mapping=True)
    assert encoded["input_ids"] == [sp.bos_id(), *sp.encode(text)]
    assert tok.decode(encoded["input_ids"], skip_special_tokens=True) == sp.decode(sp.encode(text))
    for index, word in enumerate(words):
        found = encoded.word_to_tokens(index)
        assert found is not None
        spans = encoded["offset_mapping"][found[0] : found[1]]
        assert all(0 <= start <= end <= len(word) for start, end in spans)


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
    written."""
    return "".join(part if part in keep else unicodedata.normalize("NFC", part) for part in parts)


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
    back = expected(kept, {EXTRA})
    if parts[:1] and parts[0] in SPECIALS:  # "<s> ఒక", <s> skipped: ఒక's ▁ reads as spm's dummy
        back = back.removeprefix(" ")
    assert tok.decode(ids, skip_special_tokens=True) == back
    # as stock spm
    sp = brahmic_pua.SentencePieceProcessor(model_file=sample_models[model_name])
    spelled = tok(text, add_special_tokens=False, split_special_tokens=True)["input_ids"]
    assert spelled == sp.encode(text)


def runs(items: list[tuple[str, bool]]) -> list[str]:
    """Added tokens as they are, each run of text between them joined."""
    out: list[str] = []
    for item, added in items:
        if not added and out and out[-1][:1] == "t":
            out[-1] += item
        else:
            out.append(("a" if added else "t") + item)
    return out


#: Stretches that start a cluster of their own after a token's ``>`` (not a mark that would
#: join it: there a token that is not special is not cut out, tested below).
apart = stretches.filter(lambda stretch: segment(">" + stretch)[0] == ">")


@given(
    parts=st.lists(st.one_of(st.sampled_from(["<l>", "<r>", "<w>", "<n>"]), apart), max_size=6),
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


def transformers_cut(tok: Any, text: str) -> list[str]:
    """The added tokens and stretches transformers' ``PreTrainedTokenizer.tokenize`` cuts
    ``text`` into (on a copy whose ``_tokenize`` hands back what it is given)."""
    from transformers import PreTrainedTokenizer

    copy = copy_module.copy(tok)
    copy._tokenize = lambda stretch, **kwargs: [stretch]
    found: list[str] = PreTrainedTokenizer.tokenize(copy, text)
    return found


def our_cut(tok: Any, text: str, added: set[int]) -> list[tuple[str, bool]]:
    """Our tokens, each as its characters in ``text`` and whether it is one of ``added``."""
    encoded = tok(text, add_special_tokens=False, return_offsets_mapping=True)
    return [
        (text[start:end], id in added)
        for id, (start, end) in zip(encoded["input_ids"], encoded["offset_mapping"], strict=True)
    ]


#: Added tokens that are not special, none a piece of the sample Unigram model: ``భారత``
#: (in ``భారతి`` and ``భారతం`` it ends inside the cluster ``తి``, ``తం``), ``రతి`` (the end of
#: ``భారతి``), ``మహా``, a lone mark ``ం`` (a token only where it is an orphan cluster), ``<x>``.
PLAIN = ["భారత", "రతి", "మహా", "ం", "<x>"]
#: Special tokens: ``క్ర`` ends inside the cluster ``రాం`` of ``క్రాంతి``.
SPECIAL = ["<new1>", "క్ర"]
#: What texts are made of: the tokens, words and marks around them, spaces, nasty text.
CLUSTER_PARTS = st.lists(
    st.one_of(
        st.sampled_from([*PLAIN, *SPECIAL, "ి", "ా", "తి", "ం", "భా", "దేశం", "ంతి", "ాంతి"]),
        st.sampled_from([" ", "  ", "\t", "\u200d", "\u200c", "్", "\u0301"]),
        stretches,
    ),
    max_size=8,
)


@cache
def cluster_tokenizer(hf: ModuleType, model: Path) -> tuple[Any, dict[str, int]]:
    tok: Any = hf.BrahmicPuaTokenizer(model)
    assert tok.add_tokens(PLAIN) + tok.add_tokens(SPECIAL, special_tokens=True) == 7  # all new
    return tok, {token: tok.convert_tokens_to_ids(token) for token in PLAIN + SPECIAL}


def leftmost_longest(text: str, plain: list[str], special: list[str]) -> list[tuple[int, int]]:
    """Brute force: from the left, at each position the longest token that matches there, a
    special one anywhere, any other only from a cluster boundary to a cluster boundary."""
    boundaries = {0, *accumulate(map(len, segment(text)))}
    found, at = [], 0
    while at < len(text):
        fits = [token for token in special if text.startswith(token, at)]
        if at in boundaries:
            fits += [
                token
                for token in plain
                if text.startswith(token, at) and at + len(token) in boundaries
            ]
        if fits:
            end = at + max(map(len, fits))
            found.append((at, end))
            at = end
        else:
            at += 1
    return found


def token_spans(pieces: list[tuple[str, bool]]) -> list[tuple[int, int]]:
    """Where the pieces of a cut that are matches (flagged) stand in the text."""
    spans, at = [], 0
    for piece, matched in pieces:
        if matched:
            spans.append((at, at + len(piece)))
        at += len(piece)
    return spans


LETTERS = st.sampled_from(["క", "ా", "ి", "్", "ర", "ం", "a", " ", "\u200d"])


@given(
    tokens=st.lists(st.text(LETTERS, min_size=1, max_size=4), min_size=1, max_size=5),
    specials=st.lists(st.booleans(), min_size=5, max_size=5),
    text=st.text(LETTERS, max_size=16),
)
def test_the_cut_is_the_leftmost_longest_allowed_match(
    hf: ModuleType, tokens: list[str], specials: list[bool], text: str
) -> None:
    """hf_text.cut, on any tokens (overlapping, prefixes of each other, marks, joiners),
    against the brute-force search, where transformers' own trie is that search with every
    token allowed anywhere (its lookahead can resume a partial match that failed, a cut no
    search gives: kept as it is, not checked here)."""
    from transformers.tokenization_python import Trie

    special = sorted({token for token, flag in zip(tokens, specials, strict=False) if flag})
    plain = sorted(set(tokens) - set(special))
    trie = Trie(tokens)
    theirs = [(piece, piece in tokens) for piece in trie.split(text)]
    assume(token_spans(theirs) == leftmost_longest(text, [], tokens))
    found = cut(text, trie, lambda: special, "fixtoken")
    assert "".join(piece for piece, _ in found) == text
    assert token_spans(found) == leftmost_longest(text, plain, special)


@given(
    tokens=st.lists(st.text(LETTERS, min_size=1, max_size=4), max_size=6), more=st.integers(0, 5)
)
def test_trie_tokens_are_the_tokens_added_to_the_trie(
    hf: ModuleType, tokens: list[str], more: int
) -> None:
    """hf_text.trie_tokens reads every token back off transformers' ``Trie.data``, prefixes
    of each other and marks, joiners and spaces included; the oracle is what was added."""
    from transformers.tokenization_python import Trie

    trie = Trie(tokens[:more])
    for token in tokens[more:]:
        trie.add(token)
    assert trie_tokens(trie) == set(tokens)


@given(parts=CLUSTER_PARTS)
@example(parts=["భారత", "ి"])  # the token ends inside the cluster తి
@example(parts=["క్ర", "ం"])  # ం after the special క్ర: alone, yet text (inside రం)
def test_an_added_token_is_cut_out_only_on_cluster_boundaries(
    hf: ModuleType, sample_models: dict[str, Path], parts: list[str]
) -> None:
    """Guarantee 2 for added tokens: one that is not special is that token only where it
    starts and ends on a cluster boundary of the text (brahmic_pua.segment's), else its
    characters are text of the words around them; special tokens match anywhere."""
    tok, ids = cluster_tokenizer(hf, sample_models["unigram"])
    text = "".join(parts)
    encoded = tok(text, add_special_tokens=False, return_offsets_mapping=True)
    spans = [
        tuple(span)
        for id, span in zip(encoded["input_ids"], encoded["offset_mapping"], strict=True)
        if id in ids.values()
    ]
    found = leftmost_longest(text, PLAIN, SPECIAL)
    assert spans == found
    # the text back: the tokens as written, each stretch between them normalized on its own
    back, at = [], 0
    for start, end in found:
        back += [unicodedata.normalize("NFC", text[at:start]), text[start:end]]
        at = end
    assert tok.decode(encoded["input_ids"]) == "".join(back) + unicodedata.normalize(
        "NFC", text[at:]
    )


@pytest.mark.parametrize("model_name", ["unigram", "bpe"])
def test_an_added_token_inside_a_cluster_leaves_the_word_to_the_model(
    hf: ModuleType, sample_models: dict[str, Path], model_name: str
) -> None:
    """``భారత`` added: ``భారతి`` (``త`` + the vowel sign ``ి``) is the model's pieces of the
    word, not ``భారత`` and the vowel sign in bytes; where ``భారత`` is whole, it is the token."""
    model = sample_models[model_name]
    tok = hf.BrahmicPuaTokenizer(model)
    tok.add_tokens(["భారత"])
    for word in ("భారతి", "మహాభారతం", " భారతి"):
        assert tok.tokenize(word) == pieces(model, word)
        assert tok.decode(tok(word)["input_ids"], skip_special_tokens=True) == word
    assert tok.tokenize("భారత దేశం")[0] == "భారత"
    assert tok.tokenize("ఇది భారతదేశం")[len(pieces(model, "ఇది "))] == "భారత"


@given(
    parts=st.lists(
        st.one_of(st.sampled_from(["<new1>", "క్ర", "భారత", "ి", "ాంతి", "\u0301", " "]), stretches),
        max_size=6,
    )
)
def test_special_tokens_are_cut_out_anywhere_as_transformers_cuts_them(
    hf: ModuleType, sample_models: dict[str, Path], parts: list[str]
) -> None:
    """Special tokens match inside a cluster too (``<s>``, ``</s>``, tokens added as
    special): where the text is cut is transformers' own cut."""
    tok = special_tokenizer(hf, sample_models["unigram"])
    text = "".join(parts)
    added = {tok.convert_tokens_to_ids(token) for token in ["<new1>", "క్ర", "భారత"]}
    added |= set(tok.all_special_ids)
    theirs = [(piece, piece in tok.added_tokens_encoder) for piece in transformers_cut(tok, text)]
    assert runs(our_cut(tok, text, added)) == runs(theirs)


@cache
def special_tokenizer(hf: ModuleType, model: Path) -> Any:
    tok: Any = hf.BrahmicPuaTokenizer(model)
    tok.add_tokens(["<new1>", "క్ర", "భారత"], special_tokens=True)
    return tok
