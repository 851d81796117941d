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
from collections.abc import Iterable, Mapping
from typing import Any

import sentencepiece as spm

from brahmic_pua.model.display import SPACE
from brahmic_pua.model.model_proto import NORMAL, ModelProto, model_pb2

#: A swap must save more than MARGIN tokens per token it may cost: a "▁Y" saves one token each
#: time it is used, a dropped piece costs at least one each time it was used.
MARGIN = 2.0


def count_words(lines: Iterable[str]) -> Counter[str]:
    """The space-separated words of ``lines`` with their counts (what the count phase keeps in
    :attr:`~brahmic_pua.segment.counting.CorpusCounts.words` when it can)."""
    return Counter(word for line in lines for word in line.split(" "))


def complete_word_starts(
    model: ModelProto, lines: Iterable[str], words: Mapping[str, int] | None = None
) -> int:
    """Swap pieces of a trained Unigram ``model`` (orphan pieces already disabled) in place for
    word-start pieces the training ``lines`` call for; returns how many were swapped.
    ``words``: the lines' words with their counts, when the caller has them (the count phase
    keeps them), so that the corpus is not read again.

    Words are encoded one by one, which is exact when pieces never span a space (spm's
    split_by_whitespace) and every word starts with "▁" (add_dummy_prefix, "▁" as a prefix).
    Other models, and BPE (whose pieces must stay reachable by merges), are left alone.
    """
    if not _words_apart(model):
        return 0
    pieces = model.pieces
    # The pieces read once into lists: a protobuf field read costs more than a list index.
    texts = [p.piece for p in pieces]
    normal = [p.type == NORMAL for p in pieces]
    space = next((i for i, t in enumerate(texts) if t == SPACE and normal[i]), None)
    if space is None:
        return 0
    if words is None:
        words = count_words(lines)
    uses, wanted = _uses(model, words, space, texts, normal)
    spec = model.trainer_spec
    present = set(texts)
    added = sorted(
        (item for item in wanted.items() if item[0] not in present and _valid(item[0], spec)),
        key=lambda item: (-item[1], item[0]),
    )
    # Single characters are spm's required characters: never dropped.
    scores = [p.score for p in pieces]
    dropped = sorted(
        (i for i, t in enumerate(texts) if normal[i] and len(t) > 1),
        key=lambda i: (uses[i], scores[i], i),
    )
    total = sum(uses)
    swapped = 0
    for (piece, count), i in zip(added, dropped, strict=False):
        if count <= MARGIN * uses[i]:
            break
        texts[i] = piece
        pieces[i].score = math.log(count / total)
        scores[i] = pieces[i].score  # as the model holds it, a float32, for the sort
        swapped += 1
    if swapped:
        _sort_by_score(model, texts, scores, normal)
    return swapped


def _words_apart(model: ModelProto) -> bool:
    """Whether ``model`` is a Unigram model whose words encode apart, each starting with "▁"
    (pieces never span a space, and the dummy prefix is on)."""
    spec = model.trainer_spec
    return bool(
        spec.model_type == model_pb2.TrainerSpec.UNIGRAM
        and spec.split_by_whitespace
        and not spec.treat_whitespace_as_suffix
        and model.normalizer_spec.add_dummy_prefix
    )


def _uses(
    model: ModelProto, words: Mapping[str, int], space: int, texts: list[str], normal: list[bool]
) -> tuple[list[int], Counter[str]]:
    """How many times each piece is used when every word is encoded as often as it occurs, and
    the word-start pieces ("▁" + piece Y) wanted where a lone "▁" (id ``space``) came before a
    normal piece Y, with how many times."""
    counted = [(word, count) for word, count in words.items() if word]
    rows = spm.SentencePieceProcessor(model_proto=model.SerializeToString()).encode(
        [word for word, _ in counted]
    )
    uses = [0] * len(texts)
    wanted: Counter[str] = Counter()
    for (_, count), row in zip(counted, rows, strict=True):
        for i in row:
            uses[i] += count
        if len(row) > 1 and row[0] == space and normal[row[1]]:
            wanted[SPACE + texts[row[1]]] += count
    return uses, wanted


def _valid(piece: str, spec: Any) -> bool:
    """What spm's IsValidSentencePiece would say of "▁" + a valid piece: only its length and,
    with split_digits, a digit (a digit piece may not grow) can make it invalid."""
    if len(piece) > spec.max_sentencepiece_length:
        return False
    return not (spec.split_digits and any(ch.isdecimal() for ch in piece))


def _sort_by_score(
    model: ModelProto, texts: list[str], scores: list[float], normal: list[bool]
) -> None:
    """The normal pieces, with their new ``texts`` and ``scores``, back in spm's Unigram order
    (best score first, ties in id order) within their own ids. Normal pieces differ only in
    text and score, so those two are all that is written."""
    slots = [i for i, is_normal in enumerate(normal) if is_normal]
    ordered = sorted(slots, key=lambda i: -scores[i])
    pieces = model.pieces
    for slot, i in zip(slots, ordered, strict=True):
        pieces[slot].piece = texts[i]
        pieces[slot].score = scores[i]
