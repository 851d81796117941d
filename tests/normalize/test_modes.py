"""Normalization modes (NepBPE Phase 1): nepali-lm and nepali-ocr, the folding tables, the
folding validator, and the modes compiled into models that stock sentencepiece applies too."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
import sentencepiece as stock
from click.testing import CliRunner
from conftest import NEPALI, corpora, read, sample, sample_held_out, sample_training
from hypothesis import given
from hypothesis import strategies as st
from strategies import nasty_texts

import brahmic_pua as spm
from brahmic_pua.cli.main import main
from brahmic_pua.normalize import MODES, normalize, normalizer
from brahmic_pua.normalize.folding import FoldingTable, fold, nepali_table, validate_folding_rules
from brahmic_pua.trainer import train_model

ZWJ, ZWNJ = "\u200d", "\u200c"
#: Devanagari text: the Hindi sample and the Nepali lines written for the tests (which hold
#: the spellings the nepali-lm table folds).
DEVANAGARI = sample("hi") + NEPALI
VARIANTS = ["सँग", "संग", "सङ्ग", "सँगै", "सङ्गठन", "।।", "दु:खी", "हुंदा", "प्राय:", ZWJ, ZWNJ]
nepali_texts = st.lists(
    st.sampled_from(VARIANTS + list("सँगंङ्कषखी ।:ा") + ["\u0928\u093c"]), max_size=12
).map("".join)


# -- the validator ----------------------------------------------------------------------------


def test_validator_catches_the_published_counterexamples() -> None:
    """himalayan-tokenizer 0.0.4 passes both; each is not idempotent."""
    for rules, witness in [({"ab": ""}, "aabb"), ({"ab": "c", "cd": "e"}, "abd")]:
        found = validate_folding_rules(rules)
        assert witness in {v.witness for v in found}
        once = fold(witness, rules)
        assert fold(once, rules) != once


@pytest.mark.parametrize(
    ("rules", "kind"),
    [
        ({"b": "c", "acd": "z"}, "overlaps"),  # the replacement in the middle of a pattern
        ({"ab": "xaby"}, "contains"),
        ({"": "x"}, "empty"),
        ({"ा": "x"}, "starts-with-mark"),  # stock spm would see it attach to the cluster before
        ({"e\u0301": "x"}, "not-nfc"),
        ({"ax": "ae", "é": "y"}, "nfc"),  # ae + U+0301 is aé, which the second pass folds
    ],
)
def test_validator_kinds(rules: dict[str, str], kind: str) -> None:
    assert kind in {v.kind for v in validate_folding_rules(rules)}


def test_a_table_that_fails_is_refused() -> None:
    with pytest.raises(ValueError, match=r"not a normalization.*deletes"):
        FoldingTable((("ab", ""),))


@given(
    rules=st.dictionaries(
        st.text("abc", min_size=1, max_size=3), st.text("abc", max_size=3), max_size=3
    ),
    text=st.text("abc", max_size=12),
)
def test_a_table_the_validator_passes_is_idempotent(rules: dict[str, str], text: str) -> None:
    """The validator is sound: no violation means one pass is a fixpoint, for every text."""
    if not validate_folding_rules(rules):
        once = fold(text, rules)
        assert fold(once, rules) == once


# -- the modes --------------------------------------------------------------------------------


def test_shipped_tables_are_valid_and_documented() -> None:
    lm, ocr = nepali_table("lm"), nepali_table("ocr")
    assert not validate_folding_rules(lm.mapping) and not validate_folding_rules(ocr.mapping)
    assert set(ocr.rules) < set(lm.rules)
    assert ("सँग", "संग") in lm.rules and ("सङ्ग", "संग") in lm.rules


def test_lm_folds_what_ocr_keeps() -> None:
    text = f"सँग संग सङ्ग क्{ZWJ}ष र{ZWNJ}को ।।"
    assert normalize(text, "nepali-lm") == f"संग संग संग क्ष र{ZWNJ}को ॥"
    assert normalize(text, "nepali-ocr") == f"सँग संग सङ्ग क्{ZWJ}ष र{ZWNJ}को ॥"
    assert normalize(text, "nfc") == text


@pytest.mark.parametrize("mode", MODES)
@given(text=st.one_of(nasty_texts, nepali_texts))
def test_every_mode_is_idempotent(mode: str, text: str) -> None:
    once = normalize(text, mode)
    assert normalize(once, mode) == once


@pytest.mark.parametrize("mode", MODES)
@given(
    lines=st.lists(
        st.one_of(
            nasty_texts,
            nepali_texts,
            st.sampled_from(["\u0301", "e\n", "न\u093c", "ऩ", "க\u0bc6\u0bbe", "ொ"]),
        )
    )
)
def test_lines_are_normalized_as_one_by_one(mode: str, lines: list[str]) -> None:
    """The batch path (a C check of each line, N of the lines that fail it) changes nothing: a
    line that is a lone mark after a line ending in a letter, a line holding a line feed, NFD,
    a mark that composes with the letter before it (न + nukta is ऩ; Tamil ெ + ா is ொ)."""
    n = normalizer(mode)
    assert n.lines(lines) == [n(line) for line in lines]


def test_zwj_goes_before_the_fold() -> None:
    """The seed's order (fold, then strip ZWJ) leaves सङ्‍ग for the next application."""
    assert normalize(f"सङ्{ZWJ}ग", "nepali-lm") == "संग"


