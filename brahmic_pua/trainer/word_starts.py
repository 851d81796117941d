"""Give a Unigram model back the word-start pieces ("▁" + text) that PUA training loses.

In plain text most words start with one of a few dozen letters, so a few "▁క"-style pieces carry
most words' leading space; in PUA text a word starts with one of about a thousand cluster codes
(క, కా, కి… are distinct symbols), so the "▁X" pieces are spread thin. Unigram's pruning drops a
"▁X" whenever "▁" + "X" is nearly as likely, which makes a lone "▁" likelier still, and so on:
with 8,000 pieces, 7.8% of the tokens on Telugu news were a lone "▁" against 4.7% for plain
spm, four fifths of a 4% fertility gap (bench/bench_fertility.py; from 16,000 pieces on there
is no gap). After training, this pass encodes the training words and swaps the least-used
pieces for "▁Y" where a lone "▁" came before piece Y, while a swap saves more than twice the
tokens it may cost. Every new piece is "▁" followed by a piece already usable, so no guarantee
changes: no new piece starts with a mark or splits a code, and stock spm reads the model as
before.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import Any

import sentencepiece as spm

from brahmic_pua.model.pieces import SPACE
from brahmic_pua.model.proto import NORMAL, model_pb2

#: A swap must save more than MARGIN tokens per token it may cost: a "▁Y" saves one token each
#: time it is used, a dropped piece costs at least one each time it was used.
MARGIN = 2.0


def complete_word_starts(model: Any, lines: Iterable[str]) -> int:
    """Swap pieces of a trained Unigram ``model`` (orphan pieces already disabled) in place for
    word-start pieces the training ``lines`` call for; returns how many were swapped.

    Words are encoded one by one, which is exact when pieces never span a space (spm's
    split_by_whitespace) and every word starts with "▁" (add_dummy_prefix, "▁" as a prefix).
    Other models, and BPE (whose pieces must stay reachable by merges), are left alone.
    """
    spec = model.trainer_spec
    if (
        spec.model_type != model_pb2.TrainerSpec.UNIGRAM
        or not spec.split_by_whitespace
        or spec.treat_whitespace_as_suffix
        or not model.normalizer_spec.add_dummy_prefix
    ):
        return 0
    pieces = model.pieces
    space = next((i for i, p in enumerate(pieces) if p.piece == SPACE and p.type == NORMAL), None)
    if space is None:
        return 0
    words = Counter(word for line in lines for word in line.split(" ") if word)
    texts = list(words)
    rows = spm.SentencePieceProcessor(model_proto=model.SerializeToString()).encode(texts)
    uses: Counter[int] = Counter()
    wanted: Counter[str] = Counter()
    for text, row in zip(texts, rows, strict=True):
        count = words[text]
        for i in row:
            uses[i] += count
        if len(row) > 1 and row[0] == space and pieces[row[1]].type == NORMAL:
            wanted[SPACE + pieces[row[1]].piece] += count
    present = {p.piece for p in pieces}
    added = sorted(
        (item for item in wanted.items() if item[0] not in present and _valid(item[0], spec)),
        key=lambda item: (-item[1], item[0]),
    )
    # Single characters are spm's required characters: never dropped.
    dropped = sorted(
        (i for i, p in enumerate(pieces) if p.type == NORMAL and len(p.piece) > 1),
        key=lambda i: (uses[i], pieces[i].score, i),
    )
    total = sum(uses.values())
    swapped = 0
    for (piece, count), i in zip(added, dropped, strict=False):
        if count <= MARGIN * uses[i]:
            break
        pieces[i].piece = piece
        pieces[i].score = math.log(count / total)
        swapped += 1
    if swapped:
        _sort_by_score(model)
    return swapped


def _valid(piece: str, spec: Any) -> bool:
    """What spm's IsValidSentencePiece would say of "▁" + a valid piece: only its length and,
    with split_digits, a digit (a digit piece may not grow) can make it invalid."""
    if len(piece) > spec.max_sentencepiece_length:
        return False
    return not (spec.split_digits and any(ch.isdecimal() for ch in piece))


def _sort_by_score(model: Any) -> None:
    """Normal pieces back in spm's Unigram order (best score first) within their own ids."""
    slots = [i for i, p in enumerate(model.pieces) if p.type == NORMAL]
    ordered = []
    for i in slots:
        copy = model_pb2.ModelProto.SentencePiece()
        copy.CopyFrom(model.pieces[i])
        ordered.append(copy)
    ordered.sort(key=lambda p: -p.score)
    for i, piece in zip(slots, ordered, strict=True):
        model.pieces[i].CopyFrom(piece)
