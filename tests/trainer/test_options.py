"""The trainer takes every option of sentencepiece 0.2.3's trainer and honours it, or refuses it
in one line (docs/dropin.md): ``pretokenizer``, ``model_writer``, ``normalizer`` and the
normalizer's names and rule files, the options spm matches against its coded training text, and
the defaults that differ from stock's. Stock sentencepiece, trained on the same lines, is the
oracle wherever it can be."""

from __future__ import annotations

import io
import random
import re
import string
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as stock
from conftest import HI_SAMPLE, TE_SAMPLE, read, sample, slow
from hypothesis import given
from strategies import nasty_texts

import brahmic_pua as spm
from brahmic_pua import PUACodec, segment
from brahmic_pua.model.model_proto import NORMAL, parse_model
from brahmic_pua.model.score_grid import on_grid
from brahmic_pua.trainer.options import OptionError
from brahmic_pua.trainer.pretokenize import ClusterPretokenizer, training_form

VOCAB = 800
#: A pretokenizer that splits at spaces (▁), between scripts, and around digits and punctuation;
#: every character is matched, so its pieces always join to the text.
WORDS = re.compile(r"▁+|[\u0900-\u0dff\u200c\u200d]+|[A-Za-z]+|\d|[^\w\s]|\s+|.")


def _train(library: Any, **options: Any) -> bytes:
    """A model trained by ``library`` (stock or brahmic_pua), its bytes from ``model_writer``."""
    out = io.BytesIO()
    options.setdefault("vocab_size", VOCAB)
    if library is stock:
        options.setdefault("minloglevel", 2)
    library.SentencePieceTrainer.train(model_writer=out, **options)
    return out.getvalue()


def _pieces(model: bytes) -> list[str]:
    """The text pieces of a model (not control, unknown, unused or byte), as text."""
    sp = spm.SentencePieceProcessor(model_proto=model)
    kinds = (sp.is_control, sp.is_unknown, sp.is_unused, sp.is_byte)
    return [sp.id_to_piece(i) for i in range(sp.vocab_size()) if not any(k(i) for k in kinds)]


# -- pretokenizer -----------------------------------------------------------------------------


@slow  # trains several models
@pytest.mark.parametrize("model_type", ["unigram", "bpe"])
@pytest.mark.parametrize("source", [TE_SAMPLE, HI_SAMPLE])
def test_no_piece_crosses_a_pretokenizer_split(source: str, model_type: str) -> None:
    for library in (stock, spm):
        model = _train(library, input=source, model_type=model_type, pretokenizer=WORDS.findall)
        crossing = [piece for piece in _pieces(model) if len(WORDS.findall(piece)) != 1]
        assert crossing == [], library.__name__


def test_the_pretokenizer_sees_the_text_stock_shows() -> None:
    seen: dict[str, list[str]] = {"sentencepiece": [], "brahmic_pua": []}

    def recorder(name: str) -> Callable[[str], list[str]]:
        def record(text: str) -> list[str]:
            seen[name].append(text)
            return [text]

        return record

    for library in (stock, spm):
        _train(
            library,
            input=TE_SAMPLE,
            normalization_rule_name="identity",
            byte_fallback=False,
            remove_extra_whitespaces=False,
            pretokenizer=recorder(library.__name__),
        )
    assert seen["brahmic_pua"]
    assert not any(ch for text in seen["brahmic_pua"] for ch in text if 0xE000 <= ord(ch) < 0xF900)
    assert sorted(seen["brahmic_pua"]) == sorted(seen["sentencepiece"])


def test_a_cut_inside_a_cluster_is_dropped(capfd: pytest.CaptureFixture[str]) -> None:
    """``list`` cuts between every two characters: stock learns one character a piece, and
    brahmic_pua one cluster a piece (each cluster is one symbol) and says so."""
    for library in (stock, spm):
        model = _train(library, input=HI_SAMPLE, pretokenizer=list, hard_vocab_limit=False)
        for piece in _pieces(model):
            body = piece.removeprefix("▁") or piece
            if library is stock:
                assert len(body) == 1, piece
            else:
                assert len(segment(body)) == 1, piece
    assert "the pretokenizer cut inside a cluster" in capfd.readouterr().err


