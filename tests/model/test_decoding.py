"""Every decode path against one reference, on the same hostile inputs (the exactness argument
is written once, in ``brahmic_pua.model.decoding``).

The references are built here from data alone, never from the code under test:

- ``decode(encode(s))``: ``unicodedata.normalize("NFC", s)``, the N the manifest names;
- any ids: spm's ``Decode`` redone in Python from the model's pieces (parsed with
  sentencepiece's own ``sentencepiece_model_pb2``), then the denormalizer redone by longest
  match from the codec table in the manifest JSON (read here from field 1729).

The paths: stock sentencepiece on the ``.model``; ``brahmic_pua.SentencePieceProcessor.decode``
(ids as a list, which goes through ``PlainDecoder``; as a tuple, a numpy array or one int,
which go to stock; pieces as text or bytes; str or bytes out; batches) and its aliases;
``PlainDecoder`` itself; ``StreamDecoder`` fed one id at a time; ``PUACodec.decode`` of the
PUA text stock writes with the denormalizer removed. Where two paths are documented to differ,
the difference is pinned.
"""

from __future__ import annotations

import json
import random
import unicodedata
from dataclasses import dataclass
from importlib.resources import files
from itertools import accumulate
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as stock
from conftest import examples, require_extra
from hypothesis import given, settings
from hypothesis import strategies as st
from sentencepiece import sentencepiece_model_pb2
from strategies import NASTY, TELUGU, nasty_texts

import brahmic_pua as spm
from brahmic_pua.model.decoding import PlainDecoder
from brahmic_pua.segment import segment

#: The layout's reserved code points, spelled here rather than imported: the reference must not
#: share a constant with the code under test. An escape, and the stand-ins for ▁ and U+2585.
ESCAPE = "\ue000"
STAND_INS = {"\ue001": "\u2581", "\ue002": "\u2585"}
SPACE = "\u2581"
MANIFEST_FIELD = 1729
#: The generated protobuf classes, which carry no type information.
ModelProto: Any = vars(sentencepiece_model_pb2)["ModelProto"]
_Type = ModelProto.SentencePiece
BYTE, CONTROL, UNKNOWN = _Type.BYTE, _Type.CONTROL, _Type.UNKNOWN

SAMPLES = {
    name: (files("brahmic_pua.data") / f"{name}.sample.txt").read_text("utf-8").splitlines()
    for name in ("te", "hi")
}


# -- the reference ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Reference:
    """What spm's ``Decode`` reads of a model, from the proto, and the manifest's table."""

    kinds: tuple[int, ...]
    pieces: tuple[str, ...]
    unk_surface: str
    #: Denormalizer rules of one character: code → cluster, stand-in → literal.
    single: dict[str, str]
    #: Characters an escape makes literal: every code of the table and the reserved three.
    taken: frozenset[str]
    normalization: str

    @classmethod
    def read(cls, data: bytes) -> Reference:
        model = ModelProto()
        model.ParseFromString(data)
        # The assumptions of the decode below: spm strips one ▁ of the first piece only.
        assert model.normalizer_spec.add_dummy_prefix
        assert not model.normalizer_spec.remove_extra_whitespaces
        assert not model.trainer_spec.treat_whitespace_as_suffix
        manifest = json.loads(_top_level_field(data, MANIFEST_FIELD))
        single = {chr(code): cluster for code, cluster, _ in manifest["codec"]["entries"]}
        taken = frozenset([*single, ESCAPE, *STAND_INS])
        single.update(STAND_INS)
        return cls(
            tuple(p.type for p in model.pieces),
            tuple(p.piece for p in model.pieces),
            model.trainer_spec.unk_surface,
            single,
            taken,
            manifest["normalization"],
        )

    def joined(self, ids: list[int]) -> str:
        """The text spm's ``Decode`` builds before its denormalizer runs (in
        sentencepiece_processor.cc): control pieces show nothing, an unknown piece its
        surface, byte runs are read as UTF-8, ▁ is a space, and the first piece that shows
        something, while nothing has shown yet, loses one leading ▁."""
        text = ""
        run = bytearray()
        at_start, stripped = True, False
        for id in ids:
            kind, piece = self.kinds[id], self.pieces[id]
            if kind == BYTE:
                run.append(int(piece[3:5], 16))  # <0xAB>
                continue
            text += spm_bytes(bytes(run))
            run.clear()
            if stripped or text:
                at_start = False
            stripped = False
            if kind == CONTROL:
                surface = ""
            elif kind == UNKNOWN:
                surface = self.unk_surface
            else:  # normal, user-defined and unused pieces alike
                if at_start and piece.startswith(SPACE):
                    piece, stripped = piece[1:], True
                surface = piece.replace(SPACE, " ")
            text += surface
        return text + spm_bytes(bytes(run))

    def denormalize(self, text: str, any_escape: bool = False) -> str:
        """The manifest's rules by longest match: escape + taken character → that character,
        a code → its cluster, a stand-in → its literal. ``any_escape``: an escape makes any
        character literal, as ``PUACodec.decode`` reads it (the documented difference)."""
        out = []
        i = 0
        while i < len(text):
            pair = text[i] == ESCAPE and i + 1 < len(text)
            if pair and (any_escape or text[i + 1] in self.taken):
                out.append(text[i + 1])
                i += 2
                continue
            out.append(self.single.get(text[i], text[i]))
            i += 1
        return "".join(out)

    def decode(self, ids: list[int]) -> str:
        return self.denormalize(self.joined(ids))

    def spelled(self, text: str | bytes) -> list[int]:
        """The byte pieces that spell ``text`` (str as UTF-8)."""
        data = text.encode("utf-8") if isinstance(text, str) else text
        byte = {p: i for i, p in enumerate(self.pieces) if self.kinds[i] == BYTE}
        return [byte[f"<0x{b:02X}>"] for b in data]


