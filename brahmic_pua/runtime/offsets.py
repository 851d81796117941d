"""Protos, offset mappings and normalized text with offsets on a brahmic_pua model, all counted
in the caller's text and showing pieces as text.

**Encoding.** Stock sentencepiece already aligns a brahmic_pua model's pieces with the text it
was given: its normalizer records, for every compiled rule it applies (a spelling of a cluster →
its Private Use code), where in the input the rule's source began. So stock on the caller's
text gives surfaces, byte ``begin``/``end`` and character offsets into that text; only ``piece``
holds codes. The processor encodes N(text) (``Manifest.stock_input``), and its ids are stock's
on the caller's text exactly when stock's normalizer makes the same string of both, which the
compiled rules see to for every text but the documented exceptions (docs/guarantees.md). So
each text is a :class:`Source`: sent to stock *as given* when its normalized form is the same
(nearly always; no check at all when N leaves it unchanged), otherwise as N(text), whose
offsets :func:`source_positions` carries back to the caller's text. Either way the ids are the
processor's own ``encode`` ids.

**Decoding.** Stock's decode proto joins the pieces' text (codes, with ▁ as a space and the
first piece's dummy ▁ dropped), denormalizes the whole (code → cluster) for ``text``, and keeps
``surface``, ``begin`` and ``end`` of the joined codes. :class:`Denormalizer` runs the model's
denormalizer rules over the same joined text with stock's alignment and moves every boundary
into the decoded text, so each piece's surface is the text its codes decode to and the surfaces
join to ``text``. A unit of the denormalizer split between two pieces (an escape and the
character it makes literal) goes, whole, to the piece where it ends, as encoding gives it.

**Offset mappings** are made from the protos, as stock's ``ExtractOffsetMapping`` makes them.
"""

from __future__ import annotations

import importlib
import re
import unicodedata
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate, pairwise
from typing import Any, Generic, Protocol, TypedDict, TypeVar

import sentencepiece as stock

from brahmic_pua.codec.layout import ESCAPE
from brahmic_pua.model.manifest import Manifest
from brahmic_pua.segment.sure_cuts import check_no_surrogates

#: The generated module of sentencepiece.proto, without type information (as ``model_pb2`` in
#: brahmic_pua.model.model_proto): the :class:`SentencePieceText` protocol below gives the shape.
text_pb2: Any = importlib.import_module("sentencepiece.sentencepiece_pb2")

StrOrBytes = TypeVar("StrOrBytes", str, bytes)


class OffsetMapping(TypedDict, Generic[StrOrBytes]):
    """``encode(..., out_type="offset_mapping")``: per piece its id, the piece (as
    ``encode(out_type=str)`` shows it, or its UTF-8 with ``return_bytes``) and its (begin, end)
    in the text given, in characters (bytes with ``return_bytes``)."""

    ids: list[int]
    pieces: list[StrOrBytes]
    offsets: list[tuple[int, int]]


class TextOffsetMapping(OffsetMapping[StrOrBytes]):
    """``decode(..., out_type="offset_mapping")``: the same, with the decoded ``text`` the
    offsets count in."""

    text: StrOrBytes


class SentencePiece(Protocol):
    """The shape of ``sentencepiece_pb2.SentencePieceText.SentencePiece`` (protobuf's generated
    classes carry no types): a piece and where its text lies, ``begin``/``end`` in UTF-8 bytes."""

    piece: str
    id: int
    surface: str
    begin: int
    end: int


class SentencePieceText(Protocol):
    """The shape of ``sentencepiece_pb2.SentencePieceText``, what ``out_type="proto"`` gives."""

    text: str
    score: float

    @property
    def pieces(self) -> Sequence[SentencePiece]: ...

    def SerializeToString(self) -> bytes: ...


class NBestSentencePieceText(Protocol):
    """The shape of ``sentencepiece_pb2.NBestSentencePieceText`` (``nbest_encode`` protos)."""

    @property
    def nbests(self) -> Sequence[SentencePieceText]: ...

    def SerializeToString(self) -> bytes: ...


#: Stock's ``normalize(x, with_offsets=True)``: the text and one offset per character (per byte
#: for bytes), into the text given, and its length at the end.
Normalized = tuple[StrOrBytes, list[int]]

_ESCAPED_BYTES = re.compile("[\udc80-\udcff]")
_UNITS = re.compile(f"{ESCAPE}.?|.", re.DOTALL)  # what display and codec.decode map as one
_WORDS = re.compile(r"\s+|\S+")


