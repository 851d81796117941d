"""N, the normalization applied before segmentation; ``decode(encode(s)) == N(s)``."""

from __future__ import annotations

import unicodedata

MODES: tuple[str, ...] = ("nfc", "none")


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"unknown normalization {mode!r}: choose one of {', '.join(MODES)}")
    return mode


def normalize(text: str, mode: str = "nfc") -> str:
    """``nfc``: Unicode NFC (the default; canonically equivalent spellings become one).
    ``none``: the text as given."""
    if check_mode(mode) == "nfc":
        return unicodedata.normalize("NFC", text)
    return text
