"""Where codes live in the Private Use Area, and how clusters are assigned to them.

Three code points are reserved: an escape (U+E000) that marks the next character as literal, and
stand-ins for U+2581 (▁, SentencePiece's space marker) and U+2585 (a line holding it is silently
dropped by spm training). Table codes follow, BMP first (3 UTF-8 bytes), then planes 15 and 16.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from brahmic_pua.io.wording import counted

ESCAPE = "\ue000"
ESCAPED_LITERALS = {"\u2581": "\ue001", "\u2585": "\ue002"}
RESERVED = frozenset({ESCAPE, *ESCAPED_LITERALS.values()})

PUA_RANGES: tuple[tuple[int, int], ...] = (
    (0xE000, 0xF8FF),
    (0xF0000, 0xFFFFD),
    (0x100000, 0x10FFFD),
)
#: Any Private Use character (one of :data:`PUA_RANGES`), found in C.
PRIVATE_USE = re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in PUA_RANGES) + "]")
FIRST_CODE = 0xE003
BMP_CAPACITY = 0xF8FF - FIRST_CODE + 1
CAPACITY = BMP_CAPACITY + sum(b - a + 1 for a, b in PUA_RANGES[1:])


def is_private_use(ch: str) -> bool:
    cp = ord(ch)
    return any(a <= cp <= b for a, b in PUA_RANGES)


def code_points() -> Iterator[int]:
    """Every table code, in allocation order."""
    yield from range(FIRST_CODE, 0xF8FF + 1)
    for a, b in PUA_RANGES[1:]:
        yield from range(a, b + 1)


def allocate(
    ranked: Sequence[tuple[str, str]],
) -> tuple[dict[str, int], list[tuple[int, int, str]]]:
    """Give each ``(cluster, script)`` a code, most frequent first, in per-script blocks.

    ``ranked`` is ordered most frequent first. The BMP goes to the most frequent clusters; inside
    each tier (BMP, then planes 15–16) clusters are grouped by script so that a code's script is
    a range lookup. Returns the codes and the (first, last, script) blocks.
    """
    if len(ranked) > CAPACITY:
        raise ValueError(
            f"{counted(len(ranked), 'cluster')} do not fit the {CAPACITY:,} Private Use codes; "
            "pass fewer scripts or a coarser policy"
        )
    codes: dict[str, int] = {}
    blocks: list[tuple[int, int, str]] = []
    free = code_points()
    for tier in (ranked[:BMP_CAPACITY], ranked[BMP_CAPACITY:]):
        by_script: dict[str, list[str]] = {}
        for cluster, script in tier:
            by_script.setdefault(script, []).append(cluster)
        for script, clusters in by_script.items():
            for cluster in clusters:
                code = next(free)
                codes[cluster] = code
                if blocks and blocks[-1][2] == script and blocks[-1][1] == code - 1:
                    blocks[-1] = (blocks[-1][0], code, script)
                else:
                    blocks.append((code, code, script))
    return codes, blocks
