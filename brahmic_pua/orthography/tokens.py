"""Valid tokens, ``fixToken`` and ``combine`` (the paper, §3.2–3.6) over real strings."""

from __future__ import annotations

from itertools import pairwise

from brahmic_pua.orthography.charclass import DEPENDENTS, STARTERS
from brahmic_pua.orthography.classify import classify
from brahmic_pua.orthography.relation import can_follow


def is_valid_token(token: str) -> bool:
    """``ValidBrahmicToken``: non-empty, starts with a starter, every adjacent pair is in ⊸."""
    if not token or classify(token[0]) not in STARTERS:
        return False
    return all(can_follow(classify(a), classify(b)) for a, b in pairwise(token))


def fix_token(candidate: str, remainder: str) -> tuple[str, str]:
    """Move a proposed token boundary right past every dependent character (``fixToken``).

    Returns ``(token, rest)`` with ``token + rest == candidate + remainder`` and ``rest`` empty or
    starting with a character that may start a token. Like the paper's function it absorbs
    dependents whatever they follow: it repairs boundaries, it does not judge the text.
    """
    end = 0
    while end < len(remainder) and classify(remainder[end]) in DEPENDENTS:
        end += 1
    return candidate + remainder[:end], remainder[end:]


def combine(left: str, right: str) -> str | None:
    """The partial semigroup operation: ``left + right`` when the boundary is in ⊸, else None.

    Tokens are non-empty (there is no unit), so an empty operand gives None.
    """
    if not left or not right:
        return None
    if can_follow(classify(left[-1]), classify(right[0])):
        return left + right
    return None
