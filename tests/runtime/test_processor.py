"""``brahmic_pua.SentencePieceProcessor`` is a drop-in for sentencepiece 0.2.3's.

On a plain spm model every call must give what stock gives (a differential test over the API);
on a brahmic_pua model the same calls work, pieces show as text, and two ids never show alike.
"""

from __future__ import annotations

import pickle
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as stock
from conftest import sample_held_out, sample_training, with_words

import brahmic_pua as spm
from brahmic_pua.codec import PUACodec
from brahmic_pua.codec.layout import is_private_use
from brahmic_pua.model.display import SPACE, display_vocabulary
from brahmic_pua.trainer import train_model

#: Hindi lines the ``plain`` model did not train on.
HINDI = sample_held_out("hi")
TELUGU = sample_training("te")
HELD_OUT = [unicodedata.normalize("NFC", line) for line in sample_held_out("te")[:40] if line]


@pytest.fixture(scope="module")
def user_symbol_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Telugu with literal ▁ (text already tokenized by spm), and ▁ as a user symbol: the
    escape code standing for a literal ▁ gets id 3, below the real ▁ piece."""
    lines = with_words(TELUGU, "▁", 0.1, 0)
    prefix = tmp_path_factory.mktemp("brahmic") / "b"
    train_model(
        sentence_iterator=iter(lines),
        model_prefix=str(prefix),
        vocab_size=1500,
        user_defined_symbols=["▁"],
    )
    return f"{prefix}.model"


def _outcome(call: Callable[[Any], Any], sp: Any) -> Any:
    try:
        return call(sp)
    except Exception as error:  # the type is the result: stock and ours must raise alike
        return type(error)


def _sampled(sp: Any) -> list[Any]:
    spm.set_random_generator_seed(7)
    one = [sp.encode(HINDI[1], enable_sampling=True, alpha=0.5) for _ in range(3)]
    spm.set_random_generator_seed(7)
    return [*one, sp.sample_encode_as_pieces(HINDI[2], nbest_size=-1, alpha=0.3)]


TEXT, LINES = HINDI[0] + " ☃", HINDI[:8]  # ☃: unknown to the model
CALLS: dict[str, Callable[[Any], Any]] = {
    "encode": lambda sp: sp.encode(TEXT),
    "encode ids": lambda sp: sp.encode(TEXT, out_type=int),
    "encode pieces": lambda sp: sp.encode(TEXT, out_type=str),
    "encode return_type": lambda sp: sp.encode(TEXT, return_type=str),
    "encode both types": lambda sp: sp.encode(TEXT, return_type=str, out_type=int),
    "encode bytes out": lambda sp: sp.encode(TEXT, out_type=bytes),
    "encode bytes in": lambda sp: sp.encode(TEXT.encode("utf-8")),
    "encode batch": lambda sp: sp.encode(LINES),
    "encode batch pieces": lambda sp: sp.encode(LINES, out_type=str, num_threads=2),
    "encode tuple": lambda sp: sp.encode(tuple(LINES)),
    "encode empty": lambda sp: (sp.encode(""), sp.encode([]), sp.encode(["", "a"])),
    "encode bos eos": lambda sp: sp.encode(TEXT, add_bos=True, add_eos=True),
    "encode reverse": lambda sp: sp.encode(LINES, out_type=str, reverse=True),
    "encode unk piece": lambda sp: sp.encode(TEXT, out_type=str, emit_unk_piece=True),
    "encode bad sampling": lambda sp: sp.encode(TEXT, enable_sampling=True, nbest_size=1),
    "sampling": _sampled,
    "aliases": lambda sp: (sp.EncodeAsIds(TEXT), sp.encode_as_pieces(TEXT), sp.Tokenize(TEXT)),
    "nbest": lambda sp: sp.nbest_encode(TEXT, nbest_size=3),
    "nbest pieces": lambda sp: sp.nbest_encode_as_pieces(LINES[:2], nbest_size=2),
    "nbest default": lambda sp: sp.NBestEncodeAsIds(TEXT),
    "parallel": lambda sp: sp.parallel_encode(" ".join(LINES), chunk_len=64, num_threads=2),
    "decode ids": lambda sp: sp.decode(sp.encode(TEXT)),
    "decode pieces": lambda sp: sp.decode(sp.encode(TEXT, out_type=str)),
    "decode one": lambda sp: (sp.decode(5), sp.decode(sp.id_to_piece(5))),
    "decode batch": lambda sp: sp.decode(sp.encode(LINES)),
    "decode piece batch": lambda sp: sp.decode([[], *sp.encode(LINES, out_type=str)]),
    "decode empty": lambda sp: (sp.decode([]), sp.decode(""), sp.decode([[], []])),
    "decode bytes": lambda sp: sp.decode(sp.encode(TEXT), out_type=bytes),
    "decode aliases": lambda sp: (sp.DecodeIds([5, 6]), sp.decode_pieces(["▁", "a"])),
    "decode id too big": lambda sp: sp.decode(99999),
    "decode negative id": lambda sp: sp.decode([5, -1]),
    "decode bad id in batch": lambda sp: sp.decode([[5], [99999]]),
    "id_to_piece": lambda sp: (sp.id_to_piece(5), sp.id_to_piece([1, 2, 3]), sp.IdToPiece(7)),
    "id_to_piece bad": lambda sp: sp.id_to_piece([1, 99999]),
    "piece_to_id": lambda sp: (sp.piece_to_id("▁"), sp.piece_to_id(["<s>", "▁", "☃", "x"])),
    "getitem": lambda sp: (sp["▁"], sp["<unk>"], sp["not a piece"]),
    "is_": lambda sp: [
        (f(3), f([0, 1, 2, 3]), f((4, 5)))
        for f in (sp.is_byte, sp.is_unknown, sp.is_control, sp.is_unused, sp.get_score)
    ],
    "Is": lambda sp: (sp.IsByte(3), sp.IsUnknown([0]), sp.IsControl(1), sp.IsUnused(2)),
    "is_ bad id": lambda sp: sp.is_control([0, -1]),
    "get_score bad id": lambda sp: sp.GetScore(99999),
    "sizes": lambda sp: (sp.vocab_size(), sp.get_piece_size(), sp.piece_size(), len(sp)),
    "special ids": lambda sp: (sp.unk_id(), sp.bos_id(), sp.eos_id(), sp.pad_id()),
    "normalize": lambda sp: (sp.normalize("a  b\u3000c"), sp.Normalize(LINES[:2])),
    "serialized": lambda sp: sp.serialized_model_proto(),
    "pickle": lambda sp: pickle.loads(pickle.dumps(sp)).encode(LINES, out_type=str),
    "from_proto": lambda sp: type(sp).from_proto(sp.serialized_model_proto()).encode(TEXT),
}


@pytest.mark.parametrize(
    "options",
    [{}, {"add_bos": True, "reverse": True, "out_type": str, "nbest_size": 3, "alpha": 0.5}],
    ids=["defaults", "constructor options"],
)
def test_same_results_as_stock_on_a_plain_model(
    plain_hindi_model: str, options: dict[str, Any]
) -> None:
    theirs = stock.SentencePieceProcessor(model_file=plain_hindi_model, **options)
    ours = spm.SentencePieceProcessor(model_file=plain_hindi_model, **options)
    assert not ours.is_brahmic
    for name, call in CALLS.items():
        assert _outcome(call, ours) == _outcome(call, theirs), name


def test_every_stock_name_is_here() -> None:
    public = {n for n in dir(stock.SentencePieceProcessor) if not n.startswith("_")}
    assert public - set(dir(spm.SentencePieceProcessor)) == set()
    for name in ("__len__", "__getitem__", "__getstate__", "__setstate__"):
        assert name in vars(spm.SentencePieceProcessor)
    for name in ("set_random_generator_seed", "SetMinLogLevel", "set_min_log_level"):
        assert getattr(spm, name) is getattr(stock, name)


def test_unknown_constructor_keyword_fails_at_once(user_symbol_model: str) -> None:
    with pytest.raises(TypeError, match=r"add_boss.*it takes model_file, .*add_bos"):
        spm.SentencePieceProcessor(model_file=user_symbol_model, add_boss=True)
    with pytest.raises(ValueError, match="return_type"):
        spm.SentencePieceProcessor(model_file=user_symbol_model, out_type=float)  # type: ignore[arg-type]


def test_constructor_defaults_reach_every_encode_form(user_symbol_model: str) -> None:
    """Ids equal stock's on the same model with the same defaults, n-best and sampling too."""
    options: dict[str, Any] = {"add_bos": True, "add_eos": True, "nbest_size": 3, "alpha": 0.5}
    ours = spm.SentencePieceProcessor(model_file=user_symbol_model, **options)
    theirs = stock.SentencePieceProcessor(model_file=user_symbol_model, **options)
    text = HELD_OUT[0]
    assert ours.encode(text) == theirs.encode(text)
    assert ours.nbest_encode(text) == theirs.nbest_encode(text)
    assert len(ours.nbest_encode(text)) == 3
    assert all(ids[0] == ours.bos_id() for ids in ours.nbest_encode_as_ids(HELD_OUT[:2])[1])
    spm.set_random_generator_seed(11)
    sampled = [ours.sample_encode_as_ids(text) for _ in range(4)]
    spm.set_random_generator_seed(11)
    assert sampled == [theirs.sample_encode_as_ids(text) for _ in range(4)]
    pieces = ours.sample_encode_as_pieces(text)
    assert pieces[0] == "<s>" and pieces[-1] == "</s>"
    loaded = spm.SentencePieceProcessor.from_file(user_symbol_model, **options)
    assert loaded.encode(text) == ours.encode(text)


