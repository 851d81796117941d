"""Pieces as people see them: PUA codes shown as the clusters they stand for.

Also the vocabulary filter behind the no-orphan guarantee: a piece whose text (after a leading
▁) starts with a combining mark, or that holds an escape code, is set UNUSED after training, so
SentencePiece spells such text with byte pieces instead. Ids stay where they were.
"""

from __future__ import annotations

import regex

from brahmic_pua.codec import PUACodec
from brahmic_pua.codec.layout import RESERVED, is_private_use

SPACE = "\u2581"
NORMAL, UNUSED = 1, 5
_MARK = regex.compile(r"\p{M}")


def display(piece: str, codec: PUACodec) -> str:
    """The text a model piece stands for; ▁ stays ▁ and no PUA code point is left.

    A code point that is not a cluster (a lone escape) is shown as ``<U+XXXX>``.
    """
    text = codec.decode(piece)
    if any(is_private_use(ch) for ch in text):
        text = "".join(f"<U+{ord(ch):04X}>" if is_private_use(ch) else ch for ch in text)
    return text


def starts_with_mark(text: str) -> bool:
    """True when ``text`` after its leading ▁ starts with a combining mark (Mn, Mc, Me)."""
    body = text.lstrip(SPACE)
    return bool(body) and bool(_MARK.match(body[0]))


def must_disable(piece: str, codec: PUACodec) -> bool:
    """Pieces no segmentation may use: orphan marks at the start, or escape codes inside."""
    return any(ch in RESERVED for ch in piece) or starts_with_mark(codec.decode(piece))
