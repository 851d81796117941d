"""The brahmic_pua manifest, stored in a ModelProto extension field stock SentencePiece ignores.

ModelProto declares ``extensions 200 to max``: a length-delimited field with such a number,
appended to the serialized model, is parsed and skipped by stock sentencepiece. The manifest is
JSON: the codec table (with its policy, scripts, Unicode version and fingerprint), the
normalization mode and, for the Nepali modes, the folding table it was trained with (and its
fingerprint), so N at encode time is N at training time. One file to ship, nothing to keep in
sync.

The field is read and written by protobuf, through the extension ``brahmic_pua.manifest``
(``optional bytes manifest = 1729``) that :mod:`brahmic_pua.model.proto` declares on ModelProto
in model_pb2's descriptor pool; no varint or tag is written by hand here. Why an extension and
not ``google.protobuf.unknown_fields.UnknownFieldSet``: the unknown-field API only reads (and
``Message.UnknownFields()`` raises NotImplementedError under upb), so writing would still need
hand-built wire bytes, while an extension is read, written and cleared with the same protobuf
calls in every implementation (checked with the installed protobuf 7.36, upb and pure Python).
UnknownFieldSet is used for one thing only: to see a field 1729 with the wrong wire type, which
protobuf keeps as an unknown field.

The bytes are the same as the hand-written encoder's: the model as protobuf serializes it, then
the tag of field 1729 with wire type 2, the payload's length as a varint and the payload (see
:func:`embed`; ``bench/identity.py`` and ``tests/test_manifest_proto.py`` check it).
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from typing import Any, Final

from brahmic_pua.codec import PUACodec
from brahmic_pua.io.digest import json_fingerprint
from brahmic_pua.model.proto import MANIFEST, MANIFEST_FIELD, model_pb2
from brahmic_pua.normalize import Normalizer, check_mode, normalizer
from brahmic_pua.normalize.folding import NO_FOLDING, FoldingTable

FIELD_NUMBER: Final[int] = MANIFEST_FIELD
FORMAT = "brahmic_pua.manifest"
FORMAT_VERSION = 1
_REBUILD = "retrain the model with brahmic_pua"
#: protobuf ships without type information (see :mod:`brahmic_pua.model.proto`). ``Error`` is the
#: base of ``DecodeError``, whatever the implementation.
_ProtobufError: Any = importlib.import_module("google.protobuf.message").Error
_UnknownFieldSet: Any = importlib.import_module("google.protobuf.unknown_fields").UnknownFieldSet


class ModelFileError(ValueError):
    """A model file that cannot be read, or whose brahmic_pua manifest is damaged."""


@dataclass(frozen=True)
class Manifest:
    codec: PUACodec
    normalization: str
    folding: FoldingTable = NO_FOLDING

    @property
    def normalizer(self) -> Normalizer:
        """N exactly as the model was trained with it."""
        return normalizer(self.normalization, self.folding)

    def to_bytes(self) -> bytes:
        body: dict[str, Any] = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "normalization": self.normalization,
            "codec": self.codec.to_dict(),
        }
        if self.folding.rules:
            body["folding"] = {
                "rules": [list(rule) for rule in self.folding.rules],
                "fingerprint": self.folding.fingerprint,
            }
        body["fingerprint"] = json_fingerprint(body)
        return json.dumps(body, ensure_ascii=False, sort_keys=True).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes, source: str) -> Manifest:
        try:
            body = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ModelFileError(
                f"{source}: damaged brahmic_pua manifest ({error}); {_REBUILD}"
            ) from None
        if not isinstance(body, dict) or "fingerprint" not in body:
            raise ModelFileError(
                f"{source}: damaged brahmic_pua manifest (not a JSON object with a fingerprint); "
                f"{_REBUILD}"
            )
        fingerprint = body.pop("fingerprint")
        if body.get("format") != FORMAT or body.get("format_version") != FORMAT_VERSION:
            raise ModelFileError(
                f"{source}: manifest format {body.get('format')!r} version "
                f"{body.get('format_version')!r}, this brahmic_pua reads {FORMAT} "
                f"version {FORMAT_VERSION}; {_REBUILD}"
            )
        if fingerprint != json_fingerprint(body):
            raise ModelFileError(f"{source}: manifest does not match its fingerprint; {_REBUILD}")
        try:
            mode = check_mode(str(body["normalization"]))
            folding = _folding(body.get("folding"))
            normalizer(mode, folding)
        except (KeyError, TypeError, ValueError) as error:
            raise ModelFileError(f"{source}: {error}; {_REBUILD}") from None
        codec = PUACodec.from_json(json.dumps(body["codec"]), source)
        return cls(codec, mode, folding)


def _folding(document: Any) -> FoldingTable:
    """The folding table recorded in a manifest (none for the nfc and none modes)."""
    if document is None:
        return NO_FOLDING
    table = FoldingTable(tuple((str(p), str(r)) for p, r in document["rules"]))
    if table.fingerprint != document["fingerprint"]:
        raise ValueError("folding table does not match its fingerprint")
    return table


def _parse(data: bytes, source: str) -> Any:
    """The ModelProto in ``data``, its manifest (if any) in ``Extensions[MANIFEST]``.

    A one-line :class:`ModelFileError` for bytes protobuf cannot parse (truncated, a bad wire
    type, ...), and for a field 1729 that is not length-delimited: protobuf keeps a field whose
    wire type does not match its declaration as an unknown field, which would make a damaged
    manifest look like no manifest, and the model load as plain spm with PUA codes in its text.
    """
    model = model_pb2.ModelProto()
    try:
        model.ParseFromString(data)
    except _ProtobufError as error:
        reason = " ".join(str(error).split())  # one line, whatever the implementation says
        raise ModelFileError(f"{source}: not a SentencePiece model ({reason})") from None
    for field in _UnknownFieldSet(model):
        if field.field_number == FIELD_NUMBER:
            raise ModelFileError(
                f"{source}: damaged brahmic_pua manifest (field {FIELD_NUMBER} has wire type "
                f"{field.wire_type}, not 2, length-delimited); {_REBUILD}"
            )
    return model


def embed(model: bytes, manifest: Manifest) -> bytes:
    """``model`` with any previous manifest removed and ``manifest`` appended.

    The model is serialized without the field, then a ModelProto that holds only the field is
    serialized after it. Protobuf defines concatenation as merge, so this is the same message as
    setting the extension; doing it in two parts makes "the manifest is the last field" hold by
    construction (as it always has), even for a model with unknown fields, which protobuf
    writes after extensions.
    """
    message = _parse(model, "model")
    message.ClearExtension(MANIFEST)
    field = model_pb2.ModelProto()
    field.Extensions[MANIFEST] = manifest.to_bytes()
    return bytes(message.SerializeToString()) + bytes(field.SerializeToString())


def extract(model: bytes, source: str) -> Manifest | None:
    """The manifest inside a serialized model, or None for a plain SentencePiece model.

    The field is found wherever it stands in the file. Should it occur more than once, the
    last occurrence wins, as protobuf's merge rule says (brahmic_pua writes it once).
    """
    message = _parse(model, source)
    if not message.HasExtension(MANIFEST):
        return None
    return Manifest.from_bytes(bytes(message.Extensions[MANIFEST]), source)