def _top_level_field(data: bytes, number: int) -> bytes:
    """The last length-delimited field ``number`` of a serialized message, read off the wire
    format by hand (protobuf here may know field 1729 as brahmic_pua's extension, or not)."""

    def varint(at: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            value |= (data[at] & 0x7F) << shift
            shift += 7
            at += 1
            if data[at - 1] < 0x80:
                return value, at

    found = None
    at = 0
    while at < len(data):
        key, at = varint(at)
        wire = key & 7
        if wire == 0:
            _, at = varint(at)
        elif wire in (1, 5):
            at += 8 if wire == 1 else 4
        else:
            assert wire == 2, f"wire type {wire} at the top level of a ModelProto"
            length, at = varint(at)
            if key >> 3 == number:
                found = data[at : at + length]
            at += length
    assert found is not None, f"no field {number}: not a brahmic_pua model"
    return found


def spm_bytes(run: bytes) -> str:
    """A byte-fallback run as spm reads it: each valid UTF-8 character as itself, and every
    other byte as its own U+FFFD (Python's errors="replace" gives one U+FFFD for a cut
    multi-byte character, spm one per byte: ``test_invalid_byte_runs_as_spm_reads_them``)."""
    out = []
    i = 0
    while i < len(run):
        for n in range(1, 5):  # the first that decodes to one character is the whole one
            try:
                char = run[i : i + n].decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(char) == 1:
                out.append(char)
                i += n
                break
        else:
            out.append("\ufffd")
            i += 1
    return "".join(out)


# -- the models and every path ----------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class Case:
    """One model, every decoder on it, and the reference."""

    ours: spm.SentencePieceProcessor
    theirs: Any  # stock sentencepiece on the .model
    rules_off: Any  # stock on the .model without its denormalizer: PUA text
    plain: PlainDecoder
    reference: Reference
    #: Ids that tie a piece to its neighbours, for the id strategy.
    special: tuple[int, ...]
    runs: tuple[tuple[int, ...], ...]

    def __repr__(self) -> str:  # hypothesis shows the fixture in a failure: keep it short
        return f"Case({len(self.reference.pieces)} pieces)"


def _literal_lines() -> list[str]:
    """Telugu with literal Private Use characters, ▁ and U+2585: pieces that hold escapes
    (set UNUSED by the trainer) and byte pieces of Private Use lead bytes come into use."""
    rng = random.Random(0)
    literals = [ESCAPE, "\ue005", "\u2581", ESCAPE * 2, "\uf8ff", "\u2585", "\ue001"]
    return [
        " ".join(w + rng.choice(literals) if rng.random() < 0.2 else w for w in line.split())
        for line in SAMPLES["te"]
    ]


def _case(path: Path) -> Case:
    data = path.read_bytes()
    theirs = stock.SentencePieceProcessor(model_file=str(path))
    model = ModelProto()
    model.ParseFromString(data)
    model.denormalizer_spec.precompiled_charsmap = b""
    rules_off = stock.SentencePieceProcessor(model_proto=model.SerializeToString())
    ours = spm.SentencePieceProcessor(model_file=str(path))
    assert ours.codec is not None
    plain = PlainDecoder(data, ours.codec, theirs, {})
    assert plain.exact
    reference = Reference.read(data)
    codes = sorted(set(reference.single) - set(STAND_INS))
    spelled = [ESCAPE, "\ue001", "\ue002", codes[0], codes[-1], ESCAPE + codes[0], "\uf8ff"]
    spelled += [ESCAPE + "a", ESCAPE * 3, "క్ర", "😀", "\ufffd", "\x00", "\r\n"]
    runs = [text.encode("utf-8") for text in spelled]
    runs += [text[:-1] for text in runs if len(text) > 1]
    runs += [b"\x80", b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe0\xa4"]
    special = [
        i
        for i, kind in enumerate(reference.kinds)
        if kind in (CONTROL, UNKNOWN, _Type.UNUSED) or i in plain.watched
    ]
    special += [theirs.piece_to_id(SPACE)]
    return Case(
        ours,
        theirs,
        rules_off,
        plain,
        reference,
        tuple(special),
        tuple(tuple(reference.spelled(run)) for run in runs),
    )


@pytest.fixture(scope="session")
def decode_cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Case]:
    """1000-piece models on the shipped samples: Telugu, Devanagari, and Telugu with literal
    Private Use characters (escape pieces, unused pieces)."""
    work = tmp_path_factory.mktemp("decode_paths")
    data = files("brahmic_pua.data")
    inputs: dict[str, dict[str, Any]] = {
        "te": {"input": str(data / "te.sample.txt")},
        "hi": {"input": str(data / "hi.sample.txt")},
        "literals": {"sentence_iterator": iter(_literal_lines())},
    }
    out = {}
    for name, source in inputs.items():
        prefix = work / name
        spm.SentencePieceTrainer.train(
            **source, model_prefix=str(prefix), vocab_size=1000, progress=False
        )
        out[name] = _case(Path(f"{prefix}.model"))
    assert any(k == _Type.UNUSED for k in out["literals"].reference.kinds)
    assert out["literals"].plain.unsafe, "the literals model has no piece holding an escape"
    return out


NAMES = ("te", "hi", "literals")


def streamed(case: Case, ids: list[int]) -> list[str]:
    """What a stream decoder gives fed one id at a time, then its flush."""
    decoder = case.ours.stream_decoder()
    return [*(decoder.feed(id) for id in ids), decoder.flush()]


def check_stream(case: Case, ids: list[int], expected: str) -> None:
    """The stream is the decode, and every chunk but the flushed rest ends a cluster."""
    chunks = streamed(case, ids)
    assert "".join(chunks) == expected
    ends = {0, *accumulate(map(len, segment(expected, "akshara")))}
    assert set(accumulate(map(len, chunks[:-1]))) <= ends


# -- hostile inputs ---------------------------------------------------------------------------

EDGES = [
    "",
    " ",
    "  x  ",
    "\n",
    "\r\n",
    "\r",
    "\ufeff",
    "\ufeffక",
    "\u2581",
    " \u2581 \u2581\u2581",
    "\u2585",
    "\u2585\u2581",
    ESCAPE,
    ESCAPE * 2,
    ESCAPE + "\ue003",
    "\ue001\ue002",
    "\ue003",
    "\uf8ff",
    "\U000f0000",
    "\U0010fffd",
    "\u200c",
    "\u200d",
    "క\u200dష",
    "క్\u200cష",
    "\u0c4d",
    "\u0c3e\u0c3e\u0c3e",
    "క" + "\u0c3e" * 20,
    "\u0c4d\u0c3c",
    "\x00",
    "\x1b[0m",
    "e\u0301",
    "क\u093c",
    "\u0915\u094d\u200d\u0937",
    "\t\x0b\x85\u2028",
    "\ufffd",
]


@st.composite
def spliced(draw: st.DrawFn) -> str:
    """A real line with nasty characters and marks spliced in anywhere."""
    line = draw(st.sampled_from(SAMPLES["te"] + SAMPLES["hi"]))
    inserts = st.text(st.sampled_from(NASTY + TELUGU[-20:] + "\u093c\u094d"), min_size=1)
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(line)))
        line = line[:at] + draw(inserts) + line[at:]
    return line


