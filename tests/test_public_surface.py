"""The top level of ``brahmic_pua`` is a deliberate surface: sentencepiece's module-level names
(so ``import brahmic_pua as spm`` is a drop-in) and a short list of brahmic_pua's own entry
points, nothing else; and the drop-in ``SentencePieceNormalizer`` gives text, not PUA codes.
"""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys
import types
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as stock
from conftest import examples, sample_held_out, sample_training, slow, with_words
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import texts

import brahmic_pua
import brahmic_pua as spm
from brahmic_pua.codec.layout import is_private_use
from brahmic_pua.trainer import train_model

#: sentencepiece's module-level names the drop-in promises: all of 0.2.3's.
SENTENCEPIECE_NAMES = {
    "ConvertToFlatbuffer",
    "convert_to_flatbuffer",
    "SentencePieceNormalizer",
    "SentencePieceProcessor",
    "SentencePieceTrainer",
    "SetDataDir",
    "SetMinLogLevel",
    "SetNBestTimeout",
    "SetRandomGeneratorSeed",
    "ThreadPool",
    "set_data_dir",
    "set_min_log_level",
    "set_nbest_timeout",
    "set_random_generator_seed",
}
#: brahmic_pua's own entry points, as the module docstring lists them.
OWN_NAMES = {
    "POLICIES",
    "SCRIPT_NAMES",
    "CodecFileError",
    "FoldingTable",
    "ModelFileError",
    "PUACodec",
    "normalize",
    "segment",
    "validate_folding_rules",
}
#: Names that left the top level, and the package each is imported from.
MOVED = {
    "CharClass": "brahmic_pua.orthography",
    "can_follow": "brahmic_pua.orthography",
    "classify": "brahmic_pua.orthography",
    "combine": "brahmic_pua.orthography",
    "fix_token": "brahmic_pua.orthography",
    "is_valid_token": "brahmic_pua.orthography",
    "UNICODE_VERSION": "brahmic_pua.orthography",
    "asr_normalize": "brahmic_pua.segment",
}
#: Names brahmic_pua implements itself; every other drop-in name is stock's own object.
OWN_IMPLEMENTATIONS = {
    "ConvertToFlatbuffer",
    "convert_to_flatbuffer",
    "SentencePieceNormalizer",
    "SentencePieceProcessor",
    "SentencePieceTrainer",
}

HELD_OUT = [unicodedata.normalize("NFC", line) for line in sample_held_out("te")[:30] if line]


# -- the surface ------------------------------------------------------------------------------


