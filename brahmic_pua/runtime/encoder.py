"""``encode`` and ``normalize`` on a brahmic_pua model: N before stock, pieces shown as text
after.

Encoding runs in stock sentencepiece; what :class:`ModelEncoder` adds for the processor
(brahmic_pua.runtime.processor) is the input transform, N (NFC by default) of each text
(``Manifest.stock_input``), and the output transform, pieces shown as the text they stand for
(brahmic_pua.runtime.shown_pieces); protos and offset mappings go through
brahmic_pua.runtime.aligned. A plain spm model has none: the processor passes it to stock as it
is. A load makes a new one (brahmic_pua.runtime.loading), as it does the model's
:class:`~brahmic_pua.runtime.decoder.ModelDecoder`.
"""

from __future__ import annotations

from brahmic_pua.model.display import display
from brahmic_pua.model.manifest import Manifest
from brahmic_pua.model.processor_types import StockMethod, StockProcessor
from brahmic_pua.runtime import aligned
from brahmic_pua.runtime.offsets import Source, text_of
from brahmic_pua.runtime.shown_pieces import ShownPieces
from brahmic_pua.runtime.signatures import OutKind, StockOptions, Text, Texts
from brahmic_pua.segment.sure_cuts import name_refused_surrogate


class ModelEncoder:
    """Encoding on one brahmic_pua model: ``processor`` is stock's on it, ``shown`` its pieces
    as text, ``manifest`` its N, ``options`` the processor's defaults (``emit_unk_piece``)."""

    def __init__(
        self,
        processor: StockProcessor,
        shown: ShownPieces,
        manifest: Manifest,
        options: StockOptions,
    ) -> None:
        self._processor = processor
        self._shown = shown
        self._manifest = manifest
        self._options = options

    def prepare(self, input: Text | Texts) -> str | list[str]:
        """N of a text or of each text in a list; bytes are read as UTF-8, as stock does
        (each byte outside a valid character becomes one U+FFFD)."""
        if isinstance(input, list):
            return [self.prepare_one(text) for text in input]
        return self.prepare_one(input)

    def prepare_one(self, text: Text) -> str:
        return self._manifest.stock_input(text_of(text))

    def source(self, given: Text) -> Source:
        """A text and what stock encodes for it, for outputs that point into the text."""
        return Source.of(given, self._manifest, self._processor.normalize)

    def normalize(self, input: Text, with_offsets: bool | None) -> object:
        """The processor's ``normalize`` of one text: N, then stock's normalizer, shown as
        text; ``with_offsets``: with stock's offsets into the text given."""
        processor = self._processor
        codec = self._shown.codec
        if with_offsets:
            return self.source(input).normalized(
                lambda text: processor.normalize(text, True), lambda unit: display(unit, codec)
            )
        prepared = self.prepare_one(input)
        try:
            shown = display(processor.normalize(prepared), codec)
        except (RuntimeError, TypeError):
            name_refused_surrogate(prepared)
            raise
        return shown.encode("utf-8") if isinstance(input, bytes) else shown

    def encode(
        self,
        method: StockMethod,
        input: Text | Texts,
        out: OutKind,
        nbest: bool,
        offsets: bool,
        options: dict[str, object],
    ) -> object:
        """Run the stock encode ``method`` on N(input), as ``out``, pieces shown as text;
        protos and (where ``offsets``: stock's ``encode`` has them, n-best and parallel do not)
        offset mappings point into the caller's text (brahmic_pua.runtime.aligned)."""
        if out in aligned.ALIGNED and (out != "offset_mapping" or offsets):
            return aligned.encode(method, input, out, nbest, options, self._shown, self.source)
        if out not in (int, str, bytes, "numpy"):  # stock's own error for what it does not give
            return method(self.prepare(input), return_type=out, **options)
        text = self.prepare(input)
        ask = out if out in (int, "numpy") else int if self._by_id(options) else str
        try:
            result = method(text, return_type=ask, **options)
        except (RuntimeError, TypeError):
            name_refused_surrogate(text)
            raise
        return result if out in (int, "numpy") else self._shown.show(result, out is bytes)

    def _by_id(self, options: dict[str, object]) -> bool:
        """Whether pieces are shown from stock's ids (twice as fast, exact with byte fallback).
        Not where stock refuses pieces and gives ids: ``emit_unk_piece`` on a model with no
        unknown piece ("UNK token is not defined in this model"), so stock says it here too."""
        if not self._shown.by_id:
            return False
        emit = options.get("emit_unk_piece")
        emit = self._options["emit_unk_piece"] if emit is None else emit
        return not emit or int(self._processor.unk_id()) >= 0