def read_bytes(data: bytes) -> str:
    """UTF-8 as spm reads it: each byte that is not part of a valid character is one U+FFFD.
    Python's ``errors="replace"`` writes one per invalid run (one for a cut three-byte
    character, where spm writes two), which would give other ids than stock's."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return _ESCAPED_BYTES.sub("\ufffd", data.decode("utf-8", "surrogateescape"))


def text_of(given: Any) -> str:
    """A text to encode: str, or bytes read as spm reads them."""
    if isinstance(given, bytes):
        return read_bytes(given)
    if not isinstance(given, str):
        raise TypeError("Input must be str or bytes")
    return given


def _widths(given: str | bytes) -> list[int]:
    """The UTF-8 length of each character of ``given`` (bytes: as :func:`read_bytes` reads
    them, an invalid byte one character of one byte)."""
    if isinstance(given, bytes):
        text = given.decode("utf-8", "surrogateescape")
        return [1 if "\udc80" <= ch <= "\udcff" else len(ch.encode()) for ch in text]
    if given.isascii():
        return [1] * len(given)
    return [len(ch.encode("utf-8", "surrogatepass")) for ch in given]


def byte_starts(given: str | bytes) -> list[int]:
    """The byte offset of each character of ``given``, and its length in bytes at the end."""
    return [0, *accumulate(_widths(given))]


def char_index(given: str | bytes) -> list[int]:
    """For each byte offset of ``given``'s UTF-8 (its length included), the index of the
    character holding it: stock's ``UTF8ToUnicodeOffsets``."""
    index: list[int] = []
    for i, width in enumerate(_widths(given)):
        index.extend([i] * width)
    index.append(len(index) and index[-1] + 1)
    return index


def source_positions(text: str, normal: Callable[[str], str]) -> list[int]:
    """For each character of ``normal(text)``, and for its end, the index in ``text`` of the
    character it comes from.

    N is local, so ``text`` is cut where N can be applied to each part alone: before every
    character with combining class 0 (a cluster, a space) inside a run between spaces, where N
    of the parts joins to N of the run, else at the run's ends, else nowhere (the whole text is
    one part). Every character a part makes points at the part's start, as stock's normalizer
    points every character a rule writes at the rule's source: a boundary inside a part (a
    piece that ends where N composed) moves to the part's start. A part N deletes (a ZWJ under
    nepali-lm) belongs to the piece before it, whose end is where the next part starts, or, at
    the start of the text, to the first part, as in stock."""
    target = normal(text)
    parts: list[tuple[int, str]] = []
    for run in _WORDS.finditer(text):
        begin, end = run.span()
        cuts = [i for i in range(begin + 1, end) if not unicodedata.combining(text[i])]
        bounds = [begin, *cuts, end]
        fine = [(a, normal(text[a:b])) for a, b in pairwise(bounds)]
        whole = normal(text[begin:end])
        parts.extend(fine if "".join(p for _, p in fine) == whole else [(begin, whole)])
    if "".join(p for _, p in parts) != target:
        parts = [(0, target)]
    positions = [start for start, part in parts for _ in part]
    if positions:  # text N deletes goes with the part before it, at the start with the first
        positions = [0 if at == positions[0] else at for at in positions]
    positions.append(len(text))
    return positions


@dataclass(frozen=True)
class Source:
    """One input text of the caller, and what stock encodes for it: ``given`` itself where
    stock's normalizer makes of it what it makes of N(text), else ``normal``, N(text)."""

    given: str | bytes
    #: ``given`` as text (bytes read as spm reads them)
    text: str
    #: what the processor encodes: ``Manifest.stock_input(text)``, N(text)
    normal: str
    #: N, to carry offsets from ``normal`` back to ``text`` when stock is given ``normal``
    n: Callable[[str], str]
    #: whether stock is given ``given``; its offsets are then the caller's as they are
    direct: bool

    @classmethod
    def of(cls, given: Any, manifest: Manifest, normalize: Callable[[Any], Any]) -> Source:
        """``given`` (str or bytes) on a model with ``manifest``; ``normalize`` is stock's
        ``Normalize`` on the model (its compiled rules). A text N leaves as it is needs no
        check."""
        text = text_of(given)
        check_no_surrogates(text)
        normal = manifest.stock_input(text)
        if isinstance(given, bytes):
            same = given == normal.encode() or normalize(given) == normalize(normal.encode())
        else:
            same = given == normal or normalize(given) == normalize(normal)
        return cls(given, text, normal, manifest.normalizer, same)

    @property
    def sent(self) -> str | bytes:
        """What stock is given."""
        return self.given if self.direct else self.normal

    @cached_property
    def positions(self) -> list[int]:
        """For each character of ``normal`` and its end, its character in ``text``."""
        return source_positions(self.text, self.n)

    def rebase(self, spt: Any) -> None:
        """Move a proto of ``normal`` onto ``given``: text, surfaces, byte begin/end."""
        chars, positions = char_index(self.normal), self.positions
        starts = byte_starts(self.given)
        for piece in spt.pieces:
            begin, end = positions[chars[piece.begin]], positions[chars[piece.end]]
            piece.begin, piece.end = starts[begin], starts[end]
            piece.surface = self.text[begin:end]
        spt.text = self.text

    def normalized(
        self, normalize: Callable[[Any], Normalized[Any]], show: Callable[[str], str]
    ) -> Normalized[Any]:
        """Stock's ``normalize(x, with_offsets=True)`` of the caller's text (``normalize``, on
        :attr:`sent`), with the codes shown as text: every character (byte, for bytes) a code
        shows as points where the code's does, into ``given``."""
        normalized, offsets = normalize(self.sent)
        if not offsets:  # stock's for empty bytes: no end offset either
            return normalized, offsets
        if isinstance(normalized, bytes):  # offsets per byte, into given's bytes
            chars = char_index(self.given)
            offsets = [chars[offsets[i]] for i in byte_starts(normalized)]
            normalized = normalized.decode()
        if not self.direct:
            offsets = [self.positions[o] for o in offsets]
        out: list[str] = []
        at: list[int] = []
        for unit in _UNITS.finditer(normalized):
            shown = show(unit.group())
            out.append(shown)
            at.extend([offsets[unit.start()]] * len(shown))
        at.append(offsets[-1])
        text = "".join(out)
        if not isinstance(self.given, bytes):
            return text, at
        starts = byte_starts(self.given)
        widths = [*_widths(text), 1]  # every byte of a character at its offset; the end once
        return text.encode(), [
            starts[o] for o, width in zip(at, widths, strict=True) for _ in range(width)
        ]


