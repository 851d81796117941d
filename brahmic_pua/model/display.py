"""Pieces as people see them: PUA codes shown as the clusters they stand for.

Also the vocabulary filter behind the no-orphan guarantee: a piece whose text (after a leading
▁) starts with a combining mark, or that holds an escape code, is set UNUSED after training, so
SentencePiece spells such text with byte pieces instead. Ids stay where they were.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from itertools import count
from weakref import WeakKeyDictionary

import regex

from brahmic_pua.codec import PUACodec
from brahmic_pua.codec.layout import ESCAPE, ESCAPED_LITERALS, PRIVATE_USE, RESERVED

# Re-exported: the piece types are defined once, in model_proto.py (from spm's generated
# module), and trainer/train.py, evaluation/repair.py and the tests import these three from here.
from brahmic_pua.model.model_proto import NORMAL as NORMAL
from brahmic_pua.model.model_proto import UNUSED as UNUSED
from brahmic_pua.model.model_proto import USER_DEFINED as USER_DEFINED
from brahmic_pua.model.model_proto import ModelProto

SPACE = "\u2581"
_MARK = regex.compile(r"\p{M}")
_STAND_INS = {code: literal for literal, code in ESCAPED_LITERALS.items()}
_ESCAPE_PAIR = re.compile(f"{ESCAPE}(.?)", re.DOTALL)
_MARKED = re.compile(r"<U\+([0-9A-F]{4,6})>")
#: Per codec, what ``str.translate`` makes of each code and stand-in (:func:`_show_table`).
_SHOW_TABLES: WeakKeyDictionary[PUACodec, dict[int, str]] = WeakKeyDictionary()


def _marked(ch: str) -> str:
    return f"<U+{ord(ch):04X}>"


def _show_table(codec: PUACodec) -> dict[int, str]:
    """Each code of ``codec`` as its cluster (the grapheme policy can put a space under a mark,
    " ా": shown as ▁), each stand-in as the literal it stands for, marked (a literal ▁ or
    U+2585 in the text: ▁ alone is spm's space); built once per codec, since a vocabulary of
    32,000 pieces shown a character at a time took 0.3 s."""
    table = _SHOW_TABLES.get(codec)
    if table is None:
        table = {ord(code): cluster.replace(" ", SPACE) for code, cluster in codec.code_pairs()}
        table.update({ord(code): _marked(literal) for code, literal in _STAND_INS.items()})
        # a raw space: the prefix of a disabled piece (DISABLED_PREFIX), never text of a piece
        table[ord(" ")] = _marked(" ")
        _SHOW_TABLES[codec] = table
    return table


def _show_run(text: str, table: dict[int, str]) -> str:
    """A run without escapes, shown: codes and stand-ins by ``table``, then any other Private
    Use character (no cluster's code: nothing clusters are made of is Private Use) marked."""
    return mark_private_use(text.translate(table))


def mark_private_use(text: str) -> str:
    """``text`` with every Private Use character written ``<U+XXXX>``."""
    if PRIVATE_USE.search(text) is None:
        return text
    return PRIVATE_USE.sub(lambda found: _marked(found.group()), text)


def display(piece: str, codec: PUACodec) -> str:
    """The text a model piece stands for, as a reader sees it: no PUA code point, no raw space.

    Codes show as their clusters, spm's ▁ as ▁, and a space inside a cluster as ▁ too (pieces
    are joined with spaces on the command line). What would be ambiguous is marked
    ``<U+XXXX>``: a literal ▁ or U+2585 in the text, a literal or lone escaped code point, the
    space a disabled piece is spelled after (``<U+0020>ా``).
    Use :func:`display_vocabulary` for a whole model: it resolves the rare remaining collisions.
    """
    table = _show_table(codec)
    if ESCAPE not in piece:
        return _show_run(piece, table)
    parts = _ESCAPE_PAIR.split(piece)  # plain runs, and the literal after each escape
    return "".join(
        _marked(part or ESCAPE) if i % 2 else _show_run(part, table) for i, part in enumerate(parts)
    )


def display_vocabulary(pieces: Sequence[str], codec: PUACodec) -> list[str]:
    """:func:`display` for every piece of a model, made distinct: two ids never show alike.

    Pieces can still collide (a space-carrying cluster ``" ా"`` and a disabled ``▁`` + ``ా``;
    text that spm left raw beside a code for the same cluster). The piece an encoding can
    produce, shown without substitution, lowest id first, keeps the shared text; the others
    show their code points, ``<U+E003 U+0C3E>``.
    """
    shown = [display(piece, codec) for piece in pieces]
    if len(set(shown)) == len(shown):
        return shown
    order = sorted(
        range(len(pieces)),
        key=lambda i: (
            must_disable(pieces[i], codec),
            shown[i] != codec.decode(pieces[i]),
            i,
        ),
    )
    taken: set[str] = set()
    for i in order:
        shown[i] = next(c for c in _candidates(shown[i], pieces[i]) if c not in taken)
        taken.add(shown[i])
    return shown


def _candidates(shown: str, piece: str) -> Iterator[str]:
    yield shown
    spelled = "<" + " ".join(f"U+{ord(ch):04X}" for ch in piece) + ">"
    yield spelled
    for n in count(2):
        yield f"{spelled}#{n}"


def model_text(shown: str, codec: PUACodec) -> str:
    """Back from a shown piece that is not in the vocabulary (an unknown piece's surface) to
    the text spm decodes: ▁ stays spm's space, marks become their characters, clusters codes.
    A mark that names no character is a ValueError naming the piece."""

    def character(match: re.Match[str]) -> str:
        value = int(match.group(1), 16)
        if value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
            raise ValueError(
                f"piece {shown!r}: {match.group(0)} is not a character; <U+XXXX> in a piece "
                "takes a code point U+0000..U+10FFFF that is not a surrogate (U+D800..U+DFFF)"
            )
        return chr(value)

    return SPACE.join(codec.encode(_MARKED.sub(character, part)) for part in shown.split(SPACE))


def starts_with_mark(text: str) -> bool:
    """True when ``text`` after its leading ▁ starts with a combining mark (Mn, Mc, Me)."""
    body = text.lstrip(SPACE)
    return bool(body) and bool(_MARK.match(body[0]))


def vocab_text(model: ModelProto, codec: PUACodec | None, scores: bool = True) -> bytes:
    """The ``.vocab`` file of a ModelProto, the one rendering the trainer, ``filter`` and
    ``repair`` write: ``piece<TAB>score`` lines as spm writes them (the piece alone without
    ``scores``: spm's vocabulary_output_piece_score=false), a brahmic_pua model's pieces shown
    as text (:func:`display_vocabulary`), a plain model's as stored."""
    pieces = [piece.piece for piece in model.pieces]
    shown = display_vocabulary(pieces, codec) if codec is not None else pieces
    if not scores:
        return "".join(f"{s}\n" for s in shown).encode("utf-8")
    lines = (f"{s}\t{p.score:g}\n" for s, p in zip(shown, model.pieces, strict=True))
    return "".join(lines).encode("utf-8")


def mark_start_ids(
    model: ModelProto,
    text_of: Callable[[str], str] = str,
    keep: Callable[[str], bool] = lambda piece: False,
) -> tuple[list[int], list[int]]:
    """The one mark-start rule for a ModelProto: ``(ids to disable, ids kept)`` of its NORMAL
    pieces whose text (``text_of``: a brahmic_pua model's codes as clusters) starts with a
    combining mark after a leading ▁ (guarantee 2). ``keep`` spares a piece the text cannot
    do without (a lone mark with no byte fallback to spell it). The trainer, the
    ``mark-start`` filter and ``repair`` all disable through it, with :func:`set_unused`."""
    disabled: list[int] = []
    kept: list[int] = []
    for i, piece in enumerate(model.pieces):
        if piece.type == NORMAL and starts_with_mark(text_of(piece.piece)):
            (kept if keep(piece.piece) else disabled).append(i)
    return disabled, kept


#: What a disabled piece's spelling starts with (:func:`set_unused`): a space. With
#: ``escape_whitespaces`` (spm's default, and every model brahmic_pua trains) spm's normalizer
#: turns every space into ▁ before it tokenizes, in every version, and llama.cpp and HF
#: tokenizers' Metaspace do the same, so no text a runtime tokenizes holds one.
DISABLED_PREFIX = " "
#: The prefix when a model keeps its spaces: U+2585, which a brahmic_pua model's rules always
#: rewrite to its stand-in and spm's trainer never learns (it drops lines that hold it).
KEPT_SPACE_PREFIX = "\u2585"


def disabled_spelling(model: ModelProto, piece: str, taken: AbstractSet[str]) -> str:
    """How ``piece`` is spelled once disabled: behind :data:`DISABLED_PREFIX` (or
    :data:`KEPT_SPACE_PREFIX`), repeated until no other piece of the model has that spelling."""
    escapes = model.normalizer_spec.escape_whitespaces
    prefix = DISABLED_PREFIX if escapes else KEPT_SPACE_PREFIX
    if piece.startswith(prefix):
        return piece  # disabled before (a model filtered twice)
    spelled = prefix + piece
    while spelled in taken:
        spelled = prefix + spelled
    return spelled


def set_unused(model: ModelProto, ids: Iterable[int]) -> None:
    """Disable pieces the way that keeps every id and holds in every runtime: type UNUSED
    (deleting would renumber ids, a low score does nothing in BPE) and spelled after a prefix
    no tokenized text holds (:func:`disabled_spelling`). The type alone is not enough:
    sentencepiece 0.2.3 skips UNUSED pieces, but 0.1.99-0.2.2, onnxruntime-extensions and
    llama.cpp still build them in BPE, so a lone mark's piece came back as a piece that starts
    with a mark. A spelling no text can produce is unreachable in all of them. Pieces a model
    written before this rule left UNUSED are respelled too (ids stay), so filtering an older
    model brings it up to date."""
    taken = {piece.piece for piece in model.pieces}
    older = [i for i, piece in enumerate(model.pieces) if piece.type == UNUSED]
    for i in sorted({*ids, *older}):
        piece = model.pieces[i]
        piece.type = UNUSED
        spelled = disabled_spelling(model, piece.piece, taken)
        taken.add(spelled)
        piece.piece = spelled


def must_disable(piece: str, codec: PUACodec) -> bool:
    """Pieces no segmentation may use: orphan marks at the start, or escape codes inside."""
    return any(ch in RESERVED for ch in piece) or starts_with_mark(codec.decode(piece))