def test_all_is_exactly_the_documented_list() -> None:
    assert set(brahmic_pua.__all__) == SENTENCEPIECE_NAMES | OWN_NAMES
    assert len(brahmic_pua.__all__) == len(set(brahmic_pua.__all__))
    doc = brahmic_pua.__doc__ or ""
    for name in brahmic_pua.__all__:
        assert f"``{name}``" in doc, f"{name} is exported but not documented"
    namespace: dict[str, object] = {}
    exec("from brahmic_pua import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(brahmic_pua.__all__)


def test_every_promised_sentencepiece_name_is_here() -> None:
    """Every public module-level name of the installed sentencepiece (its imported modules
    aside) is promised or knowingly left out: a new one fails here until it is decided."""
    stock_names = {
        name
        for name, value in vars(stock).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert stock_names == SENTENCEPIECE_NAMES
    for name in SENTENCEPIECE_NAMES:
        ours = getattr(spm, name)
        if name in OWN_IMPLEMENTATIONS:
            assert ours is not getattr(stock, name)
        else:  # state of the C++ library both modules share: the same object, not a copy
            assert ours is getattr(stock, name), name


def test_set_data_dir_is_stocks() -> None:
    assert spm.set_data_dir is stock.set_data_dir
    assert spm.SetDataDir is stock.SetDataDir


@pytest.mark.parametrize("name", sorted(MOVED))
def test_moved_names_live_in_their_packages(name: str) -> None:
    assert not hasattr(brahmic_pua, name), f"{name} should not be top-level"
    assert name not in brahmic_pua.__all__
    module = importlib.import_module(MOVED[name])
    assert hasattr(module, name)
    assert name in module.__all__


# -- SentencePieceNormalizer --------------------------------------------------------------------


@pytest.fixture(scope="module")
def escaped_space_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A brahmic_pua model on Telugu, with a few literal ▁ in the text (an escaped literal)."""
    lines = with_words(sample_training("te"), "▁", 0.05, 0)
    prefix = tmp_path_factory.mktemp("brahmic") / "b"
    train_model(sentence_iterator=iter(lines), model_prefix=str(prefix), vocab_size=1000)
    return f"{prefix}.model"


PLAIN_TEXTS = [*sample_held_out("hi")[:10], "  a  b\u3000c  ", "ＡＢＣ ☃", ""]
FLAGS = [
    {},
    {"add_dummy_prefix": False},
    {"escape_whitespaces": False, "remove_extra_whitespaces": False},
]


@slow  # trains a plain model per option
@pytest.mark.parametrize("flags", FLAGS)
def test_normalizer_is_stock_on_a_plain_model(
    plain_hindi_model: str, flags: dict[str, Any]
) -> None:
    ours = spm.SentencePieceNormalizer(model_file=plain_hindi_model, **flags)
    theirs = stock.SentencePieceNormalizer(model_file=plain_hindi_model, **flags)
    assert not ours.is_brahmic
    assert ours.normalize(PLAIN_TEXTS) == theirs.normalize(PLAIN_TEXTS)
    for text in PLAIN_TEXTS:
        assert ours.Normalize(text) == theirs.Normalize(text)
        assert ours.normalize(text.encode()) == theirs.normalize(text.encode())
        assert ours.normalize(text, with_offsets=True) == theirs.normalize(text, True)
    assert ours.decompile() == theirs.Decompile()
    assert ours.serialized_model_proto() == theirs.serialized_model_proto()
    assert ours.serialized_normalizer_spec() == theirs.serialized_normalizer_spec()
    again = pickle.loads(pickle.dumps(ours))
    assert again.normalize(PLAIN_TEXTS) == theirs.normalize(PLAIN_TEXTS)


def test_normalizer_other_sources_are_stocks() -> None:
    ours = spm.SentencePieceNormalizer(rule_name="nfkc_cf")
    theirs = stock.SentencePieceNormalizer(rule_name="nfkc_cf")
    assert ours.normalize(PLAIN_TEXTS) == theirs.normalize(PLAIN_TEXTS)
    rules = [("ab", "x"), ("c", "yz")]
    ours = spm.SentencePieceNormalizer(norm_map=rules, escape_whitespaces=False)
    theirs = stock.SentencePieceNormalizer(norm_map=rules, escape_whitespaces=False)
    assert ours.normalize("abc abc") == theirs.normalize("abc abc")
    with pytest.raises(ValueError, match="no model is specified"):
        spm.SentencePieceNormalizer()


def test_stock_normalizer_gives_pua_codes_on_a_brahmic_model(escaped_space_model: str) -> None:
    """Why brahmic_pua has its own: stock's, on a brahmic model, returns Private Use codes."""
    theirs = stock.SentencePieceNormalizer(model_file=escaped_space_model).normalize(HELD_OUT[0])
    ours = spm.SentencePieceNormalizer(model_file=escaped_space_model).normalize(HELD_OUT[0])
    assert any(map(is_private_use, theirs))
    assert not any(map(is_private_use, ours))


def test_normalizer_is_decode_of_encode_on_a_brahmic_model(escaped_space_model: str) -> None:
    """Without ▁ and the dummy prefix, the normalized text is exactly what the processor
    gives back: N(s) = decode(encode(s)), on held-out text, literal ▁ and odd spacing too."""
    processor = spm.SentencePieceProcessor(model_file=escaped_space_model)
    normalizer = spm.SentencePieceNormalizer(
        model_file=escaped_space_model, add_dummy_prefix=False, escape_whitespaces=False
    )
    assert normalizer.is_brahmic
    texts = [*HELD_OUT, "  ఒక▁ వాక్యం  ▁", "abc ☃ 123", ""]
    decoded = processor.decode(processor.encode(texts))
    assert normalizer.normalize(texts) == decoded
    for text, expected in zip(texts, decoded, strict=True):
        assert normalizer.Normalize(text) == expected
        assert normalizer.normalize(text.encode("utf-8")) == expected.encode("utf-8")


def test_normalizer_applies_the_models_n(escaped_space_model: str) -> None:
    """The manifest's N runs first: decomposed input (NFD) comes out as the model's NFC."""
    normalizer = spm.SentencePieceNormalizer(
        model_file=escaped_space_model, escape_whitespaces=False
    )
    for text in HELD_OUT[:10]:
        nfd = unicodedata.normalize("NFD", text)
        assert normalizer.normalize(nfd) == normalizer.normalize(text)
    assert any(unicodedata.normalize("NFD", t) != t for t in HELD_OUT[:10])


def test_normalizer_with_the_models_flags_is_the_processors_normalize(
    escaped_space_model: str,
) -> None:
    """With the model's own flags, spaces are ▁ as in stock, and the text is what the
    processor's normalize shows (which marks a literal ▁, so texts without one here)."""
    processor = spm.SentencePieceProcessor(model_file=escaped_space_model)
    normalizer = spm.SentencePieceNormalizer(model_file=escaped_space_model)
    assert normalizer.normalize(HELD_OUT) == processor.normalize(HELD_OUT)
    assert all(" " not in text for text in normalizer.normalize(HELD_OUT))


def test_normalizer_spaces_inside_clusters(grapheme_model: str) -> None:
    """The grapheme policy's " ా" is one code: it comes back with its space as ▁ where spaces
    are escaped, and as a space where they are not (then decode(encode(s)) again)."""
    text = "కల ాగ ాని " + HELD_OUT[1]
    escaped = spm.SentencePieceNormalizer(model_file=grapheme_model).normalize(text)
    assert " " not in escaped and "▁ా" in escaped
    processor = spm.SentencePieceProcessor(model_file=grapheme_model)
    raw = spm.SentencePieceNormalizer(
        model_file=grapheme_model, add_dummy_prefix=False, escape_whitespaces=False
    )
    assert raw.normalize(text) == processor.decode(processor.encode(text))


def test_normalizer_errors_on_a_brahmic_model(escaped_space_model: str, tmp_path: Path) -> None:
    normalizer = spm.SentencePieceNormalizer(model_file=escaped_space_model)
    with pytest.raises(TypeError):
        normalizer.normalize(5)
    with pytest.raises(spm.ModelFileError, match="cannot read model"):
        spm.SentencePieceNormalizer(model_file=tmp_path / "missing.model")
    with pytest.raises(spm.ModelFileError):
        spm.SentencePieceNormalizer(model_proto=b"not a model at all")


def test_normalizer_pickles_and_loads_from_proto(escaped_space_model: str) -> None:
    normalizer = spm.SentencePieceNormalizer(model_file=escaped_space_model, add_dummy_prefix=False)
    again = pickle.loads(pickle.dumps(normalizer))
    assert again.is_brahmic
    assert again.normalize(HELD_OUT) == normalizer.normalize(HELD_OUT)
    with open(escaped_space_model, "rb") as stream:
        data = stream.read()
    from_proto = spm.SentencePieceNormalizer(model_proto=data, add_dummy_prefix=False)
    assert from_proto.normalize(HELD_OUT) == normalizer.normalize(HELD_OUT)


def test_the_top_level_imports_its_parts_when_asked() -> None:
    """``import brahmic_pua`` leaves the processor, the trainer and the rest unimported until a
    name of theirs is used (a fresh interpreter, counted in sys.modules); ``normalize`` and
    ``segment`` stay the functions whatever was imported first (their packages share names)."""
    script = (
        "import sys; import brahmic_pua.normalize.nfc, brahmic_pua.segment.counting; "
        "import brahmic_pua as b; "
        "before = {m for m in sys.modules if m.startswith('brahmic_pua.')}; "
        "from brahmic_pua.normalize import normalize; from brahmic_pua.segment import segment; "
        "assert b.normalize is normalize and b.segment is segment, (b.normalize, b.segment); "
        "assert b.SentencePieceProcessor.__module__ == 'brahmic_pua.runtime.processor'; "
        "print(' '.join(sorted(before)))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    before = set(done.stdout.split())
    for module in ("runtime.processor", "runtime.flatbuffer", "trainer.train", "model.manifest"):
        assert f"brahmic_pua.{module}" not in before, module


# -- a lone surrogate ---------------------------------------------------------------------------

#: Every public function that takes text, as (name, call on a text): each gets a brahmic_pua
#: model (``sp``), a plain one (``plain``) and their normalizers (``nm``, ``plain_nm``).
TEXT_FUNCTIONS: dict[str, Any] = {
    "segment": lambda m, t: spm.segment(t),
    "segment grapheme": lambda m, t: spm.segment(t, "grapheme"),
    "normalize": lambda m, t: spm.normalize(t),
    "normalize nepali-lm": lambda m, t: spm.normalize(t, "nepali-lm"),
    "asr_normalize": lambda m, t: importlib.import_module("brahmic_pua.segment").asr_normalize(t),
    "PUACodec.encode": lambda m, t: m["sp"].codec.encode(t),
    "validate_folding_rules": lambda m, t: spm.validate_folding_rules({t: "x"}),
    "FoldingTable": lambda m, t: spm.FoldingTable(((t, "x"),)),
    "encode": lambda m, t: m["sp"].encode(t),
    "encode pieces": lambda m, t: m["sp"].encode(t, out_type=str),
    "encode a list": lambda m, t: m["sp"].encode([t]),
    "encode proto": lambda m, t: m["sp"].encode(t, out_type="proto"),
    "encode offsets": lambda m, t: m["sp"].encode(t, out_type="offset_mapping"),
    "EncodeAsPieces": lambda m, t: m["sp"].EncodeAsPieces(t),
    "sampled": lambda m, t: m["sp"].encode(t, enable_sampling=True, alpha=0.1, nbest_size=-1),
    "nbest_encode": lambda m, t: m["sp"].nbest_encode(t, nbest_size=2),
    "parallel_encode": lambda m, t: m["sp"].parallel_encode(t, chunk_len=64),
    "calculate_entropy": lambda m, t: m["sp"].calculate_entropy(t, 0.1),
    "normalize method": lambda m, t: m["sp"].normalize(t),
    "normalize offsets": lambda m, t: m["sp"].normalize(t, with_offsets=True),
    "piece_to_id": lambda m, t: m["sp"].piece_to_id(t),
    "decode pieces": lambda m, t: m["sp"].decode([t]),
    "plain encode": lambda m, t: m["plain"].encode(t),
    "plain encode pieces": lambda m, t: m["plain"].encode(t, out_type=str),
    "plain encode a list": lambda m, t: m["plain"].encode([t]),
    "plain encode offsets": lambda m, t: m["plain"].encode(t, out_type="offset_mapping"),
    "plain nbest_encode": lambda m, t: m["plain"].nbest_encode(t, nbest_size=2),
    "plain calculate_entropy": lambda m, t: m["plain"].calculate_entropy(t, 0.1),
    "plain normalize": lambda m, t: m["plain"].normalize(t),
    "plain piece_to_id": lambda m, t: m["plain"].piece_to_id(t),
    "plain decode pieces": lambda m, t: m["plain"].decode([t]),
    "SentencePieceNormalizer": lambda m, t: m["nm"].normalize(t),
    "SentencePieceNormalizer offsets": lambda m, t: m["nm"].normalize(t, with_offsets=True),
    "plain SentencePieceNormalizer": lambda m, t: m["plain_nm"].normalize(t),
    "llama_input": lambda m, t: importlib.import_module(
        "brahmic_pua.integrations.gguf"
    ).llama_input(m["sp"], t),
    "evaluate": lambda m, t: importlib.import_module("brahmic_pua.evaluation.evaluate").evaluate(
        m["plain"], [t]
    ),
}


@pytest.fixture(scope="module")
def text_models(sample_models: dict[str, Path], plain_hindi_model: str) -> dict[str, Any]:
    brahmic = str(sample_models["unigram"])
    return {
        "sp": spm.SentencePieceProcessor(model_file=brahmic),
        "plain": spm.SentencePieceProcessor(model_file=plain_hindi_model),
        "nm": spm.SentencePieceNormalizer(model_file=brahmic),
        "plain_nm": spm.SentencePieceNormalizer(model_file=plain_hindi_model),
    }


@st.composite
def with_a_surrogate(draw: st.DrawFn) -> tuple[str, str, int]:
    """A text with one lone surrogate put at some position: (text, the surrogate, where)."""
    text = draw(texts)
    at = draw(st.integers(0, len(text)))
    surrogate = chr(draw(st.integers(0xD800, 0xDFFF)))
    return text[:at] + surrogate + text[at:], surrogate, at


@pytest.mark.parametrize("name", list(TEXT_FUNCTIONS))
@settings(max_examples=examples(60), deadline=None)
@given(case=with_a_surrogate())
def test_a_lone_surrogate_is_the_same_value_error_everywhere(
    text_models: dict[str, Any], name: str, case: tuple[str, str, int]
) -> None:
    """Every public function that takes text says the same for a lone surrogate: the
    ValueError naming it (not pybind's ``RuntimeError: Unable to cast``, a ``TypeError``, a
    ``UnicodeEncodeError`` or the surrogate passed on). Where the text reaches stock after N
    the index is the surrogate's in N(text), which N may move."""
    text, surrogate, _ = case
    with pytest.raises(ValueError, match=f"lone surrogate U\\+{ord(surrogate):04X} at index"):
        TEXT_FUNCTIONS[name](text_models, text)


@pytest.mark.parametrize("name", ["segment", "normalize", "asr_normalize", "PUACodec.encode"])
@settings(max_examples=examples(60), deadline=None)
@given(case=with_a_surrogate())
def test_a_lone_surrogate_is_named_where_it_was_given(
    text_models: dict[str, Any], name: str, case: tuple[str, str, int]
) -> None:
    """Functions that read the text as given name the surrogate's index in it."""
    text, surrogate, at = case
    with pytest.raises(ValueError, match=f"U\\+{ord(surrogate):04X} at index {at}:"):
        TEXT_FUNCTIONS[name](text_models, text)


@pytest.mark.parametrize("call", ["tokenize", "encode", "__call__", "batch", "pair"])
def test_a_lone_surrogate_in_the_hugging_face_tokenizer(
    hf: Any, sample_models: dict[str, Path], call: str
) -> None:
    tokenizer = hf.BrahmicPuaTokenizer(str(sample_models["unigram"]))
    calls = {
        "tokenize": lambda t: tokenizer.tokenize(t),
        "encode": lambda t: tokenizer.encode(t),
        "__call__": lambda t: tokenizer(t),
        "batch": lambda t: tokenizer(["ok", t]),
        "pair": lambda t: tokenizer("ok", t),
    }
    for text in ("\ud800", "a\udfffb"):
        with pytest.raises(ValueError, match=r"lone surrogate U\+D[8F]"):
            calls[call](text)
