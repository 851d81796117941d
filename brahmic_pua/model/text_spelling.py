"""A brahmic_pua BPE model spelled in text: the same pieces and ids with no cluster codes, so
that programs that read pieces but not the normalizer (llama.cpp, tokenizer.json) give our ids.

The cluster codes are only needed while SentencePiece trains: once the pieces are learned, each
piece's codes can be written as the clusters they stand for. SentencePiece's BPE then has to
rebuild every cluster from its characters before any piece spans two, which it does when, for
every cluster of the table, the chain of its prefixes from its first character (``క``, ``కా``,
``కాం``) are pieces scored above every other piece: BPE merges the adjacent pair whose
concatenation is the best-scoring piece, so every chain completes first. Why that gives the
same ids, for a ``fixtoken`` model:

* A fixtoken cluster is one starter and the dependents that may follow it; the model's rules
  (longest match over the table) give, at each starter, the longest table cluster the text
  holds there. Chain merges give the longest prefix whose every prefix is a piece: the same
  cluster once the table is closed under prefixes (each of them a cluster with its own piece).
* A chain piece holds one starter, at its start, so no chain merge crosses into the next
  cluster; once all are done each cluster is one symbol, as its code was, and the other pieces
  (spelled, scored in their order as before) merge the same symbols.

Where the proof does not hold, the code stays: a cluster with a prefix that has no piece of its
own (a table that is not closed under prefixes: models trained before brahmic_pua closed it),
a cluster that starts with a dependent (an orphan mark, whose piece is disabled: spm writes the
bytes of its code) and a code no piece holds. The normalizer keeps every rule of the model with
its targets spelled the same way (N's rules: NFC, folding; the escapes of literal ▁, U+2585 and
Private Use characters), so stock sentencepiece on raw text gives our ids exactly; a program
without the normalizer gives them on N(text) where no code stayed and no escape is needed
(docs/runtimes.md says what differs). Unigram is refused: Viterbi may take a long piece that
ends inside a cluster plus an unknown character over several short pieces (measured: Telugu
1,908 of 2,300 lines).
"""

from __future__ import annotations

import math
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from brahmic_pua.codec import PUACodec
from brahmic_pua.codec.layout import ESCAPE
from brahmic_pua.io.wording import counted
from brahmic_pua.model.compile import compile_rules
from brahmic_pua.model.display import DISABLED_PREFIX, KEPT_SPACE_PREFIX, mark_private_use
from brahmic_pua.model.manifest import Manifest, read
from brahmic_pua.model.model_proto import MANIFEST, NORMAL, UNUSED, USER_DEFINED, type_of
from brahmic_pua.model.rule_check import rules_normalizer
from brahmic_pua.model.rules import rule_lines
from brahmic_pua.orthography.charclass import STARTERS
from brahmic_pua.orthography.classify import classify

#: The normalizer's name in a text-spelled model (spm keeps it as information only).
NAME: Final[str] = "brahmic_pua_text"
_ESCAPED = re.compile(f"{ESCAPE}(.?)", re.DOTALL)


class NotSpellable(ValueError):
    """A model that has no text-spelled form, with the reason in one line."""


@dataclass(frozen=True)
class TextSpelled:
    """A text-spelled model (:func:`spell_in_text`) and what stays coded in it."""

    #: The serialized ModelProto: the same ids, no manifest (a plain SentencePiece model).
    data: bytes
    #: Clusters that keep their Private Use code, in code order: they, or a prefix of theirs,
    #: have no piece of their own. spm's normalizer still writes their code, so stock gives our
    #: ids; a program without the normalizer spells their characters otherwise.
    coded: tuple[str, ...]
    #: How many clusters are spelled in text.
    spelled: int
    #: The model's manifest (the text-spelled model has none): its codec and N, for what is
    #: built from the spelled model (a tokenizer.json) without reading the model again.
    manifest: Manifest

    def summary(self) -> str:
        """One line: what is spelled and what stays coded."""
        line = f"{counted(self.spelled, 'cluster')} spelled in text"
        if self.coded:
            shown = ", ".join(self.coded[:5]) + (", …" if len(self.coded) > 5 else "")
            line += (
                f"; {counted(len(self.coded), 'cluster')} keep their code (no piece of their "
                f"own, or a prefix without one: {shown}), so only a program that applies "
                "the model's normalizer gives our ids on text that holds them"
            )
        return line


def spell_in_text(data: bytes, source: str = "the model") -> TextSpelled:
    """The text-spelled form of a serialized brahmic_pua BPE model (module docstring);
    :class:`NotSpellable` or :class:`~brahmic_pua.model.manifest.ModelFileError` in one line
    for anything else."""
    message, manifest = read(data, source)
    if manifest is None:
        raise NotSpellable(
            f"{source} is a plain SentencePiece model (no brahmic_pua manifest): its pieces are "
            "text already, use it as it is"
        )
    kind = type_of(message)
    if kind != "bpe":
        raise NotSpellable(
            f"{source} is a {kind} model: only a BPE model can be spelled in text (a Unigram "
            "model's Viterbi search may end a piece inside a cluster); train with "
            "model_type=bpe, or use the model as it is (stock sentencepiece gives our ids)"
        )
    codec = manifest.codec
    if codec.policy != "fixtoken":
        raise NotSpellable(
            f"{source} segments with the {codec.policy} policy, whose clusters can hold another "
            "cluster's start (క్ష = క్ + ష), so BPE on text cannot rebuild them: only "
            "fixtoken models can be spelled in text"
        )
    scores = [float(p.score) for p in message.pieces]
    if not all(math.isfinite(s) for s in scores):
        raise NotSpellable(f"{source} has a piece whose score is not a finite number")
    own = _own_pieces(message, codec)
    spelled = _spelled_clusters(codec, own)
    table = {ord(code): cluster for code, cluster in codec.code_pairs() if cluster in spelled}
    spell = _speller(table)
    for piece in message.pieces:
        if piece.type in (NORMAL, USER_DEFINED, UNUSED):
            text = spell(piece.piece)
            if piece.type == UNUSED:  # never written: an escape code in it shown by name
                text = mark_private_use(text)
            piece.piece = text
    _distinct(message, source)
    chains = [
        (c, own[code])
        for code, c in codec.code_pairs()
        if c in spelled and code in own and len(c) > 1
    ]
    _chains_first(message, [i for c, i in chains if classify(c[0]) not in STARTERS])
    _chains_first(message, [i for c, i in chains if classify(c[0]) in STARTERS])
    _spelled_rules(message, table, spell)
    message.ClearExtension(MANIFEST)
    coded = tuple(c for _, c in codec.code_pairs() if c not in spelled)
    return TextSpelled(message.SerializeToString(), coded, len(spelled), manifest)