#: Real lines joined into a few thousand characters; or Hindi lines joined by CR LF, in NFD.
long_lines = st.one_of(
    st.lists(st.sampled_from(SAMPLES["te"] + SAMPLES["hi"]), min_size=5, max_size=25).map(" ".join),
    st.lists(st.sampled_from(SAMPLES["hi"]), min_size=3, max_size=10).map(
        lambda lines: unicodedata.normalize("NFD", "\r\n".join(lines))
    ),
)

hostile_texts = st.one_of(nasty_texts, spliced(), st.sampled_from(EDGES), long_lines)


@st.composite
def id_sequences(draw: st.DrawFn, case: Case) -> list[int]:
    """Any ids, mixed with those that tie pieces to their neighbours: byte runs of escapes,
    codes, cut and invalid UTF-8; control, unknown, unused, watched and ▁ ids."""
    size = len(case.reference.pieces)
    part = st.one_of(
        st.lists(st.integers(0, size - 1), max_size=6),
        st.sampled_from(case.special).map(lambda id: [id]),
        st.sampled_from(case.runs).map(list),
    )
    return [id for ids in draw(st.lists(part, max_size=8)) for id in ids]


# -- decode(encode(s)) == N(s) ----------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@settings(deadline=None, max_examples=examples(150))
@given(
    texts=st.lists(hostile_texts, min_size=1, max_size=3),
    seed=st.none() | st.integers(1, 2**31 - 1),
)
def test_round_trip_on_every_path(
    decode_cases: dict[str, Case], name: str, texts: list[str], seed: int | None
) -> None:
    """Plain and sampled encodings (rare segmentations) decode to N(s) on every path."""
    case = decode_cases[name]
    ours = case.ours
    assert case.reference.normalization == "nfc"
    expected = [unicodedata.normalize("NFC", text) for text in texts]
    if seed is None:
        batch = ours.encode(texts)
    else:
        spm.set_random_generator_seed(seed)
        batch = ours.encode(texts, enable_sampling=True, alpha=0.3, nbest_size=-1)
    assert [case.reference.decode(ids) for ids in batch] == expected  # the references agree
    assert case.theirs.decode(batch) == expected
    assert ours.decode(batch) == ours.decode_ids(batch) == ours.Decode(batch) == expected
    assert ours.decode(batch, out_type=bytes) == [text.encode() for text in expected]
    for ids, text in zip(batch, expected, strict=True):
        assert ours.decode(tuple(ids)) == text  # not a list: straight to stock
        assert case.plain.decode(ids, case.theirs.decode) == text
        pieces = ours.id_to_piece(ids)
        assert ours.decode(pieces) == ours.decode_pieces(pieces) == text
        if pieces:  # bytes in, bytes out (an empty list is ids)
            assert ours.decode([p.encode() for p in pieces]) == text.encode()
        check_stream(case, ids, text)
        assert ours.codec is not None
        assert ours.codec.decode(case.rules_off.decode(ids)) == text
        assert ours.codec.decode(ours.codec.encode(text)) == text
    if seed is None:
        pieces_batch = ours.encode(texts, out_type=str)
        assert ours.decode(pieces_batch) == expected


