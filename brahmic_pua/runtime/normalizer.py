"""``SentencePieceNormalizer``: a drop-in for sentencepiece's, on brahmic_pua models.

Stock's normalizer applies a model's compiled rules, and a brahmic_pua model's rules map each
cluster to a Private Use code point: ``stock.SentencePieceNormalizer(model_file=...)`` on such a
model returns PUA codes, text nobody can read or compare. This class applies N (the manifest's
normalization, as :class:`~brahmic_pua.runtime.processor.SentencePieceProcessor` does before
encoding), then stock's normalizer, and gives the codes back as the clusters they stand for. So
with ``add_dummy_prefix=False, escape_whitespaces=False`` it returns exactly
``decode(encode(text))`` of the processor on the same model (byte fallback on, the default), and
with the model's own flags it returns stock's form (``▁`` for spaces) with no PUA code in it.

A plain spm model, and a normalizer built from ``normalizer_spec``, ``rule_tsv``, ``rule_name``
or ``norm_map``, is stock's unchanged. The constructor's keywords and the methods are
sentencepiece 0.2.3's (which has no ``Init``: the constructor loads).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sentencepiece as stock

from brahmic_pua.io.wording import one_line
from brahmic_pua.model.manifest import Manifest, NotAModelError, extract
from brahmic_pua.model.model_file import read_model_file
from brahmic_pua.model.model_proto import parse_model
from brahmic_pua.runtime.offsets import Source, text_of
from brahmic_pua.segment.sure_cuts import name_refused_surrogate

_SPACE = "\u2581"


class SentencePieceNormalizer:
    """Load from ``model_file=`` or ``model_proto=`` (a brahmic_pua or plain spm model), or
    from ``normalizer_spec=``, ``rule_tsv=``, ``rule_name=`` or ``norm_map=`` (stock's); the
    three flags, when given, override the model's, as in sentencepiece 0.2.3.

    >>> import tempfile
    >>> from importlib.resources import files
    >>> from brahmic_pua import SentencePieceNormalizer, SentencePieceTrainer
    >>> sample = str(files("brahmic_pua.data") / "te.sample.txt")  # 1,142 lines of Telugu
    >>> folder = tempfile.TemporaryDirectory()
    >>> SentencePieceTrainer.train(input=sample, model_prefix=f"{folder.name}/te", vocab_size=1000)
    >>> normalizer = SentencePieceNormalizer(model_file=f"{folder.name}/te.model")
    >>> normalizer.normalize("\u0c46\u0c56 వచ్చాడు")  # ె + ౖ typed apart: N composes them
    '▁ై▁వచ్చాడు'
    >>> folder.cleanup()
    """

    def __init__(
        self,
        model_file: str | Path | None = None,
        model_proto: Any = None,
        normalizer_spec: Any = None,
        rule_tsv: str | None = None,
        rule_name: str | None = None,
        norm_map: Sequence[tuple[str, str]] | None = None,
        add_dummy_prefix: bool | None = None,
        escape_whitespaces: bool | None = None,
        remove_extra_whitespaces: bool | None = None,
    ) -> None:
        #: The brahmic_pua manifest of the model, None for anything stock reads alone.
        self.manifest: Manifest | None = None
        self._normalizer: stock.SentencePieceNormalizer
        if model_file or model_proto:
            # Read the bytes here: the manifest decides how the text comes back.
            data, source = _model_bytes(model_file, model_proto)
            self.manifest = extract(data, source)
            try:
                self._normalizer = stock.SentencePieceNormalizer(
                    model_proto=data,
                    add_dummy_prefix=add_dummy_prefix,
                    escape_whitespaces=escape_whitespaces,
                    remove_extra_whitespaces=remove_extra_whitespaces,
                )
            except (RuntimeError, OSError) as error:
                reason = one_line(error)
                raise NotAModelError(f"{source}: not a SentencePiece model ({reason})") from None
        else:  # stock's other sources, and its ValueError when none is given
            self._normalizer = stock.SentencePieceNormalizer(
                normalizer_spec=normalizer_spec,
                rule_tsv=rule_tsv,
                rule_name=rule_name,
                norm_map=norm_map,
                add_dummy_prefix=add_dummy_prefix,
                escape_whitespaces=escape_whitespaces,
                remove_extra_whitespaces=remove_extra_whitespaces,
            )
        self._escapes = self.manifest is not None and self._escapes_spaces()

    def _escapes_spaces(self) -> bool:
        """Whether spaces come out as ``▁`` (the model's flag or the caller's override)."""
        spec = parse_model(bytes(self._normalizer.serialized_model_proto())).normalizer_spec
        return bool(spec.escape_whitespaces)

    @property
    def is_brahmic(self) -> bool:
        """True when the model carries a brahmic_pua manifest."""
        return self.manifest is not None

    def normalize(self, input: Any, with_offsets: bool | None = None) -> Any:
        """The normalized text of a str, bytes (read as UTF-8, given back as UTF-8) or a list.

        On a brahmic model: N, the model's rules, then the codes as their clusters. With
        ``with_offsets``, (text, offsets) as stock gives them: one offset per character (per
        byte for bytes) into the text given, then its length; every character of a cluster
        points where the cluster begins (brahmic_pua.runtime.offsets). A lone surrogate is the
        ValueError ``encode`` gives."""
        if self.manifest is None:
            try:
                return self._normalizer.Normalize(input, with_offsets)
            except (RuntimeError, TypeError):
                name_refused_surrogate(input)
                raise
        if isinstance(input, list):
            return [self.normalize(text, with_offsets) for text in input]
        if with_offsets:
            source = Source.of(input, self.manifest, self._normalizer.Normalize)
            return source.normalized(
                lambda text: self._normalizer.Normalize(text, True), self._show
            )
        return self._normalize_one(input)

    def _show(self, normalized: str) -> str:
        """Stock's normalized text (or a unit of it) with its codes as their clusters."""
        assert self.manifest is not None
        text = self.manifest.codec.decode(normalized)
        if self._escapes:  # every space stock saw is ▁ now; one left came from inside a
            text = text.replace(" ", _SPACE)  # cluster (the grapheme policy's)
        return text

    def _normalize_one(self, text: Any) -> str | bytes:
        assert self.manifest is not None
        given = self.manifest.stock_input(text_of(text))
        try:
            normalized = self._show(self._normalizer.Normalize(given))
        except (RuntimeError, TypeError):
            name_refused_surrogate(given)
            raise
        return normalized.encode("utf-8") if isinstance(text, bytes) else normalized

    Normalize = normalize

    def decompile(self) -> list[tuple[str, str]]:
        """Stock's rules as (source, target) pairs: on a brahmic model, targets are PUA codes
        (the compiled rules themselves; N runs before them, in Python)."""
        return self._normalizer.Decompile()

    Decompile = decompile

    def serialized_model_proto(self) -> bytes:
        """Stock's: the normalizer's spec in a ModelProto (no pieces, no manifest)."""
        return bytes(self._normalizer.serialized_model_proto())

    def serialized_normalizer_spec(self) -> bytes:
        return bytes(self._normalizer.serialized_normalizer_spec())

    def __getstate__(self) -> dict[str, Any]:
        """Stock's state and the manifest: stock's serialized proto alone would lose N."""
        manifest = None if self.manifest is None else self.manifest.to_bytes()
        return {"normalizer": self.serialized_model_proto(), "manifest": manifest}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._normalizer = stock.SentencePieceNormalizer(model_proto=state["normalizer"])
        manifest = state["manifest"]
        self.manifest = None if manifest is None else Manifest.from_bytes(manifest, "pickle")
        self._escapes = self.manifest is not None and self._escapes_spaces()


def _model_bytes(model_file: str | Path | None, model_proto: Any) -> tuple[bytes, str]:
    """The serialized model and a name for messages; a ModelProto is serialized, as in stock."""
    if model_file:
        return read_model_file(model_file), str(model_file)
    if hasattr(model_proto, "SerializeToString"):
        model_proto = model_proto.SerializeToString()
    return bytes(model_proto), "model_proto"
