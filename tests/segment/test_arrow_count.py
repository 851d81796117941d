"""The count in Arrow gives exactly the pure count's counts (and so the same model files), on
any text: every whitespace character Python knows (only U+0020 splits words in both), literal
Private Use, U+2581, U+2585, joiners, orphan marks, NFD, controls, CR, tabs, empty and huge
texts. The oracle is the plain count of every whole text (speed_reference.py) and a Counter of
``str.split(" ")``."""

from __future__ import annotations

import sys
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import speed_reference as reference
from conftest import require_extra, sample
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import ALPHABET, nasty_texts

from brahmic_pua.io.lines import batched
from brahmic_pua.segment import arrow_count, counting
from brahmic_pua.segment.counting import count_batches, count_corpus
from brahmic_pua.segment.sure_cuts import SENTINELS
from brahmic_pua.trainer import count_plan, train_model

require_extra("pyarrow", "arrow", "the count in Arrow")

WORD_POLICIES = ("fixtoken", "akshara", "syllable")
#: Every character ``str.isspace`` calls whitespace (``str.split()`` with no argument cuts at
#: each; Arrow's utf8_split_whitespace at some): the count splits at U+0020 alone.
WHITESPACE = "".join(chr(cp) for cp in range(0x110000) if chr(cp).isspace())
spaced = st.text(st.sampled_from(ALPHABET + WHITESPACE + "    \r\t"), max_size=60)


def _both(lines: list[str], policy: str, size: int, kept: bool = True) -> None:
    """Arrow and pure counts of ``lines`` (in batches of ``size``) equal each other, the plain
    count of every whole text, and a Counter of the words (where ``kept``: else None)."""
    arrow = count_batches(batched(lines, size), policy, keep_words=True, arrow=True)
    pure = count_batches(batched(lines, size), policy, keep_words=True, arrow=False)
    plain = reference.count_corpus(lines, policy)
    assert (arrow.clusters, arrow.characters) == (plain.clusters, plain.characters)
    assert (pure.clusters, pure.characters) == (plain.clusters, plain.characters)
    assert (set(arrow.clusters), set(arrow.characters)) == (
        set(plain.clusters),
        set(plain.characters),
    )
    words = Counter(word for line in lines for word in line.split(" "))
    assert arrow.words == pure.words == (words if kept else None)


def test_whitespace_holds_what_python_calls_space() -> None:
    """The strategy's whitespace is the full list, Arrow's doubtful ones among them."""
    for ch in "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u200a\u2028\u2029\u3000":
        assert ch in WHITESPACE


@settings(max_examples=150)
@given(
    lines=st.lists(
        st.one_of(nasty_texts, spaced, spaced.map(lambda s: unicodedata.normalize("NFD", s)))
    ),
    size=st.integers(1, 5),
)
def test_arrow_count_equals_the_pure_count(lines: list[str], size: int) -> None:
    for policy in WORD_POLICIES:
        _both(lines, policy, size)


@pytest.mark.parametrize("policy", WORD_POLICIES)
def test_arrow_count_on_edge_texts(policy: str) -> None:
    every_sentinel = "".join(SENTINELS)
    lines = ["", " ", "  ", "\t\r", "క  ా ", "ా", "\u0c4d\u200dక", "\ue001\u2581\u2585 \u2581"]
    lines += [every_sentinel + " కా కా", WHITESPACE, WHITESPACE.replace(" ", ""), "\r", "\x00 \x00"]
    lines += ["కాల " * 50_000 + "ా" * 1000]  # a huge line
    _both(lines, policy, 3)
    _both([every_sentinel + " " + every_sentinel], policy, 1)  # every word counted whole


@pytest.mark.parametrize("policy", WORD_POLICIES)
def test_arrow_count_in_small_windows(monkeypatch: pytest.MonkeyPatch, policy: str) -> None:
    """Words counted a few batches at a time, then also cut and let go every few words: the
    same counts; past the pure count's bound the words are not kept, as there."""
    lines = sample("te")[:300] + sample("hi")[:100] + ["", " ", "కా  కా "]
    monkeypatch.setattr(arrow_count, "WINDOW_BYTES", 200)
    _both(lines, policy, 7)
    monkeypatch.setattr(arrow_count, "CUT_ROWS", 7)
    monkeypatch.setattr(counting, "MAX_WORDS", 20)
    _both(lines, policy, 7, kept=False)