@given(nasty_texts)
def test_the_pretokenizer_wrapper_shows_text_and_cuts_codes(text: str) -> None:
    codec = _codec()
    form = training_form(text, codec)
    shown: list[str] = []

    def every_character(seen: str) -> list[str]:
        shown.append(seen)
        return list(seen)

    pieces = ClusterPretokenizer(every_character, codec)(form)
    assert shown == [text]
    assert "".join(pieces) == form
    wrapper = ClusterPretokenizer(lambda seen: [seen], codec)
    for piece in pieces:  # one symbol each: a code, a character, or an escaped literal
        assert len(piece) == 1 or (len(piece) == 2 and piece[0] == "\ue000"), pieces
        assert wrapper(piece) == [piece]


_CODECS: list[PUACodec] = []


def _codec() -> PUACodec:
    if not _CODECS:
        _CODECS.append(PUACodec.build(sample("te") + sample("hi")))
    return _CODECS[0]


def test_pieces_that_do_not_join_stop_training_unless_allowed(tmp_path: Path) -> None:
    options: dict[str, Any] = {"input": TE_SAMPLE, "hard_vocab_limit": False}
    with pytest.raises(ValueError, match="allow_inconsistent_pretokenization=True") as caught:
        spm.SentencePieceTrainer.train(
            model_prefix=str(tmp_path / "m"), pretokenizer=lambda text: ["hello"], **options
        )
    assert "\n" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []
    allowed = {**options, "pretokenizer": lambda text: ["hello"], "byte_fallback": False}
    ours = _train(spm, allow_inconsistent_pretokenization=True, **allowed)
    theirs = _train(stock, allow_inconsistent_pretokenization=True, **allowed)
    assert set(_pieces(ours)) == set(_pieces(theirs)) >= {"h", "e", "l", "o"}


@pytest.mark.parametrize("allow", [False, True])
def test_a_failing_pretokenizer_fails_as_in_stock(tmp_path: Path, allow: bool) -> None:
    def failing(text: str) -> list[str]:
        raise KeyError("no split for this")

    for library in (stock, spm):
        with pytest.raises(RuntimeError, match="Pretokenizer failed") as caught:
            library.SentencePieceTrainer.train(
                input=TE_SAMPLE,
                model_prefix=str(tmp_path / library.__name__),
                vocab_size=VOCAB,
                pretokenizer=failing,
                minloglevel=2,
                allow_inconsistent_pretokenization=allow,
            )
        assert "no split for this" in str(caught.value)
    assert not list(tmp_path.glob("brahmic_pua*"))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"pretokenizer": "words"}, "pretokenizer is a str: give a callable"),
        ({"pretokenizer": list, "model_type": "char"}, "needs model_type=unigram or bpe"),
        ({"pretokenizer": list, "pretokenization_delimiter": "|"}, "cannot both be given"),
        ({"pretokenizer": list, "complete_word_starts": True}, "leave complete_word_starts out"),
        ({"model_writer": "out.model"}, "give an object with a write"),
        ({"denormalization_rule_tsv": "rules.tsv"}, "denormalization_rule_tsv is set by"),
        ({"precompiled_charsmap": b"\x00"}, "pass your rules as normalizer="),
        ({"input_format": "tsv"}, "input_format='tsv' is not supported"),
        ({"normalization_rule_name": "nfkd"}, "sentencepiece's are identity, nmt_nfkc"),
        ({"normalization_rule_name": "identity", "normalization": "nfc"}, "give one"),
        ({"normalizer": object()}, "give a SentencePieceNormalizer"),
        ({"sentence_reader": iter(["కి"]), "sentence_iterator": iter(["కి"])}, "give one"),
    ],
)
def test_options_that_cannot_be_honoured_are_one_line(
    tmp_path: Path, options: dict[str, Any], message: str
) -> None:
    arguments = {"model_prefix": str(tmp_path / "m"), **options}
    if "sentence_reader" not in options:
        arguments["input"] = TE_SAMPLE
    with pytest.raises(OptionError, match=re.escape(message)) as caught:
        spm.SentencePieceTrainer.train(**arguments)
    assert "\n" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_a_normalizer_flag_beside_normalizer_is_refused_as_in_stock() -> None:
    for library in (stock, spm):
        user = library.SentencePieceNormalizer(norm_map=[("foo", "bar")])
        with pytest.raises(ValueError, match="add_dummy_prefix"):
            _train(library, input=TE_SAMPLE, normalizer=user, add_dummy_prefix=True)


