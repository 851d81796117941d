"""The brahmic_pua manifest, stored in a ModelProto extension field stock SentencePiece ignores.

ModelProto declares ``extensions 200 to max``: a length-delimited field with such a number,
appended to the serialized model, is parsed and skipped by stock sentencepiece. The manifest is
JSON: the codec table (with its policy, scripts, Unicode version and fingerprint), the
normalization mode and, for the Nepali modes, the folding table it was trained with (and its
fingerprint), so N at encode time is N at training time. One file to ship, nothing to keep in
sync.

The field is read and written by protobuf, through the extension ``brahmic_pua.manifest``
(``optional bytes manifest = 1729``) that :mod:`brahmic_pua.model.model_proto` declares on
ModelProto in model_pb2's descriptor pool; no varint or tag is written by hand here. Why an
extension and not ``google.protobuf.unknown_fields.UnknownFieldSet``: the unknown-field API only
reads (and ``Message.UnknownFields()`` raises NotImplementedError under upb), so writing would
still need hand-built wire bytes, while an extension is read, written and cleared with the same
protobuf calls in every implementation (checked with the installed protobuf 7.36, upb and pure
Python). UnknownFieldSet is used for one thing only: to see a field 1729 with the wrong wire type,
which protobuf keeps as an unknown field.

A model file is untrusted input. The manifest's fingerprint is a hash of its own body, an
integrity check against damage and not a signature: anyone can edit a manifest and sign it
again. So loading checks the payload's size, its JSON nesting and its schema (keys, types,
ranges: :data:`SCHEMA`, and :func:`brahmic_pua.codec.table_file.check_document` for the codec),
and that the compiled rules say what the manifest says (:mod:`brahmic_pua.model.rule_check`);
every failure is one line of :class:`ModelFileError`, which the CLI prints as it is.

The bytes are fixed, so that every model file ever written stays byte-identical: the model as
protobuf serializes it, then the tag of field 1729 with wire type 2, the payload's length as a
varint and the payload (see :func:`embed`; ``bench/identity.py`` and
``tests/model/test_manifest.py`` check it).
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from brahmic_pua.codec import PUACodec
from brahmic_pua.codec.table_file import check_document, quoted
from brahmic_pua.io.digest import json_fingerprint
from brahmic_pua.io.wording import counted, one_line
from brahmic_pua.model.model_proto import MANIFEST, MANIFEST_FIELD, model_pb2
from brahmic_pua.model.rule_check import RuleError, check_rules
from brahmic_pua.normalize import Normalizer, check_mode, normalizer
from brahmic_pua.normalize.folding import (
    MAX_FOLDING_RULES,
    MAX_FOLDING_TEXT,
    NO_FOLDING,
    FoldingTable,
)

FIELD_NUMBER: Final[int] = MANIFEST_FIELD
FORMAT = "brahmic_pua.manifest"
FORMAT_VERSION = 1
_REBUILD = "retrain the model with brahmic_pua"
#: The largest manifest payload read, in bytes. The largest valid one (a codec with every one of
#: the 137,468 Private Use codes, clusters of 64 four-byte characters, 19-digit counts: about 300
#: bytes an entry) is about 41 MB; 64 MiB admits it and refuses a payload sized to exhaust
#: memory or time before parsing starts.
MAX_PAYLOAD: Final[int] = 64 << 20
#: protobuf ships without type information (see :mod:`brahmic_pua.model.model_proto`).
#: ``Error`` is the base of ``DecodeError``, whatever the implementation.
_ProtobufError: Any = importlib.import_module("google.protobuf.message").Error
_UnknownFieldSet: Any = importlib.import_module("google.protobuf.unknown_fields").UnknownFieldSet


class ModelFileError(ValueError):
    """A model file that cannot be read, or whose brahmic_pua manifest is damaged. Callers that
    must tell the cases apart catch a subclass, never test the message."""


class ModelReadError(ModelFileError):
    """The model file cannot be read (missing, a folder, no permission)."""


class NotAModelError(ModelFileError):
    """The bytes are no SentencePiece model (text, protobuf of another message, too large, or
    refused by spm's loader)."""


class ManifestError(ModelFileError):
    """A SentencePiece model whose brahmic_pua manifest is damaged, of another format, or
    contradicted by the model's compiled rules."""


@dataclass(frozen=True)
class Manifest:
    codec: PUACodec
    normalization: str
    folding: FoldingTable = NO_FOLDING
    #: Whether the model's normalizer holds a user's rules besides N's (``normalizer=``,
    #: ``normalization_rule_tsv=``, an NFKC rule name): text they rewrite decodes rewritten, so
    #: the round trip to N is not claimed where they apply; loading checks only that the
    #: rules still hold N (model.rule_check).
    user_rules: bool = False

    @property
    def normalizer(self) -> Normalizer:
        """N exactly as the model was trained with it."""
        return normalizer(self.normalization, self.folding)

    def stock_input(self, text: str) -> str:
        """The text handed to stock spm for ``text``: N(text), which the model's rules leave as
        it is, except where N empties a text that is not empty (a ZWJ alone under nepali-lm):
        stock, whose rules delete it too, writes its ▁ for the non-empty text it was given, so
        that text goes to stock as given and the same ▁ comes out."""
        normal = self.normalizer(text)
        return normal if normal or not text else text

    def to_bytes(self) -> bytes:
        body: dict[str, Any] = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "normalization": self.normalization,
            "codec": self.codec.to_dict(),
        }
        if self.user_rules:
            body["user_rules"] = True
        if self.folding.rules:
            body["folding"] = {
                "rules": [list(rule) for rule in self.folding.rules],
                "fingerprint": self.folding.fingerprint,
            }
        body["fingerprint"] = json_fingerprint(body)
        return json.dumps(body, ensure_ascii=False, sort_keys=True).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes, source: str) -> Manifest:
        """The manifest in a payload, which is untrusted input: anyone can edit a manifest and
        compute its fingerprint again (an integrity check against damage, not a signature), so
        the payload's size, JSON nesting and schema (:data:`SCHEMA`) are checked before
        anything is built from it. Every failure is one line of :class:`ModelFileError`."""
        if len(data) > MAX_PAYLOAD:
            raise _damaged(source, f"{counted(len(data), 'byte')}, more than {MAX_PAYLOAD:,}")
        try:
            body = json.loads(data.decode("utf-8"))
        except RecursionError:  # C json recurses per level: "[" * 200000 ends here, at once
            raise _damaged(source, "JSON nested too deeply") from None
        except ValueError as error:  # UnicodeDecodeError, JSONDecodeError, int digit limit
            raise _damaged(source, str(error)) from None
        if not isinstance(body, dict) or "fingerprint" not in body:
            raise _damaged(source, "not a JSON object with a fingerprint")
        fingerprint = body.pop("fingerprint")
        form, version = body.get("format"), body.get("format_version")
        if form != FORMAT or type(version) is not int or version != FORMAT_VERSION:
            raise ManifestError(
                f"{source}: manifest format {quoted(form)} version {quoted(version)}, this "
                f"brahmic_pua reads {FORMAT} version {FORMAT_VERSION}; {_REBUILD}"
            )
        try:
            signed = fingerprint == json_fingerprint(body)
        except (RecursionError, ValueError):  # nesting json.loads took but json.dumps refuses
            raise _damaged(source, "JSON nested too deeply") from None
        if not signed:
            raise ManifestError(f"{source}: manifest does not match its fingerprint; {_REBUILD}")
        try:
            mode, folding, codec = _checked(body)
            normalizer(mode, folding)
        except ValueError as error:
            raise _damaged(source, str(error)) from None
        return cls(codec, mode, folding, body.get("user_rules", False))


