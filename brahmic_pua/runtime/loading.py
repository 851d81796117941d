"""What a load builds for the processor, and what a pickle carries in its place.

brahmic_pua.runtime.processor loads in two steps so that a failed load changes nothing:
:func:`build` makes everything a model needs (stock's processor, the pieces shown as text, the
manifest) or raises, and only then does the processor swap it in. A pickle, as stock's, holds the
serialized model instead of what a load builds from it (:data:`LOADED`): :func:`pickled` writes
that state and :func:`unpickled` reads it back, and also the states older versions of
sentencepiece and brahmic_pua wrote. Apart from the processor so that its class holds the calls
and this module the rules of what a load and a pickle hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from brahmic_pua.model.loader import load_model
from brahmic_pua.model.manifest import Manifest, ModelFileError
from brahmic_pua.model.processor_types import StockProcessor
from brahmic_pua.runtime.decoder import ModelDecoder
from brahmic_pua.runtime.encoder import ModelEncoder
from brahmic_pua.runtime.shown_pieces import ShownPieces
from brahmic_pua.runtime.signatures import ProcessorOptions, StockOptions

#: The processor's attributes that a load builds from the model; a pickle leaves them out and
#: carries the serialized model instead.
LOADED = ("_sp", "_shown", "_encoder", "_decoder", "manifest")


@dataclass(frozen=True)
class Built:
    """What a load installs: stock's processor holding the model, and for a brahmic_pua model
    its pieces shown as text, its encoder, its decoder and its manifest (all None for a plain
    spm model)."""

    processor: StockProcessor
    shown: ShownPieces | None
    encoder: ModelEncoder | None
    decoder: ModelDecoder | None
    manifest: Manifest | None


def build(data: bytes, source: str, options: StockOptions, normalization: str | None) -> Built:
    """Everything a processor with ``options`` needs of the model ``data`` (``source`` names it
    in errors); a ModelFileError where the model's normalization is not the ``normalization``
    the caller expects (None: any)."""
    loaded = load_model(data, source, **options)
    manifest = loaded.manifest
    trained = manifest.normalization if manifest is not None else "none"
    if normalization is not None and normalization != trained:
        raise ModelFileError(
            f"{source} was trained with normalization={trained}, not {normalization}: its ids "
            f"stand for {trained} text; load it without normalization= or retrain"
        )
    processor = loaded.processor
    if manifest is None:
        return Built(processor, None, None, None, None)
    shown = ShownPieces(loaded.pieces, manifest.codec, loaded.message.trainer_spec.byte_fallback)
    encoder = ModelEncoder(processor, shown, manifest, options)
    return Built(processor, shown, encoder, ModelDecoder(processor, shown, options), manifest)


def serialized(model: object) -> bytes:
    """The bytes of a serialized model, or of a ModelProto (which stock accepts too)."""
    serialize = getattr(model, "SerializeToString", None)
    if serialize is not None:
        model = serialize()
    return bytes(cast(bytes, model))


def without_model(options: ProcessorOptions) -> ProcessorOptions:
    """``from_file``'s and ``from_proto``'s options: any but the model, given apart."""
    if "model_file" in options or "model_proto" in options:
        raise ValueError("from_file and from_proto take the model as their first argument")
    return options


def pickled(attributes: Mapping[str, object], model: bytes | None) -> dict[str, object]:
    """As stock pickles: the instance's ``attributes`` (a subclass's own included) and the
    serialized ``model`` (about the .model's size; None when none is loaded) in place of what
    a load builds from it."""
    state = {k: v for k, v in attributes.items() if k not in LOADED}
    state["model_proto"] = model
    return state


@dataclass(frozen=True)
class Unpickled:
    """A pickle's state, read: the constructor's options and normalization, the serialized
    model (None: none was loaded) and the attributes to set after the load."""

    options: StockOptions
    normalization: str | None
    model: object
    attributes: dict[str, object]


def unpickled(state: Mapping[str, object] | bytes) -> Unpickled:
    """A state from :func:`pickled`, or the serialized model alone (pickles written by older
    versions of sentencepiece and of brahmic_pua hold only that; some brahmic_pua versions
    named the options ``options`` and ``normalization``)."""
    attributes: dict[str, object]
    attributes = {"model_proto": state} if isinstance(state, bytes) else dict(state)
    model = attributes.pop("model_proto", None)
    options = cast(StockOptions, attributes.get("_options", attributes.pop("options", {})))
    normalization = attributes.get("_normalization", attributes.pop("normalization", None))
    return Unpickled(options, cast("str | None", normalization), model, attributes)
