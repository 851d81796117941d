"""brahmic_pua.io.wording: a count and its noun, as every message says them.

The oracle is English and Python's own number formatting read back: a count reads back as the
number it is (its separators every three digits), and the noun is singular for one alone.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brahmic_pua.io.wording import counted, one_line

GROUPED = re.compile(r"[1-9][0-9]{0,2}(?:,[0-9]{3})*|0")


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (0, "0 pieces"),
        (1, "1 piece"),
        (2, "2 pieces"),
        (1000, "1,000 pieces"),
        (1001, "1,001 pieces"),
        (1_234_567, "1,234,567 pieces"),
    ],
)
def test_a_count_of_pieces(count: int, expected: str) -> None:
    assert counted(count, "piece") == expected


@given(st.integers(min_value=0, max_value=10**30))
def test_any_count_reads_back_with_its_noun_agreeing(count: int) -> None:
    number, noun = counted(count, "shard").split(" ")
    assert GROUPED.fullmatch(number), number
    assert int(number.replace(",", "")) == count
    assert noun == ("shard" if count == 1 else "shards")


@given(st.sampled_from([0, 1, 2, 1000, 1001]))
def test_a_given_plural_and_a_verb_agree_too(count: int) -> None:
    said = counted(count, "line contains", "lines contain")
    assert said == f"{count:,} " + ("line contains" if count == 1 else "lines contain")
    assert counted(count, "mark-start piece").endswith("piece" if count == 1 else "pieces")


@given(st.text())
def test_one_line_is_the_message_on_one_line(message: str) -> None:
    """No line break of any kind (str.splitlines' own list), no run of spaces, the words in
    order; the type's name where nothing is left."""
    line = one_line(ValueError(message))
    assert line == (" ".join(message.split()) or "ValueError")
    assert len(line.splitlines()) == 1 and "  " not in line


def test_one_line_examples() -> None:
    assert one_line(OSError("bad\n  page\r\nat 3")) == "bad page at 3"
    assert one_line(KeyError()) == "KeyError"
