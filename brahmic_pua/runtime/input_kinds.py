"""What a caller handed the processor, told apart as stock sentencepiece tells it: one item or a
list, ids or pieces, str or bytes pieces; and every id in it, to name the one out of range
(:func:`checked`, the one place a stock call's error about an id becomes that name).

Stock's wrapper decides by duck typing (``hasattr(x, "__len__")``, the first item of the first
non-empty row), not by the declared types: a tuple of ids, a numpy array and a list of numpy
rows all decode. These tests are its, so brahmic_pua's processor routes each input where stock
would.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Sequence
from typing import SupportsIndex, TypeGuard

from brahmic_pua.model.processor_types import StockMethod


def is_sequence(value: object) -> TypeGuard[Sequence[object]]:
    """A list of items rather than one, as stock sentencepiece tells them apart (anything with
    a length but text: a numpy array too, which iterates and indexes as a sequence does)."""
    return hasattr(value, "__len__") and not isinstance(value, (str, bytes))


def _first_item(value: object) -> object | None:
    """The first item of the first non-empty row (stock's test), or None if there is none;
    ``value`` itself where it is not a list. A numpy array of ids is ids: its item is 0."""
    if not is_sequence(value) or hasattr(value, "dtype"):
        return value if isinstance(value, (str, bytes)) else 0
    for item in value:
        if not is_sequence(item):
            return item
        if len(item):
            return item[0]
    return None


def holds_pieces(value: object) -> bool:
    """Pieces (one, a list, a batch) rather than ids: stock's test, first non-empty row."""
    return isinstance(_first_item(value), (str, bytes))


def bytes_pieces(value: object) -> bool:
    """Whether pieces to decode are bytes, as stock tells (the first of the first non-empty
    row): its decode offset mapping then counts in bytes. Empty bytes are not."""
    if isinstance(value, bytes):
        return len(value) > 0
    return not isinstance(value, str) and isinstance(_first_item(value), bytes)


def ids_in(value: object) -> Iterator[int]:
    """Every id in ``value``: ints, and numpy's integers (which an id array holds)."""
    if isinstance(value, SupportsIndex) and not is_sequence(value):
        yield operator.index(value)
    elif is_sequence(value):
        for item in value:
            yield from ids_in(item)


def out_of_range(id: int, size: int) -> str:
    """What an id outside the vocabulary is called, wherever it is found."""
    return f"piece id {id} is out of range: this model's ids are 0..{size - 1}"


def checked(
    method: StockMethod, ids: object, size: Callable[[], int], /, **options: object
) -> object:
    """Call stock's ``method`` on ``ids``; an id out of range (of ``size()`` pieces, asked only
    then) is one IndexError naming it. Stock raises IndexError for an id its C++ int takes and
    TypeError for one it does not (2**31, -2**31 - 1, 2**63): the same mistake, so both are the
    IndexError. A TypeError with every id in range (a str among ids) is stock's, unchanged."""
    try:
        return method(ids, **options)
    except (IndexError, TypeError) as error:
        pieces = size()
        bad = next((i for i in ids_in(ids) if not 0 <= i < pieces), None)
        if bad is None and isinstance(error, TypeError):
            raise
        raise IndexError(str(error) if bad is None else out_of_range(bad, pieces)) from None