def parse(serialized: bytes, nbest: bool) -> Any:
    """A proto from stock's serialized form (its ``_to_spt`` / ``_to_nbest_spt``)."""
    message = text_pb2.NBestSentencePieceText() if nbest else text_pb2.SentencePieceText()
    message.ParseFromString(serialized)
    return message


def texts_of(message: Any) -> list[Any]:
    """The SentencePieceTexts of a proto: itself, or each of an n-best list."""
    return list(message.nbests) if hasattr(message, "nbests") else [message]


def offset_mapping(spt: Any, return_bytes: bool, with_text: bool) -> dict[str, Any]:
    """Stock's ``ExtractOffsetMapping`` of a proto: ids, pieces and offsets (characters of
    ``text``, or bytes), and the text itself for a decode."""
    pieces = list(spt.pieces)
    result: dict[str, Any] = {}
    if with_text:
        result["text"] = _utf8(spt.text) if return_bytes else _str(spt.text)
    result["ids"] = [piece.id for piece in pieces]
    if return_bytes:
        result["pieces"] = [_utf8(piece.piece) for piece in pieces]
        result["offsets"] = [(piece.begin, piece.end) for piece in pieces]
    else:
        index = char_index(spt.text)
        result["pieces"] = [_str(piece.piece) for piece in pieces]
        result["offsets"] = [(index[piece.begin], index[piece.end]) for piece in pieces]
    return result


def _utf8(value: str | bytes) -> bytes:
    return value.encode() if isinstance(value, str) else value


def _str(value: str | bytes) -> str:
    """A proto string field: protobuf gives one that is not UTF-8 as bytes."""
    return value if isinstance(value, str) else read_bytes(value)


class Denormalizer:
    """The model's denormalizer rules with stock's alignment, to move a decode proto's
    boundaries from the joined codes into the decoded text (module docstring)."""

    def __init__(self, denormalizer_spec: bytes) -> None:
        self._normalizer = stock.SentencePieceNormalizer(
            normalizer_spec=denormalizer_spec,
            add_dummy_prefix=False,
            escape_whitespaces=False,
            remove_extra_whitespaces=False,
        )

    def rebase(self, spt: Any) -> None:
        """Surfaces and byte begin/end of ``spt`` in its decoded ``text``."""
        joined = b"".join(_utf8(piece.surface) for piece in spt.pieces)
        text, offsets = self._normalizer.Normalize(joined, with_offsets=True)
        offsets = offsets or [0]  # stock gives no offsets for no input, not the end's one
        if text != _utf8(spt.text):
            raise ValueError(
                "this model's denormalizer does not give stock's decoded text: "
                "its decode protos cannot be aligned; decode to str instead"
            )
        for piece in spt.pieces:
            begin, end = _output(offsets, piece.begin), _output(offsets, piece.end)
            piece.begin, piece.end = begin, end
            piece.surface = read_bytes(text[begin:end])


def _output(offsets: list[int], position: int) -> int:
    """Where ``position`` of the denormalizer's input lands in its output (``offsets``: each
    output byte's source start, then the input's length): where the output of the rule starting
    there begins, or, inside a rule's source, where that rule's output begins, so that the
    piece where the source ends takes it whole. (No rule of a brahmic_pua denormalizer writes
    nothing, so every rule's start is in ``offsets``.)"""
    i = bisect_left(offsets, position)
    if offsets[i] == position or i == 0:
        return i
    return bisect_left(offsets, offsets[i - 1])
