"""brahmic_pua.io.lists: list options read as stock sentencepiece reads them.

Stock writes a Python list as one CSV row (csv.writer, quoting an item that holds a comma) and
its trainer reads a list flag as one CSV row; the oracles are that writer and stock's trainer.
"""

from __future__ import annotations

import csv
import io

import pytest
import sentencepiece as stock
from hypothesis import given
from hypothesis import strategies as st

import brahmic_pua
from brahmic_pua.io.lists import comma_list
from brahmic_pua.model.model_proto import USER_DEFINED, parse_model

items = st.lists(st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\r\n")))


def stock_row(values: list[str]) -> str:
    """What stock sentencepiece's Python makes of a list before its trainer reads it."""
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(values)
    return out.getvalue()


@given(items)
def test_a_list_keeps_its_items_whole(values: list[str]) -> None:
    assert comma_list(values, strip=False) == [v for v in values if v]


@given(items)
def test_a_string_is_read_as_the_csv_row_stock_writes_for_a_list(values: list[str]) -> None:
    assert comma_list(stock_row(values), strip=False) == comma_list(values, strip=False)


SYMBOLS = [["1,000", "<sep>", ","], ["x,", "x"], '"1,000",<sep>']
LINES = ["hello 1,000 world <sep> x x, y"] * 50


def user_defined(data: bytes) -> list[str]:
    return [p.piece for p in parse_model(data).pieces if p.type == USER_DEFINED]


@pytest.mark.parametrize("symbols", SYMBOLS, ids=repr)
def test_user_defined_symbols_are_the_ones_stock_defines(symbols: list[str] | str) -> None:
    theirs, ours = io.BytesIO(), io.BytesIO()
    stock.SentencePieceTrainer.train(
        sentence_iterator=iter(LINES),
        model_writer=theirs,
        vocab_size=30,
        user_defined_symbols=symbols,
        minloglevel=3,
        hard_vocab_limit=False,
    )
    brahmic_pua.SentencePieceTrainer.train(
        sentence_iterator=iter(LINES),
        model_writer=ours,
        vocab_size=300,
        user_defined_symbols=symbols,
        hard_vocab_limit=False,
    )
    assert user_defined(ours.getvalue()) == user_defined(theirs.getvalue())