def _own_pieces(message: Any, codec: PUACodec) -> dict[str, int]:
    """Code → id of the NORMAL piece that is that code alone."""
    own = {}
    for i, piece in enumerate(message.pieces):
        if piece.type == NORMAL and len(piece.piece) == 1 and codec.cluster_of(piece.piece):
            own[piece.piece] = i
    return own


def _spelled_clusters(codec: PUACodec, own: dict[str, int]) -> set[str]:
    """The clusters whose chain is complete: a piece of their own, a starter first, and every
    prefix of two or more characters a spelled cluster too."""
    spelled: set[str] = set()
    for code, cluster in sorted(codec.code_pairs(), key=lambda pair: len(pair[1])):
        # a cluster that starts with a dependent (a lone mark or joiner) has no chain to
        # build: it is spelled, and its piece, disabled or joiner-led, is scored apart
        starts = classify(cluster[0]) in STARTERS
        if not starts or (
            code in own and all(cluster[:k] in spelled for k in range(2, len(cluster)))
        ):
            spelled.add(cluster)
    return spelled


def _speller(table: dict[int, str]) -> Callable[[str], str]:
    """Text with each spelled code as its cluster; a character after an escape stays itself
    (an escaped literal code in a normalizer target is the literal, not a cluster)."""

    def spell(text: str) -> str:
        if ESCAPE not in text:
            return text.translate(table)
        parts = _ESCAPED.split(text)
        return "".join(
            part.translate(table) if i % 2 == 0 else ESCAPE + part for i, part in enumerate(parts)
        )

    return spell


def _distinct(message: Any, source: str) -> None:
    """Pieces spelled alike: two usable ones make the model unspellable (spm refuses duplicate
    pieces); a disabled one, never written, moves behind one more prefix until it is alone."""
    taken: dict[str, int] = {}
    for i, piece in enumerate(message.pieces):
        if piece.type != UNUSED:
            if piece.piece in taken:
                raise NotSpellable(
                    f"{source}: pieces {taken[piece.piece]} and {i} are both spelled "
                    f"{piece.piece!r} in text"
                )
            taken[piece.piece] = i
    prefix = DISABLED_PREFIX if message.normalizer_spec.escape_whitespaces else KEPT_SPACE_PREFIX
    for i, piece in enumerate(message.pieces):
        if piece.type == UNUSED:
            while piece.piece in taken:
                piece.piece = prefix + piece.piece
            taken[piece.piece] = i


def _chains_first(message: Any, chain: list[int]) -> None:
    """Score the chain pieces above every other piece, keeping their order among themselves
    and every other piece's score (BPE compares only the scores of pieces it could make).
    Called for the chains of clusters that start with a dependent (a ZWJ), then for those of
    clusters that start with a starter, which so come first: a starter's chain takes a ZWJ
    that follows it before the ZWJ's own chain could."""
    if not chain:
        return
    top = max(float(p.score) for p in message.pieces)
    low = min(float(message.pieces[i].score) for i in chain)
    for i in chain:
        piece = message.pieces[i]
        piece.score = float(piece.score) - low + top + 1.0


def _spelled_rules(message: Any, table: dict[int, str], spell: Callable[[str], str]) -> None:
    """The normalizer's rules with targets spelled; the denormalizer's without the spelled
    codes (their pieces are text now). Compiled by spm itself (model.compile)."""
    forward = []
    for source, target in _decompiled(message.normalizer_spec):
        written = spell(target)
        if written != source:  # spm refuses a rule that changes nothing
            forward.append((source, written))
    backward = [
        (source, target)
        for source, target in _decompiled(message.denormalizer_spec)
        if not (len(source) == 1 and ord(source) in table)
    ]
    with tempfile.TemporaryDirectory(prefix="brahmic_pua_spell_") as work:
        maps = compile_rules(rule_lines(sorted(forward)), rule_lines(sorted(backward)), work)
    message.normalizer_spec.precompiled_charsmap = maps[0]
    message.denormalizer_spec.precompiled_charsmap = maps[1] if backward else b""
    message.normalizer_spec.name = NAME
    message.denormalizer_spec.name = NAME


def _decompiled(spec: Any) -> list[tuple[str, str]]:
    """A normalizer spec's rules as (source, target) pairs (none without a compiled map)."""
    normalizer = rules_normalizer(spec)
    if normalizer is None:
        return []
    return [(str(s), str(t)) for s, t in normalizer.Decompile()]