# -- model_writer and the inputs --------------------------------------------------------------


@slow  # trains several models
def test_model_writer_gets_the_bytes_the_files_hold(tmp_path: Path) -> None:
    prefix = str(tmp_path / "m")
    written = _train(spm, input=TE_SAMPLE, model_prefix=prefix)
    assert list(tmp_path.iterdir()) == []  # a model_writer: no file, as in stock
    spm.SentencePieceTrainer.train(input=TE_SAMPLE, model_prefix=prefix, vocab_size=VOCAB)
    assert Path(f"{prefix}.model").read_bytes() == written
    assert parse_model(_train(spm, input=TE_SAMPLE)).trainer_spec.model_prefix == ""


@slow  # trains several models
def test_an_iterator_of_the_files_bytes_gives_the_files_model(tmp_path: Path) -> None:
    path = tmp_path / "corpus.txt"
    path.write_text("\ufeff" + "\n".join(sample("te")[:400]) + "\n", encoding="utf-8")
    by_file = _train(spm, input=str(path))
    for mode in ("rb", "r"):
        with open(path, mode) as lines:
            assert _train(spm, sentence_reader=lines) == by_file, mode


# -- normalizer options -----------------------------------------------------------------------


def test_a_normalizer_s_rules_and_flags_are_the_model_s(capfd: pytest.CaptureFixture[str]) -> None:
    rules = [("foo", "bar"), ("apple", "orange")]
    user = spm.SentencePieceNormalizer(norm_map=rules, add_dummy_prefix=False)
    model = _train(spm, input=TE_SAMPLE, normalizer=user)
    assert "normalizer= rules turn off guarantee 1" in capfd.readouterr().err
    normalizer = spm.SentencePieceNormalizer(model_proto=model)
    assert normalizer.normalize("foo apple") == "bar▁orange"
    ours = spm.SentencePieceProcessor(model_proto=model)
    theirs = stock.SentencePieceProcessor(model_proto=model)
    texts = [f"foo {line} apple" for line in sample("te")[:200]]
    assert ours.encode(texts) == theirs.encode(texts)  # guarantee 3
    assert not ours.encode("foo", out_type=str)[0].startswith("▁")  # add_dummy_prefix=False
    assert ours.decode(ours.encode("foo క్రాంతి apple")) == "bar క్రాంతి orange"


def test_a_rule_file_is_read_as_stock_reads_it(tmp_path: Path) -> None:
    rules = tmp_path / "rules.tsv"
    rules.write_text("U+0066 U+006F U+006F\tU+0062 U+0061 U+0072\n", encoding="utf-8")
    model = _train(spm, input=TE_SAMPLE, normalization_rule_tsv=str(rules))
    assert spm.SentencePieceNormalizer(model_proto=model).normalize("a foo") == "▁a▁bar"


def test_identity_is_normalization_none() -> None:
    identity = _train(spm, input=TE_SAMPLE, normalization_rule_name="identity")
    assert identity == _train(spm, input=TE_SAMPLE, normalization="none")
    assert identity == _train(spm, input=TE_SAMPLE, name="identity")


