"""SentencePiece's ModelProto classes (generated code without type information), the named piece
types, and the brahmic_pua manifest field declared as a protobuf extension of ModelProto.

The extension is declared here, where ``model_pb2`` is loaded, and not in ``manifest.py``: once
it is in the descriptor pool every ModelProto parse holds the manifest as an extension instead of
an unknown field, so declaring it on first import of this module means every parse in the package
sees the same message, whichever module happens to be imported first. For a model whose only
field beyond ModelProto's own is 1729 (every model brahmic_pua writes), parse and re-serialize
gives the same bytes either way: protobuf writes the field after ModelProto's own fields whether
it is an extension or an unknown field.

protobuf and the generated module ship without type information, so they are loaded with
``importlib`` and typed ``Any``, as ``model_pb2`` always was here.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any, Final, Protocol

model_pb2: Any = importlib.import_module("sentencepiece.sentencepiece_model_pb2")
_descriptor_pb2: Any = importlib.import_module("google.protobuf.descriptor_pb2")

_Piece: Any = model_pb2.ModelProto.SentencePiece
#: ``ModelProto.SentencePiece.Type``, named once for the whole package: spm's numbers are part of
#: the file format, so they come from its generated module instead of being written out again.
NORMAL: Final[int] = _Piece.NORMAL
UNKNOWN: Final[int] = _Piece.UNKNOWN
CONTROL: Final[int] = _Piece.CONTROL
USER_DEFINED: Final[int] = _Piece.USER_DEFINED
UNUSED: Final[int] = _Piece.UNUSED
BYTE: Final[int] = _Piece.BYTE

#: The ModelProto field that holds the brahmic_pua manifest. ModelProto declares ``extensions 200
#: to max``, so stock sentencepiece parses the field and skips it.
MANIFEST_FIELD: Final[int] = 1729
_MANIFEST_FILE = "brahmic_pua/manifest.proto"
_MANIFEST_NAME = "brahmic_pua.manifest"


def _declare_manifest() -> Any:
    """The descriptor of ``extend sentencepiece.ModelProto { optional bytes manifest = 1729; }``,
    added to model_pb2's own pool (an extension must live in its extendee's pool).

    Built as a FileDescriptorProto at import time because there is no .proto file to compile:
    one field does not justify generated code and a protoc step. Looked up first, so a second
    import of this module (``importlib.reload``, two copies of the package) reuses the
    declaration instead of failing on a duplicate file name.
    """
    pool = model_pb2.DESCRIPTOR.pool
    try:
        return pool.FindExtensionByName(_MANIFEST_NAME)
    except KeyError:
        pass
    field = _descriptor_pb2.FieldDescriptorProto
    file = _descriptor_pb2.FileDescriptorProto(
        name=_MANIFEST_FILE,
        package="brahmic_pua",
        syntax="proto2",
        dependency=[model_pb2.DESCRIPTOR.name],
    )
    file.extension.add(
        name="manifest",
        number=MANIFEST_FIELD,
        label=field.LABEL_OPTIONAL,
        type=field.TYPE_BYTES,
        extendee="." + model_pb2.ModelProto.DESCRIPTOR.full_name,
    )
    pool.AddSerializedFile(file.SerializeToString())
    return pool.FindExtensionByName(_MANIFEST_NAME)


#: The manifest extension: ``model.Extensions[MANIFEST]`` is the manifest's JSON bytes.
MANIFEST: Final[Any] = _declare_manifest()


class Piece(Protocol):
    """One ``ModelProto.SentencePiece``: the fields brahmic_pua reads and sets."""

    piece: str
    score: float
    type: int


class Pieces(Protocol):
    """``ModelProto.pieces``, protobuf's repeated field of pieces."""

    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Piece]: ...
    def __getitem__(self, index: int) -> Piece: ...
    def __delitem__(self, index: int | slice) -> None: ...
    def add(self, **fields: Any) -> Piece: ...


class ModelProto(Protocol):
    """What brahmic_pua uses of sentencepiece's ``ModelProto`` (generated code without types,
    so :data:`model_pb2` is ``Any``): the pieces, typed; the three specs, whose many fields
    are spm's (``Any``); serializing. Functions that read or change a model take this, so a
    type checker sees a model where a model is meant."""

    @property
    def pieces(self) -> Pieces: ...
    @property
    def trainer_spec(self) -> Any: ...
    @property
    def normalizer_spec(self) -> Any: ...
    @property
    def denormalizer_spec(self) -> Any: ...
    def SerializeToString(self) -> bytes: ...


def parse_model(data: bytes) -> ModelProto:
    """A ModelProto from serialized bytes."""
    message = model_pb2.ModelProto()
    message.ParseFromString(data)
    model: ModelProto = message
    return model


#: SentencePiece's model types, from TrainerSpec.ModelType: unigram, bpe, word, char.
MODEL_TYPES: tuple[str, ...] = tuple(
    str(value.name).lower() for value in model_pb2.TrainerSpec.ModelType.DESCRIPTOR.values
)


def model_type(data: bytes) -> str:
    """ "unigram", "bpe", "word" or "char", of a serialized model."""
    return type_of(parse_model(data))


def type_of(model: ModelProto) -> str:
    """ "unigram", "bpe", "word" or "char", of a model already parsed."""
    return str(model_pb2.TrainerSpec.ModelType.Name(model.trainer_spec.model_type)).lower()
