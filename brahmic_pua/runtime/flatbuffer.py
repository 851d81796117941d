"""``ConvertToFlatbuffer``: stock's converter, refusing a brahmic_pua model in one line.

A flatbuffer (``.spm.fb``) is a model for stock's runtimes without Python or protobuf
(``SentencePieceLiteProcessor``, not in the Python package). It keeps a model's pieces and
compiled rules but not the protobuf extension a brahmic_pua model carries its manifest in (its
N, its codec), and no runtime we can run here shows that its decoder applies the denormalizer:
converted, a brahmic_pua model could decode to Private Use codes in every reader, wrong in
silence. So it is refused, in one line, before anything is written; so is a model whose manifest
is damaged (edited, cut), with the line loading it gives. A plain model converts as in stock,
through stock's own function.
"""

from __future__ import annotations

import os
from typing import Any

import sentencepiece as stock

from brahmic_pua.model.manifest import ManifestError, ModelFileError, extract

REFUSAL = (
    "{source} is a brahmic_pua model: a flatbuffer keeps its Private Use rules but not its "
    "manifest, so a reader could decode Private Use codes; ship the .model file (stock "
    "SentencePieceProcessor loads it) or convert a plain spm model"
)


def _serialized(model_file: Any, model_proto: Any, serialized_model_proto: Any) -> bytes | None:
    """The model's bytes, where exactly one source is given and it can be read; else None,
    so stock's function raises its own error for the bad call."""
    if sum(x is not None for x in (model_file, model_proto, serialized_model_proto)) != 1:
        return None
    if model_file is not None:
        try:
            with open(os.fspath(model_file), "rb") as file:
                return file.read()
        except (OSError, TypeError, ValueError):
            return None
    if model_proto is not None:
        if hasattr(model_proto, "SerializeToString"):
            return bytes(model_proto.SerializeToString())
        return model_proto if isinstance(model_proto, bytes) else None
    return serialized_model_proto if isinstance(serialized_model_proto, bytes) else None


def _path(path: str | os.PathLike[str] | None) -> str | None:
    return None if path is None else os.fsdecode(os.fspath(path))


def convert_to_flatbuffer(
    model_file: str | os.PathLike[str] | None = None,
    model_proto: Any = None,
    serialized_model_proto: bytes | None = None,
    output_file: str | os.PathLike[str] | None = None,
    skip_char_bigrams: bool = False,
    treat_null_byte_as_unused: bool = False,
    allow_unsupported_model_type: bool = False,
) -> Any:
    """Stock's ``ConvertToFlatbuffer`` (same arguments, same result) for a plain model; a
    brahmic_pua model raises ValueError naming why, before anything is written.

    >>> import tempfile
    >>> from importlib.resources import files
    >>> import sentencepiece
    >>> from brahmic_pua import SentencePieceTrainer, convert_to_flatbuffer
    >>> sample = str(files("brahmic_pua.data") / "te.sample.txt")
    >>> folder = tempfile.TemporaryDirectory()
    >>> sentencepiece.SentencePieceTrainer.train(
    ...     input=sample, model_prefix=f"{folder.name}/plain", vocab_size=1000, minloglevel=2)
    >>> len(convert_to_flatbuffer(model_file=f"{folder.name}/plain.model")) > 0
    True
    >>> SentencePieceTrainer.train(input=sample, model_prefix=f"{folder.name}/te", vocab_size=1000)
    >>> convert_to_flatbuffer(model_file=f"{folder.name}/te.model")
    Traceback (most recent call last):
    ValueError: .../te.model is a brahmic_pua model: a flatbuffer keeps its Private Use rules ...
    >>> folder.cleanup()
    """
    data = _serialized(model_file, model_proto, serialized_model_proto)
    if data is not None:
        source = str(model_file) if model_file is not None else "model_proto"
        try:
            manifest = extract(data, source)
        except ManifestError:
            raise  # a damaged brahmic_pua model: refused as loading refuses it, in its line
        except ModelFileError:
            manifest = None  # not a model we can read: stock says why in its own words
        if manifest is not None:
            raise ValueError(REFUSAL.format(source=source))
    return stock.ConvertToFlatbuffer(
        model_file=_path(model_file),
        model_proto=model_proto,
        serialized_model_proto=serialized_model_proto,
        output_file=_path(output_file),
        skip_char_bigrams=skip_char_bigrams,
        treat_null_byte_as_unused=treat_null_byte_as_unused,
        allow_unsupported_model_type=allow_unsupported_model_type,
    )


ConvertToFlatbuffer = convert_to_flatbuffer