def test_vocabulary_calls_take_an_id_or_a_list(user_symbol_model: str) -> None:
    sp = spm.SentencePieceProcessor(model_file=user_symbol_model)
    theirs = stock.SentencePieceProcessor(model_file=user_symbol_model)
    ids = sp.encode(HELD_OUT[1])
    for name in ("is_byte", "is_unknown", "is_control", "is_unused", "get_score"):
        method = getattr(sp, name)
        assert method(ids) == [method(i) for i in ids] == getattr(theirs, name)(ids), name
    pieces = sp.id_to_piece(ids)
    assert pieces == [sp.id_to_piece(i) for i in ids] == sp.encode(HELD_OUT[1], out_type=str)
    assert sp.piece_to_id(pieces) == ids == [sp[piece] for piece in pieces]
    assert sp.IsByte(ids[:2]) == [sp.is_byte(i) for i in ids[:2]]


def test_bad_ids_are_one_clear_index_error(user_symbol_model: str) -> None:
    sp = spm.SentencePieceProcessor(model_file=user_symbol_model)
    calls: list[Callable[[], object]] = [
        lambda: sp.decode(99999),
        lambda: sp.decode([5, -1]),
        lambda: sp.decode([[5], [99999]]),
        lambda: sp.id_to_piece(-1),
        lambda: sp.id_to_piece([3, 99999]),
        lambda: sp.is_byte(-1),
    ]
    for call in calls:
        with pytest.raises(IndexError, match=r"^piece id (99999|-1) is out of range") as error:
            call()
        assert "\n" not in str(error.value) and "1499" in str(error.value)
        shown_context = error.value.__context__ and not error.value.__suppress_context__
        assert error.value.__cause__ is None and not shown_context  # no chained traceback