#: The manifest's schema, as :func:`_checked` enforces it (the codec's is
#: :func:`brahmic_pua.codec.table_file.check_document`'s), for the docs and the error messages.
SCHEMA: Final[dict[str, str]] = {
    "format": f"{FORMAT!r}",
    "format_version": f"the integer {FORMAT_VERSION}",
    "normalization": "one of the normalization modes (a string)",
    "codec": "a codec document: table_file.check_document",
    "folding": (
        f"optional: {{'rules': at most {MAX_FOLDING_RULES} [pattern, replacement] pairs of "
        f"strings of at most {MAX_FOLDING_TEXT} code points, 'fingerprint': a string}}"
    ),
    "user_rules": "optional: true when the normalizer holds a user's rules besides N's",
    "fingerprint": "json_fingerprint of the rest",
}
_REQUIRED = frozenset({"format", "format_version", "normalization", "codec"})
_OPTIONAL = frozenset({"folding", "user_rules"})


def _damaged(source: str, reason: str) -> ManifestError:
    return ManifestError(f"{source}: damaged brahmic_pua manifest ({reason}); {_REBUILD}")


def _checked(body: dict[str, Any]) -> tuple[str, FoldingTable, PUACodec]:
    """The mode, folding table and codec of a signed manifest body, or a one-line ValueError
    naming what is wrong: a missing or unexpected key, a value of the wrong type, a size out of
    bounds. Every loop is flat, so no input can make it recurse."""
    keys = set(body)
    missing, unexpected = sorted(_REQUIRED - keys), sorted(keys - _REQUIRED - _OPTIONAL)
    if missing:
        raise ValueError(f"no {missing[0]!r} key")
    if unexpected:
        raise ValueError(f"unexpected key {quoted(unexpected[0])}")
    mode = body["normalization"]
    if not isinstance(mode, str) or len(mode) > 40:
        raise ValueError(f"normalization is {quoted(mode)}, not a mode's name")
    check_mode(mode)
    if body.get("user_rules", False) is not True and "user_rules" in body:
        raise ValueError(f"user_rules is {quoted(body['user_rules'])}, not true")
    folding = _folding(body.get("folding"))
    try:
        codec = PUACodec(check_document(body["codec"]))
    except ValueError as error:
        raise ValueError(f"codec: {error}") from None
    return mode, folding, codec


