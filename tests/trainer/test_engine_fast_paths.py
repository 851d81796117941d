"""The fast paths of training give exactly what the plain algorithms in
speed_reference.py give: cluster counts word by word, spellings without listing what is not
needed, the cheapest-first order of cluster + mark texts, the normalizer rules, and a model
trained with them (byte for byte)."""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence
from itertools import chain
from pathlib import Path
from typing import Any

import pytest
import speed_reference as reference
from conftest import OTHER_SCRIPTS, sample, slow
from hypothesis import given
from hypothesis import strategies as st
from strategies import ALPHABET, nasty_texts, texts

from brahmic_pua.codec import PUACodec
from brahmic_pua.io.lines import batched
from brahmic_pua.model import rules
from brahmic_pua.normalize import Normalizer, normalizer
from brahmic_pua.normalize.spellings import (
    composites,
    decomposing_characters,
    run_order_count,
    run_orders,
    spelling_floor,
    spellings,
)
from brahmic_pua.segment import counting
from brahmic_pua.segment.counting import count_batches, count_corpus
from brahmic_pua.trainer import count_apart, train_model
from brahmic_pua.trainer import fit as fit_module
from brahmic_pua.trainer.corpus import Corpus

POLICIES = ("fixtoken", "akshara", "syllable", "grapheme")


# -- counting -----------------------------------------------------------------------------------


@pytest.mark.parametrize("policy", POLICIES)
def test_counts_equal_a_count_of_every_whole_text(policy: str) -> None:
    lines = sample("te") + sample("hi") + OTHER_SCRIPTS
    every_sentinel = "".join(map(chr, range(0xFDD0, 0xFDF0)))
    lines += ["", " ", "  a  ", "క  ా ", "\t కా\u2581 \ue001", every_sentinel + " కా కా"]
    fast, plain = count_corpus(lines, policy), reference.count_corpus(lines, policy)
    assert fast.clusters == plain.clusters and fast.characters == plain.characters
    assert set(fast.clusters) == set(plain.clusters)  # no key with a zero count
    assert set(fast.characters) == set(plain.characters)


@given(lines=st.lists(st.one_of(nasty_texts, st.text(st.sampled_from(ALPHABET + "  ")))))
def test_counts_equal_on_any_text(lines: list[str]) -> None:
    for policy in POLICIES:
        fast, plain = count_corpus(lines, policy), reference.count_corpus(lines, policy)
        assert (fast.clusters, fast.characters) == (plain.clusters, plain.characters)
        small = count_batches(batched(lines, 3), policy, keep_words=True)  # texts joined too
        assert (small.clusters, small.characters) == (plain.clusters, plain.characters)
        words = Counter(word for line in lines for word in line.split(" "))
        assert small.words == (None if policy == "grapheme" else words)
        assert fast.words is None  # not asked for
        assert (set(fast.clusters), set(fast.characters)) == (
            set(plain.clusters),
            set(plain.characters),
        )


@pytest.mark.parametrize("policy", POLICIES)
def test_counts_in_small_windows_are_the_same(monkeypatch: pytest.MonkeyPatch, policy: str) -> None:
    """Distinct words let go every few words and cut a few at a time: the same counts."""
    lines = sample("te")[:300] + sample("hi")[:100] + ["", " ", "కా  కా "]
    plain = reference.count_corpus(lines, policy)
    monkeypatch.setattr(counting, "MAX_WORDS", 50)
    monkeypatch.setattr(counting, "WORDS_AT_ONCE", 7)
    small = count_batches(batched(lines, 5), policy, keep_words=True)
    assert (small.clusters, small.characters) == (plain.clusters, plain.characters)
    assert set(small.clusters) == set(plain.clusters)  # no key with a zero count
    assert small.words is None  # they were let go: the word-start pass reads the lines again


# -- spellings ----------------------------------------------------------------------------------


MARKS = [ch for ch in ALPHABET if unicodedata.combining(ch)] + [
    chr(cp) for cp in (0x0300, 0x0301, 0x0323, 0x0328, 0x0331, 0x05B0, 0x0591, 0x0F71, 0x0F74)
]


@given(st.lists(st.sampled_from(MARKS), min_size=1, max_size=8))
def test_run_orders_are_the_permutations_nfd_maps_back(marks: list[str]) -> None:
    run = tuple(unicodedata.normalize("NFD", "".join(marks)))
    assert run_orders(run) == tuple(reference.run_orders(list(run)))
    assert run_order_count(run) == len(run_orders(run))


@given(
    st.one_of(
        texts,
        st.text(st.sampled_from(ALPHABET + "".join(MARKS)), max_size=8),
        st.lists(st.sampled_from(sorted(composites())), max_size=3).map("".join),
    )
)
def test_spellings_equal_the_plain_algorithm(text: str) -> None:
    assert spellings(text) == reference.spellings(text)
    assert spelling_floor(text) <= len(spellings(text))


def test_every_decomposing_character_is_spelled_as_before() -> None:
    """Hangul syllables take a shortcut; the other characters the general path."""
    for ch in decomposing_characters():
        assert spellings(ch) == reference.spellings(ch), ch


@given(st.lists(texts, max_size=30))
def test_cheapest_first_is_the_sorted_order(candidates: list[str]) -> None:
    order = sorted(candidates, key=lambda t: len(spellings(t)))
    assert list(rules.cheapest_first(candidates)) == order


# -- rules and models ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def codec() -> PUACodec:
    lines = sample("te")[:400] + sample("hi")[:150] + OTHER_SCRIPTS * 3
    return PUACodec.build(lines, policy="akshara")


@slow  # the plain algorithm over every rule
@pytest.mark.parametrize("mode", ["nfc", "nepali-lm"])
def test_normalizer_rules_equal_the_plain_algorithm(codec: PUACodec, mode: str) -> None:
    n = normalizer(mode)
    assert rules.normalizer_rules(codec, n) == reference.normalizer_rules(codec, n)


def _reference_rules(
    codec: PUACodec, n: Normalizer, user: Sequence[tuple[str, str]] = ()
) -> list[tuple[str, str]]:
    """The plain algorithm, which knows no user rules (these trainings give none)."""
    assert not user
    return reference.normalizer_rules(codec, n)


@slow  # trains each type twice
@pytest.mark.parametrize("model_type", ["bpe", "unigram"])
def test_model_is_byte_identical_to_the_plain_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_type: str
) -> None:
    lines = sample("te")[:400] + sample("hi")[:150]
    options: dict[str, Any] = {"vocab_size": 800, "model_type": model_type, "num_threads": 1}
    for path in ("fast", "plain"):  # the same file name: the model records it
        if path == "plain":  # plain count and rules; spm fed every rule, from Python, alone
            monkeypatch.setattr(rules, "normalizer_rules", _reference_rules)
            monkeypatch.setattr(fit_module, "training_rule_files", rules.rule_files)
            monkeypatch.setattr(Corpus, "spm_input", lambda *_: None)
            monkeypatch.setattr(
                count_apart,  # (the count of one process)
                "count_batches",
                lambda batches, policy, *_: reference.count_corpus([*chain(*batches)], policy),
            )
        prefix = tmp_path / path / "m"
        prefix.parent.mkdir()
        train_model(sentence_iterator=iter(lines), model_prefix=str(prefix), **options)
    for suffix in (".model", ".vocab"):
        fast = (tmp_path / "fast" / f"m{suffix}").read_bytes()
        assert fast == (tmp_path / "plain" / f"m{suffix}").read_bytes()
