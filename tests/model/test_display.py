"""How pieces are shown (model/display.py): every code as its cluster, nothing ambiguous left.

The oracle is the rule of ``display``'s docstring written out a character at a time: an escape
and the character after it show as that character, marked; a code shows as its cluster (a space
in it as ▁); a stand-in as the literal it stands for, marked; any other Private Use character
marked; everything else as itself.
"""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from strategies import nasty_texts

from brahmic_pua.codec import PUACodec
from brahmic_pua.model.display import display, set_unused
from brahmic_pua.model.model_proto import NORMAL, UNUSED, model_pb2

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
        elif _private(ch) or ch == " ":  # a raw space: a disabled piece's prefix, marked
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


def _model(pieces: list[str], escape_whitespaces: bool = True) -> Any:
    model = model_pb2.ModelProto()
    model.normalizer_spec.escape_whitespaces = escape_whitespaces
    for piece in pieces:
        model.pieces.add(piece=piece, score=-1.0, type=NORMAL)
    return model


def test_a_disabled_piece_keeps_its_id_and_is_spelled_after_a_space() -> None:
    model = _model(["క", "\u0c4d", "\u0c02", "▁కా"])
    set_unused(model, [1, 3])
    assert [p.piece for p in model.pieces] == ["క", " \u0c4d", "\u0c02", " ▁కా"]
    assert [p.type for p in model.pieces] == [NORMAL, UNUSED, NORMAL, UNUSED]
    set_unused(model, [1])  # disabled twice (a model filtered again): spelled once
    assert model.pieces[1].piece == " \u0c4d"


def test_disabling_respells_pieces_an_older_model_left_unused() -> None:
    model = _model(["క", "\u0c4d", "\u0c02"])
    model.pieces[2].type = UNUSED  # as brahmic_pua wrote models before the spelling rule
    set_unused(model, [1])
    assert [p.piece for p in model.pieces] == ["క", " \u0c4d", " \u0c02"]


def test_a_disabled_spelling_never_takes_another_pieces() -> None:
    model = _model(["x", " x"])
    set_unused(model, [0])
    assert [p.piece for p in model.pieces] == ["  x", " x"]


def test_a_model_that_keeps_spaces_disables_behind_u2585() -> None:
    model = _model(["\u0c4d"], escape_whitespaces=False)
    set_unused(model, [0])
    assert model.pieces[0].piece == "\u2585\u0c4d"


@given(nasty_texts)
def test_no_text_normalizes_to_one_that_reaches_a_disabled_piece(text: str) -> None:
    """Stock spm tokenizes what its normalizer makes: with escape_whitespaces that never holds
    a space, so a piece spelled after one is out of reach in every version."""
    assert " " not in _stock_sample().normalize(text)


@cache
def _stock_sample() -> Any:
    import sentencepiece
    from conftest import TE_SAMPLE

    from brahmic_pua.trainer import train_model

    folder = Path(tempfile.mkdtemp(prefix="pieces_"))
    train_model(input=TE_SAMPLE, model_prefix=str(folder / "m"), vocab_size=600, num_threads=1)
    return sentencepiece.SentencePieceProcessor(model_file=str(folder / "m.model"))