@slow  # trains many models
def test_nfkc_rules_normalize_as_stock_s() -> None:
    flags = {"add_dummy_prefix": False, "remove_extra_whitespaces": False}
    model = _train(spm, input=HI_SAMPLE, normalization_rule_name="nfkc", **flags)
    ours = spm.SentencePieceNormalizer(model_proto=model)
    theirs = stock.SentencePieceNormalizer(
        rule_name="nfkc", add_dummy_prefix=False, remove_extra_whitespaces=False
    )
    texts = [*sample("hi")[:200], "ﬁne ① Ｈｅｌｌｏ ㎏", "\u0958\u0929 क़ि", "e\u0301 ॐ ½"]
    assert [ours.normalize(text) for text in texts] == [theirs.Normalize(t) for t in texts]
    processor = spm.SentencePieceProcessor(model_proto=model)
    assert processor.encode(texts) == stock.SentencePieceProcessor(model_proto=model).encode(texts)


# -- options spm matches against its training text --------------------------------------------


def _rare_cluster() -> str:
    counts: dict[str, int] = {}
    for line in sample("te"):
        for cluster in segment(line):
            if len(cluster) > 1 and unicodedata.category(cluster[0]).startswith("L"):
                counts[cluster] = counts.get(cluster, 0) + 1
    return min(sorted(counts), key=lambda cluster: counts[cluster])


@slow  # trains several models
def test_required_chars_make_a_cluster_a_piece() -> None:
    rare = _rare_cluster()
    options: dict[str, Any] = {"input": TE_SAMPLE, "character_coverage": 0.98}
    assert rare not in _pieces(_train(spm, **options))
    required = _train(spm, required_chars=rare, **options)
    assert rare in _pieces(required)
    assert rare in spm.SentencePieceProcessor(model_proto=required).encode(rare, out_type=str)
    letter = rare[0]  # stock: the same option makes its character a piece
    assert letter in _pieces(_train(stock, required_chars=letter, **options))


def test_a_brahmic_delimiter_is_found() -> None:
    for library in (stock, spm):
        assert any("।" in piece for piece in _pieces(_train(library, input=HI_SAMPLE)))
        delimited = _train(library, input=HI_SAMPLE, pretokenization_delimiter="।")
        assert not any("।" in piece for piece in _pieces(delimited)), library.__name__


def test_seed_pieces_are_read_as_text(tmp_path: Path) -> None:
    telugu = re.compile(r"[\u0c00-\u0c7f]+")
    words = sorted({w for line in sample("te") for w in telugu.findall(line) if len(w) > 5})
    seeds = tmp_path / "seeds.tsv"
    seeds.write_text("".join(f"▁{word}\t100\n" for word in words[:2]), encoding="utf-8")
    options = {"seed_sentencepieces_file": str(seeds), "hard_vocab_limit": False}
    for library, own in ((stock, {}), (spm, {"complete_word_starts": False})):
        model = _train(library, input=TE_SAMPLE, byte_fallback=False, **options, **own)
        sp = library.SentencePieceProcessor(model_proto=model)
        for word in words[:2]:  # a piece of codes, that encoding uses
            assert sp.encode(word, out_type=str) == [f"▁{word}"], library.__name__


def test_a_vocab_file_without_scores_as_in_stock(tmp_path: Path) -> None:
    for library in (stock, spm):
        prefix = str(tmp_path / library.__name__)
        library.SentencePieceTrainer.train(
            input=TE_SAMPLE,
            model_prefix=prefix,
            vocab_size=VOCAB,
            minloglevel=2,
            vocabulary_output_piece_score=False,
        )
        lines = Path(f"{prefix}.vocab").read_text(encoding="utf-8").splitlines()
        assert len(lines) == VOCAB and not any("\t" in line for line in lines)


