"""Comma-separated lists, the one reader: ``scripts=telugu,devanagari``, ``filters=theta,…``,
``input=a.txt,b.txt``, ``user_defined_symbols=…`` (spm's own spelling of a list).

A string is read as spm reads a list flag, one CSV row: commas separate, and a quoted item keeps
its commas (``"1,000",<sep>``). A value given as a list (the Python API) keeps each item whole,
as stock sentencepiece does (it writes the list as one CSV row, quoting an item that holds a
comma): ``['1,000', '<sep>']`` is two symbols, ``[',']`` one. Either way the items come back as
strings, empty items dropped. Names (scripts, filters, files) are stripped of spaces around
them; symbols are not (``strip=False``: a symbol may be or hold a space, as in spm).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any


def comma_list(value: str | Iterable[Any] | None, strip: bool = True) -> list[str]:
    """The items of ``value``: a comma-separated string or an iterable of items.

    >>> comma_list(" telugu, devanagari,,")
    ['telugu', 'devanagari']
    >>> comma_list(["1,000", "<sep>", ","], strip=False)
    ['1,000', '<sep>', ',']
    >>> comma_list('"1,000",<sep>')
    ['1,000', '<sep>']
    >>> comma_list("▁x, y", strip=False)
    ['▁x', ' y']
    """
    if value is None:
        return []
    if isinstance(value, str):
        items = next(csv.reader([value]), []) if value else []
    else:
        items = [str(item) for item in value]
    if strip:
        items = [item.strip() for item in items]
    return [item for item in items if item]