def _check_idempotent(lines: list[str]) -> None:
    for mode in MODES:
        n = normalizer(mode)
        once = [n(line) for line in lines]
        assert [n(line) for line in once] == once


def test_text_is_idempotent_under_every_mode() -> None:
    _check_idempotent(DEVANAGARI + [unicodedata.normalize("NFD", line) for line in DEVANAGARI])


@corpora
def test_corpus_is_idempotent_under_every_mode() -> None:
    _check_idempotent(read("ne.train.txt").splitlines()[:20000])


# -- compiled into a model --------------------------------------------------------------------


@pytest.fixture(scope="module")
def lm_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    prefix = tmp_path_factory.mktemp("lm") / "ne"
    train_model(
        sentence_iterator=iter(sample_training("hi") + NEPALI * 8),
        model_prefix=str(prefix),
        vocab_size=1200,
        normalization="nepali-lm",
    )
    return f"{prefix}.model"


HOSTILE = [
    "सँग संग सङ्ग सँगै सङ्गठन सङ्गीत",
    f"क्{ZWJ}ष सङ्{ZWJ}ग ।। दु:खी ।।।",
    "हुंदा प्राय: सँगको संगमा",
    f"न{ZWNJ}ह स{ZWJ}ँग",
]


def _check_stock_folds(lm_model: str, held: list[str]) -> None:
    ours = spm.SentencePieceProcessor(model_file=lm_model)
    theirs = stock.SentencePieceProcessor(model_file=lm_model)
    assert ours.manifest is not None and ours.manifest.normalization == "nepali-lm"
    assert ours.manifest.folding == nepali_table("lm")
    n = normalizer("nepali-lm")
    for lines in (held, [unicodedata.normalize("NFD", line) for line in held]):
        ids = ours.encode(lines)
        assert theirs.encode(lines) == ids
        assert ours.decode(ids) == [n(line) for line in lines]
    assert ours.encode("सँग", out_type=str) == ours.encode("सङ्ग", out_type=str)


def test_stock_spm_folds_too(lm_model: str) -> None:
    _check_stock_folds(lm_model, sample_held_out("hi") + NEPALI + HOSTILE)


@corpora
def test_stock_spm_folds_too_on_nepali_news(lm_model: str) -> None:
    _check_stock_folds(lm_model, read("ne.train.txt").splitlines()[-3000:] + HOSTILE)


def test_a_processor_asked_for_another_mode_refuses(lm_model: str) -> None:
    with pytest.raises(spm.ModelFileError, match="trained with normalization=nepali-lm, not nfc"):
        spm.SentencePieceProcessor(model_file=lm_model, normalization="nfc")
    same = spm.SentencePieceProcessor(model_file=lm_model, normalization="nepali-lm")
    assert same.decode(same.encode("सँग")) == "संग"


def test_an_edited_folding_table_is_refused(lm_model: str, tmp_path: Path) -> None:
    data = Path(lm_model).read_bytes()
    assert data.count("दु:ख".encode()) == 1
    edited = tmp_path / "edited.model"
    edited.write_bytes(data.replace("दु:ख".encode(), "दु;ख".encode()))
    with pytest.raises(spm.ModelFileError, match="fingerprint"):
        spm.SentencePieceProcessor(model_file=str(edited))


def test_normalize_command(tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text("सँग सङ्ग\r\nक्\u200dष\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["normalize", "--mode", "nepali-lm", "--input", str(source)])
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes.decode("utf-8") == "संग संग\nक्ष\n"  # CRLF read as a line end
    bad = CliRunner().invoke(main, ["normalize", "--mode", "nepali"])
    assert bad.exit_code == 2 and "nepali-lm" in bad.output


def test_a_users_folding_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text("# deletes text\nab\t\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.tsv: folding rules are not a normalization"):
        train_model(
            sentence_iterator=iter(DEVANAGARI[:100]),
            model_prefix=str(tmp_path / "m"),
            normalization="nepali-lm",
            folding_rules=str(bad),
        )
    with pytest.raises(ValueError, match=r"bad.tsv line 1: write pattern<TAB>replacement"):
        bad.write_text("सँग संग\n", encoding="utf-8")
        train_model(
            sentence_iterator=iter(DEVANAGARI[:100]),
            model_prefix=str(tmp_path / "m"),
            normalization="nepali-ocr",
            folding_rules=str(bad),
        )
    good = tmp_path / "good.tsv"
    good.write_text("अँग्रेजी\tअंग्रेजी\nसँग\tसंग\tocr\tmy reason\n", encoding="utf-8")
    report = train_model(
        sentence_iterator=iter(DEVANAGARI),
        model_prefix=str(tmp_path / "m"),
        vocab_size=1200,
        normalization="nepali-ocr",
        folding_rules=str(good),
    )
    ours = spm.SentencePieceProcessor(model_file=report.model_file)
    theirs = stock.SentencePieceProcessor(model_file=report.model_file)
    assert ours.manifest is not None and ours.manifest.folding.rules == (
        ("अँग्रेजी", "अंग्रेजी"),
        ("सँग", "संग"),
    )
    text = "उहाँ सँगै अँग्रेजी पढ्नुहुन्छ। सङ्ग"
    assert ours.decode(ours.encode(text)) == "उहाँ संगै अंग्रेजी पढ्नुहुन्छ। सङ्ग"
    assert theirs.encode(text) == ours.encode(text)
