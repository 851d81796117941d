"""Streaming detokenization: text from ids as a model generates them, released only where a
cluster ends, so a UI never shows a dotted circle or half a conjunct (క్ before its ర).

``decode(ids so far)`` after every id would cost quadratic time and show unfinished clusters.
Why the chunks and the flush join to ``decode(ids)`` (clean cuts): see brahmic_pua.model.decoding.
"""

from __future__ import annotations

import codecs
import operator
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, SupportsIndex, cast

import sentencepiece as stock

from brahmic_pua.model.manifest import extract
from brahmic_pua.model.model_proto import parse_model
from brahmic_pua.model.processor_types import Processor
from brahmic_pua.model.rules import rule_pairs
from brahmic_pua.segment import segment

_TEXT, _CONTROL, _BYTE = 0, 1, 2
#: What spm writes for a byte that is not part of a valid UTF-8 character.
_REPLACEMENT = "\ufffd"
_SPACE = "\u2581"


@dataclass(frozen=True)
class _Model:
    """What decoding needs to know about a model's ids, worked out once per model."""

    sp: Any
    kinds: tuple[int, ...]
    #: Per id: the text it ends with can take no following character into a rule (TEXT ids).
    clean: tuple[bool, ...]
    byte_values: tuple[bytes, ...]
    #: Characters that begin a multi-character denormalizer rule.
    joiners: frozenset[str]
    #: The piece ``▁``: first in a text spm shows it as nothing, so no cut may follow it there.
    space: int
    #: Text of ids after a clean cut; of each id alone, remembered.
    after_cut: _AfterCut


class _AfterCut(dict[int, str]):
    """Ids decoded after a clean cut: behind an anchor, a piece with visible text that no rule
    joins to what follows, so spm drops no ▁ and the anchor's text comes off whole."""

    def __init__(self, sp: Any, anchor: int) -> None:
        super().__init__()
        self.sp, self.anchor, self.skip = sp, anchor, len(sp.decode([anchor]))

    def decode(self, ids: list[int]) -> str:
        return str(self.sp.decode([self.anchor, *ids])[self.skip :])

    def __missing__(self, id: int) -> str:
        text = self[id] = self.decode([id])
        return text


@lru_cache(maxsize=8)
def _model(data: bytes) -> _Model:
    sp = stock.SentencePieceProcessor(model_proto=data)
    joiners = _joiners(data)
    unk_surface = parse_model(data).trainer_spec.unk_surface
    kinds, clean, byte_values = [], [], []
    for id in range(sp.get_piece_size()):
        piece = sp.id_to_piece(id)
        surface = unk_surface if sp.is_unknown(id) else piece.replace(_SPACE, " ")
        if sp.is_byte(id):
            kinds.append(_BYTE)
            byte_values.append(bytes([int(piece[3:5], 16)]))  # <0xAB>
        else:
            # An empty unknown surface shows nothing and closes a byte run: a control piece.
            invisible = sp.is_control(id) or not surface
            kinds.append(_CONTROL if invisible else _TEXT)
            byte_values.append(b"")
        clean.append(kinds[-1] == _TEXT and surface[-1] not in joiners)
    space = sp.piece_to_id(_SPACE) if sp.id_to_piece(sp.piece_to_id(_SPACE)) == _SPACE else -1
    anchor = next((id for id, ok in enumerate(clean) if ok and id != space), -1)
    if anchor < 0:
        raise ValueError("this model has no piece a stream decoder can anchor on")
    return _Model(
        sp, tuple(kinds), tuple(clean), tuple(byte_values), joiners, space, _AfterCut(sp, anchor)
    )


def _joiners(data: bytes) -> frozenset[str]:
    """First characters of the denormalizer's multi-character rules; rules may reach one
    character past a cut, no more (a brahmic_pua model's escapes are two characters)."""
    manifest = extract(data, "model_proto")
    if manifest is None:
        if parse_model(data).denormalizer_spec.precompiled_charsmap:
            raise ValueError(
                "this model has its own denormalization rules: a stream decoder cannot tell "
                "where they span pieces (only brahmic_pua's are known)"
            )
        return frozenset()
    sources = [code for _, code in rule_pairs(manifest.codec)]
    assert max(map(len, sources)) <= 2, "a clean cut looks back one character only"
    return frozenset(source[0] for source in sources if len(source) > 1)


#: Texts shorter than this (a held cluster and a piece or two) have their last cluster's start
#: remembered, up to ``_MEMO_LIMIT`` of them: they repeat, and a lookup is 10× cheaper.
_MEMO_TEXT = 48
_MEMO_LIMIT = 1 << 17
_memos: dict[str, dict[str, int]] = {}

