"""Comma-separated lists, the one reader: ``scripts=telugu,devanagari``, ``filters=theta,…``,
``input=a.txt,b.txt``, ``user_defined_symbols=…`` (spm's own spelling of a list).

A value may also be given as a list (the Python API): its items are split at commas too, as
stock sentencepiece joins a list with commas before it reads it. Either way the items come back
as strings, empty items dropped. Names (scripts, filters, files) are stripped of spaces around
them; symbols are not (``strip=False``: a symbol may be or hold a space, as in spm).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def comma_list(value: str | Iterable[Any] | None, strip: bool = True) -> list[str]:
    """The items of ``value``: a comma-separated string or an iterable of items.

    >>> comma_list(" telugu, devanagari,,")
    ['telugu', 'devanagari']
    >>> comma_list(["a.txt,b.txt", "c.txt"])
    ['a.txt', 'b.txt', 'c.txt']
    >>> comma_list("▁x, y", strip=False)
    ['▁x', ' y']
    """
    if value is None:
        return []
    given = [value] if isinstance(value, str) else list(value)
    items = [part for item in given for part in str(item).split(",")]
    if strip:
        items = [item.strip() for item in items]
    return [item for item in items if item]
