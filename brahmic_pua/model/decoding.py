"""Decoding without the denormalizer pass, where that gives the same text.

Stock spm decodes a brahmic_pua model to PUA text and rewrites all of it with the
denormalizer rules (code → cluster, escape + code → code, U+E001 → ▁, U+E002 → U+2585) by
longest match: a second pass over the text that costs about half of a plain decode. A copy of
the model whose pieces are already the text they decode to, with no denormalizer (and no
normalizer: it only decodes, and spm's decode runs about 5% faster without one), decodes in
one pass, and gives exactly the stock text for a sequence of ids without a *watched* id:

- a piece that holds an escape or a stand-in (U+E000–U+E002): an escape pairs with the next
  piece's first character, and spm would turn a ▁ written into a piece into a space; and a
  piece whose text would equal another piece's (spm refuses duplicate pieces). A sequence
  with one of these is decoded by stock;
- a byte piece for a lead byte of a Private Use code point (0xEE, 0xEF, 0xF3, 0xF4): bytes can
  spell a code, which the denormalizer maps. A sequence with one is decoded by stock when the
  fast text holds a code or a stand-in.

Every other piece holds codes and characters the denormalizer maps one by one, and no match
crosses a piece boundary, so rewriting each piece alone is rewriting the whole text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import sentencepiece as stock

from brahmic_pua.codec import PUACodec
from brahmic_pua.codec.layout import RESERVED
from brahmic_pua.model.proto import BYTE, NORMAL, UNUSED, USER_DEFINED, parse_model
from brahmic_pua.orthography.classify import charset

#: Lead bytes of the UTF-8 forms of Private Use code points (U+E000–U+F8FF, planes 15–16).
PRIVATE_LEAD_BYTES = ("<0xEE>", "<0xEF>", "<0xF3>", "<0xF4>")


class PlainDecoder:
    """A stock processor on the model with its pieces rewritten, and the ids it must watch.

    ``processor`` is the stock processor on the model itself, with ``options``: it checks that
    the model's denormalizer maps every code as ``codec`` says (an unknown piece decodes to
    itself, then is denormalized); where it does not, :meth:`takes` is always False.
    """

    def __init__(self, data: bytes, codec: PUACodec, processor: Any, options: dict[str, Any]):
        model = parse_model(data)
        table = {ord(code): cluster for code, cluster in codec.code_pairs()}
        probe = "".join(f"a{code}" for code, _ in codec.code_pairs())
        self.exact = processor.decode_pieces([probe]) == probe.translate(table)
        unsafe: set[int] = set()
        suspect: set[int] = set()
        plain: dict[int, str] = {}
        for i, piece in enumerate(model.pieces):
            if piece.type in (NORMAL, USER_DEFINED, UNUSED):
                if RESERVED.isdisjoint(piece.piece):
                    plain[i] = piece.piece.translate(table)
                else:
                    unsafe.add(i)
            elif piece.type == BYTE and piece.piece in PRIVATE_LEAD_BYTES:
                suspect.add(i)
        texts = Counter(plain.values())
        texts.update(p.piece for i, p in enumerate(model.pieces) if i not in plain)
        for i, text in plain.items():
            if text != model.pieces[i].piece and texts[text] > 1:
                unsafe.add(i)  # keeps its own (unique) piece
            else:
                model.pieces[i].piece = text
        model.denormalizer_spec.precompiled_charsmap = b""
        model.normalizer_spec.precompiled_charsmap = b""  # decoding only: 5% faster without
        self.processor: Any = stock.SentencePieceProcessor(**options)
        self.processor.LoadFromSerializedProto(model.SerializeToString())
        self.unsafe = frozenset(unsafe)
        self.watched = frozenset(unsafe | suspect)
        self.sources = frozenset(map(chr, table)) | RESERVED  # what the denormalizer rewrites
        self.found = re.compile(f"[{charset((ord(c), ord(c)) for c in self.sources)}]").search

    def takes(self, ids: Any) -> bool:
        """True for a list (of ids, or of lists of ids); anything else is for stock."""
        return self.exact and isinstance(ids, list)

    def decode(self, ids: list[Any], fallback: Callable[..., Any], **options: Any) -> Any:
        """What ``fallback`` (stock on the model) gives for ``ids`` (one list or a batch)."""
        batch = bool(ids) and isinstance(ids[0], list)
        rows = ids if batch else [ids]
        try:
            decoded = self.processor.decode(ids, **options)
        except Exception:  # not ids, or ids out of range: stock says what is wrong
            return fallback(ids, **options)
        out = decoded if batch else [decoded]
        if not out or isinstance(out[0], str):  # stock returns one type for the batch
            # Each watched id leaves a code or a stand-in in this text (an unsafe piece keeps
            # its own), so text without one is stock's text; one C scan over the batch says so.
            if not self.found("".join(out)):
                return decoded
            redo = [bool(self.found(text)) for text in out]
        else:
            redo = [
                not self.watched.isdisjoint(row) and self._differs(row, out[i])
                for i, row in enumerate(rows)
            ]
        for i, row in enumerate(rows):
            if redo[i]:
                out[i] = fallback(row, **options)
        return out if batch else out[0]

    def _differs(self, row: list[Any], text: str | bytes) -> bool:
        """Whether stock may decode ``row`` otherwise: it holds an unsafe id, or a byte run
        spelled a code or a stand-in."""
        if not self.unsafe.isdisjoint(row):
            return True
        return not self.sources.isdisjoint(text if isinstance(text, str) else text.decode())