def _folding(document: object) -> FoldingTable:
    """The folding table recorded in a manifest (none for the nfc and none modes).

    Its rules are bounded (``MAX_FOLDING_RULES`` of ``MAX_FOLDING_TEXT`` code points), and
    checking that they are a normalization
    (:func:`~brahmic_pua.normalize.folding.validate_folding_rules`) is bounded by their size:
    about 0.07 s for the largest table here, and a refused table stops at its first problem.
    """
    if document is None:
        return NO_FOLDING
    if not isinstance(document, dict) or set(document) != {"rules", "fingerprint"}:
        raise ValueError(f"folding is {quoted(document)}, not {{'rules': ..., 'fingerprint': ...}}")
    rules = document["rules"]
    if not isinstance(rules, list) or len(rules) > MAX_FOLDING_RULES:
        raise ValueError(
            f"folding rules are {quoted(rules)}, not a list of at most {MAX_FOLDING_RULES} rules"
        )
    pairs: list[tuple[str, str]] = []
    for rule in rules:
        if (
            not isinstance(rule, list)
            or len(rule) != 2
            or not all(isinstance(t, str) and len(t) <= MAX_FOLDING_TEXT for t in rule)
        ):
            raise ValueError(f"a folding rule is {quoted(rule)}, not [pattern, replacement]")
        pairs.append((rule[0], rule[1]))
    table = FoldingTable(tuple(pairs))
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
        reason = one_line(error)  # whatever the implementation says
        raise _not_a_model(data, source, reason) from None
    for field in _UnknownFieldSet(model):
        if field.field_number == FIELD_NUMBER:
            raise ManifestError(
                f"{source}: damaged brahmic_pua manifest (field {FIELD_NUMBER} has wire type "
                f"{field.wire_type}, not 2, length-delimited); {_REBUILD}"
            )
    return model


