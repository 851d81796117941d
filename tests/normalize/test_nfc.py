"""N's NFC is exactly ``unicodedata.normalize("NFC", ·)`` and costs time linear in the text.

CPython's NFC is quadratic in a run of combining marks it must reorder; brahmic_pua's
(brahmic_pua.normalize.nfc) puts long runs in canonical order itself. The oracle is
unicodedata on texts short enough for it, and stock sentencepiece on the same model for the
ids. Linearity is checked by counting the reordering work CPython is asked to do, never by
timing.
"""

from __future__ import annotations

import functools
import unicodedata
from pathlib import Path
from typing import Literal

import pytest
import sentencepiece
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import nasty_texts

import brahmic_pua
from brahmic_pua.normalize import nfc as nfc_module
from brahmic_pua.normalize.nfc import LONG_RUN, nfc

#: Marks of many classes (nukta 7, virama 9, Telugu length marks 84/91, below 220, above
#: 230, double 233/234, Tibetan 129/130), marks NFC composes (acute, dot below, ౖ), and the
#: starters that decompose to marks (U+0F73) or carry marks (ệ, ḉ, Hangul, NFD jamo).
MARKS = "఼్ౕౖ\u0301\u0323\u0302\u0327\u0308\u0300\u035c\u035d\u0f71\u0f72\u0f80\u0f73\u0344"
MARKS += "\u093c\u094d\u0951\u0952\u05b0\u05b4\u0e38\u0e48\u20dd\u1dff\U0001d167"
STARTERS = "కనa\u1ec7\u1e09\uac00\u1100\u1161\u11a8 \u200c\u200d\u0c46\u0915\u0928e"
mark_runs = st.text(st.sampled_from(MARKS), min_size=LONG_RUN - 2, max_size=4 * LONG_RUN)
pieces = st.one_of(mark_runs, st.text(st.sampled_from(STARTERS + MARKS), max_size=8), nasty_texts)
nasty_long = st.lists(pieces, max_size=6).map("".join)


@given(nasty_long)
@settings(max_examples=examples(400))
def test_nfc_is_unicodedata_nfc_on_long_mark_runs(text: str) -> None:
    assert nfc(text) == unicodedata.normalize("NFC", text)


@given(nasty_long)
def test_nfc_is_unicodedata_nfc_on_nfd_text(text: str) -> None:
    decomposed = unicodedata.normalize("NFD", text)
    assert nfc(decomposed) == unicodedata.normalize("NFC", text)


@given(nasty_texts)
def test_nfc_is_unicodedata_nfc_on_short_text(text: str) -> None:
    assert nfc(text) == unicodedata.normalize("NFC", text)


def test_nfc_is_unicodedata_nfc_on_a_few_long_texts() -> None:
    for text in (
        "క" + "఼్" * 3000,
        "a" + "\u0301\u0323" * 3000 + " x",
        "\u1e09" + "\u0323\u0301\u0327" * 2000 + "నై" + "\u0f73\u0f80" * 1000,
        "\u0301" * 50 + "\u0323" * 50 + "\uac00" + "\u11a8\u0301" * 500,
        ("కై" + "఼్" * 40 + " ") * 200,
    ):
        assert nfc(text) == unicodedata.normalize("NFC", text)
        assert brahmic_pua.normalize(text) == unicodedata.normalize("NFC", text)


def _reordering_steps(text: str) -> int:
    """The steps CPython's canonical ordering (an insertion sort by combining class) takes on
    ``text``: the pairs of marks in one run of non-starters whose classes are out of order,
    counted in one pass over the text's per-character decomposition (no sort run)."""
    decompose = functools.partial(_normalize, "NFD")
    steps = 0
    before: dict[int, int] = {}  # the run so far: marks of each class
    for ch in "".join(map(decompose, text)):
        klass = unicodedata.combining(ch)
        if klass == 0:
            before.clear()
            continue
        steps += sum(n for other, n in before.items() if other > klass)
        before[klass] = before.get(klass, 0) + 1
    return steps


_normalize = unicodedata.normalize


class _Counted:
    """``unicodedata.normalize``, counting the reordering steps of every text it is given."""

    def __init__(self) -> None:
        self.steps = 0

    def __call__(self, form: Literal["NFC", "NFD", "NFKC", "NFKD"], text: str) -> str:
        self.steps += _reordering_steps(text)
        return _normalize(form, text)


def test_encode_work_is_linear_in_a_run_of_marks_nfc_reorders(
    sample_models: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Doubling a run of marks out of canonical order at most doubles the reordering work of
    every normalization encode asks of CPython, counted, not timed: CPython's own NFC of the
    run quadruples it (about k²/2 steps for k pairs)."""
    sp = brahmic_pua.SentencePieceProcessor(model_file=str(sample_models["unigram"]))
    counted = _Counted()
    monkeypatch.setattr(unicodedata, "normalize", counted)
    for base, pair in (("క", "఼్"), ("a", "\u0301\u0323")):
        steps = []
        for k in (3000, 6000):
            counted.steps = 0
            sp.encode(base + pair * k)
            steps.append(counted.steps)
        assert steps[1] <= 2 * steps[0] + 64, f"{base + pair!r}: work {steps}"
        counted.steps = 0
        unicodedata.normalize("NFC", base + pair * 3000)  # the oracle sees CPython's own cost
        assert counted.steps >= 3000**2 // 4


def test_long_mark_runs_encode_to_stocks_ids_of_their_nfc(sample_models: dict[str, Path]) -> None:
    ours = brahmic_pua.SentencePieceProcessor(model_file=str(sample_models["unigram"]))
    stock = sentencepiece.SentencePieceProcessor(model_file=str(sample_models["unigram"]))
    for text in ("క" + "఼్" * 2000, "a" + "\u0301\u0323" * 2000, "నా " + "఼్" * 100 + " ఇ"):
        assert ours.encode(text) == stock.encode(unicodedata.normalize("NFC", text))


def test_the_non_starter_class_is_every_character_whose_nfd_starts_with_one() -> None:
    """The class of characters a long run is made of, against asking every code point."""
    every = (chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)
    expected = {ch for ch in every if unicodedata.combining(unicodedata.normalize("NFD", ch)[0])}
    assert set(nfc_module.starts_with_non_starter().replace("\\", "")) == expected


def test_the_non_starter_class_asks_few_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building the class asks unicodedata about the characters that may belong to it, not
    every code point (1.1 million questions took 0.12 s of a training), counted."""
    asked = [0]
    ask = unicodedata.combining

    def combining(ch: str) -> int:
        asked[0] += 1
        return ask(ch)

    nfc_module.starts_with_non_starter.cache_clear()
    monkeypatch.setattr(unicodedata, "combining", combining)
    try:
        assert nfc_module.starts_with_non_starter()
    finally:
        nfc_module.starts_with_non_starter.cache_clear()
    assert asked[0] < 100_000
