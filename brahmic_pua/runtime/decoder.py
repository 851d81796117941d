"""``decode`` on a brahmic_pua model: which engine takes each input, and the engines a model
builds for it on first use.

brahmic_pua.model.decoding says which decoder takes which input and why each gives N(s) back;
:class:`ModelDecoder` is that routing for the processor (brahmic_pua.runtime.processor): pieces
shown as text mapped back to the model's, ids in a list to the one-pass
:class:`~brahmic_pua.model.decoding.PlainDecoder`, the rest to stock, and protos and offset
mappings through brahmic_pua.runtime.aligned. A load makes a new one (brahmic_pua.runtime.loading),
so what it builds from the model goes with the model.
"""

from __future__ import annotations

from collections.abc import Callable

from brahmic_pua.model.decoding import PlainDecoder
from brahmic_pua.model.model_proto import parse_model
from brahmic_pua.model.processor_types import StockProcessor
from brahmic_pua.runtime import aligned
from brahmic_pua.runtime.input_kinds import bytes_pieces, checked, holds_pieces
from brahmic_pua.runtime.offsets import Denormalizer
from brahmic_pua.runtime.shown_pieces import ShownPieces
from brahmic_pua.runtime.signatures import AnyToDecode, OutKind, OutType, StockOptions


class ModelDecoder:
    """Decoding on one brahmic_pua model: ``processor`` is stock's on it, ``shown`` its pieces
    as text, ``options`` the processor's (the one-pass decoder is built with them)."""

    def __init__(
        self, processor: StockProcessor, shown: ShownPieces, options: StockOptions
    ) -> None:
        self._processor = processor
        self._shown = shown
        self._options = options
        self._plain: PlainDecoder | None = None
        self._denormalizer: Denormalizer | None = None

    def decode(
        self,
        input: AnyToDecode,
        out: OutKind,
        return_type: OutType,
        out_type: OutType,
        size: Callable[[], int],
        **options: object,
    ) -> object:
        """What ``decode`` gives for ``input`` as ``out`` (resolved from ``return_type`` and
        ``out_type``, which go to stock as given); ``size``: the number of pieces, to name an
        id out of range (brahmic_pua.runtime.input_kinds.checked). ``options``: stock's
        ``num_threads``, ``thread_pool`` and ``return_bytes``."""
        processor = self._processor
        if out in aligned.ALIGNED:
            return self._aligned(input, out, size, **options)
        given: object = input
        if holds_pieces(input):
            given = self._shown.to_model_pieces(input)
        elif (plain := self._plain_decoder()).takes(input):  # the same text, one pass
            return checked(
                plain.decode,
                input,
                size,
                fallback=processor.decode,
                return_type=return_type,
                out_type=out_type,
                **options,
            )
        return checked(
            processor.decode, given, size, return_type=return_type, out_type=out_type, **options
        )

    def _aligned(
        self,
        input: AnyToDecode,
        out: OutKind,
        size: Callable[[], int],
        num_threads: object,
        thread_pool: object,
        return_bytes: object,
    ) -> object:
        """Stock's decode proto, its surfaces and begin/end moved into the decoded text."""
        as_bytes = bool(return_bytes) or bytes_pieces(input)
        if out == "offset_mapping":
            return_bytes = None  # stock's check: only offset mappings take it
        given = self._shown.to_model_pieces(input) if holds_pieces(input) else input
        serialized = checked(
            self._processor.decode,
            given,
            size,
            return_type="serialized_proto",
            num_threads=num_threads,
            thread_pool=thread_pool,
            return_bytes=return_bytes,
        )
        denormalizer = self._denormalizer_of_model()
        return aligned.decoded(serialized, out, as_bytes, self._shown, denormalizer)

    def _serialized_model(self) -> bytes:
        return bytes(self._processor.serialized_model_proto())

    def _denormalizer_of_model(self) -> Denormalizer:
        """The model's denormalizer with stock's alignment, built once."""
        if self._denormalizer is None:
            spec = parse_model(self._serialized_model()).denormalizer_spec
            self._denormalizer = Denormalizer(spec.SerializeToString())
        return self._denormalizer

    def _plain_decoder(self) -> PlainDecoder:
        """The model with pieces as text (``brahmic_pua.model.decoding``), built once."""
        if self._plain is None:
            data = self._serialized_model()
            self._plain = PlainDecoder(data, self._shown.codec, self._processor, self._options)
        return self._plain
