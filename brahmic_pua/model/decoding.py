"""Decoding ids back to text: the one argument for why every path gives N(s).

Four engines turn ids into text, and every other module that decodes points here:

1. stock sentencepiece on the ``.model`` (``Decode`` in sentencepiece_processor.cc): the pieces'
   text joined, then the denormalizer rules (code → cluster) over the whole of it;
2. :class:`PlainDecoder` (below): a copy of the model whose pieces are already the text they
   decode to, with no denormalizer, so one pass; a row it cannot vouch for goes to 1;
3. :class:`brahmic_pua.runtime.stream.StreamDecoder`: 1 on windows of the ids as a model
   generates them, releasing text only where a cluster ends;
4. :meth:`brahmic_pua.codec.PUACodec.decode`: the codec's inverse, in Python, on PUA text.

``brahmic_pua.SentencePieceProcessor.decode`` (and ``decode_ids``, ``decode_pieces``, their
CamelCase aliases) on a brahmic_pua model: ids in a list (a row or a batch, str or bytes out)
go to 2; ids in a tuple, a numpy array or one int go to 1; pieces (str or bytes, a row or a
batch) are mapped from their shown text back to the model's pieces (the shown vocabulary is one
to one) and go to 1. Only str and bytes come out. It never uses 4, which serves display,
``normalize`` and the trainer. A plain spm model goes to 1 whole.

**The guarantee.** For every str s (no lone surrogate), each path turns ``encode(s)`` into
N(s), for models trained with byte fallback on, ``remove_extra_whitespaces`` off and a model
type other than ``word`` (the defaults; the trainer names any option that turns this off).
``encode`` applies N in Python; stock's normalizer rules then rewrite N(s) into a PUA text P
by longest match, and spm segments "▁" + P (spaces as ▁). The rules are the codec's: a cluster
of the table → its code (a cluster without a code can match a shorter rule: హే becomes
code(హ) + ే where ``codec.encode`` keeps హే), ▁ → U+E001 and U+2585 → U+E002 (stand-ins),
and each *taken* character (a table code, U+E000–U+E002) → the escape U+E000 + itself; any
other character stays as it is. Under a mode with NFC the rules also map other spellings of
those sources, for stock on raw text; N(s) holds none of them (``rules.training_rule_files``).
So P is a row of units, each written for a piece of N(s): a code, a stand-in, an escape pair,
or a character that is not taken.

1. Stock. With byte fallback the pieces spell "▁" + P exactly (no unknown id; a byte run is
   whole UTF-8 characters; ▁ is always a piece). The join turns ▁ into a space and drops the
   first piece's leading ▁ (the dummy prefix) and no other space, giving P. The denormalizer
   holds the inverse rules (code → cluster, stand-in → literal, escape + taken character →
   that character; none for an escape alone) and reads left to right, longest match first.
   In P every unit that starts with an escape is a pair and no other unit does (codes start at
   U+E003), so it reads P in the units it was written in and maps each back: N(s).
2. PlainDecoder. Rewriting each piece alone is rewriting the whole text when no rule crosses a
   piece boundary. The only rules longer than one character begin with an escape, and stock's
   text gets a code, stand-in or escape only from a piece holding it or a byte run spelling it.
   It *watches* the ids that could make the two texts differ: pieces holding an escape or a
   stand-in (an escape pairs with the next piece's first character; spm turns a ▁ written into
   a piece into a space) or whose rewritten text would equal another piece's (spm refuses
   duplicates), which keep their own text (*unsafe*); and byte pieces of the lead bytes of
   Private Use code points, 0xEE, 0xEF, 0xF3, 0xF4 (*suspect*). Every other piece holds codes
   and characters the denormalizer maps one by one, so a row without a watched id is exact.
   Where a watched id changes the text it leaves a code, stand-in or escape in the fast text,
   so a row whose fast text shows one goes to stock (bytes out: a row with an unsafe id, or
   with a suspect id and such a character). It assumes the model's denormalizer maps every
   code as the codec says; it probes that when built, and takes nothing where it does not.
3. StreamDecoder. The decode of a suffix of the ids is the suffix of the decode except across
   three ties: the first visible piece loses its ▁, a byte run is read as one UTF-8 text, and
   a denormalizer rule can span pieces (escape + code). A *clean cut* after an id is one that
   none crosses: the byte run so far ends on a whole character, and the text so far does not
   end with a character that begins a multi-character rule. Ids are held up to the next clean
   cut, then decoded once by 1 with an anchor piece in front (so no ▁ is dropped) and never
   again; so ``"".join(chunks) + flush() == decode(ids)`` for any ids, however split. It
   assumes the denormalizer's rules are brahmic_pua's (read from the manifest, at most two
   characters, so a rule reaches one character past a cut) and refuses a model with others; a
   plain spm model has none.
4. PUACodec.decode maps codes, stand-ins and escape pairs as the denormalizer does, so on P
   (what stock writes with the denormalizer removed) it gives N(s). ``codec.encode(x)`` is a
   row of the same units (a cluster without a code passes through whole; taken characters, ▁
   and U+2585 are escaped or stood in for), so ``decode(encode(x)) == x`` for every str x.

**Where the paths may differ**: only on ids no encoding writes.

- An escape before a character that is not taken (bytes spelling U+E000 then "a"): the
  denormalizer has no rule and keeps both; PUACodec.decode drops the escape. 1–3 agree.
- The fast model of 2 alone differs from stock on watched ids; ``PlainDecoder.decode`` never
  returns that text.
- Byte runs that are not valid UTF-8: spm writes one U+FFFD per byte outside a valid character
  (Python's errors="replace" writes one per cut character). 1–3 all give spm's text; a stream
  holds a run until it ends, so no chunk shows a U+FFFD that the whole text does not.
- Unused pieces (pieces starting with a mark, pieces holding escapes) decode as their text on
  every path, control ids as nothing, an unknown id as its surface (" ⁇ "); such text need not
  be N of anything, nor come back from ``decode(encode(...))`` the same.
- Pieces not in the vocabulary: ``SentencePieceProcessor.decode`` reads them as shown text,
  clusters back to codes (``pieces.model_text``), before 1; stock on the ``.model`` shows an
  unknown piece as given.
- Out types: stock also decodes to a proto and an offset mapping, whose surfaces and offsets
  on a brahmic_pua model are the Private Use codes; the processor gets them from 1 and moves
  them into the decoded text (``brahmic_pua.runtime.offsets``).

``tests/model/test_decoding.py`` checks every path against one reference rebuilt from the
model's pieces and the manifest's table, on the same hostile inputs.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import sentencepiece as stock

from brahmic_pua.codec import PUACodec
from brahmic_pua.codec.layout import RESERVED
from brahmic_pua.model.model_proto import BYTE, NORMAL, UNUSED, USER_DEFINED, parse_model
from brahmic_pua.model.processor_types import StockProcessor
from brahmic_pua.orthography.classify import charset

#: Lead bytes of the UTF-8 forms of Private Use code points (U+E000–U+F8FF, planes 15–16).
PRIVATE_LEAD_BYTES = ("<0xEE>", "<0xEF>", "<0xF3>", "<0xF4>")


class PlainDecoder:
    """Path 2 above: stock's text without its second pass, the denormalizer, which costs about
    half of a plain decode. The copy has no normalizer either (it only decodes; spm's decode
    runs about 5% faster without one).

    ``processor`` is the stock processor on the model itself, with ``options``: it checks that
    the model's denormalizer maps every code as ``codec`` says (an unknown piece decodes to
    itself, then is denormalized); where it does not, :meth:`takes` is always False.
    """

    def __init__(
        self, data: bytes, codec: PUACodec, processor: StockProcessor, options: Mapping[str, Any]
    ) -> None:
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
        self.processor: StockProcessor = stock.SentencePieceProcessor(**options)
        self.processor.LoadFromSerializedProto(model.SerializeToString())
        self.unsafe = frozenset(unsafe)
        self.watched = frozenset(unsafe | suspect)
        self.sources = frozenset(map(chr, table)) | RESERVED  # what the denormalizer rewrites
        self.found = re.compile(f"[{charset(_spans(self.sources))}]").search

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


def _spans(characters: frozenset[str]) -> list[tuple[int, int]]:
    """At most two ranges holding ``characters``: the first to the last of those in the Basic
    Multilingual Plane, and of the rest. A scan for one range is a quarter faster than for the
    codes themselves, which a dropped code leaves with holes (4 MB of decoded Telugu: 2.8 ms
    against 3.7); a character in a hole only sends its row to stock, which is exact anyway."""
    points = sorted(map(ord, characters))
    spans = []
    for tier in ([p for p in points if p <= 0xFFFF], [p for p in points if p > 0xFFFF]):
        if tier:
            spans.append((tier[0], tier[-1]))
    return spans