# -- defaults ---------------------------------------------------------------------------------


def _latin_lines() -> list[str]:
    """A few hundred lines of made-up words in 26 letters: a corpus with few symbols."""
    rng = random.Random(11)
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 7))) for _ in range(300)]
    return [" ".join(rng.choices(words, k=12)) for _ in range(400)]


def test_a_vocabulary_too_small_for_byte_pieces_trains_as_stock(
    capfd: pytest.CaptureFixture[str],
) -> None:
    lines = _latin_lines()
    model = parse_model(_train(spm, sentence_iterator=iter(lines), vocab_size=100))
    assert not model.trainer_spec.byte_fallback
    assert "no room for byte fallback's 256 pieces" in capfd.readouterr().err
    assert not parse_model(
        _train(stock, sentence_iterator=iter(lines), vocab_size=100)
    ).trainer_spec.byte_fallback
    with pytest.raises(ValueError, match="too small"):  # asked for: the user's
        _train(spm, sentence_iterator=iter(lines), vocab_size=100, byte_fallback=True)
    with pytest.raises(ValueError, match="too small"):  # a Brahmic corpus needs its clusters
        _train(spm, input=HI_SAMPLE, vocab_size=300)


#: The option of each row of docs/dropin.md's table that gives stock's behaviour.
STOCK_BEHAVIOUR = {
    "normalization_rule_name": "nmt_nfkc",
    "remove_extra_whitespaces": True,
    "byte_fallback": False,
    "split_digits": False,
    "character_coverage": 0.9995,
    "complete_word_starts": False,
}
#: The spec fields in which brahmic_pua's defaults differ from stock's (the table's rows; the
#: normalizer's name and compiled rules differ on every model).
DIFFERENT = {"split_digits", "byte_fallback", "character_coverage", "remove_extra_whitespaces"}


def _fields(spec: Any) -> dict[str, Any]:
    return {field.name: getattr(spec, field.name) for field in spec.DESCRIPTOR.fields}


@slow  # trains many models
@pytest.mark.corpora
def test_the_stock_behaviour_options_give_stock_s_model() -> None:
    lines = read("en.sample.txt").splitlines()[:3000]
    theirs = parse_model(_train(stock, sentence_iterator=iter(lines)))
    defaults = parse_model(_train(spm, sentence_iterator=iter(lines)))
    differ = {
        name
        for spec in ("trainer_spec", "normalizer_spec")
        for name, value in _fields(getattr(defaults, spec)).items()
        if value != _fields(getattr(theirs, spec))[name]
    }
    assert differ == DIFFERENT | {"name", "precompiled_charsmap"}
    ours = parse_model(_train(spm, sentence_iterator=iter(lines), **STOCK_BEHAVIOUR))
    # Unigram scores are written on the grid every sentencepiece adds up alike (score_grid)
    assert [(p.piece, p.score, p.type) for p in ours.pieces] == [
        (p.piece, on_grid(p.score) if p.type == NORMAL else p.score, p.type) for p in theirs.pieces
    ]
    assert _fields(ours.trainer_spec) == _fields(theirs.trainer_spec)
    flags = ("add_dummy_prefix", "remove_extra_whitespaces", "escape_whitespaces")
    assert [getattr(ours.normalizer_spec, f) for f in flags] == [
        getattr(theirs.normalizer_spec, f) for f in flags
    ]
    ours_sp = spm.SentencePieceProcessor(model_proto=ours.SerializeToString())
    theirs_sp = stock.SentencePieceProcessor(model_proto=theirs.SerializeToString())
    texts = ["  hello   world  ", "ﬁne ① Ｈｅｌｌｏ", *lines[:200]]
    assert ours_sp.encode(texts, out_type=str) == theirs_sp.encode(texts, out_type=str)
    assert ours_sp.decode(ours_sp.encode("  hello   world  ")) == "hello world"