# -- any ids ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@settings(deadline=None, max_examples=examples(200))
@given(data=st.data())
def test_any_ids_on_every_path(
    decode_cases: dict[str, Case], name: str, data: st.DataObject
) -> None:
    """Ids no encoding produces: every path that ends in spm's decode gives the reference;
    ``PUACodec.decode`` differs only where an escape precedes a character with no rule."""
    case = decode_cases[name]
    ours, reference = case.ours, case.reference
    batch = data.draw(st.lists(id_sequences(case), min_size=1, max_size=3))
    expected = [reference.decode(ids) for ids in batch]
    assert case.theirs.decode(batch) == expected
    assert ours.decode(batch) == ours.DecodeIds(batch) == expected
    assert ours.decode(batch, out_type=bytes) == [text.encode() for text in expected]
    for ids, text in zip(batch, expected, strict=True):
        assert ours.decode(ids) == ours.decode(tuple(ids)) == text
        assert case.plain.decode(ids, case.theirs.decode) == text
        assert case.plain.decode(ids, case.theirs.decode, out_type=bytes) == text.encode()
        if case.plain.watched.isdisjoint(ids):  # the fast model alone, where it is exact
            assert case.plain.processor.decode(ids) == text
        assert ours.decode(ours.id_to_piece(ids)) == text
        assert "".join(streamed(case, ids)) == text
        pua = case.rules_off.decode(ids)
        assert pua == reference.joined(ids)
        assert ours.codec is not None
        assert ours.codec.decode(pua) == reference.denormalize(pua, any_escape=True)