def test_text_input_like_stock(user_symbol_model: str) -> None:
    sp = spm.SentencePieceProcessor(model_file=user_symbol_model)
    text = HELD_OUT[2]
    assert sp.encode(text.encode("utf-8")) == sp.encode(text)
    assert sp.encode([text.encode("utf-8")], out_type=str) == [sp.encode(text, out_type=str)]
    assert sp.encode(text, out_type=bytes) == [p.encode() for p in sp.encode(text, out_type=str)]
    with pytest.raises(ValueError, match="U\\+D800 at index 2"):
        sp.encode("ab\ud800")
    with pytest.raises(ValueError, match="text 1 of the list: lone surrogate U\\+DC00 at index 0"):
        sp.encode([text, "\udc00"], out_type=str)
    with pytest.raises(TypeError, match="str or bytes"):
        sp.encode(5)  # type: ignore[call-overload]


def test_failed_load_leaves_the_processor_as_it_was(
    user_symbol_model: str, plain_hindi_model: str
) -> None:
    sp = spm.SentencePieceProcessor(model_file=user_symbol_model, out_type=str)
    before = (sp.encode(HELD_OUT), sp.id_to_piece(list(range(len(sp)))), sp.manifest)
    bad_model = b"\x1a\x00"  # a well-formed message (an empty field 3), but no model
    loads: list[Callable[[], object]] = [
        lambda: sp.load(model_proto=bad_model),
        lambda: sp.load(model_file=plain_hindi_model + ".missing"),
        lambda: sp.load_from_serialized_proto(Path(plain_hindi_model).read_bytes()[:-7]),
    ]
    for load in loads:
        with pytest.raises(spm.ModelFileError):
            load()
        assert sp.is_brahmic
        assert (sp.encode(HELD_OUT), sp.id_to_piece(list(range(len(sp)))), sp.manifest) == before
    assert sp.load(model_file=plain_hindi_model) is True and not sp.is_brahmic