#: What a file given as a model by mistake usually is, by its name.
_MIX_UPS = {".vocab": "a .vocab file (a model's pieces as text)", ".json": "a JSON file"}


def _not_a_model(data: bytes, source: str, reason: str) -> NotAModelError:
    """The one line for bytes that are no ModelProto. A text file (a .vocab, a JSON file, a
    corpus: the usual mix-ups, which protobuf reports as a bad wire type) is named as such,
    with the ``.model`` beside it when there is one."""
    kind = _MIX_UPS.get(Path(source).suffix.lower())
    if kind is None and (text := _text_head(data)).strip():
        kind = "a JSON file" if text.lstrip()[:1] in ("{", "[") else "a text file"
    beside = model_beside(source)
    fix = f"use {beside}, beside it" if beside else "give the .model file that training wrote"
    if kind is None:
        return NotAModelError(f"{source}: not a SentencePiece model ({reason}); {fix}")
    return NotAModelError(f"{source}: not a SentencePiece model: {kind}, not a .model file; {fix}")


def _text_head(data: bytes) -> str:
    """The first 4 KiB of ``data`` when they are UTF-8 text without control characters other
    than line ends and tabs (a serialized model is neither), else ""."""
    head = data[:4096]
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as error:  # a character cut at the end of the 4 KiB is text
        if len(data) <= len(head) or error.start < len(head) - 3:
            return ""
        text = head[: error.start].decode("utf-8")
    if any((ord(ch) < 32 and ch not in "\t\n\r") or ch == "\x7f" for ch in text):
        return ""
    return text


def model_beside(path: str | Path) -> str | None:
    """The ``.model`` next to a file of the same name (``te.vocab`` → ``te.model``,
    ``te.codec.json`` → ``te.model``), if there is one."""
    given = Path(path)
    if not given.name:
        return None
    stem = given.name.split(".")[0]
    for name in (given.with_suffix(".model"), given.with_name(f"{stem}.model")):
        if name != given and name.is_file():
            return str(name)
    return None


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
    last occurrence wins, as protobuf's merge rule says (brahmic_pua writes it once). The
    manifest is checked against the model's own rules (:func:`_check_rules`).
    """
    return read(model, source)[1]


def has_manifest(model: bytes, source: str) -> bool:
    """Whether a serialized model carries a brahmic_pua manifest field (False: a plain
    SentencePiece model), told by one parse without reading the manifest, as a caller that
    only tells the two kinds apart needs (the CLI's notice for a plain model); whether the
    manifest is sound is :func:`read`'s to say. A :class:`ModelFileError` for bytes that are
    no model."""
    return bool(_parse(model, source).HasExtension(MANIFEST))


def read(model: bytes, source: str) -> tuple[Any, Manifest | None]:
    """The parsed ModelProto and its manifest (see :func:`extract`): one parse for a loader
    that needs the model's pieces and options as well as the manifest."""
    message = _parse(model, source)
    if not message.HasExtension(MANIFEST):
        return message, None
    manifest = Manifest.from_bytes(bytes(message.Extensions[MANIFEST]), source)
    _check_rules(message, manifest, source)
    return message, manifest


def _check_rules(message: Any, manifest: Manifest, source: str) -> None:
    """Refuse a manifest that its model's compiled rules contradict, in one line
    (:mod:`brahmic_pua.model.rule_check` says what is compared, and why that is enough)."""
    try:
        check_rules(message, manifest.codec, manifest.normalizer, manifest.user_rules)
    except RuleError as error:
        raise ManifestError(
            f"{source}: manifest does not match the model's rules: {error}; {_REBUILD}"
        ) from None