@pytest.mark.parametrize("over", [-1, 0, 1])
def test_words_are_kept_up_to_the_pure_counts_bound(
    monkeypatch: pytest.MonkeyPatch, over: int
) -> None:
    """The Arrow count holds more words than the pure count's bound before it cuts them, but
    keeps them for the trainer exactly as far as that bound, as the pure count does."""
    lines = sample("te")[:200]
    distinct = len({word for line in lines for word in line.split(" ")})
    monkeypatch.setattr(arrow_count, "WINDOW_BYTES", 500)
    monkeypatch.setattr(counting, "MAX_WORDS", distinct - over)
    _both(lines, "fixtoken", 5, kept=over <= 0)


def test_words_not_asked_for_are_not_kept() -> None:
    counts = count_batches([["కా కా", "a"]], "fixtoken", arrow=True)
    assert counts.words is None
    assert count_batches([], "fixtoken", keep_words=True, arrow=True).words == Counter()


def test_lone_surrogate_is_the_pure_counts_error() -> None:
    batches = [["ok"] * 3, ["fine", "bad \ud800 text"]]
    with pytest.raises(ValueError) as arrow:
        count_batches(batches, "fixtoken", arrow=True)
    with pytest.raises(ValueError) as pure:
        count_batches(batches, "fixtoken", arrow=False)
    assert str(arrow.value) == str(pure.value)
    assert str(arrow.value).startswith("text 5: lone surrogate U+D800")


def test_the_count_runs_in_arrow_where_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pure count unless the caller asks for Arrow (the trainer, by the corpus's size:
    count_corpus of a few lines imported pyarrow, 0.3 s and 95 MB); grapheme always pure (it
    does not split words)."""
    calls = _watch(monkeypatch)
    monkeypatch.delenv(count_plan.COUNT_ENV, raising=False)
    count_corpus(["కా కా"], "fixtoken")
    count_batches([["కా కా"]], "fixtoken")
    assert calls == []
    for policy in ("fixtoken", "grapheme"):
        count_batches([["కా కా"]], policy, arrow=True)
    assert calls == ["fixtoken"]
    assert arrow_count.pyarrow_importable()
    monkeypatch.setitem(sys.modules, "pyarrow.compute", None)  # import fails: no pyarrow
    assert not arrow_count.pyarrow_importable()


@pytest.mark.parametrize("model_type", ["bpe", "unigram"])
def test_models_trained_with_either_count_are_byte_identical(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_type: str
) -> None:
    lines = sample("te")[:400] + sample("hi")[:150] + ["", "  ా \u2585 \ue001", "\t\r"]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    made: dict[str, dict[str, bytes]] = {}
    calls = _watch(monkeypatch)
    for count in ("python", "arrow"):
        monkeypatch.setenv(count_plan.COUNT_ENV, count)  # "arrow": at any size
        folder = tmp_path / count  # the same file name: the model records it
        folder.mkdir()
        train_model(
            input=str(corpus),
            model_prefix=str(folder / "m"),
            vocab_size=1000,
            model_type=model_type,
            num_threads=1,
            complete_word_starts=model_type == "unigram",
        )
        assert bool(calls) == (count == "arrow")
        calls.clear()
        made[count] = {s: (folder / f"m{s}").read_bytes() for s in (".model", ".vocab")}
    assert made["arrow"] == made["python"]


def test_the_trainer_counts_small_input_in_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below ARROW_MIN_BYTES of text files the count is pure (pyarrow's import costs more than
    it saves); at or above it, or for an iterator, Arrow."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(sample("te")[:300]) + "\n", encoding="utf-8")
    monkeypatch.delenv(count_plan.COUNT_ENV, raising=False)
    calls = _watch(monkeypatch)
    options: dict[str, Any] = {"vocab_size": 1000, "model_type": "bpe", "num_threads": 1}
    train_model(input=str(corpus), model_prefix=str(tmp_path / "a"), **options)
    assert calls == []
    train_model(
        sentence_iterator=iter(sample("te")[:300]), model_prefix=str(tmp_path / "b"), **options
    )
    assert calls == ["fixtoken"]
    monkeypatch.setattr(count_plan, "ARROW_MIN_BYTES", corpus.stat().st_size)
    train_model(input=str(corpus), model_prefix=str(tmp_path / "c"), **options)
    assert calls == ["fixtoken"] * 2


def _watch(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The policies of the counts that ran in Arrow, from now on."""
    calls: list[str] = []
    real = arrow_count.count_pieces

    def spy(*args: Any) -> arrow_count.WordPieces:
        calls.append(str(args[1]))
        return real(*args)

    monkeypatch.setattr(counting, "count_pieces", spy)
    return calls