def test_pickle_holds_the_model_not_python_objects(user_symbol_model: str) -> None:
    sp = spm.SentencePieceProcessor(model_file=user_symbol_model, add_bos=True)
    data = pickle.dumps(sp)
    assert len(data) < Path(user_symbol_model).stat().st_size + 1000
    again = pickle.loads(data)
    assert again.encode(HELD_OUT) == sp.encode(HELD_OUT) and again.encode("కి")[0] == sp.bos_id()
    assert again.encode(HELD_OUT, out_type=str) == sp.encode(HELD_OUT, out_type=str)
    assert pickle.loads(pickle.dumps(spm.SentencePieceProcessor())).manifest is None


def test_two_ids_never_display_alike(user_symbol_model: str) -> None:
    sp = spm.SentencePieceProcessor(model_file=user_symbol_model)
    theirs = stock.SentencePieceProcessor(model_file=user_symbol_model)
    shown = sp.id_to_piece(list(range(len(sp))))
    assert len(set(shown)) == len(shown)
    assert sp.piece_to_id("▁") == theirs.piece_to_id("▁")  # spm's own space piece
    assert sp.id_to_piece(theirs.piece_to_id("\ue001")) == "<U+2581>"  # a literal ▁
    for text in ["క▁ఖ గ ▁ ఘ", "▁▁ x▁", *HELD_OUT[:10]]:
        pieces = sp.encode(text, out_type=str)
        assert sp.decode(pieces) == text == sp.decode(sp.encode(text))
        assert sp.decode(" ".join(pieces).split(" ")) == text  # the CLI's piece format


def test_display_resolves_collisions_in_favour_of_usable_pieces() -> None:
    codec = PUACodec.from_counts({" ా": 5, "ా": 3}, "grapheme")
    spaced, mark = codec.code_of(" ా"), codec.code_of("ా")
    assert spaced and mark
    pieces = [SPACE + mark, spaced, SPACE, "<U+2581>", "\ue001"]
    shown = display_vocabulary(pieces, codec)
    assert len(set(shown)) == len(shown)
    assert shown[1:4] == ["▁ా", "▁", "<U+2581>"]  # usable, then exact text, keep theirs
    assert shown[0] == f"<U+2581 U+{ord(mark):04X}>" and shown[4] == "<U+E001>"


def test_space_inside_a_cluster_shows_as_space_marker(grapheme_model: str) -> None:
    sp = spm.SentencePieceProcessor(model_file=grapheme_model)
    assert sp.codec is not None
    spaced = sp.codec.code_of(" ా")
    assert spaced is not None
    shown = sp.id_to_piece(list(range(len(sp))))
    assert not any(" " in piece for piece in shown) and len(set(shown)) == len(shown)
    assert sp.piece_to_id("▁ా") == stock.SentencePieceProcessor(model_file=grapheme_model)[spaced]
    for text in ["కి ా గ  ా ఘా", " ా", *HELD_OUT[:10]]:
        pieces = sp.encode(text, out_type=str)
        assert not any(" " in piece for piece in pieces)
        assert sp.decode(" ".join(pieces).split(" ")) == text == sp.decode(sp.encode(text))


