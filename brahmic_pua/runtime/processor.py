"""``SentencePieceProcessor``: a drop-in for sentencepiece's, on brahmic_pua models.

Encoding runs in stock SentencePiece (C++, multi-threaded): the model's own normalizer maps
clusters to codes, so ids are exactly what stock sentencepiece gives for the same text. This
class adds N (NFC by default) before encoding and shows pieces as the text they stand for: no
PUA code point reaches the caller. Which decoder takes which input, and why each gives N(s)
back: see brahmic_pua.model.decoding.

Every method takes the arguments sentencepiece 0.2.3's takes and returns what it returns, so
``import brahmic_pua as spm`` changes nothing else in a program. A plain spm model (no
manifest) is passed to stock unchanged, with ``is_brahmic`` False; only an id out of range
reads better (one IndexError line naming the id, the type stock raises).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, Unpack, overload

import sentencepiece as stock

from brahmic_pua.codec import PUACodec
from brahmic_pua.model.decoding import PlainDecoder
from brahmic_pua.model.display import display, display_vocabulary, model_text
from brahmic_pua.model.loader import load_model
from brahmic_pua.model.manifest import Manifest, ModelFileError
from brahmic_pua.model.model_file import read_model_file
from brahmic_pua.model.model_proto import model_type, parse_model
from brahmic_pua.model.script_ids import script_ids as _script_ids
from brahmic_pua.normalize import check_mode
from brahmic_pua.runtime.entropy import segmentation_entropy
from brahmic_pua.runtime.offsets import (
    Denormalizer,
    NBestSentencePieceText,
    OffsetMapping,
    SentencePieceText,
    Source,
    TextOffsetMapping,
    offset_mapping,
    parse,
    text_of,
    texts_of,
)
from brahmic_pua.runtime.signatures import (
    AnyToDecode,
    BatchToDecode,
    BytesToDecode,
    DecodeKind,
    EncodeOptions,
    IdArray,
    IdBatchToDecode,
    Ids,
    IdsToDecode,
    NBestOptions,
    Numpy,
    Offsets,
    OneToDecode,
    OutKind,
    ParallelOptions,
    PiecesToDecode,
    Proto,
    SampleOptions,
    Serialized,
    Text,
    TextOrIdBatchToDecode,
    TextOrIdsToDecode,
    Texts,
    Threads,
)
from brahmic_pua.runtime.stream import StreamDecoder
from brahmic_pua.segment.sure_cuts import check_no_surrogates

OutType = OutKind | None

#: The constructor's keywords, as in sentencepiece 0.2.3.
OPTIONS = (
    "model_file",
    "model_proto",
    "out_type",
    "add_bos",
    "add_eos",
    "reverse",
    "emit_unk_piece",
    "enable_sampling",
    "nbest_size",
    "alpha",
    "num_threads",
    "return_type",
    "normalization",
)

#: Out types that say where each piece lies: on a brahmic model brahmic_pua.runtime.offsets
#: makes them from stock's serialized protos, with pieces shown as text.
_ALIGNED = ("proto", "serialized_proto", "offset_mapping")


def _is_sequence(value: Any) -> bool:
    """A list of items rather than one, as stock sentencepiece tells them apart."""
    return hasattr(value, "__len__") and not isinstance(value, (str, bytes))


def _holds_pieces(value: Any) -> bool:
    """Pieces (one, a list, a batch) rather than ids: stock's test, first non-empty row."""
    if isinstance(value, (str, bytes)):
        return True
    if not _is_sequence(value) or hasattr(value, "dtype"):  # ids: one, or a numpy array
        return False
    for item in value:
        if not _is_sequence(item):
            return isinstance(item, (str, bytes))
        if len(item):
            return isinstance(item[0], (str, bytes))
    return False


def _bytes_pieces(value: Any) -> bool:
    """Whether pieces to decode are bytes, as stock tells (the first of the first non-empty
    row): its decode offset mapping then counts in bytes."""
    if isinstance(value, (str, bytes)):
        return isinstance(value, bytes) and len(value) > 0
    if not _is_sequence(value) or hasattr(value, "dtype"):
        return False
    for item in value:
        if not _is_sequence(item):
            return isinstance(item, bytes)
        if len(item):
            return isinstance(item[0], bytes)
    return False


def _ids_in(value: Any) -> Iterator[int]:
    """Every id in ``value``: ints, and numpy's integers (which an id array holds)."""
    if isinstance(value, int) or (hasattr(value, "__index__") and not _is_sequence(value)):
        yield operator.index(value)
    elif _is_sequence(value):
        for item in value:
            yield from _ids_in(item)


def _surrogate_error(text: str | list[str]) -> ValueError | None:
    """The error naming the first lone surrogate (and which text of a list), if any."""
    for n, item in enumerate(text if isinstance(text, list) else [text]):
        try:
            check_no_surrogates(item)
        except ValueError as error:
            return ValueError(f"text {n} of the list: {error}") if isinstance(text, list) else error
    return None


def _resolve(return_type: OutType, out_type: OutType, default: OutType) -> OutType:
    if out_type is not None and return_type is not None:
        raise ValueError("Cannot specify both out_type and return_type. Use return_type instead.")
    chosen = out_type if out_type is not None else return_type
    return default if chosen is None else chosen


class _Shown:
    """A brahmic model's pieces as text, both ways; shown pieces are distinct, so exact."""

    def __init__(self, model: list[str], codec: PUACodec, byte_fallback: bool) -> None:
        self.codec = codec
        #: Without byte fallback an unknown piece shows its surface text, which only spm's
        #: own pieces carry; with it (the default) pieces by id are exact, and twice as fast.
        self.by_id = byte_fallback
        self._model = model

    # Shown when first asked for: a load that only encodes to ids (training a language model)
    # does not pay for them (half of a load's time for an 8000-piece model).
    @cached_property
    def pieces(self) -> list[str]:
        return display_vocabulary(self._model, self.codec)

    @cached_property
    def from_model(self) -> dict[str, str]:
        return dict(zip(self._model, self.pieces, strict=True))

    @cached_property
    def to_model(self) -> dict[str, str]:
        return dict(zip(self.pieces, self._model, strict=True))

    def piece(self, id: Any) -> str:
        index = operator.index(id)
        if not 0 <= index < len(self.pieces):
            raise IndexError(_out_of_range(index, len(self.pieces)))
        return self.pieces[index]

    def show(self, value: list[Any], as_bytes: bool) -> list[Any]:
        """Ids or model pieces (a row, a batch, n-best lists) as text."""
        if value and isinstance(value[0], list):
            return [self.show(row, as_bytes) for row in value]
        if value and isinstance(value[0], int):
            shown = list(map(self.pieces.__getitem__, value))
        else:
            get = self.from_model.get  # an unknown piece's surface is not in the vocabulary
            shown = [get(piece) or display(piece, self.codec) for piece in value]
        return [piece.encode("utf-8") for piece in shown] if as_bytes else shown

    def proto_piece(self, id: int, piece: str, by_id: bool) -> str:
        """A proto's piece as ``show`` shows it: by id where ``by_id``, else by the piece (a
        decode proto holds pieces as given, which need not be the id's)."""
        if by_id:
            return self.pieces[id]
        return self.from_model.get(piece) or display(piece, self.codec)

    def mapping_pieces(self, mapping: dict[str, Any], as_bytes: bool) -> list[Any]:
        """The pieces of one of stock's offset mappings, as ``show`` shows them."""
        if self.by_id:
            return self.show(mapping["ids"], as_bytes)
        pieces = [p.decode() if isinstance(p, bytes) else p for p in mapping["pieces"]]
        return self.show(pieces, as_bytes)

    def model_piece(self, shown: str) -> str:
        return self.to_model.get(shown) or model_text(shown, self.codec)

    def to_model_pieces(self, value: Any) -> Any:
        """Shown pieces (one, a list, a batch) back to the model's, keeping str or bytes."""
        if isinstance(value, str):
            return self.model_piece(value)
        if isinstance(value, bytes):
            return self.model_piece(value.decode("utf-8")).encode("utf-8")
        return [self.to_model_pieces(item) for item in value]


def _out_of_range(id: int, size: int) -> str:
    return f"piece id {id} is out of range: this model's ids are 0..{size - 1}"


