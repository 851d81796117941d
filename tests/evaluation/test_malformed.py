"""Unattached Brahmic signs (evaluation/malformed.py): the dotted circles in a model's text.

Two oracles: hand-checked examples, and fixtoken segmentation, which starts a new cluster
exactly where a character cannot follow the one before it: a sign is unattached exactly when a
fixtoken cluster starts with it.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brahmic_pua.evaluation.malformed import (
    BRAHMIC_SIGNS,
    MalformedCount,
    count_malformed,
    unattached_signs,
)
from brahmic_pua.orthography import classify
from brahmic_pua.segment import segment

ALPHABET = (
    "కగరాిీుెొంః్ఁ"  # Telugu consonants, vowel signs, anusvara, visarga, virama, candrabindu
    "कखािीं़्ँ"  # Devanagari, with nukta
    "అఆ"  # independent vowels
    " \t\n\r\u00a0"  # whitespace
    "\u200c\u200d"  # ZWNJ, ZWJ
    "a1.-\u0301\ue003\u2581\ufeff"  # Latin, digit, punctuation, a Latin mark, PUA, ▁, BOM
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("కాంతి", []),
        ("ా", [(0, "line_start")]),
        ("క ా", [(2, "after_space")]),
        ("క\tా", [(2, "after_space")]),
        ("క\nా", [(2, "line_start")]),
        ("క\r\n్", [(3, "line_start")]),
        ("aా", [(1, "cannot_follow")]),
        ("1్", [(1, "cannot_follow")]),
        ("कि़", [(2, "cannot_follow")]),  # a nukta after a vowel sign
        ("క్\u200dష", []),  # a joiner after a virama, a consonant after it
        ("\u200d", []),  # joiners are not counted
        ("e\u0301", []),  # nor other scripts' marks
        ("", []),
    ],
)
def test_unattached_signs_by_hand(text: str, expected: list[tuple[int, str]]) -> None:
    assert unattached_signs(text) == expected


@given(st.text(st.sampled_from(ALPHABET), max_size=60))
def test_a_sign_is_unattached_exactly_where_a_fixtoken_cluster_starts_with_it(text: str) -> None:
    starts, at = [], 0
    for cluster in segment(text, "fixtoken"):
        if classify(cluster[0]) in BRAHMIC_SIGNS:
            starts.append(at)
        at += len(cluster)
    assert [i for i, _ in unattached_signs(text)] == starts


@given(st.lists(st.text(st.sampled_from(ALPHABET), max_size=30), max_size=8))
def test_counts_add_up_over_texts_each_starting_a_line(texts: list[str]) -> None:
    count = count_malformed(texts)
    whole = [kind for text in texts for _, kind in unattached_signs(text)]
    assert count.total == len(whole)
    assert (count.line_start, count.after_space, count.cannot_follow) == (
        whole.count("line_start"),
        whole.count("after_space"),
        whole.count("cannot_follow"),
    )
    assert count.characters == sum(map(len, texts))
    joined = count_malformed(["\n".join(texts)])  # a line break: the same as separate texts
    assert joined.total == count.total


def test_per_1000_characters() -> None:
    assert MalformedCount(1, 1, 0, 4000).per_1000() == 0.5
    assert MalformedCount().per_1000() == 0.0
    assert count_malformed(["ా" * 10]).per_1000() == 100.0  # a run: only the first unattached
