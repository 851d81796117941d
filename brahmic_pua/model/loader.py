"""The one model loader: a ``.model`` (a file, or its bytes) in; the parsed ModelProto, its
brahmic_pua manifest and stock sentencepiece's processor on it out, or one typed error.

Every part of brahmic_pua that needs a loaded model comes here (the processor, ``filter``,
``repair``, sharded encoding, ``audit``), so a model is checked the same way everywhere and
each failure is the same one line wherever it is met. The errors are subclasses of
:class:`~brahmic_pua.model.manifest.ModelFileError`, and a caller that must tell them apart
catches the subclass, never tests the message:

* :class:`~brahmic_pua.model.manifest.ModelReadError`: the file cannot be read;
* :class:`~brahmic_pua.model.manifest.NotAModelError`: the bytes are no SentencePiece model
  (text, another protobuf message, too large, a piece that is not UTF-8, refused by spm);
* :class:`~brahmic_pua.model.manifest.ManifestError`: a SentencePiece model whose brahmic_pua
  manifest is damaged or contradicted by its rules.

Each message starts with ``source``: the file's path, or ``model_proto`` for bytes handed over
in memory (a caller that read the bytes from a file passes its path, and the message is then
the one a load of that path gives).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sentencepiece as stock

from brahmic_pua.io.wording import one_line
from brahmic_pua.model.manifest import Manifest, NotAModelError, read
from brahmic_pua.model.model_file import read_model_file
from brahmic_pua.model.processor_types import StockProcessor


@dataclass(frozen=True)
class LoadedModel:
    """A model that loaded: its bytes, the parsed ModelProto, its manifest (None for a plain
    spm model), stock's processor on it and its pieces by id (as stored)."""

    data: bytes
    source: str
    message: Any
    manifest: Manifest | None
    processor: StockProcessor
    pieces: list[Any]


def load_model(data: bytes, source: str = "model_proto", **options: Any) -> LoadedModel:
    """The model in ``data``; ``options`` are stock processor's (``out_type``, ``num_threads``
    …). A model without pieces is refused by stock's loader ("unk is not defined")."""
    message, manifest = read(data, source)
    pieces = _pieces(message, source)
    processor: StockProcessor = stock.SentencePieceProcessor(**options)
    try:
        processor.LoadFromSerializedProto(data)
    except (RuntimeError, OSError) as error:
        reason = one_line(error)
        raise NotAModelError(f"{source}: not a SentencePiece model ({reason})") from None
    return LoadedModel(data, source, message, manifest, processor, pieces)


def load_model_file(path: str | Path, **options: Any) -> LoadedModel:
    """The model in the file ``path`` (read by the one bounded reader,
    :func:`brahmic_pua.model.model_file.read_model_file`); see :func:`load_model`."""
    return load_model(read_model_file(path), str(path), **options)


def _pieces(message: Any, source: str) -> list[Any]:
    """Every piece, by id. A piece that is not UTF-8 (a damaged or hand-edited file: spm's
    trainer never writes one) is one error naming the file and the id, before stock spm sees
    it, instead of a ``UnicodeDecodeError`` from stock's loader or from whatever first shows
    that piece."""
    pieces = [piece.piece for piece in message.pieces]
    for i, piece in enumerate(pieces):
        if isinstance(piece, bytes):  # protobuf gives a proto2 string that is not UTF-8 as bytes
            try:
                piece.decode("utf-8")
            except UnicodeDecodeError as error:
                raise NotAModelError(
                    f"{source}: piece {i} is not UTF-8 ({error.reason}): the file is damaged"
                ) from None
    return pieces
