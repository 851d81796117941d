"""One script id per vocabulary id: NepBPE's ``script(t)`` (§2.1), for every Brahmic script.

Models use it as a per-token feature (NepBPE's ``ScriptEmb``), filters and metrics to tell
pieces apart. The numbering is fixed; ids 0–4 are the seed's own (``0=DEV 1=LAT 2=PUN 3=FMT
4=MAL``), so a Nepali model's ids mean what HimalayanTokenizer's do:

==========  =====================================================================================
id          pieces
==========  =====================================================================================
0 DEV       Devanagari letters, marks or digits (with any punctuation, digits, spaces)
1 LAT       Latin letters (idem)
2 PUN       no letters at all: punctuation, symbols, digits of no script (ASCII), spaces, ▁
3 FMT       ZWNJ / ZWJ only
4 MAL       byte-fallback pieces ``<0x..>``
5 SPECIAL   control, unknown and unused pieces (``<s>``, ``<unk>``, pieces a filter disabled)
6 OTHER     letters of any other script (Cyrillic, Arabic, Han…; not told apart), or code
            points of no script (Private Use, unassigned)
7 … 72      the other 66 Brahmic scripts, in the order of ``brahmic_pua.SCRIPT_NAMES``
73 MIXED    letters of two or more of the scripts above in one piece
==========  =====================================================================================

A piece's script is read from its text (PUA codes decoded to the clusters they stand for).
Characters of Unicode script Common or Inherited (punctuation, the danda ।, ASCII digits,
spaces, combining marks shared by scripts) join whatever letters the piece holds, as in Unicode
script runs: ``हैं।`` is DEV, ``Mr.`` LAT. A piece that joins letters to punctuation is therefore
not MIXED; NepBPE forbids it separately (its Phase 3 merges need script(a) = script(b) with PUN
a script of its own), which is the ``punct-join`` filter's business, not the id's.
"""

from __future__ import annotations

from collections.abc import Iterator

import regex
import sentencepiece

from brahmic_pua.model.processor_types import Processor, Scored, Vocabulary
from brahmic_pua.orthography import SCRIPT_NAMES
from brahmic_pua.orthography.classify import script_of_char

DEV, LAT, PUN, FMT, MAL, SPECIAL, OTHER = range(7)

#: The name of every script id, indexed by id.
SCRIPT_ID_NAMES: tuple[str, ...] = (
    "devanagari",
    "latin",
    "punctuation",
    "format",
    "byte",
    "special",
    "other",
    *(name for name in SCRIPT_NAMES if name != "devanagari"),
    "mixed",
)
MIXED = len(SCRIPT_ID_NAMES) - 1

#: A script name (``"telugu"``, ``"latin"``, ``"mixed"``…) to its id.
SCRIPT_ID: dict[str, int] = {name: i for i, name in enumerate(SCRIPT_ID_NAMES)}

_FORMAT = frozenset("\u200c\u200d")  # ZWNJ, ZWJ: NepBPE's τ_ZWNJ
_NEUTRAL = regex.compile(r"[\p{Script=Common}\p{Script=Inherited}]")
_LATIN = regex.compile(r"\p{Script=Latin}")
_SPACE = "\u2581"


def _letter_script(ch: str) -> int | None:
    """The script id a character brings to a piece, None for one that takes its neighbours'."""
    brahmic = script_of_char(ch)
    if brahmic is not None:
        return SCRIPT_ID[brahmic]
    if _LATIN.match(ch):
        return LAT
    if ch in _FORMAT or _NEUTRAL.match(ch):
        return None
    return OTHER


def script_of_text(text: str) -> int:
    """The script id of a piece's text (a leading ▁ ignored); see the module's table."""
    body = text.lstrip(_SPACE)
    if body and all(ch in _FORMAT for ch in body):
        return FMT
    scripts = {s for s in map(_letter_script, body) if s is not None}
    if len(scripts) > 1:
        return MIXED
    return scripts.pop() if scripts else PUN


def piece_texts(processor: Vocabulary) -> list[str]:
    """The text of every piece, by id. A brahmic_pua model's pieces are read from the model and
    decoded through its codec, not taken as displayed: the display marks a literal ▁ as
    ``<U+2581>``, which would read as Latin."""
    codec = getattr(processor, "codec", None)
    if codec is None or not isinstance(processor, Processor):
        return [processor.id_to_piece(i) for i in range(processor.get_piece_size())]
    model = sentencepiece.SentencePieceProcessor(model_proto=processor.serialized_model_proto())
    return [codec.decode(model.id_to_piece(i)) for i in range(model.get_piece_size())]


def special_kind(processor: Vocabulary, i: int) -> int | None:
    """SPECIAL for a control, unknown or unused piece, MAL for a byte piece, None for a piece
    that stands for its text. The one rule for which ids spell no text of their own: script
    ids give them these ids, and a composed embedding (:mod:`brahmic_pua.model.embedding_parts`)
    no parts."""
    if processor.is_control(i) or processor.is_unknown(i) or processor.is_unused(i):
        return SPECIAL
    if processor.is_byte(i):
        return MAL
    return None


def script_ids(processor: Vocabulary) -> list[int]:
    """One script id per vocabulary id, aligned with the vocabulary.

    ``processor``: brahmic_pua's or stock sentencepiece's (anything with ``get_piece_size``,
    ``id_to_piece``, ``is_byte``, ``is_control``, ``is_unknown`` and ``is_unused``)."""
    ids = []
    for i, text in enumerate(piece_texts(processor)):
        kind = special_kind(processor, i)
        ids.append(script_of_text(text) if kind is None else kind)
    return ids


def vocabulary_lines(processor: Scored, with_script_ids: bool = False) -> Iterator[str]:
    """The vocabulary as ``piece<TAB>score`` lines (as in a ``.vocab`` file), pieces shown as
    text; ``with_script_ids`` adds each piece's script id and its name."""
    scripts = script_ids(processor) if with_script_ids else None
    for i in range(processor.get_piece_size()):
        line = f"{processor.id_to_piece(i)}\t{processor.get_score(i):g}"
        if scripts is not None:
            line += f"\t{scripts[i]}\t{SCRIPT_ID_NAMES[scripts[i]]}"
        yield line
