"""spm trained on the corpus's word counts makes the model its lines make: byte for byte, on
nasty text, with either count, across count windows; and lines are used wherever words cannot
say what lines say (a tab in a word, a line spm skips as too long, options that look at whole
sentences). The oracle is spm's own reading of the lines (``BRAHMIC_PUA_SPM_INPUT=lines``)."""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import examples, installed, require_extra, sample
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import ALPHABET, nasty_texts

from brahmic_pua.segment import counting
from brahmic_pua.trainer import fit, train_model
from brahmic_pua.trainer.corpus import Corpus
from brahmic_pua.trainer.count_plan import COUNT_ENV, INPUT_ENV
from brahmic_pua.trainer.spm_options import SpmOptions
from brahmic_pua.trainer.spm_words import (
    WordFile,
    rules_split_alike,
    words_train_alike,
)

BASE = sample("te")[:120] + sample("hi")[:60]
OPTIONS: dict[str, Any] = {
    "model_type": "bpe",
    "vocab_size": 1200,
    "hard_vocab_limit": False,
    "num_threads": 1,
}
COUNTS = ["python", "arrow"] if installed("pyarrow") else ["python"]
#: Lines that stress how spm splits a line into words: runs of spaces, a line of spaces only,
#: leading and trailing spaces, empty lines, CR, ▁ and U+2585, literal codes, ZWJ/ZWNJ.
spaced = st.text(st.sampled_from(ALPHABET.replace("\n", "") + "    "), max_size=40)
odd_lines = st.lists(st.one_of(spaced, nasty_texts.map(lambda s: s.replace("\n", ""))), max_size=30)


def trained(
    folder: Path,
    lines: list[str],
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    **extra: Any,
) -> tuple[bytes, bytes]:
    """The .model and .vocab bytes of a training on ``lines`` (a file) with ``env`` set; the
    same relative names every time (a model records its model_prefix)."""
    folder.mkdir()
    monkeypatch.chdir(folder)
    Path("corpus.txt").write_text("\n".join(lines) + "\n", encoding="utf-8", newline="")
    with monkeypatch.context() as patched:
        for name in (INPUT_ENV, counting_env()):
            patched.delenv(name, raising=False)
        for name, value in env.items():
            patched.setenv(name, value)
        train_model(input="corpus.txt", model_prefix="m", **{**OPTIONS, **extra})
    return Path("m.model").read_bytes(), Path("m.vocab").read_bytes()


def counting_env() -> str:
    return COUNT_ENV


def same_models(
    tmp_path: Path, lines: list[str], monkeypatch: pytest.MonkeyPatch, **extra: Any
) -> None:
    lined = trained(tmp_path / "lines", lines, monkeypatch, {INPUT_ENV: "lines"}, **extra)
    for count in COUNTS:
        words = trained(tmp_path / count, lines, monkeypatch, {counting_env(): count}, **extra)
        assert words == lined, count


@settings(max_examples=examples(60) // 3)  # three trainings an example: 8 in the default run
@given(odd=odd_lines)
def test_words_and_lines_train_one_model(
    tmp_path_factory: pytest.TempPathFactory, odd: list[str]
) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        same_models(tmp_path_factory.mktemp("words"), BASE + odd, monkeypatch)


def test_words_let_go_in_windows_train_the_same_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past MAX_WORDS distinct words the count lets them go: a word is then written once per
    window, and spm sums the rows."""
    monkeypatch.setattr(counting, "MAX_WORDS", 40)
    lines = BASE + ["  a  b ", "", " ", "a\u2585b \u2581c", "x\ry z"] * 3
    same_models(tmp_path, lines, monkeypatch)


def test_words_are_what_spm_trains_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast input is really taken (else the comparisons above compare lines with lines)."""
    monkeypatch.delenv(INPUT_ENV, raising=False)
    read: list[str] = []
    original = Corpus.spm_words

    def spm_words(self: Corpus) -> str | None:
        read.append(str(original(self)))
        return original(self)

    monkeypatch.setattr(Corpus, "spm_words", spm_words)
    trained(tmp_path / "t", BASE, monkeypatch, {})
    assert read and read[0].endswith(".tsv")


@pytest.mark.parametrize(
    ("lines", "extra"),
    [
        ([*BASE, "a\tb c", "\t"], {}),  # a word with a tab is no row of a tsv file
        ([*BASE, "x" * 300], {"max_sentence_length": 200}),  # spm skips the whole line
        ([*BASE, "  a  b", "ab  "], {"policy": "grapheme"}),  # grapheme: no words counted
        ([*BASE, "  a  b", "ab  "], {"remove_extra_whitespaces": True}),
        ([*BASE, "  a  b", "ab  "], {"user_defined_symbols": "a\u2581b"}),
        ([*BASE, "  a  b", "ab  "], {"input_sentence_size": 150}),  # a sample: words of it
    ],
)
def test_lines_where_words_cannot_say_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: list[str], extra: dict[str, Any]
) -> None:
    same_models(tmp_path, lines, monkeypatch, **extra)


