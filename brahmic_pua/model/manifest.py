"""The brahmic_pua manifest, stored in a ModelProto extension field stock SentencePiece ignores.

ModelProto declares ``extensions 200 to max``: a length-delimited field with such a number,
appended to the serialized model, is parsed and skipped by stock sentencepiece. The manifest is
JSON: the codec table (with its policy, scripts, Unicode version and fingerprint), the
normalization mode and, for the Nepali modes, the folding table it was trained with (and its
fingerprint), so N at encode time is N at training time. One file to ship, nothing to keep in
sync.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from brahmic_pua.codec import PUACodec
from brahmic_pua.normalize import Normalizer, check_mode, normalizer
from brahmic_pua.normalize.folding import NO_FOLDING, FoldingTable

FIELD_NUMBER = 1729
FORMAT = "brahmic_pua.manifest"
FORMAT_VERSION = 1


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
        body["fingerprint"] = _digest(body)
        return json.dumps(body, ensure_ascii=False, sort_keys=True).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes, source: str) -> Manifest:
        rebuild = "retrain the model with brahmic_pua"
        try:
            body = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ModelFileError(
                f"{source}: damaged brahmic_pua manifest ({error}); {rebuild}"
            ) from None
        if not isinstance(body, dict) or "fingerprint" not in body:
            raise ModelFileError(
                f"{source}: damaged brahmic_pua manifest (not a JSON object with a fingerprint); "
                f"{rebuild}"
            )
        fingerprint = body.pop("fingerprint")
        if body.get("format") != FORMAT or body.get("format_version") != FORMAT_VERSION:
            raise ModelFileError(
                f"{source}: manifest format {body.get('format')!r} version "
                f"{body.get('format_version')!r}, this brahmic_pua reads {FORMAT} "
                f"version {FORMAT_VERSION}; {rebuild}"
            )
        if fingerprint != _digest(body):
            raise ModelFileError(f"{source}: manifest does not match its fingerprint; {rebuild}")
        try:
            mode = check_mode(str(body["normalization"]))
            folding = _folding(body.get("folding"))
            normalizer(mode, folding)
        except (KeyError, TypeError, ValueError) as error:
            raise ModelFileError(f"{source}: {error}; {rebuild}") from None
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


def _digest(body: dict[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("ascii")).hexdigest()


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise ModelFileError("truncated or corrupt protobuf varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def top_level_fields(data: bytes) -> list[tuple[int, int, int, int]]:
    """(field number, wire type, start, end) of every top-level field of a serialized message."""
    fields = []
    pos = 0
    while pos < len(data):
        start = pos
        key, pos = _read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, pos = _read_varint(data, pos)
        elif wire == 1:
            pos += 8
        elif wire == 2:
            length, pos = _read_varint(data, pos)
            pos += length
        elif wire == 5:
            pos += 4
        else:
            raise ModelFileError(f"unsupported protobuf wire type {wire}")
        if pos > len(data):
            raise ModelFileError("truncated protobuf message")
        fields.append((number, wire, start, pos))
    return fields


def embed(model: bytes, manifest: Manifest) -> bytes:
    """``model`` with any previous manifest removed and ``manifest`` appended."""
    kept = b"".join(
        model[start:end]
        for number, _, start, end in top_level_fields(model)
        if number != FIELD_NUMBER
    )
    payload = manifest.to_bytes()
    return kept + _varint(FIELD_NUMBER << 3 | 2) + _varint(len(payload)) + payload


def extract(model: bytes, source: str) -> Manifest | None:
    """The manifest inside a serialized model, or None for a plain SentencePiece model."""
    try:
        fields = top_level_fields(model)
    except ModelFileError as error:
        raise ModelFileError(f"{source}: not a SentencePiece model ({error})") from None
    for number, wire, start, end in fields:
        if number == FIELD_NUMBER and wire == 2:
            _, pos = _read_varint(model, start)
            _, pos = _read_varint(model, pos)
            return Manifest.from_bytes(model[pos:end], source)
    return None
