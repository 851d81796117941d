"""``SentencePieceProcessor``: a drop-in for sentencepiece's, on brahmic_pua models.

Encoding runs in stock SentencePiece (C++, multi-threaded): the model's own normalizer maps
clusters to codes, so ids are exactly what stock sentencepiece gives for the same text. What
this class adds to stock is three things:

* the input transform: N (NFC by default) before encoding (brahmic_pua.runtime.encoder);
* the output transform: pieces shown as the text they stand for, no Private Use code point
  reaching the caller (brahmic_pua.runtime.shown_pieces), and given pieces mapped back;
* the aligned path: protos and offset mappings whose offsets point into the caller's text
  (brahmic_pua.runtime.aligned, brahmic_pua.runtime.offsets).

This class holds the calls and sends each where it goes: a plain model's to stock, a brahmic
model's to the ModelEncoder and ModelDecoder its load built (brahmic_pua.runtime.loading, which
also says what a pickle carries). Which decoder takes which input, and why each gives N(s)
back: brahmic_pua.model.decoding and brahmic_pua.runtime.decoder.

Every method takes the arguments sentencepiece 0.2.3's takes and returns what it returns, so
``import brahmic_pua as spm`` changes nothing else in a program. A plain spm model (no
manifest) is passed to stock unchanged, with ``is_brahmic`` False; only an id out of range
reads better (one IndexError line naming the id, the type stock raises).

Names and types. The many spellings of one call (``EncodeAsIds``, ``sample_encode_as_pieces``,
``DecodeIds``...) are not written here: brahmic_pua.runtime.spellings writes them (the class
``Spelled`` this one derives from) and names them from one table of (family, out type), as
stock's wrapper does. What each call returns for each input and out
type (``encode(str, out_type=str) -> list[str]``) is declared in ``processor.pyi``, generated
from that table and this module's signatures by ``tools/processor_stub.py``. A type checker
reads the stub in place of this file, so this file is checked on its own
(``mypy --strict brahmic_pua/runtime/processor.py``, in .ci/run), and the stub against it:
``tools/processor_stub.py --check`` (tests/runtime/test_spellings.py) fails on a stale stub,
``python -m mypy.stubtest brahmic_pua.runtime.processor`` on one that does not match the
class at run time. Here the implementations return ``object``: the stub says which type.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Unpack, cast, overload

import sentencepiece as stock

from brahmic_pua.codec import PUACodec
from brahmic_pua.model.manifest import Manifest
from brahmic_pua.model.model_file import read_model_file
from brahmic_pua.model.model_proto import model_type
from brahmic_pua.model.processor_types import Processor, StockMethod, StockProcessor
from brahmic_pua.model.script_ids import script_ids as _script_ids
from brahmic_pua.normalize import check_mode
from brahmic_pua.runtime import loading, spellings
from brahmic_pua.runtime.decoder import ModelDecoder
from brahmic_pua.runtime.encoder import ModelEncoder
from brahmic_pua.runtime.entropy import segmentation_entropy
from brahmic_pua.runtime.input_kinds import checked, is_sequence
from brahmic_pua.runtime.shown_pieces import ShownPieces
from brahmic_pua.runtime.signatures import (
    AnyToDecode,
    OutKind,
    OutType,
    ProcessorOptions,
    StockOptions,
    Text,
    Texts,
)
from brahmic_pua.runtime.stream import StreamDecoder
from brahmic_pua.segment.sure_cuts import name_refused_surrogate

#: The constructor's keywords, as in sentencepiece 0.2.3.
OPTIONS: tuple[str, ...] = (
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


def _resolve(return_type: OutType, out_type: OutType, default: OutKind) -> OutKind:
    if out_type is not None and return_type is not None:
        raise ValueError("Cannot specify both out_type and return_type. Use return_type instead.")
    chosen = out_type if out_type is not None else return_type
    return default if chosen is None else chosen


class SentencePieceProcessor(spellings.Spelled):
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

    #: The model's brahmic_pua manifest; None for a plain spm model (or none loaded yet).
    manifest: Manifest | None

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
        **unknown: object,
    ) -> None:
        if unknown:
            raise TypeError(
                f"SentencePieceProcessor() got unknown keyword {', '.join(unknown)}; "
                f"it takes {', '.join(OPTIONS)}"
            )
        self._options: StockOptions = {
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
        self._sp: StockProcessor | None = None
        self._shown: ShownPieces | None = None
        self._encoder: ModelEncoder | None = None
        self._decoder: ModelDecoder | None = None
        self.manifest = None
        if model_file or model_proto:
            self.load(model_file=model_file, model_proto=model_proto)

    # -- loading ------------------------------------------------------------------------------

    @classmethod
    def from_file(
        cls, model_file: str | Path, **options: Unpack[ProcessorOptions]
    ) -> SentencePieceProcessor:
        """A processor with ``options`` as its defaults, loaded from ``model_file``."""
        processor = cls(**loading.without_model(options))
        processor.load_from_file(model_file)
        return processor

    @classmethod
    def from_proto(
        cls, model_proto: bytes, *, source: str = "model_proto", **options: Unpack[ProcessorOptions]
    ) -> SentencePieceProcessor:
        """A processor with ``options`` as its defaults, loaded from a serialized model.
        ``source``: what an error calls the model (the file the bytes were read from)."""
        processor = cls(**loading.without_model(options))
        processor.load_from_serialized_proto(model_proto, source=source)
        return processor

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

    def load_from_serialized_proto(self, serialized: object, source: str = "model_proto") -> bool:
        """Load a serialized model (or a ModelProto, as stock). ``source``, brahmic_pua's: what
        an error calls the model, for bytes read from a file."""
        return self._install(loading.serialized(serialized), source)

    def _install(self, data: bytes, source: str) -> bool:
        """Build everything, then swap it in: a failed load changes nothing."""
        built = loading.build(data, source, self._options, self._normalization)
        self._sp, self._shown, self.manifest = built.processor, built.shown, built.manifest
        self._encoder, self._decoder = built.encoder, built.decoder
        return True

    def __getstate__(self) -> dict[str, object]:
        """As stock pickles: attributes and the serialized model (brahmic_pua.runtime.loading)."""
        model = self.serialized_model_proto() if self._sp is not None else None
        return loading.pickled(self.__dict__, model)

    def __setstate__(self, state: dict[str, object] | bytes) -> None:
        """A state from ``__getstate__``, or the serialized model alone (older pickles)."""
        restored = loading.unpickled(state)
        options, normalization = restored.options, restored.normalization
        SentencePieceProcessor.__init__(self, **options, normalization=normalization)
        if restored.model is not None:
            self.load_from_serialized_proto(restored.model)
        self.__dict__.update(restored.attributes)

    @property
    def _processor(self) -> object:
        """The stock binding underneath, as stock's wrapper names it (``sp._processor``):
        sentencepiece's own tests call its batch methods directly. On a brahmic model it
        speaks Private Use codes, as the model file does."""
        return cast(Any, self._stock())._processor  # not in stock's stub

    @property
    def is_brahmic(self) -> bool:
        """True when the model carries a brahmic_pua manifest."""
        return self.manifest is not None

    @property
    def codec(self) -> PUACodec | None:
        return self.manifest.codec if self.manifest else None

    def serialized_model_proto(self) -> bytes:
        return bytes(self._stock().serialized_model_proto())

    def _stock(self) -> StockProcessor:
        """The stock processor holding the model."""
        if self._sp is None:
            raise ValueError("no model loaded: call load(model_file=...) first")
        return self._sp

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
    def normalize(self, input: Text | Texts, with_offsets: bool | None = None) -> object: ...
    def normalize(self, input: Text | Texts, with_offsets: bool | None = None) -> object:
        """As stock: the text spm segments, spaces as ▁. On a brahmic model, after N and shown
        as text (no Private Use codes), so the pieces of ``encode(text, out_type=str)`` join to
        it as in stock, byte pieces aside. ``with_offsets``: (text, offsets) as stock gives
        them, one offset per character (per byte for bytes) into the text given, then its
        length; every character a cluster shows as points where the cluster begins."""
        processor = self._stock()
        if self._encoder is None:
            try:
                return processor.normalize(input, with_offsets)
            except (RuntimeError, TypeError):
                name_refused_surrogate(input)
                raise
        if isinstance(input, list):
            return [self.normalize(text, with_offsets) for text in input]
        return self._encoder.normalize(input, with_offsets)

    # -- encoding -----------------------------------------------------------------------------

    def _encode(
        self,
        method: StockMethod,
        input: Text | Texts,
        return_type: OutType,
        out_type: OutType,
        nbest: bool = False,
        offsets: bool = False,
        **options: object,
    ) -> object:
        """Run a stock encode method: on a brahmic model, on N(input), pieces shown as text;
        protos and (where ``offsets``: stock's ``encode`` has them, n-best and parallel do not)
        offset mappings point into the caller's text (brahmic_pua.runtime.encoder)."""
        if self._encoder is None:
            try:
                return method(input, return_type=return_type, out_type=out_type, **options)
            except (RuntimeError, TypeError):
                name_refused_surrogate(input)
                raise
        out = _resolve(return_type, out_type, self._out)
        return self._encoder.encode(method, input, out, nbest, offsets, options)

    def encode(
        self,
        input: Text | Texts,
        add_bos: bool | None = None,
        add_eos: bool | None = None,
        reverse: bool | None = None,
        emit_unk_piece: bool | None = None,
        enable_sampling: bool | None = None,
        nbest_size: int | None = None,
        alpha: float | None = None,
        num_threads: int | None = None,
        thread_pool: stock.ThreadPool | None = None,
        return_type: OutType = None,
        out_type: OutType = None,
        return_bytes: bool | None = None,
    ) -> object:
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

    def nbest_encode(
        self,
        input: Text | Texts,
        add_bos: bool | None = None,
        add_eos: bool | None = None,
        reverse: bool | None = None,
        emit_unk_piece: bool | None = None,
        nbest_size: int | None = None,
        return_type: OutType = None,
        out_type: OutType = None,
    ) -> object:
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

    def parallel_encode(
        self,
        input: Text | Texts,
        add_bos: bool | None = None,
        add_eos: bool | None = None,
        reverse: bool | None = None,
        emit_unk_piece: bool | None = None,
        chunk_len: int | None = None,
        num_threads: int | None = None,
        thread_pool: stock.ThreadPool | None = None,
        return_type: OutType = None,
        out_type: OutType = None,
    ) -> object:
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
    def calculate_entropy(
        self, input: str, alpha: float, num_threads: int | None = None
    ) -> float: ...
    @overload
    def calculate_entropy(
        self, input: list[str], alpha: float, num_threads: int | None = None
    ) -> list[float]: ...
    def calculate_entropy(
        self, input: str | list[str], alpha: float, num_threads: int | None = None
    ) -> float | list[float]:
        """Entropy (nats) of the sampling distribution over segmentations; Unigram models only.
        ``num_threads`` is accepted for compatibility and ignored."""
        processor = self._stock()
        if model_type(processor.serialized_model_proto()) != "unigram":
            raise ValueError("calculate_entropy needs a Unigram model (model_type=unigram)")
        if isinstance(input, str):
            text = self._encoder.prepare_one(input) if self._encoder is not None else input
            try:
                normalized = processor.normalize(text)
            except (RuntimeError, TypeError):
                name_refused_surrogate(text)
                raise
            return segmentation_entropy(processor, normalized, alpha)
        return [self.calculate_entropy(text, alpha) for text in input]

    # -- decoding -----------------------------------------------------------------------------

    def decode(
        self,
        input: AnyToDecode,
        return_type: OutType = None,
        out_type: OutType = None,
        num_threads: int | None = None,
        thread_pool: stock.ThreadPool | None = None,
        return_bytes: bool | None = None,
    ) -> object:
        """Text from ids or from pieces (as ``encode`` shows them): one, a list, or a batch.
        Ids in a list go to the one-pass decoder, the rest to stock (brahmic_pua.model.decoding).
        Protos and offset mappings: stock's, with surfaces and offsets in the decoded text and
        pieces as text (brahmic_pua.runtime.offsets)."""
        processor = self._stock()
        try:  # pieces that hold a lone surrogate: stock refuses them
            if self._decoder is not None:
                out = _resolve(return_type, out_type, str)
                return self._decoder.decode(
                    input,
                    out,
                    return_type,
                    out_type,
                    self.get_piece_size,
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
        except (RuntimeError, TypeError):
            name_refused_surrogate(input)
            raise

    def stream_decoder(self, policy: str = "akshara") -> StreamDecoder:
        """A decoder for ids as a model generates them: ``feed`` returns text only where a
        cluster ends, ``flush`` the rest (``brahmic_pua.runtime.stream``)."""
        return StreamDecoder(cast(Processor, self), policy)  # processor.pyi's types make it one

    def _checked(self, method: StockMethod, ids: object, **options: object) -> object:
        """Call stock; an id out of range is one IndexError naming it (input_kinds.checked)."""
        return checked(method, ids, self.get_piece_size, **options)

    # -- the vocabulary -----------------------------------------------------------------------

    @overload
    def id_to_piece(self, id: int) -> str: ...
    @overload
    def id_to_piece(self, id: Sequence[int]) -> list[str]: ...
    def id_to_piece(self, id: int | Sequence[int]) -> object:
        """The piece of an id, or a list of pieces for a list of ids; shown as text."""
        if self._shown is None:
            return self._checked(self._stock().id_to_piece, id)
        if is_sequence(id):
            return [self._shown.piece(i) for i in id]
        return self._shown.piece(id)

    @overload
    def piece_to_id(self, piece: str | bytes) -> int: ...
    @overload
    def piece_to_id(self, piece: list[str] | list[bytes]) -> list[int]: ...
    def piece_to_id(self, piece: Text | list[str] | list[bytes]) -> object:
        """The id of a piece (shown or spm's own), or a list of ids; unknown: ``unk_id()``."""
        processor = self._stock()
        try:
            if self._shown is None:
                return processor.piece_to_id(piece)
            return processor.piece_to_id(self._shown.to_model_pieces(piece))
        except (RuntimeError, TypeError):
            name_refused_surrogate(piece)
            raise

    def get_piece_size(self) -> int:
        return int(self._stock().get_piece_size())

    @overload
    def get_score(self, id: int) -> float: ...
    @overload
    def get_score(self, id: Sequence[int]) -> list[float]: ...
    def get_score(self, id: int | Sequence[int]) -> object:
        return self._checked(self._stock().get_score, id)

    @overload
    def is_unknown(self, id: int) -> bool: ...
    @overload
    def is_unknown(self, id: Sequence[int]) -> list[bool]: ...
    def is_unknown(self, id: int | Sequence[int]) -> object:
        return self._checked(self._stock().is_unknown, id)

    @overload
    def is_control(self, id: int) -> bool: ...
    @overload
    def is_control(self, id: Sequence[int]) -> list[bool]: ...
    def is_control(self, id: int | Sequence[int]) -> object:
        return self._checked(self._stock().is_control, id)

    @overload
    def is_unused(self, id: int) -> bool: ...
    @overload
    def is_unused(self, id: Sequence[int]) -> list[bool]: ...
    def is_unused(self, id: int | Sequence[int]) -> object:
        return self._checked(self._stock().is_unused, id)

    @overload
    def is_byte(self, id: int) -> bool: ...
    @overload
    def is_byte(self, id: Sequence[int]) -> list[bool]: ...
    def is_byte(self, id: int | Sequence[int]) -> object:
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
    def __getitem__(self, piece: Text | list[str] | list[bytes]) -> object:
        return self.piece_to_id(piece)


spellings.install(SentencePieceProcessor)
