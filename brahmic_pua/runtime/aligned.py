"""The processor's aligned path on a brahmic_pua model: protos and offset mappings whose pieces
are shown as text and whose offsets point into the caller's text (encoding) or into the decoded
text (decoding).

brahmic_pua.runtime.offsets says how each offset is carried (:class:`~.offsets.Source`,
:class:`~.offsets.Denormalizer`); this module runs stock for them and puts its results in the
shape the caller asked for, one text or a batch, so that brahmic_pua.runtime.processor only
chooses the path. Stock's plain ids and pieces never come here: they need no offsets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from brahmic_pua.model.processor_types import StockMethod
from brahmic_pua.runtime.offsets import Denormalizer, Source, offset_mapping, parse, texts_of
from brahmic_pua.runtime.shown_pieces import ShownPieces
from brahmic_pua.runtime.signatures import OutKind, Text, Texts

#: Out types that say where each piece lies: on a brahmic model this module makes them from
#: stock's serialized protos, with pieces shown as text.
ALIGNED = ("proto", "serialized_proto", "offset_mapping")


def _sources(items: Sequence[Text], batch: bool, source: Callable[[Text], Source]) -> list[Source]:
    """Each text and what stock encodes for it; a lone surrogate named by its place in a list."""
    sources: list[Source] = []
    for n, item in enumerate(items):
        try:
            sources.append(source(item))
        except ValueError as error:  # a lone surrogate
            raise ValueError(f"text {n} of the list: {error}") if batch else error from None
    return sources


def encode(
    method: StockMethod,
    input: Text | Texts,
    out: OutKind,
    nbest: bool,
    options: dict[str, object],
    shown: ShownPieces,
    source: Callable[[Text], Source],
) -> object:
    """Protos and offset mappings from the stock encode ``method``: stock on each text as given
    where that gives the ids of N(text), else on N(text) and moved back (``source`` makes each
    :class:`~.offsets.Source`); pieces as text, as ``encode(out_type=str)`` shows them."""
    batch = isinstance(input, list)
    items: Sequence[Text] = input if isinstance(input, list) else [input]
    sources = _sources(items, batch, source)
    return_bytes = options.pop("return_bytes", None) if out == "offset_mapping" else None
    if return_bytes is None:
        return_bytes = bool(items) and isinstance(items[0], bytes)
    sent = [each.sent for each in sources]
    if out == "offset_mapping" and all(each.direct for each in sources):
        # Stock's own mapping of the caller's text, three times faster than from protos.
        mappings = method(
            sent if batch else sent[0], return_type=out, return_bytes=return_bytes, **options
        )
        for mapping in mappings if batch else [mappings]:
            mapping["pieces"] = shown.mapping_pieces(mapping, bool(return_bytes))
        return mappings
    serialized = method(sent if batch else sent[0], return_type="serialized_proto", **options)
    results: list[object] = []
    for each, data in zip(sources, serialized if batch else [serialized], strict=True):
        message = parse(data, nbest)
        for spt in texts_of(message):
            if not each.direct:
                each.rebase(spt)
            for piece in spt.pieces:
                piece.piece = shown.proto_piece(piece.id, piece.piece, shown.by_id)
        if out == "proto":
            results.append(message)
        elif out == "serialized_proto":
            results.append(message.SerializeToString())
        else:
            results.append(offset_mapping(message, bool(return_bytes), with_text=False))
    return results if batch else results[0]


def decoded(
    serialized: object,
    out: OutKind,
    as_bytes: bool,
    shown: ShownPieces,
    denormalizer: Denormalizer,
) -> object:
    """Stock's decode protos (``serialized``: one or a list), their surfaces and begin/end moved
    into the decoded text by the model's ``denormalizer``, pieces as text; as ``out`` says,
    offset mappings counted in bytes where ``as_bytes``."""
    batch = isinstance(serialized, list)
    results: list[object] = []
    for data in cast(list[bytes], serialized if batch else [serialized]):
        spt = parse(data, nbest=False)
        denormalizer.rebase(spt)
        for piece in spt.pieces:
            piece.piece = shown.proto_piece(piece.id, piece.piece, by_id=False)
        if out == "proto":
            results.append(spt)
        elif out == "serialized_proto":
            results.append(spt.SerializeToString())
        else:
            results.append(offset_mapping(spt, as_bytes, with_text=True))
    return results if batch else results[0]
