"""``SentencePieceProcessor``: a drop-in for sentencepiece's, on brahmic_pua models.

Encoding and decoding run in stock SentencePiece (C++, multi-threaded): the model's own
normalizer maps clusters to codes and its denormalizer maps them back, so ids are exactly what
stock sentencepiece gives for the same text. This class adds N (NFC by default) before
encoding and shows pieces as the text they stand for: no PUA code point reaches the caller.
A plain spm model (no manifest) is wrapped unchanged, with ``is_brahmic`` False.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sentencepiece as spm

from brahmic_pua.codec import PUACodec
from brahmic_pua.entropy import segmentation_entropy
from brahmic_pua.model.manifest import Manifest, ModelFileError, extract
from brahmic_pua.model.pieces import SPACE, display
from brahmic_pua.model.proto import model_type
from brahmic_pua.normalize import normalize

Text = str | Sequence[str]


class SentencePieceProcessor:
    """Load with ``SentencePieceProcessor(model_file=...)`` or ``model_proto=...``."""

    def __init__(
        self,
        model_file: str | Path | None = None,
        model_proto: bytes | None = None,
        **defaults: Any,
    ) -> None:
        self._defaults = defaults
        self._sp: Any = None
        self.manifest: Manifest | None = None
        if model_file is not None or model_proto is not None:
            self.load(model_file=model_file, model_proto=model_proto)

    # -- loading ------------------------------------------------------------------------------

    def load(self, model_file: str | Path | None = None, model_proto: bytes | None = None) -> None:
        if (model_file is None) == (model_proto is None):
            raise ValueError("give exactly one of model_file or model_proto")
        source = str(model_file) if model_file is not None else "model_proto"
        if model_file is not None:
            try:
                model_proto = Path(model_file).read_bytes()
            except OSError as error:
                raise ModelFileError(f"cannot read model {model_file}: {error.strerror}") from None
        assert model_proto is not None
        self.manifest = extract(model_proto, source)
        processor = spm.SentencePieceProcessor()
        try:
            processor.LoadFromSerializedProto(model_proto)
        except (RuntimeError, OSError) as error:
            raise ModelFileError(f"{source}: not a SentencePiece model ({error})") from None
        self._sp = processor
        size = processor.get_piece_size()
        if self.manifest is not None:
            codec = self.manifest.codec
            shown = [display(processor.id_to_piece(i), codec) for i in range(size)]
        else:
            shown = [processor.id_to_piece(i) for i in range(size)]
        self._pieces = shown
        self._ids: dict[str, int] = {}
        for i, piece in enumerate(shown):
            self._ids.setdefault(piece, i)

    Load = load

    @property
    def is_brahmic(self) -> bool:
        """True when the model carries a brahmic_pua manifest."""
        return self.manifest is not None

    @property
    def codec(self) -> PUACodec | None:
        return self.manifest.codec if self.manifest else None

    def serialized_model_proto(self) -> bytes:
        return bytes(self._processor().serialized_model_proto())

    def _processor(self) -> Any:
        if self._sp is None:
            raise ValueError("no model loaded: call load(model_file=...) first")
        return self._sp

    # -- normalization and pieces -------------------------------------------------------------

    def normalize(self, text: str) -> str:
        """N, as applied before encoding (identity for plain spm models)."""
        return normalize(text, self.manifest.normalization) if self.manifest else text

    def _prepare(self, input: Text) -> Text:
        if isinstance(input, str):
            return self.normalize(input)
        return [self.normalize(text) for text in input]

    def _model_piece(self, piece: str) -> str:
        """The vocabulary form of a piece shown to the caller."""
        found = self._ids.get(piece)
        if found is not None:
            return str(self._processor().id_to_piece(found))
        if self.manifest is None:
            return piece
        codec = self.manifest.codec
        return SPACE.join(codec.encode(part) for part in piece.split(SPACE))

    def id_to_piece(self, id: int | Sequence[int]) -> Any:
        if isinstance(id, int):
            self._check_id(id)
            return self._pieces[id]
        return [self.id_to_piece(i) for i in id]

    IdToPiece = id_to_piece

    def piece_to_id(self, piece: str | Sequence[str]) -> Any:
        if isinstance(piece, str):
            found = self._ids.get(piece)
            return (
                found
                if found is not None
                else self._processor().piece_to_id(self._model_piece(piece))
            )
        return [self.piece_to_id(p) for p in piece]

    PieceToId = piece_to_id

    def _check_id(self, id: int) -> None:
        if not 0 <= id < len(self._pieces):
            raise IndexError(f"piece id {id} is out of range 0..{len(self._pieces) - 1}")

    def _show(self, ids: Any) -> Any:
        if ids and isinstance(ids[0], list):
            return [self._show(row) for row in ids]
        return [self._pieces[i] for i in ids]

    # -- encoding -----------------------------------------------------------------------------

    def encode(
        self,
        input: Text,
        out_type: type | None = None,
        add_bos: bool | None = None,
        add_eos: bool | None = None,
        reverse: bool | None = None,
        emit_unk_piece: bool | None = None,
        enable_sampling: bool | None = None,
        nbest_size: int | None = None,
        alpha: float | None = None,
        num_threads: int | None = None,
    ) -> Any:
        """Ids (``out_type=int``) or pieces as text (``out_type=str``) of a str or a list.

        Options left as None take the value given to the constructor, as in sentencepiece.
        """
        given = {
            "add_bos": add_bos, "add_eos": add_eos, "reverse": reverse,
            "emit_unk_piece": emit_unk_piece, "enable_sampling": enable_sampling,
            "nbest_size": nbest_size, "alpha": alpha, "num_threads": num_threads,
        }  # fmt: skip
        options = {**self._defaults, **{k: v for k, v in given.items() if v is not None}}
        default_out = options.pop("out_type", int)
        out = default_out if out_type is None else out_type
        if out not in (int, str):
            raise ValueError(f"out_type must be int or str, not {out!r}")
        ids = self._processor().encode(self._prepare(input), out_type=int, **options)
        return ids if out is int else self._show(ids)

    Encode = encode

    def encode_as_ids(self, input: Text, **options: Any) -> Any:
        return self.encode(input, out_type=int, **options)

    def encode_as_pieces(self, input: Text, **options: Any) -> Any:
        return self.encode(input, out_type=str, **options)

    EncodeAsIds = encode_as_ids
    EncodeAsPieces = encode_as_pieces

    def sample_encode_as_ids(self, input: Text, nbest_size: int = -1, alpha: float = 0.1) -> Any:
        return self.encode(input, int, enable_sampling=True, nbest_size=nbest_size, alpha=alpha)

    def sample_encode_as_pieces(self, input: Text, nbest_size: int = -1, alpha: float = 0.1) -> Any:
        return self.encode(input, str, enable_sampling=True, nbest_size=nbest_size, alpha=alpha)

    SampleEncodeAsIds = sample_encode_as_ids
    SampleEncodeAsPieces = sample_encode_as_pieces

    def nbest_encode_as_ids(self, input: Text, nbest_size: int = 4) -> Any:
        return self._processor().nbest_encode(self._prepare(input), nbest_size=nbest_size)

    def nbest_encode_as_pieces(self, input: Text, nbest_size: int = 4) -> Any:
        ids = self.nbest_encode_as_ids(input, nbest_size)
        if isinstance(input, str):
            return [self._show(row) for row in ids]
        return [[self._show(row) for row in rows] for rows in ids]

    NBestEncodeAsIds = nbest_encode_as_ids
    NBestEncodeAsPieces = nbest_encode_as_pieces

    def calculate_entropy(self, input: Text, alpha: float, num_threads: int | None = None) -> Any:
        """Entropy (nats) of the sampling distribution over segmentations; Unigram models only.
        ``num_threads`` is accepted for compatibility and ignored."""
        processor = self._processor()
        if model_type(processor.serialized_model_proto()) != "unigram":
            raise ValueError("calculate_entropy needs a Unigram model (model_type=unigram)")
        if isinstance(input, str):
            normalized = processor.normalize(self.normalize(input))
            return segmentation_entropy(processor, normalized, alpha)
        return [self.calculate_entropy(text, alpha) for text in input]

    CalculateEntropy = calculate_entropy

    # -- decoding -----------------------------------------------------------------------------

    def decode(self, input: Any, num_threads: int | None = None) -> Any:
        """Text from ids or from pieces (as returned by ``encode``); str, list, or batch."""
        extra = {} if num_threads is None else {"num_threads": num_threads}
        processor = self._processor()
        if isinstance(input, int):
            return processor.decode([input])
        if isinstance(input, str):
            return processor.decode_pieces([self._model_piece(input)])
        if not input:
            return ""
        first = input[0]
        if isinstance(first, int):
            return processor.decode(input)
        if isinstance(first, str):
            return processor.decode_pieces([self._model_piece(p) for p in input])
        sample = next((row for row in input if row), None)
        if sample is None or isinstance(sample[0], int):  # a batch of ids: one call to spm
            return processor.decode(input, **extra)
        return [self.decode(row) for row in input]

    Decode = decode

    def decode_ids(self, input: Any) -> Any:
        return self.decode(input)

    def decode_pieces(self, input: Any) -> Any:
        return self.decode(input)

    DecodeIds = decode_ids
    DecodePieces = decode_pieces

    # -- the vocabulary -----------------------------------------------------------------------

    def get_piece_size(self) -> int:
        return int(self._processor().get_piece_size())

    GetPieceSize = get_piece_size

    def vocab_size(self) -> int:
        return self.get_piece_size()

    def __len__(self) -> int:
        return self.get_piece_size()

    def get_score(self, id: int) -> float:
        return float(self._processor().get_score(id))

    GetScore = get_score

    def bos_id(self) -> int:
        return int(self._processor().bos_id())

    def eos_id(self) -> int:
        return int(self._processor().eos_id())

    def unk_id(self) -> int:
        return int(self._processor().unk_id())

    def pad_id(self) -> int:
        return int(self._processor().pad_id())

    def is_byte(self, id: int) -> bool:
        return bool(self._processor().is_byte(id))

    def is_unknown(self, id: int) -> bool:
        return bool(self._processor().is_unknown(id))

    def is_control(self, id: int) -> bool:
        return bool(self._processor().is_control(id))

    def is_unused(self, id: int) -> bool:
        return bool(self._processor().is_unused(id))

    IsByte = is_byte
    IsUnknown = is_unknown
    IsControl = is_control
    IsUnused = is_unused
