"""How pieces are shown (model/pieces.py): every code as its cluster, nothing ambiguous left.

The oracle is the rule of ``display``'s docstring written out a character at a time: an escape
and the character after it show as that character, marked; a code shows as its cluster (a space
in it as ▁); a stand-in as the literal it stands for, marked; any other Private Use character
marked; everything else as itself.
"""

from __future__ import annotations

from functools import cache

from hypothesis import given
from hypothesis import strategies as st

from brahmic_pua.codec import PUACodec
from brahmic_pua.model.pieces import display

ESCAPE = "\ue000"
STAND_INS = {"\ue001": "\u2581", "\ue002": "\u2585"}


def _private(ch: str) -> bool:
    cp = ord(ch)
    return 0xE000 <= cp <= 0xF8FF or 0xF0000 <= cp <= 0xFFFFD or 0x100000 <= cp <= 0x10FFFD


def _mark(ch: str) -> str:
    return f"<U+{ord(ch):04X}>"


def shown_by_hand(piece: str, codec: PUACodec) -> str:
    out, i = [], 0
    while i < len(piece):
        ch = piece[i]
        if ch == ESCAPE:
            out.append(_mark(piece[i + 1] if i + 1 < len(piece) else ESCAPE))
            i += 2
            continue
        cluster = codec.cluster_of(ch)
        if cluster is not None:
            out.append(cluster.replace(" ", "\u2581"))
        elif ch in STAND_INS:
            out.append(_mark(STAND_INS[ch]))
        elif _private(ch):
            out.append(_mark(ch))
        else:
            out.append(ch)
        i += 1
    return "".join(out)


@cache
def codecs() -> tuple[PUACodec, PUACodec]:
    """A fixtoken codec, and a grapheme codec with a space under a mark (" ా")."""
    text = ["క్రాంతి వచ్చాడు కా ా", "नमस्ते दुनिया"]
    return (
        PUACodec.build(text, scripts=["telugu", "devanagari"]),
        PUACodec.build(text, policy="grapheme", scripts=["telugu"]),
    )


def _characters() -> st.SearchStrategy[str]:
    codes = [code for codec in codecs() for code, _ in codec.code_pairs()]
    return st.one_of(
        st.sampled_from([*codes, ESCAPE, *STAND_INS, "\u2581", " ", "\u2585", "\u200d"]),
        st.sampled_from(["\ue003", "\uf8ff", "\U000f0000", "\U0010fffd", "\U000ffffd"]),
        st.characters(min_codepoint=0xE000, max_codepoint=0xF8FF),
        st.characters(codec="utf-8"),
    )


@given(st.lists(_characters(), max_size=30).map("".join), st.booleans())
def test_display_shows_codes_as_clusters_and_marks_the_rest(piece: str, grapheme: bool) -> None:
    codec = codecs()[grapheme]
    assert display(piece, codec) == shown_by_hand(piece, codec)


def test_display_of_a_trailing_escape_marks_the_escape_itself() -> None:
    codec = codecs()[0]
    assert display("a" + ESCAPE, codec) == "a<U+E000>"
    assert display(ESCAPE + "\u2581", codec) == "<U+2581>"