#: The longest cluster a decoder holds back, in characters; a longer one is released as it is,
#: so a chunk may end inside it. Held text is segmented again with each id that adds to it:
#: holding a run without end (క్క్క్…, or thousands of stacked marks: degenerate model output)
#: would cost time quadratic in its length. Real clusters are far shorter: at most 14 characters
#: under any policy in te.train, te.extra, ne.train and hi.sample.
HOLD_LIMIT = 64


class StreamDecoder:
    """Incremental ``decode`` of one model's ids: :meth:`feed` ids, :meth:`flush` at the end.

    ``policy`` names the clusters a chunk may not end inside (``brahmic_pua.segment``):
    ``akshara`` (default) keeps conjuncts whole, ``fixtoken`` only keeps marks with their base.
    A cluster longer than :data:`HOLD_LIMIT` characters (64; no real text has one) is not held
    to its end: the decoder releases it, so its chunks may end inside it, and stays linear.
    """

    def __init__(self, processor: Processor, policy: str = "akshara") -> None:
        segment("", policy)  # an unknown policy fails here
        self._policy = policy
        self._starts = _memos.setdefault(policy, {})
        self._model = _model(bytes(processor.serialized_model_proto()))
        self._size = len(self._model.kinds)
        self._reset()

    def _reset(self) -> None:
        self._window: list[int] = []  # ids after the last clean cut
        self._at_start = True  # spm would still drop a leading ▁
        self._bytes = codecs.getincrementaldecoder("utf-8")("replace")
        self._open = False  # the window's byte run does not end on a whole character
        self._clean = False  # the window's text ends where no rule can reach past it
        self._pending = ""  # settled text; its last cluster may still grow

    def feed(self, ids: SupportsIndex | Iterable[SupportsIndex]) -> str:
        """Take one id or several; return the text they settle up to the last cluster that
        has ended ("" while a cluster, a UTF-8 character or an escape is unfinished)."""
        if isinstance(ids, int):
            batch = [ids]
        else:
            try:  # a numpy or torch integer
                batch = [operator.index(cast(SupportsIndex, ids))]
            except TypeError:  # several ids
                batch = list(map(operator.index, cast(Iterable[SupportsIndex], ids)))
        for id in batch:
            if not 0 <= id < self._size:
                raise IndexError(
                    f"piece id {id} is out of range: this model's ids are 0..{self._size - 1}"
                )
        pending = self._pending
        held = len(pending)
        # A local string, which CPython extends in place (an attribute's would be copied whole
        # for each id: quadratic in a batch of one long cluster).
        for id in batch:
            pending += self._push(id)
        if len(pending) == held:  # nothing settled: the held cluster is still one cluster
            return ""
        cut = self._starts.get(pending)
        if cut is None:
            cut = len(pending) - len(segment(pending, self._policy)[-1])
            if len(pending) < _MEMO_TEXT and len(self._starts) < _MEMO_LIMIT:
                self._starts[pending] = cut
        if len(pending) - cut > HOLD_LIMIT:  # a degenerate run: held text would be segmented anew
            cut = len(pending)  # after every id, so it is released (see HOLD_LIMIT)
        self._pending = pending[cut:]
        return pending[:cut]

    def flush(self) -> str:
        """The rest of the text; the decoder then starts a new sequence."""
        rest = self._pending + (self._decode(self._window) if self._window else "")
        self._reset()
        return rest

    def _push(self, id: int) -> str:
        """Take one id; return the text it settles ("" while the window is open)."""
        model = self._model
        kind = model.kinds[id]
        if kind == _TEXT:
            if not self._window and model.clean[id] and not self._at_start:
                return model.after_cut[id]  # the common case: a cut before and after
            if self._open:
                self._bytes.reset()
                self._open = False
            self._clean = model.clean[id] and not (self._at_start and id == model.space)
        elif kind == _BYTE:
            text = self._bytes.decode(model.byte_values[id])
            self._open = bool(self._bytes.getstate()[0])
            if text:
                self._clean = text[-1] not in model.joiners
        else:
            if not self._window:  # shows nothing and changes no state after a clean cut
                return ""
            if self._open:  # the run ends: spm shows its unfinished bytes as U+FFFD
                self._bytes.reset()
                self._open = False
                self._clean = _REPLACEMENT not in model.joiners
        self._window.append(id)
        if not self._clean or self._open:
            return ""
        text = self._decode(self._window)
        self._window = []
        self._at_start = False  # a clean cut comes after visible text
        return text

    def _decode(self, window: list[int]) -> str:
        """The window's part of the whole decode; it starts at a clean cut."""
        model = self._model
        if self._at_start:
            return str(model.sp.decode(window))
        if len(window) == 1:
            return model.after_cut[window[0]]
        return model.after_cut.decode(window)


def stream_decoder(processor: Processor, policy: str = "akshara") -> StreamDecoder:
    """A :class:`StreamDecoder` for a brahmic_pua or a stock ``SentencePieceProcessor``."""
    return StreamDecoder(processor, policy)
