"""How a message says a count: the one rule for a number and the noun it counts.

Every user-facing message that puts a count before a noun ("wrote 1 shard", "mark-start: 3
pieces disabled", "1,142 lines") spells it with :func:`counted`, so that one piece is never
"1 pieces" and every count has the same thousands separators. It lives in the lowest stage
because messages of every stage count things (a codec file's items, a model's bytes, the
trainer's lines, the filters' pieces, encode-corpus's shards).
"""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun`` as a message says them: the count with thousands separators and
    the noun singular for exactly one, plural otherwise (0 pieces, 1 piece, 1,001 pieces).

    ``plural`` is for a noun whose plural is not ``noun + "s"``, and for a phrase whose words
    after the noun, or whose verb, agree with the count too (``counted(n, "line contains",
    "lines contain")``, ``counted(n, "piece starting with a mark", "pieces starting with a
    mark")``)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def one_line(error: BaseException) -> str:
    """An error's message as one line: all whitespace collapsed (a library's message may span
    lines, and every error brahmic_pua reports is one line), the type's name when it is empty.
    The one rule, for every message that quotes another's."""
    return " ".join(str(error).split()) or type(error).__name__