def test_normalize_is_what_the_pieces_spell(user_symbol_model: str, plain_hindi_model: str) -> None:
    """As stock: the text spm segments, spaces as ▁; on a brahmic model after N, as text."""
    sp = spm.SentencePieceProcessor(model_file=user_symbol_model)
    for text in HELD_OUT[:10]:
        normalized = sp.normalize(text)
        assert normalized == sp.normalize(unicodedata.normalize("NFD", text))
        assert normalized.replace("▁", " ").lstrip(" ") == text
        assert not any(is_private_use(ch) for ch in normalized)
        pieces = sp.encode(text, out_type=str)
        if not any(sp.is_byte(sp.encode(text))):
            assert "".join(pieces) == normalized
    assert sp.normalize([HELD_OUT[0]]) == [sp.normalize(HELD_OUT[0])]
    theirs = stock.SentencePieceProcessor(model_file=plain_hindi_model)
    ours = spm.SentencePieceProcessor(model_file=plain_hindi_model)
    assert ours.normalize(" a  b", with_offsets=True) == theirs.normalize(" a  b", True)


def test_unknown_pieces_show_their_text_without_byte_fallback(tmp_path: Path) -> None:
    """Without byte fallback an unknown piece shows its surface, as stock does, as text."""
    prefix = str(tmp_path / "n")
    train_model(
        sentence_iterator=iter(TELUGU),
        model_prefix=prefix,
        vocab_size=1500,
        byte_fallback=False,
    )
    sp = spm.SentencePieceProcessor(model_file=f"{prefix}.model")
    text = "క ☃ ▁x ఝౌం"
    pieces = sp.encode(text, out_type=str)
    assert sp.unk_id() in sp.encode(text)
    assert {"☃", "<U+2581>x", "ఝౌం"} <= set(pieces)
    assert sp.decode(pieces) == text


SUBCLASS_CALLS: dict[str, Callable[[Any], Any]] = {
    "encode_as_ids": lambda sp: sp.encode_as_ids("క్రాంతి"),
    "EncodeAsIds": lambda sp: sp.EncodeAsIds("క్రాంతి"),
    # pieces as ids: ours shows codes as clusters, stock as codes
    "encode_as_pieces": lambda sp: [sp.piece_to_id(p) for p in sp.encode_as_pieces("క్రాంతి")],
    "sample_encode_as_ids": lambda sp: len(sp.sample_encode_as_ids("క్రాంతి", -1, 0.1)) > 0,
    "decode_ids": lambda sp: sp.decode_ids([300, 400]),
    "DecodeIds": lambda sp: sp.DecodeIds([300, 400]),
    "encode": lambda sp: sp.encode("క్రాంతి"),
    "decode": lambda sp: sp.decode([300, 400]),
}


@pytest.mark.parametrize("call", sorted(SUBCLASS_CALLS))
def test_a_subclass_may_override_encode_and_decode_as_in_stock(
    sample_models: dict[str, Path], call: str
) -> None:
    """Stock's spellings call ``Encode``/``Decode``, so a subclass's ``encode`` that calls one of
    them works there; ours must not recurse into the override either."""

    def subclass(base: type) -> Any:
        class Tagged(base):  # type: ignore[misc]
            def encode(self, text: Any, **options: Any) -> Any:
                return [5, *self.encode_as_ids(text)]

            def decode(self, ids: Any, **options: Any) -> Any:
                return "D" + self.decode_ids(ids)

        return Tagged(model_file=str(sample_models["bpe"]))

    ours, theirs = subclass(spm.SentencePieceProcessor), subclass(stock.SentencePieceProcessor)
    assert SUBCLASS_CALLS[call](ours) == SUBCLASS_CALLS[call](theirs)