@pytest.mark.parametrize("name", NAMES)
def test_every_id_alone_and_after_a_start(decode_cases: dict[str, Case], name: str) -> None:
    """Each id alone (as an int and as a list), and after the ids that leave spm at the start
    of the text or just past it: ``▁`` (its ▁ is dropped, so the next piece keeps its own) and
    a control id (shows nothing, so the next piece loses its ▁)."""
    case = decode_cases[name]
    ours = case.ours
    space, bos = case.theirs.piece_to_id(SPACE), case.theirs.bos_id()
    for id in range(len(case.reference.pieces)):
        text = case.reference.decode([id])
        assert case.theirs.decode(id) == ours.decode(id) == ours.decode([id]) == text, id
        assert ours.decode(ours.id_to_piece(id)) == text, id
        for ids in ([id], [space, id], [bos, id], [bos, space, id]):
            text = case.reference.decode(ids)
            assert case.theirs.decode(ids) == ours.decode(ids) == text, ids
            assert case.plain.decode(ids, case.theirs.decode) == text, ids
            assert "".join(streamed(case, ids)) == text, ids


def test_ids_in_a_numpy_array(decode_cases: dict[str, Case]) -> None:
    """Not a list, so straight to stock: the same text as the list's one-pass decode."""
    require_extra("numpy", "test", "ids in a NumPy array")
    import numpy

    case = decode_cases["literals"]
    for ids in [*map(list, case.runs), list(case.special), case.ours.encode(_literal_lines()[0])]:
        array = numpy.array(ids, dtype=numpy.int64)
        assert case.ours.decode(array) == case.ours.decode(ids) == case.reference.decode(ids)


# -- the documented differences, pinned -------------------------------------------------------


def test_invalid_byte_runs_as_spm_reads_them(decode_cases: dict[str, Case]) -> None:
    """spm writes one U+FFFD per byte outside a valid character; Python's "replace" would
    write one per cut character. Every spm path, the stream included, writes spm's."""
    case = decode_cases["te"]
    for run, expected in [
        (b"\xe0\xa4", "\ufffd\ufffd"),
        (b"\xe0\xa4a", "\ufffd\ufffda"),
        (b"\xed\xa0\x80", "\ufffd" * 3),
        (b"\xf4\x90\x80\x80", "\ufffd" * 4),
        (b"\xef\xbf\xbd", "\ufffd"),
        (b"\xe0\xb0\x95\x80", "క\ufffd"),
    ]:
        ids = case.reference.spelled(run)
        assert spm_bytes(run) == case.reference.decode(ids) == expected
        assert case.theirs.decode(ids) == case.ours.decode(ids) == expected
        assert "".join(streamed(case, ids)) == expected
    assert b"\xe0\xa4".decode("utf-8", errors="replace") == "\ufffd"  # not what spm does


def test_fast_model_alone_differs_on_watched_ids(decode_cases: dict[str, Case]) -> None:
    """``PlainDecoder``'s rewritten model alone leaves a code spelled in bytes, or a piece
    holding an escape (it keeps its own text), as it is; its ``decode`` sends such rows to
    stock."""
    case = decode_cases["literals"]
    code = next(c for c in sorted(case.reference.single) if c not in STAND_INS)
    spelled = case.reference.spelled(code)
    assert not case.plain.watched.isdisjoint(spelled)
    assert case.plain.processor.decode(spelled) == code
    assert case.plain.decode(spelled, case.theirs.decode) == case.reference.single[code]
    unsafe = min(i for i in case.plain.unsafe if ESCAPE in case.reference.pieces[i])
    assert case.plain.processor.decode([unsafe]) == case.reference.joined([unsafe])
    assert case.plain.processor.decode([unsafe]) != case.reference.decode([unsafe])
    row = [unsafe, *spelled]
    assert case.plain.decode(row, case.theirs.decode) == case.reference.decode(row)


def test_codec_decode_takes_any_escaped_character(decode_cases: dict[str, Case]) -> None:
    """An escape before a character with no rule (never written by an encoding): the
    denormalizer keeps both, ``PUACodec.decode`` drops the escape."""
    case = decode_cases["te"]
    assert case.ours.codec is not None
    ids = case.reference.spelled(ESCAPE + "a")
    assert case.theirs.decode(ids) == case.ours.decode(ids) == ESCAPE + "a"
    assert case.ours.codec.decode(case.rules_off.decode(ids)) == "a"


def test_decode_protos_have_stocks_text_and_surfaces_in_it(decode_cases: dict[str, Case]) -> None:
    """Stock decodes to a proto too, its surfaces Private Use codes on a brahmic_pua model;
    ours has stock's text and ids, and surfaces in that text (tests/runtime/test_offsets.py)."""
    case = decode_cases["te"]
    ids = case.ours.encode("తెలుగు")
    theirs, ours = case.theirs.decode_ids_as_proto(ids), case.ours.decode_ids_as_proto(ids)
    assert ours.text == theirs.text == "తెలుగు"
    assert [p.id for p in ours.pieces] == [p.id for p in theirs.pieces] == ids
    assert "".join(p.surface for p in ours.pieces) == "తెలుగు"