def test_no_word_file_is_left_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    (tmp_path / "temp").mkdir()
    trained(tmp_path / "ok", BASE, monkeypatch, {})

    def failing(*_: Any) -> Any:
        def train() -> None:
            raise RuntimeError("spm failed here")

        return train

    monkeypatch.setattr(fit, "_training", failing)
    with pytest.raises(ValueError, match="SentencePiece could not train: spm failed here"):
        trained(tmp_path / "bad", BASE, monkeypatch, {})
    assert os.listdir(tmp_path / "temp") == []


@pytest.mark.parametrize(
    ("options", "alike"),
    [
        ({"model_type": "bpe", "vocab_size": 8000, "remove_extra_whitespaces": False}, True),
        ({"model_type": "BPE", "remove_extra_whitespaces": "false", "split_digits": "t"}, True),
        ({"model_type": "bpe"}, False),  # spm's default collapses spaces
        ({"model_type": "unigram", "remove_extra_whitespaces": False}, False),
        ({"remove_extra_whitespaces": False}, False),  # spm's default type: unigram
        (
            {"model_type": "bpe", "remove_extra_whitespaces": False, "add_dummy_prefix": False},
            False,
        ),
        (
            {"model_type": "bpe", "remove_extra_whitespaces": False, "split_by_whitespace": 0},
            False,
        ),
        (
            {"model_type": "bpe", "remove_extra_whitespaces": False, "self_test_sample_size": 5},
            False,
        ),
        (
            {
                "model_type": "bpe",
                "remove_extra_whitespaces": False,
                "pretokenization_delimiter": "|",
            },
            False,
        ),
        ({"model_type": "bpe", "remove_extra_whitespaces": False, "some_new_option": 1}, False),
        (
            {
                "model_type": "bpe",
                "remove_extra_whitespaces": False,
                "user_defined_symbols": "▁ab,c",
            },
            True,
        ),
        (
            {"model_type": "bpe", "remove_extra_whitespaces": False, "control_symbols": ["a▁"]},
            False,
        ),
    ],
)
def test_which_options_train_alike(options: dict[str, Any], alike: bool) -> None:
    assert words_train_alike(SpmOptions(options)) is alike


def test_a_rule_that_reads_a_space_splits_otherwise() -> None:
    assert rules_split_alike("U+0C15 U+0C4D\tU+E003\nU+0020\tU+E004\n") is False
    assert rules_split_alike("U+0C15 U+0020 U+0C3E\tU+E003\n") is False
    assert rules_split_alike("U+0C15 U+0C4D\tU+0020\nU+2581\tU+E001\n") is True


