"""Segmentation: the four policies, their published examples, and losslessness on real text."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest
import regex
from conftest import OTHER_SCRIPTS, corpora, corpus_files, read, sample
from hypothesis import given
from strategies import nasty_texts

from brahmic_pua import POLICIES, segment
from brahmic_pua.orthography import DEPENDENTS, STARTERS, can_follow, classify, is_valid_token
from brahmic_pua.segment import asr_normalize
from brahmic_pua.segment.patterns import cluster_regex


def test_fixtoken_default() -> None:
    assert segment("క్రాంతి") == ["క్", "రాం", "తి"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("क्षेत्रमा कसैका", ["क्षे", "त्र", "मा", " ", "क", "सै", "का"]),
        (
            "व्यक्तित्वमा प्रभाव पर्ने",
            ["व्", "य", "क्", "ति", "त्", "व", "मा", " ", "प्र", "भा", "व", " ", "प", "र्", "ने"],
        ),
        ("घाउ लागेको क्षेत्रमा", ["घा", "उ", " ", "ला", "गे", "को", " ", "क्षे", "त्र", "मा"]),
        ("क्रान्ति", ["क्रा", "न्", "ति"]),
    ],
)
def test_syllable_reproduces_the_published_examples(text: str, expected: list[str]) -> None:
    assert segment(text, "syllable") == expected


def test_syllable_keeps_what_the_seed_dropped() -> None:
    assert segment("म, २०८० ।", "syllable") == ["म", ",", " ", "२", "०", "८", "०", " ", "।"]


def test_asr_normalize_is_the_seeds_lossy_option() -> None:
    assert segment(asr_normalize("श्री"), "syllable") == ["स्रि"]
    assert asr_normalize("घाउ,  लागेको।") == "घाउ लागेको "
    assert asr_normalize("श्री", fold=False) == "श्री"
    assert asr_normalize("क, ख", punctuation=False) == "क, ख"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("क्षेत्रमा", ["क्षे", "त्र", "मा"]),
        ("బస్", ["బ", "స్"]),  # a word-final dead consonant is a unit
        ("क्\u200cष", ["क्\u200c", "ष"]),  # ZWNJ breaks the conjunct
        ("क्\u200dष", ["क्\u200dष"]),  # ZWJ (half form) keeps it
        ("స్త్రీ", ["స్త్రీ"]),
        ("அக்கா", ["அ", "க்கா"]),  # InSC makes Tamil pulli a virama: orthographic syllables
    ],
)
def test_akshara(text: str, expected: list[str]) -> None:
    assert segment(text, "akshara") == expected


def test_grapheme_is_unicode_extended_grapheme_clusters() -> None:
    text = "\n".join(sample("te") + sample("hi"))
    assert segment(text, "grapheme") == regex.findall(r"\X", text)


def test_orphans_form_their_own_clusters() -> None:
    assert segment("ి") == ["ి"]
    assert segment(" ా") == [" ", "ా"]
    assert segment("1ం") == ["1", "ం"]
    assert segment("aి") == ["a", "ి"]
    assert segment("ాం") == ["ాం"]  # the suffix can follow the orphan sign


def test_unknown_policy_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown policy 'bpe': choose one of fixtoken"):
        segment("x", "bpe")


@pytest.mark.parametrize("policy", POLICIES)
@given(nasty_texts)
def test_segment_is_lossless(policy: str, text: str) -> None:
    clusters = segment(text, policy)
    assert "".join(clusters) == text
    assert all(clusters)


@pytest.mark.parametrize("policy", POLICIES)
@given(nasty_texts)
def test_fast_path_equals_one_regex_pass(policy: str, text: str) -> None:
    """Cutting at sure boundaries first (the speed-up) changes nothing."""
    assert segment(text, policy) == cluster_regex(policy).findall(text)


def check_fixtoken(text: str, clusters: list[str]) -> None:
    """The definition: boundaries exactly before starters and before orphaned dependents."""
    assert "".join(clusters) == text
    for cluster in clusters:
        assert all(classify(ch) in DEPENDENTS for ch in cluster[1:])
        assert all(can_follow(classify(a), classify(b)) for a, b in pairwise(cluster))
        assert is_valid_token(cluster) or classify(cluster[0]) in DEPENDENTS
    for left, right in pairwise(clusters):
        a, b = classify(left[-1]), classify(right[0])
        assert b in STARTERS or not can_follow(a, b)


@given(nasty_texts)
def test_fixtoken_definition(text: str) -> None:
    check_fixtoken(text, segment(text))


def test_fixtoken_definition_on_telugu() -> None:
    text = "\n".join(sample("te"))
    check_fixtoken(text, segment(text))


def test_huge_line() -> None:
    line = ("క్రాంతి ▁\ue000 ि" * 40_000) + "x" * 100_000
    for policy in POLICIES:
        assert "".join(segment(line, policy)) == line


def test_every_sample_segments_losslessly() -> None:
    text = "\n".join(sample("te") + sample("hi") + OTHER_SCRIPTS)
    for policy in POLICIES:
        assert "".join(segment(text, policy)) == text, policy


@corpora
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_every_corpus_segments_losslessly(path: Path) -> None:
    text = read(path.name)
    for policy in POLICIES:
        clusters = segment(text, policy)
        assert "".join(clusters) == text, policy
