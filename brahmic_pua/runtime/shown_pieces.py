"""A brahmic_pua model's pieces as the caller sees them: the text they stand for, no Private
Use code point (brahmic_pua.model.display), and back to the model's own pieces.

The processor's output transform: every piece it returns (``encode(out_type=str)``, protos,
offset mappings, ``id_to_piece``) goes through :class:`ShownPieces`, and every piece it is given
(``decode`` of pieces, ``piece_to_id``) comes back through it. Shown pieces are distinct
(``display_vocabulary`` makes them so), so both ways are exact.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from functools import cached_property
from typing import SupportsIndex, cast

from brahmic_pua.codec import PUACodec
from brahmic_pua.model.display import display, display_vocabulary, model_text
from brahmic_pua.runtime.input_kinds import out_of_range


class ShownPieces:
    """A brahmic model's pieces as text, both ways."""

    def __init__(self, model: list[str], codec: PUACodec, byte_fallback: bool) -> None:
        self.codec = codec
        #: Without byte fallback an unknown piece shows its surface text, which only spm's
        #: own pieces carry; with it (the default) pieces by id are exact, and twice as fast.
        self.by_id = byte_fallback
        self._model = model

    # Shown when first asked for: a load that only encodes to ids (training a language model)
    # does not pay for them (half of a load's time for an 8000-piece model).
    @cached_property
    def pieces(self) -> list[str]:
        return display_vocabulary(self._model, self.codec)

    @cached_property
    def from_model(self) -> dict[str, str]:
        return dict(zip(self._model, self.pieces, strict=True))

    @cached_property
    def to_model(self) -> dict[str, str]:
        return dict(zip(self.pieces, self._model, strict=True))

    def piece(self, id: object) -> str:
        index = operator.index(cast(SupportsIndex, id))  # else stock's TypeError, unchanged
        if not 0 <= index < len(self.pieces):
            raise IndexError(out_of_range(index, len(self.pieces)))
        return self.pieces[index]

    def show(self, value: list[object], as_bytes: bool) -> list[object]:
        """Ids or model pieces (a row, a batch, n-best lists) as text, as stock returns them:
        the first item tells which."""
        if value and isinstance(value[0], list):
            return [self.show(cast(list[object], row), as_bytes) for row in value]
        if value and isinstance(value[0], int):
            shown = list(map(self.pieces.__getitem__, cast(list[int], value)))
        else:
            get = self.from_model.get  # an unknown piece's surface is not in the vocabulary
            shown = [get(piece) or display(piece, self.codec) for piece in cast(list[str], value)]
        return [piece.encode("utf-8") for piece in shown] if as_bytes else list(shown)

    def proto_piece(self, id: int, piece: str, by_id: bool) -> str:
        """A proto's piece as ``show`` shows it: by id where ``by_id``, else by the piece (a
        decode proto holds pieces as given, which need not be the id's)."""
        if by_id:
            return self.pieces[id]
        return self.from_model.get(piece) or display(piece, self.codec)

    def mapping_pieces(self, mapping: Mapping[str, list[object]], as_bytes: bool) -> list[object]:
        """The pieces of one of stock's offset mappings, as ``show`` shows them."""
        if self.by_id:
            return self.show(mapping["ids"], as_bytes)
        pieces: list[object] = [
            p.decode() if isinstance(p, bytes) else p for p in mapping["pieces"]
        ]
        return self.show(pieces, as_bytes)

    def model_piece(self, shown: str) -> str:
        return self.to_model.get(shown) or model_text(shown, self.codec)

    def to_model_pieces(self, value: object) -> object:
        """Shown pieces (one, a list, a batch) back to the model's, keeping str or bytes."""
        if isinstance(value, str):
            return self.model_piece(value)
        if isinstance(value, bytes):
            return self.model_piece(value.decode("utf-8")).encode("utf-8")
        return [self.to_model_pieces(item) for item in cast(Iterable[object], value)]