@given(
    words=st.dictionaries(
        st.text(st.sampled_from(ALPHABET.replace("\t", "").replace("\n", "") + " ")),
        st.integers(1, 10**12),
    )
)
def test_the_counts_write_the_rows_the_arrow_table_writes(words: dict[str, int]) -> None:
    """Both counts hand over words alike: the rows are " word<TAB>n", U+2585 escaped, the empty
    word summed and written last less the empty lines (oracle: the rows built here)."""
    require_extra("pyarrow", "arrow", "the Arrow table's word rows")
    import pyarrow as pa

    expected = Counter(
        f" {w.replace(chr(0x2585), chr(0xE002))}\t{n}" for w, n in words.items() if w
    )
    empty = words.get("", 0)
    if empty > 1:
        expected[f" \t{empty - 1}"] += 1
    for kind in ("pure", "table"):
        out = WordFile()
        try:
            if kind == "pure":
                out.counted(Counter(words))
            else:
                table = pa.table(
                    {
                        "word": pa.array(list(words), pa.string()),
                        "n": pa.array(list(words.values()), pa.int64()),
                    }
                )
                out.counted_table(table)
            # every word its own line (no spaces): the totals agree
            out.finish(sum(words.values()), 1 if empty else 0, 0)
            rows = out.path.read_bytes().decode("utf-8").split("\n")
            assert rows[-1] == ""
            assert Counter(rows[:-1]) == expected, kind
        finally:
            out.close()
        assert not out.path.exists()


@settings(max_examples=examples(150))
@given(lines=odd_lines, count=st.sampled_from(COUNTS))
def test_the_word_file_holds_the_words_spm_splits_the_lines_into(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], count: str
) -> None:
    """The rows, summed, are spm's words of the lines (oracle: spm's rule, written out here:
    a non-empty line's words are "▁" + each of its space-separated parts, an empty line has
    none), as " " + word, with U+2585 escaped."""
    from brahmic_pua.normalize import normalizer
    from brahmic_pua.trainer.count_plan import plan_count
    from brahmic_pua.trainer.engine import count_clusters
    from brahmic_pua.trainer.options import build_options

    path = tmp_path_factory.mktemp("words") / "corpus.txt"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8", newline="")
    corpus = Corpus([str(path)], None, normalizer("nfc"))
    corpus.write_words()
    try:
        with pytest.MonkeyPatch.context() as monkeypatch:
            monkeypatch.setenv(COUNT_ENV, count)
            options = build_options(
                None, {"input": str(path), "model_type": "bpe", "model_prefix": "m"}, False
            )
            count_clusters(corpus, plan_count(corpus, options), "fixtoken")
        expected: Counter[str] = Counter()
        # as a file is read: a leading BOM and each line's trailing CRs dropped
        read = [lines[0].removeprefix("\ufeff"), *lines[1:]] if lines else []
        read = [line.rstrip("\r") for line in read]
        for line in map(normalizer("nfc"), read):
            if line:
                expected.update(" " + part.replace("\u2585", "\ue002") for part in line.split(" "))
        found: Counter[str] = Counter()
        name = corpus.spm_words()
        if "\t" in "".join(lines):
            assert name is None
            return
        assert name is not None
        for row in Path(name).read_bytes().decode("utf-8").split("\n")[:-1]:
            word, n = row.split("\t")
            found[word] += int(n)
        assert found == expected
    finally:
        corpus.close()


@pytest.mark.parametrize("given", ["missing.txt", "folder"])
def test_a_refused_input_leaves_no_word_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    (tmp_path / "temp").mkdir()
    (tmp_path / "folder").mkdir()
    with pytest.raises(ValueError, match="input"):
        train_model(input=str(tmp_path / given), model_prefix=str(tmp_path / "m"), **OPTIONS)
    assert os.listdir(tmp_path / "temp") == []


def test_a_word_file_that_misses_words_is_not_used() -> None:
    """The rows must add up to every word of the count's lines (spaces + lines): a count that
    handed over fewer words, or more, leaves the word file unused (spm then reads lines)."""
    for lines, spaces, usable in ((2, 3, True), (3, 3, False), (2, 2, False)):
        out = WordFile()
        try:
            out.counted(Counter({"a": 2, "b": 1, "": 2}))  # the lines "a b" and "a  "
            out.finish(lines, 0, spaces)
            assert out.usable is usable
            assert (out.path.stat().st_size > 0) is usable
        finally:
            out.close()