class SentencePieceProcessor:
    """Load with ``SentencePieceProcessor(model_file=...)`` or ``model_proto=...``; the other
    keywords are defaults for every encode call (plain, sampled, n-best), as in sentencepiece.

    >>> import tempfile
    >>> from importlib.resources import files
    >>> from brahmic_pua import SentencePieceProcessor, SentencePieceTrainer
    >>> sample = str(files("brahmic_pua.data") / "te.sample.txt")  # 1,142 lines of Telugu
    >>> folder = tempfile.TemporaryDirectory()
    >>> SentencePieceTrainer.train(input=sample, model_prefix=f"{folder.name}/te", vocab_size=1000)
    >>> sp = SentencePieceProcessor(model_file=f"{folder.name}/te.model")
    >>> sp.encode("క్రాంతి", out_type=str)  # whole clusters: no piece starts with a mark
    ['▁క్', 'రాం', 'తి']
    >>> sp.decode(sp.encode(["క్రాంతి", "నీరు"]))
    ['క్రాంతి', 'నీరు']
    >>> folder.cleanup()
    """

    def __init__(
        self,
        model_file: str | Path | None = None,
        model_proto: bytes | None = None,
        out_type: OutType = None,
        add_bos: bool = False,
        add_eos: bool = False,
        reverse: bool = False,
        emit_unk_piece: bool = False,
        enable_sampling: bool = False,
        nbest_size: int = -1,
        alpha: float = 0.1,
        num_threads: int = -1,
        return_type: OutType = None,
        normalization: str | None = None,
        **unknown: Any,
    ) -> None:
        if unknown:
            raise TypeError(
                f"SentencePieceProcessor() got unknown keyword {', '.join(unknown)}; "
                f"it takes {', '.join(OPTIONS)}"
            )
        self._options: dict[str, Any] = {
            "out_type": out_type,
            "add_bos": add_bos,
            "add_eos": add_eos,
            "reverse": reverse,
            "emit_unk_piece": emit_unk_piece,
            "enable_sampling": enable_sampling,
            "nbest_size": nbest_size,
            "alpha": alpha,
            "num_threads": num_threads,
            "return_type": return_type,
        }
        stock.SentencePieceProcessor(**self._options)  # stock's own checks of out_type
        self._out = _resolve(return_type, out_type, int)
        #: brahmic_pua's one keyword of its own: the N the caller expects the model to apply.
        self._normalization = None if normalization is None else check_mode(normalization)
        self._sp: Any = None
        self._shown: _Shown | None = None
        self._plain: PlainDecoder | None = None
        self._denormalizer: Denormalizer | None = None
        self.manifest: Manifest | None = None
        if model_file or model_proto:
            self.load(model_file=model_file, model_proto=model_proto)

    # -- loading ------------------------------------------------------------------------------

    @classmethod
    def from_file(cls, model_file: str | Path, **options: Any) -> SentencePieceProcessor:
        """A processor with ``options`` as its defaults, loaded from ``model_file``."""
        processor = cls(**cls._without_model(options))
        processor.load_from_file(model_file)
        return processor

    @classmethod
    def from_proto(
        cls, model_proto: bytes, *, source: str = "model_proto", **options: Any
    ) -> SentencePieceProcessor:
        """A processor with ``options`` as its defaults, loaded from a serialized model.
        ``source``: what an error calls the model (the file the bytes were read from)."""
        processor = cls(**cls._without_model(options))
        processor.load_from_serialized_proto(model_proto, source=source)
        return processor

    @staticmethod
    def _without_model(options: dict[str, Any]) -> dict[str, Any]:
        if "model_file" in options or "model_proto" in options:
            raise ValueError("from_file and from_proto take the model as their first argument")
        return options

    def load(self, model_file: str | Path | None = None, model_proto: bytes | None = None) -> bool:
        """Load a model (True, as stock). On any error the processor keeps what it had."""
        if model_file and model_proto:
            raise ValueError("model_file and model_proto must be exclusive.")
        if model_proto:
            return self.load_from_serialized_proto(model_proto)
        if model_file:
            return self.load_from_file(model_file)
        raise ValueError("Either model_file or model_proto must be specified.")

    def load_from_file(self, filename: str | Path) -> bool:
        return self._install(read_model_file(filename), str(filename))

    def load_from_serialized_proto(self, serialized: Any, source: str = "model_proto") -> bool:
        """Load a serialized model (or a ModelProto, as stock). ``source``, brahmic_pua's: what
        an error calls the model, for bytes read from a file."""
        if hasattr(serialized, "SerializeToString"):  # a ModelProto, which stock accepts too
            serialized = serialized.SerializeToString()
        return self._install(bytes(serialized), source)

    def _install(self, data: bytes, source: str) -> bool:
        """Build everything, then swap it in: a failed load changes nothing."""
        loaded = load_model(data, source, **self._options)
        manifest = loaded.manifest
        expected = self._normalization
        trained = manifest.normalization if manifest is not None else "none"
        if expected is not None and expected != trained:
            raise ModelFileError(
                f"{source} was trained with normalization={trained}, not {expected}: its ids "
                f"stand for {trained} text; load it without normalization= or retrain"
            )
        shown = None
        if manifest is not None:
            byte_fallback = loaded.message.trainer_spec.byte_fallback
            shown = _Shown(loaded.pieces, manifest.codec, byte_fallback)
        self._sp, self._shown, self.manifest, self._plain = loaded.processor, shown, manifest, None
        self._denormalizer = None
        return True

    Load = load
    LoadFromFile = load_from_file
    LoadFromSerializedProto = load_from_serialized_proto

    #: What a load builds from the model; a pickle carries the serialized model instead.
    _LOADED = ("_sp", "_shown", "_plain", "_denormalizer", "manifest")

    def __getstate__(self) -> dict[str, Any]:
        """As stock pickles: the instance's attributes (a subclass's own included) and the
        serialized model (about the .model's size) in place of what a load builds from it."""
        state = {k: v for k, v in self.__dict__.items() if k not in self._LOADED}
        state["model_proto"] = self.serialized_model_proto() if self._sp is not None else None
        return state

    def __setstate__(self, state: dict[str, Any] | bytes) -> None:
        """A state from ``__getstate__``, or the serialized model alone (pickles written by
        older versions of sentencepiece and of brahmic_pua hold only that)."""
        state = {"model_proto": state} if isinstance(state, bytes) else dict(state)
        model = state.pop("model_proto", None)
        options = state.get("_options", state.pop("options", {}))
        SentencePieceProcessor.__init__(
            self,
            normalization=state.get("_normalization", state.pop("normalization", None)),
            **options,
        )
        if model is not None:
            self.load_from_serialized_proto(model)
        self.__dict__.update(state)

    @property
    def _processor(self) -> Any:
        """The stock binding underneath, as stock's wrapper names it (``sp._processor``):
        sentencepiece's own tests call its batch methods directly. On a brahmic model it
        speaks Private Use codes, as the model file does."""
        return self._stock()._processor

    @property
    def is_brahmic(self) -> bool:
        """True when the model carries a brahmic_pua manifest."""
        return self.manifest is not None

    @property
    def codec(self) -> PUACodec | None:
        return self.manifest.codec if self.manifest else None

    def serialized_model_proto(self) -> bytes:
        return bytes(self._stock().serialized_model_proto())

    def _stock(self) -> Any:
        """The stock processor holding the model."""
        if self._sp is None:
            raise ValueError("no model loaded: call load(model_file=...) first")
        return self._sp

    # -- normalization ------------------------------------------------------------------------

    def _prepare(self, input: Any) -> Any:
        """N of a text or of each text in a list; bytes are read as UTF-8, as stock does
        (each byte outside a valid character becomes one U+FFFD)."""
        if isinstance(input, list):
            return [self._prepare_one(text) for text in input]
        return self._prepare_one(input)

    def _prepare_one(self, text: Any) -> str:
        assert self.manifest is not None
        return self.manifest.stock_input(text_of(text))

    def _source(self, given: Any) -> Source:
        """A text and what stock encodes for it, for outputs that point into the text."""
        assert self.manifest is not None
        return Source.of(given, self.manifest, self._stock().normalize)

    @overload
    def normalize(self, input: str, with_offsets: Literal[False] | None = None) -> str: ...
    @overload
    def normalize(self, input: bytes, with_offsets: Literal[False] | None = None) -> bytes: ...
    @overload
    def normalize(
        self, input: list[str], with_offsets: Literal[False] | None = None
    ) -> list[str]: ...
    @overload
    def normalize(
        self, input: list[bytes], with_offsets: Literal[False] | None = None
    ) -> list[bytes]: ...
    @overload
    def normalize(self, input: str, with_offsets: Literal[True]) -> tuple[str, list[int]]: ...
    @overload
    def normalize(self, input: bytes, with_offsets: Literal[True]) -> tuple[bytes, list[int]]: ...
    @overload
    def normalize(
        self, input: list[str], with_offsets: Literal[True]
    ) -> list[tuple[str, list[int]]]: ...
    @overload
    def normalize(
        self, input: list[bytes], with_offsets: Literal[True]
    ) -> list[tuple[bytes, list[int]]]: ...
    @overload
    def normalize(self, input: Text | Texts, with_offsets: bool | None = None) -> Any: ...
    def normalize(self, input: Any, with_offsets: bool | None = None) -> Any:
        """As stock: the text spm segments, spaces as ▁. On a brahmic model, after N and shown
        as text (no Private Use codes), so the pieces of ``encode(text, out_type=str)`` join to
        it as in stock, byte pieces aside. ``with_offsets``: (text, offsets) as stock gives
        them, one offset per character (per byte for bytes) into the text given, then its
        length; every character a cluster shows as points where the cluster begins."""
        processor = self._stock()
        if self._shown is None:
            return processor.normalize(input, with_offsets)
        if isinstance(input, list):
            return [self.normalize(text, with_offsets) for text in input]
        codec = self._shown.codec
        if with_offsets:
            return self._source(input).normalized(
                lambda text: processor.normalize(text, True), lambda unit: display(unit, codec)
            )
        shown = display(processor.normalize(self._prepare_one(input)), codec)
        return shown.encode("utf-8") if isinstance(input, bytes) else shown

    Normalize = normalize

    # -- encoding -----------------------------------------------------------------------------

    def _encode(
        self,
        method: Callable[..., Any],
        input: Any,
        return_type: OutType,
        out_type: OutType,
        nbest: bool = False,
        offsets: bool = False,
        **options: Any,
    ) -> Any:
        """Run a stock encode method: on a brahmic model, on N(input), pieces shown as text;
        protos and (where ``offsets``: stock's ``encode`` has them, n-best and parallel do not)
        offset mappings point into the caller's text (brahmic_pua.runtime.offsets)."""
        if self._shown is None:
            return method(input, return_type=return_type, out_type=out_type, **options)
        out = _resolve(return_type, out_type, self._out)
        if out in _ALIGNED and (out != "offset_mapping" or offsets):
            return self._encode_aligned(method, input, out, nbest, options)
        if out not in (int, str, bytes, "numpy"):  # stock's own error for what it does not give
            return method(self._prepare(input), return_type=out, **options)
        text = self._prepare(input)
        ask = out if out in (int, "numpy") else int if self._shown.by_id else str
        try:
            result = method(text, return_type=ask, **options)
        except (RuntimeError, TypeError):  # stock cannot pass a lone surrogate to C++
            surrogate = _surrogate_error(text)
            if surrogate is None:
                raise
            raise surrogate from None
        return result if out in (int, "numpy") else self._shown.show(result, out is bytes)

    def _encode_aligned(
        self,
        method: Callable[..., Any],
        input: Any,
        out: OutType,
        nbest: bool,
        options: dict[str, Any],
    ) -> Any:
        """Protos and offset mappings: stock on each text as given where that gives the ids of
        N(text), else on N(text) and moved back (brahmic_pua.runtime.offsets.Source); pieces
        as text, as ``encode(out_type=str)`` shows them."""
        assert self._shown is not None
        shown = self._shown
        batch = isinstance(input, list)
        items = input if batch else [input]
        sources: list[Source] = []
        for n, item in enumerate(items):
            try:
                sources.append(self._source(item))
            except ValueError as error:  # a lone surrogate
                raise ValueError(f"text {n} of the list: {error}") if batch else error from None
        return_bytes = options.pop("return_bytes", None) if out == "offset_mapping" else None
        if return_bytes is None:
            return_bytes = bool(items) and isinstance(items[0], bytes)
        sent = [source.sent for source in sources]
        if out == "offset_mapping" and all(source.direct for source in sources):
            # Stock's own mapping of the caller's text, three times faster than from protos.
            mappings = method(
                sent if batch else sent[0], return_type=out, return_bytes=return_bytes, **options
            )
            for mapping in mappings if batch else [mappings]:
                mapping["pieces"] = shown.mapping_pieces(mapping, return_bytes)
            return mappings
        serialized = method(sent if batch else sent[0], return_type="serialized_proto", **options)
        results = []
        for source, data in zip(sources, serialized if batch else [serialized], strict=True):
            message = parse(data, nbest)
            for spt in texts_of(message):
                if not source.direct:
                    source.rebase(spt)
                for piece in spt.pieces:
                    piece.piece = shown.proto_piece(piece.id, piece.piece, shown.by_id)
            if out == "proto":
                results.append(message)
            elif out == "serialized_proto":
                results.append(message.SerializeToString())
            else:
                results.append(offset_mapping(message, bool(return_bytes), with_text=False))
        return results if batch else results[0]

    @overload
    def encode(
        self,
        input: Text,
        *,
        out_type: Ids = None,
        return_type: Ids = None,
        **options: Unpack[EncodeOptions],
    ) -> list[int]: ...
    @overload
    def encode(
        self,
        input: Text,
        *,
        out_type: type[str] | None = None,
        return_type: type[str] | None = None,
        **options: Unpack[EncodeOptions],
    ) -> list[str]: ...
    @overload
    def encode(
        self,
        input: Text,
        *,
        out_type: type[bytes] | None = None,
        return_type: type[bytes] | None = None,
        **options: Unpack[EncodeOptions],
    ) -> list[bytes]: ...
    @overload
    def encode(
        self,
        input: Text,
        *,
        out_type: Numpy | None = None,
        return_type: Numpy | None = None,
        **options: Unpack[EncodeOptions],
    ) -> IdArray: ...
    @overload
    def encode(
        self,
        input: Text,
        *,
        out_type: Proto | None = None,
        return_type: Proto | None = None,
        **options: Unpack[EncodeOptions],
    ) -> SentencePieceText: ...
    @overload
    def encode(
        self,
        input: Text,
        *,
        out_type: Serialized | None = None,
        return_type: Serialized | None = None,
        **options: Unpack[EncodeOptions],
    ) -> bytes: ...
    @overload
    def encode(
        self,
        input: str,
        *,
        out_type: Offsets | None = None,
        return_type: Offsets | None = None,
        return_bytes: Literal[False] | None = None,
        **options: Unpack[EncodeOptions],
    ) -> OffsetMapping[str]: ...
    @overload
    def encode(
        self,
        input: Text,
        *,
        out_type: Offsets | None = None,
        return_type: Offsets | None = None,
        return_bytes: Literal[False],
        **options: Unpack[EncodeOptions],
    ) -> OffsetMapping[str]: ...
    @overload
    def encode(
        self,
        input: Text,
        *,
        out_type: Offsets | None = None,
        return_type: Offsets | None = None,
        return_bytes: Literal[True],
        **options: Unpack[EncodeOptions],
    ) -> OffsetMapping[bytes]: ...
    @overload
    def encode(
        self,
        input: bytes,
        *,
        out_type: Offsets | None = None,
        return_type: Offsets | None = None,
        return_bytes: None = None,
        **options: Unpack[EncodeOptions],
    ) -> OffsetMapping[bytes]: ...
    @overload
    def encode(
        self,
        input: Texts,
        *,
        out_type: Ids = None,
        return_type: Ids = None,
        **options: Unpack[EncodeOptions],
    ) -> list[list[int]]: ...
    @overload
    def encode(
        self,
        input: Texts,
        *,
        out_type: type[str] | None = None,
        return_type: type[str] | None = None,
        **options: Unpack[EncodeOptions],
    ) -> list[list[str]]: ...
    @overload
    def encode(
        self,
        input: Texts,
        *,
        out_type: type[bytes] | None = None,
        return_type: type[bytes] | None = None,
        **options: Unpack[EncodeOptions],
    ) -> list[list[bytes]]: ...
    @overload
    def encode(
        self,
        input: Texts,
        *,
        out_type: Numpy | None = None,
        return_type: Numpy | None = None,
        **options: Unpack[EncodeOptions],
    ) -> list[IdArray]: ...
    @overload
    def encode(
        self,
        input: Texts,
        *,
        out_type: Proto | None = None,
        return_type: Proto | None = None,
        **options: Unpack[EncodeOptions],
    ) -> list[SentencePieceText]: ...
    @overload
    def encode(
        self,
        input: Texts,
        *,
        out_type: Serialized | None = None,
        return_type: Serialized | None = None,
        **options: Unpack[EncodeOptions],
    ) -> list[bytes]: ...
    @overload
    def encode(
        self,
        input: list[str],
        *,
        out_type: Offsets | None = None,
        return_type: Offsets | None = None,
        return_bytes: Literal[False] | None = None,
        **options: Unpack[EncodeOptions],
    ) -> list[OffsetMapping[str]]: ...
    @overload
    def encode(
        self,
        input: Texts,
        *,
        out_type: Offsets | None = None,
        return_type: Offsets | None = None,
        return_bytes: Literal[False],
        **options: Unpack[EncodeOptions],
    ) -> list[OffsetMapping[str]]: ...
    @overload
    def encode(
        self,
        input: Texts,
        *,
        out_type: Offsets | None = None,
        return_type: Offsets | None = None,
        return_bytes: Literal[True],
        **options: Unpack[EncodeOptions],
    ) -> list[OffsetMapping[bytes]]: ...
    @overload
    def encode(
        self,
        input: list[bytes],
        *,
        out_type: Offsets | None = None,
        return_type: Offsets | None = None,
        return_bytes: None = None,
        **options: Unpack[EncodeOptions],
    ) -> list[OffsetMapping[bytes]]: ...
    @overload
    def encode(
        self,
        input: Text | Texts,
        *,
        out_type: OutKind | None = None,
        return_type: OutKind | None = None,
        return_bytes: bool | None = None,
        **options: Unpack[EncodeOptions],
    ) -> Any: ...
    def encode(
        self,
        input: Any,
        add_bos: bool | None = None,
        add_eos: bool | None = None,
        reverse: bool | None = None,
        emit_unk_piece: bool | None = None,
        enable_sampling: bool | None = None,
        nbest_size: int | None = None,
        alpha: float | None = None,
        num_threads: int | None = None,
        thread_pool: Any = None,
        return_type: OutType = None,
        out_type: OutType = None,
        return_bytes: bool | None = None,
    ) -> Any:
        """Ids (``out_type=int``) or pieces as text (``out_type=str``) of a str, bytes or list.

        Options left as None take the value given to the constructor, as in sentencepiece.
        """
        return self._encode(
            self._stock().encode,
            input,
            return_type,
            out_type,
            offsets=True,
            add_bos=add_bos,
            add_eos=add_eos,
            reverse=reverse,
            emit_unk_piece=emit_unk_piece,
            enable_sampling=enable_sampling,
            nbest_size=nbest_size,
            alpha=alpha,
            num_threads=num_threads,
            thread_pool=thread_pool,
            return_bytes=return_bytes,
        )

    @overload
    def encode_as_ids(self, input: Text, **options: Unpack[EncodeOptions]) -> list[int]: ...
    @overload
    def encode_as_ids(self, input: Texts, **options: Unpack[EncodeOptions]) -> list[list[int]]: ...
    def encode_as_ids(self, input: Any, **options: Any) -> Any:
        return self.Encode(input, return_type=int, **options)

    @overload
    def encode_as_pieces(self, input: Text, **options: Unpack[EncodeOptions]) -> list[str]: ...
    @overload
    def encode_as_pieces(
        self, input: Texts, **options: Unpack[EncodeOptions]
    ) -> list[list[str]]: ...
    def encode_as_pieces(self, input: Any, **options: Any) -> Any:
        return self.Encode(input, return_type=str, **options)

    @overload
    def encode_as_numpy(self, input: Text, **options: Unpack[EncodeOptions]) -> IdArray: ...
    @overload
    def encode_as_numpy(self, input: Texts, **options: Unpack[EncodeOptions]) -> list[IdArray]: ...
    def encode_as_numpy(self, input: Any, **options: Any) -> Any:
        return self.Encode(input, return_type="numpy", **options)

    @overload
    def encode_as_proto(
        self, input: Text, **options: Unpack[EncodeOptions]
    ) -> SentencePieceText: ...
    @overload
    def encode_as_proto(
        self, input: Texts, **options: Unpack[EncodeOptions]
    ) -> list[SentencePieceText]: ...
    def encode_as_proto(self, input: Any, **options: Any) -> Any:
        return self.Encode(input, return_type="proto", **options)

    @overload
    def encode_as_offset_mapping(
        self,
        input: str,
        *,
        return_bytes: Literal[False] | None = None,
        **options: Unpack[EncodeOptions],
    ) -> OffsetMapping[str]: ...
    @overload
    def encode_as_offset_mapping(
        self, input: Text, *, return_bytes: Literal[False], **options: Unpack[EncodeOptions]
    ) -> OffsetMapping[str]: ...
    @overload
    def encode_as_offset_mapping(
        self, input: Text, *, return_bytes: Literal[True], **options: Unpack[EncodeOptions]
    ) -> OffsetMapping[bytes]: ...
    @overload
    def encode_as_offset_mapping(
        self, input: bytes, *, return_bytes: None = None, **options: Unpack[EncodeOptions]
    ) -> OffsetMapping[bytes]: ...
    @overload
    def encode_as_offset_mapping(
        self,
        input: list[str],
        *,
        return_bytes: Literal[False] | None = None,
        **options: Unpack[EncodeOptions],
    ) -> list[OffsetMapping[str]]: ...
    @overload
    def encode_as_offset_mapping(
        self, input: Texts, *, return_bytes: Literal[False], **options: Unpack[EncodeOptions]
    ) -> list[OffsetMapping[str]]: ...
    @overload
    def encode_as_offset_mapping(
        self, input: Texts, *, return_bytes: Literal[True], **options: Unpack[EncodeOptions]
    ) -> list[OffsetMapping[bytes]]: ...
    @overload
    def encode_as_offset_mapping(
        self, input: list[bytes], *, return_bytes: None = None, **options: Unpack[EncodeOptions]
    ) -> list[OffsetMapping[bytes]]: ...
    def encode_as_offset_mapping(self, input: Any, **options: Any) -> Any:
        return self.Encode(input, return_type="offset_mapping", **options)

    def _sample(
        self,
        input: Any,
        nbest_size: int | None,
        alpha: float | None,
        out: OutType,
        options: dict[str, Any],
    ) -> Any:
        return self.Encode(
            input,
            nbest_size=nbest_size,
            alpha=alpha,
            return_type=out,
            enable_sampling=True,
            **options,
        )

    @overload
    def sample_encode_as_ids(
        self,
        input: Text,
        nbest_size: int | None = None,
        alpha: float | None = None,
        **options: Unpack[SampleOptions],
    ) -> list[int]: ...
    @overload
    def sample_encode_as_ids(
        self,
        input: Texts,
        nbest_size: int | None = None,
        alpha: float | None = None,
        **options: Unpack[SampleOptions],
    ) -> list[list[int]]: ...
    def sample_encode_as_ids(
        self, input: Any, nbest_size: int | None = None, alpha: float | None = None, **options: Any
    ) -> Any:
        return self._sample(input, nbest_size, alpha, int, options)

    @overload
    def sample_encode_as_pieces(
        self,
        input: Text,
        nbest_size: int | None = None,
        alpha: float | None = None,
        **options: Unpack[SampleOptions],
    ) -> list[str]: ...
    @overload
    def sample_encode_as_pieces(
        self,
        input: Texts,
        nbest_size: int | None = None,
        alpha: float | None = None,
        **options: Unpack[SampleOptions],
    ) -> list[list[str]]: ...
    def sample_encode_as_pieces(
        self, input: Any, nbest_size: int | None = None, alpha: float | None = None, **options: Any
    ) -> Any:
        return self._sample(input, nbest_size, alpha, str, options)

    @overload
    def sample_encode_as_numpy(
        self,
        input: Text,
        nbest_size: int | None = None,
        alpha: float | None = None,
        **options: Unpack[SampleOptions],
    ) -> IdArray: ...
    @overload
    def sample_encode_as_numpy(
        self,
        input: Texts,
        nbest_size: int | None = None,
        alpha: float | None = None,
        **options: Unpack[SampleOptions],
    ) -> list[IdArray]: ...
    def sample_encode_as_numpy(
        self, input: Any, nbest_size: int | None = None, alpha: float | None = None, **options: Any
    ) -> Any:
        return self._sample(input, nbest_size, alpha, "numpy", options)

    @overload
    def sample_encode_as_proto(
        self,
        input: Text,
        nbest_size: int | None = None,
        alpha: float | None = None,
        **options: Unpack[SampleOptions],
    ) -> SentencePieceText: ...
    @overload
    def sample_encode_as_proto(
        self,
        input: Texts,
        nbest_size: int | None = None,
        alpha: float | None = None,
        **options: Unpack[SampleOptions],
    ) -> list[SentencePieceText]: ...
    def sample_encode_as_proto(
        self, input: Any, nbest_size: int | None = None, alpha: float | None = None, **options: Any
    ) -> Any:
        return self._sample(input, nbest_size, alpha, "proto", options)

    @overload
    def nbest_encode(
        self,
        input: Text,
        *,
        nbest_size: int | None = None,
        out_type: Ids = None,
        return_type: Ids = None,
        **options: Unpack[NBestOptions],
    ) -> list[list[int]]: ...
    @overload
    def nbest_encode(
        self,
        input: Text,
        *,
        nbest_size: int | None = None,
        out_type: type[str] | None = None,
        return_type: type[str] | None = None,
        **options: Unpack[NBestOptions],
    ) -> list[list[str]]: ...
    @overload
    def nbest_encode(
        self,
        input: Text,
        *,
        nbest_size: int | None = None,
        out_type: type[bytes] | None = None,
        return_type: type[bytes] | None = None,
        **options: Unpack[NBestOptions],
    ) -> list[list[bytes]]: ...
    @overload
    def nbest_encode(
        self,
        input: Text,
        *,
        nbest_size: int | None = None,
        out_type: Numpy | None = None,
        return_type: Numpy | None = None,
        **options: Unpack[NBestOptions],
    ) -> list[IdArray]: ...
    @overload
    def nbest_encode(
        self,
        input: Text,
        *,
        nbest_size: int | None = None,
        out_type: Proto | None = None,
        return_type: Proto | None = None,
        **options: Unpack[NBestOptions],
    ) -> NBestSentencePieceText: ...
    @overload
    def nbest_encode(
        self,
        input: Text,
        *,
        nbest_size: int | None = None,
        out_type: Serialized | None = None,
        return_type: Serialized | None = None,
        **options: Unpack[NBestOptions],
    ) -> bytes: ...
    @overload
    def nbest_encode(
        self,
        input: Texts,
        *,
        nbest_size: int | None = None,
        out_type: Ids = None,
        return_type: Ids = None,
        **options: Unpack[NBestOptions],
    ) -> list[list[list[int]]]: ...
    @overload
    def nbest_encode(
        self,
        input: Texts,
        *,
        nbest_size: int | None = None,
        out_type: type[str] | None = None,
        return_type: type[str] | None = None,
        **options: Unpack[NBestOptions],
    ) -> list[list[list[str]]]: ...
    @overload
    def nbest_encode(
        self,
        input: Texts,
        *,
        nbest_size: int | None = None,
        out_type: type[bytes] | None = None,
        return_type: type[bytes] | None = None,
        **options: Unpack[NBestOptions],
    ) -> list[list[list[bytes]]]: ...
    @overload
    def nbest_encode(
        self,
        input: Texts,
        *,
        nbest_size: int | None = None,
        out_type: Numpy | None = None,
        return_type: Numpy | None = None,
        **options: Unpack[NBestOptions],
    ) -> list[list[IdArray]]: ...
    @overload
    def nbest_encode(
        self,
        input: Texts,
        *,
        nbest_size: int | None = None,
        out_type: Proto | None = None,
        return_type: Proto | None = None,
        **options: Unpack[NBestOptions],
    ) -> list[NBestSentencePieceText]: ...
    @overload
    def nbest_encode(
        self,
        input: Texts,
        *,
        nbest_size: int | None = None,
        out_type: Serialized | None = None,
        return_type: Serialized | None = None,
        **options: Unpack[NBestOptions],
    ) -> list[bytes]: ...
    @overload
    def nbest_encode(
        self,
        input: Text | Texts,
        *,
        nbest_size: int | None = None,
        out_type: OutKind | None = None,
        return_type: OutKind | None = None,
        **options: Unpack[NBestOptions],
    ) -> Any: ...
    def nbest_encode(
        self,
        input: Any,
        add_bos: bool | None = None,
        add_eos: bool | None = None,
        reverse: bool | None = None,
        emit_unk_piece: bool | None = None,
        nbest_size: int | None = None,
        return_type: OutType = None,
        out_type: OutType = None,
    ) -> Any:
        """The ``nbest_size`` best segmentations (constructor's default, at least 1)."""
        return self._encode(
            self._stock().nbest_encode,
            input,
            return_type,
            out_type,
            nbest=True,
            add_bos=add_bos,
            add_eos=add_eos,
            reverse=reverse,
            emit_unk_piece=emit_unk_piece,
            nbest_size=nbest_size,
        )

    @overload
    def nbest_encode_as_ids(
        self, input: Text, nbest_size: int | None = None, **options: Unpack[NBestOptions]
    ) -> list[list[int]]: ...
    @overload
    def nbest_encode_as_ids(
        self, input: Texts, nbest_size: int | None = None, **options: Unpack[NBestOptions]
    ) -> list[list[list[int]]]: ...
    def nbest_encode_as_ids(self, input: Any, nbest_size: int | None = None, **options: Any) -> Any:
        return self.nbest_encode(input, nbest_size=nbest_size, return_type=int, **options)

    @overload
    def nbest_encode_as_pieces(
        self, input: Text, nbest_size: int | None = None, **options: Unpack[NBestOptions]
    ) -> list[list[str]]: ...
    @overload
    def nbest_encode_as_pieces(
        self, input: Texts, nbest_size: int | None = None, **options: Unpack[NBestOptions]
    ) -> list[list[list[str]]]: ...
    def nbest_encode_as_pieces(
        self, input: Any, nbest_size: int | None = None, **options: Any
    ) -> Any:
        return self.nbest_encode(input, nbest_size=nbest_size, return_type=str, **options)

    @overload
    def nbest_encode_as_numpy(
        self, input: Text, nbest_size: int | None = None, **options: Unpack[NBestOptions]
    ) -> list[IdArray]: ...
    @overload
    def nbest_encode_as_numpy(
        self, input: Texts, nbest_size: int | None = None, **options: Unpack[NBestOptions]
    ) -> list[list[IdArray]]: ...
    def nbest_encode_as_numpy(
        self, input: Any, nbest_size: int | None = None, **options: Any
    ) -> Any:
        return self.nbest_encode(input, nbest_size=nbest_size, return_type="numpy", **options)

    @overload
    def nbest_encode_as_proto(
        self, input: Text, nbest_size: int | None = None, **options: Unpack[NBestOptions]
    ) -> NBestSentencePieceText: ...
    @overload
    def nbest_encode_as_proto(
        self, input: Texts, nbest_size: int | None = None, **options: Unpack[NBestOptions]
    ) -> list[NBestSentencePieceText]: ...
    def nbest_encode_as_proto(
        self, input: Any, nbest_size: int | None = None, **options: Any
    ) -> Any:
        return self.nbest_encode(input, nbest_size=nbest_size, return_type="proto", **options)

    @overload
    def parallel_encode(
        self,
        input: Text,
        *,
        out_type: Ids = None,
        return_type: Ids = None,
        **options: Unpack[ParallelOptions],
    ) -> list[int]: ...
    @overload
    def parallel_encode(
        self,
        input: Text,
        *,
        out_type: type[str] | None = None,
        return_type: type[str] | None = None,
        **options: Unpack[ParallelOptions],
    ) -> list[str]: ...
    @overload
    def parallel_encode(
        self,
        input: Text,
        *,
        out_type: type[bytes] | None = None,
        return_type: type[bytes] | None = None,
        **options: Unpack[ParallelOptions],
    ) -> list[bytes]: ...
    @overload
    def parallel_encode(
        self,
        input: Text,
        *,
        out_type: Numpy | None = None,
        return_type: Numpy | None = None,
        **options: Unpack[ParallelOptions],
    ) -> IdArray: ...
    @overload
    def parallel_encode(
        self,
        input: Text,
        *,
        out_type: Proto | None = None,
        return_type: Proto | None = None,
        **options: Unpack[ParallelOptions],
    ) -> SentencePieceText: ...
    @overload
    def parallel_encode(
        self,
        input: Text,
        *,
        out_type: Serialized | None = None,
        return_type: Serialized | None = None,
        **options: Unpack[ParallelOptions],
    ) -> bytes: ...
    @overload
    def parallel_encode(
        self,
        input: Texts,
        *,
        out_type: Ids = None,
        return_type: Ids = None,
        **options: Unpack[ParallelOptions],
    ) -> list[list[int]]: ...
    @overload
    def parallel_encode(
        self,
        input: Texts,
        *,
        out_type: type[str] | None = None,
        return_type: type[str] | None = None,
        **options: Unpack[ParallelOptions],
    ) -> list[list[str]]: ...
    @overload
    def parallel_encode(
        self,
        input: Texts,
        *,
        out_type: type[bytes] | None = None,
        return_type: type[bytes] | None = None,
        **options: Unpack[ParallelOptions],
    ) -> list[list[bytes]]: ...
    @overload
    def parallel_encode(
        self,
        input: Texts,
        *,
        out_type: Numpy | None = None,
        return_type: Numpy | None = None,
        **options: Unpack[ParallelOptions],
    ) -> list[IdArray]: ...
    @overload
    def parallel_encode(
        self,
        input: Texts,
        *,
        out_type: Proto | None = None,
        return_type: Proto | None = None,
        **options: Unpack[ParallelOptions],
    ) -> list[SentencePieceText]: ...
    @overload
    def parallel_encode(
        self,
        input: Texts,
        *,
        out_type: Serialized | None = None,
        return_type: Serialized | None = None,
        **options: Unpack[ParallelOptions],
    ) -> list[bytes]: ...
    @overload
    def parallel_encode(
        self,
        input: Text | Texts,
        *,
        out_type: OutKind | None = None,
        return_type: OutKind | None = None,
        **options: Unpack[ParallelOptions],
    ) -> Any: ...
    def parallel_encode(
        self,
        input: Any,
        add_bos: bool | None = None,
        add_eos: bool | None = None,
        reverse: bool | None = None,
        emit_unk_piece: bool | None = None,
        chunk_len: int | None = None,
        num_threads: int | None = None,
        thread_pool: Any = None,
        return_type: OutType = None,
        out_type: OutType = None,
    ) -> Any:
        """One long text encoded in chunks of ``chunk_len`` on several threads."""
        return self._encode(
            self._stock().parallel_encode,
            input,
            return_type,
            out_type,
            add_bos=add_bos,
            add_eos=add_eos,
            reverse=reverse,
            emit_unk_piece=emit_unk_piece,
            chunk_len=chunk_len,
            num_threads=num_threads,
            thread_pool=thread_pool,
        )

    @overload
    def parallel_encode_as_ids(
        self, input: Text, **options: Unpack[ParallelOptions]
    ) -> list[int]: ...
    @overload
    def parallel_encode_as_ids(
        self, input: Texts, **options: Unpack[ParallelOptions]
    ) -> list[list[int]]: ...
    def parallel_encode_as_ids(self, input: Any, **options: Any) -> Any:
        return self.parallel_encode(input, return_type=int, **options)

    @overload
    def parallel_encode_as_pieces(
        self, input: Text, **options: Unpack[ParallelOptions]
    ) -> list[str]: ...
    @overload
    def parallel_encode_as_pieces(
        self, input: Texts, **options: Unpack[ParallelOptions]
    ) -> list[list[str]]: ...
    def parallel_encode_as_pieces(self, input: Any, **options: Any) -> Any:
        return self.parallel_encode(input, return_type=str, **options)

    @overload
    def parallel_encode_as_numpy(
        self, input: Text, **options: Unpack[ParallelOptions]
    ) -> IdArray: ...
    @overload
    def parallel_encode_as_numpy(
        self, input: Texts, **options: Unpack[ParallelOptions]
    ) -> list[IdArray]: ...
    def parallel_encode_as_numpy(self, input: Any, **options: Any) -> Any:
        return self.parallel_encode(input, return_type="numpy", **options)

    @overload
    def parallel_encode_as_proto(
        self, input: Text, **options: Unpack[ParallelOptions]
    ) -> SentencePieceText: ...
    @overload
    def parallel_encode_as_proto(
        self, input: Texts, **options: Unpack[ParallelOptions]
    ) -> list[SentencePieceText]: ...
    def parallel_encode_as_proto(self, input: Any, **options: Any) -> Any:
        return self.parallel_encode(input, return_type="proto", **options)

    Encode = Tokenize = tokenize = encode
    EncodeAsIds = encode_as_ids
    EncodeAsPieces = encode_as_pieces
    EncodeAsNumpy = encode_as_numpy
    EncodeAsProto = encode_as_proto
    EncodeAsOffsetMapping = encode_as_offset_mapping
    SampleEncodeAsIds = sample_encode_as_ids
    SampleEncodeAsPieces = sample_encode_as_pieces
    SampleEncodeAsNumpy = sample_encode_as_numpy
    SampleEncodeAsProto = sample_encode_as_proto
    NBestEncode = nbest_encode
    NBestEncodeAsIds = nbest_encode_as_ids
    NBestEncodeAsPieces = nbest_encode_as_pieces
    NBestEncodeAsNumpy = nbest_encode_as_numpy
    NBestEncodeAsProto = nbest_encode_as_proto
    ParallelEncode = parallel_encode
    ParallelEncodeAsIds = parallel_encode_as_ids
    ParallelEncodeAsPieces = parallel_encode_as_pieces
    ParallelEncodeAsNumpy = parallel_encode_as_numpy
    ParallelEncodeAsProto = parallel_encode_as_proto

    @overload
    def calculate_entropy(
        self, input: str, alpha: float, num_threads: int | None = None
    ) -> float: ...
    @overload
    def calculate_entropy(
        self, input: list[str], alpha: float, num_threads: int | None = None
    ) -> list[float]: ...
    def calculate_entropy(self, input: Any, alpha: float, num_threads: int | None = None) -> Any:
        """Entropy (nats) of the sampling distribution over segmentations; Unigram models only.
        ``num_threads`` is accepted for compatibility and ignored."""
        processor = self._stock()
        if model_type(processor.serialized_model_proto()) != "unigram":
            raise ValueError("calculate_entropy needs a Unigram model (model_type=unigram)")
        if isinstance(input, str):
            text = self._prepare_one(input) if self._shown is not None else input
            return segmentation_entropy(processor, processor.normalize(text), alpha)
        return [self.calculate_entropy(text, alpha) for text in input]

    CalculateEntropy = calculate_entropy

    # -- decoding -----------------------------------------------------------------------------

    @overload
    def decode(
        self,
        input: TextOrIdsToDecode,
        *,
        out_type: type[str] | None = None,
        return_type: type[str] | None = None,
        **options: Unpack[Threads],
    ) -> str: ...
    @overload
    def decode(
        self,
        input: BytesToDecode,
        *,
        out_type: type[str] | None = None,
        return_type: type[str] | None = None,
        **options: Unpack[Threads],
    ) -> bytes: ...
    @overload
    def decode(
        self,
        input: OneToDecode,
        *,
        out_type: type[bytes],
        return_type: None = None,
        **options: Unpack[Threads],
    ) -> bytes: ...
    @overload
    def decode(
        self,
        input: OneToDecode,
        *,
        out_type: None = None,
        return_type: type[bytes],
        **options: Unpack[Threads],
    ) -> bytes: ...
    @overload
    def decode(
        self,
        input: OneToDecode,
        *,
        out_type: Proto,
        return_type: None = None,
        **options: Unpack[Threads],
    ) -> SentencePieceText: ...
    @overload
    def decode(
        self,
        input: OneToDecode,
        *,
        out_type: None = None,
        return_type: Proto,
        **options: Unpack[Threads],
    ) -> SentencePieceText: ...
    @overload
    def decode(
        self,
        input: OneToDecode,
        *,
        out_type: Serialized,
        return_type: None = None,
        **options: Unpack[Threads],
    ) -> bytes: ...
    @overload
    def decode(
        self,
        input: OneToDecode,
        *,
        out_type: None = None,
        return_type: Serialized,
        **options: Unpack[Threads],
    ) -> bytes: ...
    @overload
    def decode(
        self,
        input: TextOrIdsToDecode,
        *,
        out_type: Offsets,
        return_type: None = None,
        return_bytes: Literal[False] | None = None,
        **options: Unpack[Threads],
    ) -> TextOffsetMapping[str]: ...
    @overload
    def decode(
        self,
        input: TextOrIdsToDecode,
        *,
        out_type: Offsets,
        return_type: None = None,
        return_bytes: Literal[True],
        **options: Unpack[Threads],
    ) -> TextOffsetMapping[bytes]: ...
    @overload
    def decode(
        self,
        input: BytesToDecode,
        *,
        out_type: Offsets,
        return_type: None = None,
        return_bytes: bool | None = None,
        **options: Unpack[Threads],
    ) -> TextOffsetMapping[bytes]: ...
    @overload
    def decode(
        self,
        input: TextOrIdsToDecode,
        *,
        out_type: None = None,
        return_type: Offsets,
        return_bytes: Literal[False] | None = None,
        **options: Unpack[Threads],
    ) -> TextOffsetMapping[str]: ...
    @overload
    def decode(
        self,
        input: TextOrIdsToDecode,
        *,
        out_type: None = None,
        return_type: Offsets,
        return_bytes: Literal[True],
        **options: Unpack[Threads],
    ) -> TextOffsetMapping[bytes]: ...
    @overload
    def decode(
        self,
        input: BytesToDecode,
        *,
        out_type: None = None,
        return_type: Offsets,
        return_bytes: bool | None = None,
        **options: Unpack[Threads],
    ) -> TextOffsetMapping[bytes]: ...
    @overload
    def decode(
        self,
        input: TextOrIdBatchToDecode,
        *,
        out_type: type[str] | None = None,
        return_type: type[str] | None = None,
        **options: Unpack[Threads],
    ) -> list[str]: ...
    @overload
    def decode(
        self,
        input: list[list[bytes]],
        *,
        out_type: type[str] | None = None,
        return_type: type[str] | None = None,
        **options: Unpack[Threads],
    ) -> list[bytes]: ...
    @overload
    def decode(
        self,
        input: BatchToDecode,
        *,
        out_type: type[bytes],
        return_type: None = None,
        **options: Unpack[Threads],
    ) -> list[bytes]: ...
    @overload
    def decode(
        self,
        input: BatchToDecode,
        *,
        out_type: None = None,
        return_type: type[bytes],
        **options: Unpack[Threads],
    ) -> list[bytes]: ...
    @overload
    def decode(
        self,
        input: BatchToDecode,
        *,
        out_type: Proto,
        return_type: None = None,
        **options: Unpack[Threads],
    ) -> list[SentencePieceText]: ...
    @overload
    def decode(
        self,
        input: BatchToDecode,
        *,
        out_type: None = None,
        return_type: Proto,
        **options: Unpack[Threads],
    ) -> list[SentencePieceText]: ...
    @overload
    def decode(
        self,
        input: BatchToDecode,
        *,
        out_type: Serialized,
        return_type: None = None,
        **options: Unpack[Threads],
    ) -> list[bytes]: ...
    @overload
    def decode(
        self,
        input: BatchToDecode,
        *,
        out_type: None = None,
        return_type: Serialized,
        **options: Unpack[Threads],
    ) -> list[bytes]: ...
    @overload
    def decode(
        self,
        input: TextOrIdBatchToDecode,
        *,
        out_type: Offsets,
        return_type: None = None,
        return_bytes: Literal[False] | None = None,
        **options: Unpack[Threads],
    ) -> list[TextOffsetMapping[str]]: ...
    @overload
    def decode(
        self,
        input: TextOrIdBatchToDecode,
        *,
        out_type: Offsets,
        return_type: None = None,
        return_bytes: Literal[True],
        **options: Unpack[Threads],
    ) -> list[TextOffsetMapping[bytes]]: ...
    @overload
    def decode(
        self,
        input: list[list[bytes]],
        *,
        out_type: Offsets,
        return_type: None = None,
        return_bytes: bool | None = None,
        **options: Unpack[Threads],
    ) -> list[TextOffsetMapping[bytes]]: ...
    @overload
    def decode(
        self,
        input: TextOrIdBatchToDecode,
        *,
        out_type: None = None,
        return_type: Offsets,
        return_bytes: Literal[False] | None = None,
        **options: Unpack[Threads],
    ) -> list[TextOffsetMapping[str]]: ...
    @overload
    def decode(
        self,
        input: TextOrIdBatchToDecode,
        *,
        out_type: None = None,
        return_type: Offsets,
        return_bytes: Literal[True],
        **options: Unpack[Threads],
    ) -> list[TextOffsetMapping[bytes]]: ...
    @overload
    def decode(
        self,
        input: list[list[bytes]],
        *,
        out_type: None = None,
        return_type: Offsets,
        return_bytes: bool | None = None,
        **options: Unpack[Threads],
    ) -> list[TextOffsetMapping[bytes]]: ...
    @overload
    def decode(
        self,
        input: AnyToDecode,
        *,
        out_type: DecodeKind | None = None,
        return_type: DecodeKind | None = None,
        return_bytes: bool | None = None,
        **options: Unpack[Threads],
    ) -> Any: ...
    def decode(
        self,
        input: Any,
        return_type: OutType = None,
        out_type: OutType = None,
        num_threads: int | None = None,
        thread_pool: Any = None,
        return_bytes: bool | None = None,
    ) -> Any:
        """Text from ids or from pieces (as ``encode`` shows them): one, a list, or a batch.
        Ids in a list go to the one-pass decoder, the rest to stock (brahmic_pua.model.decoding).
        Protos and offset mappings: stock's, with surfaces and offsets in the decoded text and
        pieces as text (brahmic_pua.runtime.offsets)."""
        processor = self._stock()
        if self._shown is not None:
            out = _resolve(return_type, out_type, str)
            if out in _ALIGNED:
                return self._decode_aligned(input, out, num_threads, thread_pool, return_bytes)
            if _holds_pieces(input):
                input = self._shown.to_model_pieces(input)
            elif (plain := self._plain_decoder()).takes(input):  # the same text, one pass
                return self._checked(
                    plain.decode,
                    input,
                    fallback=processor.decode,
                    return_type=return_type,
                    out_type=out_type,
                    num_threads=num_threads,
                    thread_pool=thread_pool,
                    return_bytes=return_bytes,
                )
        return self._checked(
            processor.decode,
            input,
            return_type=return_type,
            out_type=out_type,
            num_threads=num_threads,
            thread_pool=thread_pool,
            return_bytes=return_bytes,
        )

    def _decode_aligned(
        self,
        input: Any,
        out: OutType,
        num_threads: int | None,
        thread_pool: Any,
        return_bytes: bool | None,
    ) -> Any:
        """Stock's decode proto, its surfaces and begin/end moved into the decoded text."""
        assert self._shown is not None
        shown = self._shown
        as_bytes = bool(return_bytes) or _bytes_pieces(input)
        if out == "offset_mapping":
            return_bytes = None  # stock's check: only offset mappings take it
        if _holds_pieces(input):
            input = shown.to_model_pieces(input)
        serialized = self._checked(
            self._stock().decode,
            input,
            return_type="serialized_proto",
            num_threads=num_threads,
            thread_pool=thread_pool,
            return_bytes=return_bytes,
        )
        batch = isinstance(serialized, list)
        denormalizer = self._denormalizer_of_model()
        results = []
        for data in serialized if batch else [serialized]:
            spt = parse(data, nbest=False)
            denormalizer.rebase(spt)
            for piece in spt.pieces:
                piece.piece = shown.proto_piece(piece.id, piece.piece, by_id=False)
            if out == "proto":
                results.append(spt)
            elif out == "serialized_proto":
                results.append(spt.SerializeToString())
            else:
                results.append(offset_mapping(spt, as_bytes, with_text=True))
        return results if batch else results[0]

    def _denormalizer_of_model(self) -> Denormalizer:
        """The model's denormalizer with stock's alignment, built once."""
        if self._denormalizer is None:
            spec = parse_model(self.serialized_model_proto()).denormalizer_spec
            self._denormalizer = Denormalizer(spec.SerializeToString())
        return self._denormalizer

    @overload
    def decode_ids(
        self, input: IdsToDecode, return_type: type[str] | None = None, **options: Unpack[Threads]
    ) -> str: ...
    @overload
    def decode_ids(
        self,
        input: IdBatchToDecode,
        return_type: type[str] | None = None,
        **options: Unpack[Threads],
    ) -> list[str]: ...
    @overload
    def decode_ids(
        self, input: IdsToDecode, return_type: type[bytes], **options: Unpack[Threads]
    ) -> bytes: ...
    @overload
    def decode_ids(
        self, input: IdBatchToDecode, return_type: type[bytes], **options: Unpack[Threads]
    ) -> list[bytes]: ...
    @overload
    def decode_ids(
        self, input: AnyToDecode, return_type: DecodeKind | None = None, **options: Any
    ) -> Any: ...
    def decode_ids(self, input: Any, return_type: Any = None, **options: Any) -> Any:
        return self.Decode(input, return_type=return_type, **options)

    @overload
    def decode_pieces(
        self,
        input: str | list[str],
        return_type: type[str] | None = None,
        **options: Unpack[Threads],
    ) -> str: ...
    @overload
    def decode_pieces(
        self,
        input: list[list[str]],
        return_type: type[str] | None = None,
        **options: Unpack[Threads],
    ) -> list[str]: ...
    @overload
    def decode_pieces(
        self,
        input: bytes | list[bytes],
        return_type: type[str] | type[bytes] | None = None,
        **options: Unpack[Threads],
    ) -> bytes: ...
    @overload
    def decode_pieces(
        self,
        input: list[list[bytes]],
        return_type: type[str] | type[bytes] | None = None,
        **options: Unpack[Threads],
    ) -> list[bytes]: ...
    @overload
    def decode_pieces(
        self, input: str | list[str], return_type: type[bytes], **options: Unpack[Threads]
    ) -> bytes: ...
    @overload
    def decode_pieces(
        self, input: list[list[str]], return_type: type[bytes], **options: Unpack[Threads]
    ) -> list[bytes]: ...
    @overload
    def decode_pieces(
        self, input: AnyToDecode, return_type: DecodeKind | None = None, **options: Any
    ) -> Any: ...
    def decode_pieces(self, input: Any, return_type: Any = None, **options: Any) -> Any:
        return self.Decode(input, return_type=return_type, **options)

    @overload
    def decode_ids_as_proto(
        self, input: IdsToDecode, **options: Unpack[Threads]
    ) -> SentencePieceText: ...
    @overload
    def decode_ids_as_proto(
        self, input: IdBatchToDecode, **options: Unpack[Threads]
    ) -> list[SentencePieceText]: ...
    def decode_ids_as_proto(self, input: Any, **options: Any) -> Any:
        return self.Decode(input, return_type="proto", **options)

    @overload
    def decode_pieces_as_proto(
        self, input: PiecesToDecode, **options: Unpack[Threads]
    ) -> SentencePieceText: ...
    @overload
    def decode_pieces_as_proto(
        self, input: list[list[str]] | list[list[bytes]], **options: Unpack[Threads]
    ) -> list[SentencePieceText]: ...
    def decode_pieces_as_proto(self, input: Any, **options: Any) -> Any:
        return self.Decode(input, return_type="proto", **options)

    Decode = Detokenize = detokenize = decode
    DecodeIds = decode_ids
    DecodePieces = decode_pieces
    DecodeIdsAsProto = decode_ids_as_proto
    DecodePiecesAsProto = decode_pieces_as_proto

    def stream_decoder(self, policy: str = "akshara") -> StreamDecoder:
        """A decoder for ids as a model generates them: ``feed`` returns text only where a
        cluster ends, ``flush`` the rest (``brahmic_pua.runtime.stream``)."""
        return StreamDecoder(self, policy)

    def _plain_decoder(self) -> PlainDecoder:
        """The model with pieces as text (``brahmic_pua.model.decoding``), built once."""
        if self._plain is None:
            assert self.manifest is not None
            data = self.serialized_model_proto()
            self._plain = PlainDecoder(data, self.manifest.codec, self._sp, self._options)
        return self._plain

    def _checked(self, method: Callable[..., Any], ids: Any, **options: Any) -> Any:
        """Call stock; an id out of range is one IndexError naming it. Stock raises IndexError
        for an id its C++ int takes and TypeError for one it does not (2**31, -2**31 - 1,
        2**63): the same mistake, so both are the IndexError. A TypeError with every id in
        range (a str among ids) is stock's, unchanged."""
        try:
            return method(ids, **options)
        except (IndexError, TypeError) as error:
            size = self.get_piece_size()
            bad = next((i for i in _ids_in(ids) if not 0 <= i < size), None)
            if bad is None and isinstance(error, TypeError):
                raise
            raise IndexError(str(error) if bad is None else _out_of_range(bad, size)) from None

    # -- the vocabulary -----------------------------------------------------------------------

    @overload
    def id_to_piece(self, id: int) -> str: ...
    @overload
    def id_to_piece(self, id: Sequence[int]) -> list[str]: ...
    def id_to_piece(self, id: Any) -> Any:
        """The piece of an id, or a list of pieces for a list of ids; shown as text."""
        if self._shown is None:
            return self._checked(self._stock().id_to_piece, id)
        if _is_sequence(id):
            return [self._shown.piece(i) for i in id]
        return self._shown.piece(id)

    @overload
    def piece_to_id(self, piece: str | bytes) -> int: ...
    @overload
    def piece_to_id(self, piece: list[str] | list[bytes]) -> list[int]: ...
    def piece_to_id(self, piece: Any) -> Any:
        """The id of a piece (shown or spm's own), or a list of ids; unknown: ``unk_id()``."""
        processor = self._stock()
        if self._shown is None:
            return processor.piece_to_id(piece)
        return processor.piece_to_id(self._shown.to_model_pieces(piece))

    def get_piece_size(self) -> int:
        return int(self._stock().get_piece_size())

    @overload
    def get_score(self, id: int) -> float: ...
    @overload
    def get_score(self, id: Sequence[int]) -> list[float]: ...
    def get_score(self, id: Any) -> Any:
        return self._checked(self._stock().get_score, id)

    @overload
    def is_unknown(self, id: int) -> bool: ...
    @overload
    def is_unknown(self, id: Sequence[int]) -> list[bool]: ...
    def is_unknown(self, id: Any) -> Any:
        return self._checked(self._stock().is_unknown, id)

    @overload
    def is_control(self, id: int) -> bool: ...
    @overload
    def is_control(self, id: Sequence[int]) -> list[bool]: ...
    def is_control(self, id: Any) -> Any:
        return self._checked(self._stock().is_control, id)

    @overload
    def is_unused(self, id: int) -> bool: ...
    @overload
    def is_unused(self, id: Sequence[int]) -> list[bool]: ...
    def is_unused(self, id: Any) -> Any:
        return self._checked(self._stock().is_unused, id)

    @overload
    def is_byte(self, id: int) -> bool: ...
    @overload
    def is_byte(self, id: Sequence[int]) -> list[bool]: ...
    def is_byte(self, id: Any) -> Any:
        return self._checked(self._stock().is_byte, id)

    def script_ids(self) -> list[int]:
        """One script id per piece id, aligned with the vocabulary (a per-token script feature,
        the NepBPE design note's ``script(t)``);
        :data:`brahmic_pua.model.script_ids.SCRIPT_ID_NAMES` names them."""
        return _script_ids(self)

    def unk_id(self) -> int:
        return int(self._stock().unk_id())

    def bos_id(self) -> int:
        return int(self._stock().bos_id())

    def eos_id(self) -> int:
        return int(self._stock().eos_id())

    def pad_id(self) -> int:
        return int(self._stock().pad_id())

    def __len__(self) -> int:
        return self.get_piece_size()

    @overload
    def __getitem__(self, piece: str | bytes) -> int: ...
    @overload
    def __getitem__(self, piece: list[str] | list[bytes]) -> list[int]: ...
    def __getitem__(self, piece: Any) -> Any:
        return self.piece_to_id(piece)

    IdToPiece = id_to_piece
    PieceToId = piece_to_id
    GetPieceSize = piece_size = vocab_size = get_piece_size
    GetScore = get_score
    IsUnknown = is_unknown
    IsControl = is_control
    IsUnused = is_unused
    IsByte = is_byte
    ScriptIds = script_ids
