"""A user's ``pretokenizer=`` (sentencepiece 0.2.3's hook) on clusters, not on codes.

spm calls a pretokenizer with each training sentence after its normalizer, and learns no piece
across the splits it returns. A brahmic_pua model's normalizer maps each cluster to a Private
Use code, so the sentence spm holds is codes: a user's regex or word splitter would see Private
Use characters and could not split by script, word or punctuation. :class:`ClusterPretokenizer`
is what spm is given instead. It shows the user's callable the sentence as text (each code as
its cluster, an escape as the character it stands for, ``▁`` where spm has one, as stock shows
it), and cuts spm's sentence where the user cut the text, so spm itself keeps every piece inside
one split, exactly as it does for stock.

A cut inside a cluster cannot be kept: the cluster is one code, one symbol to spm, and that is
what keeps it whole (guarantee 2). Such cuts are dropped and counted (the trainer says how many
in one line). Every other cut is kept, so no piece of the model crosses a split the user made
between clusters.

As in stock, the pieces must concatenate to the text they were given, else training stops with
one line naming the sentence; with ``allow_inconsistent_pretokenization=True`` they need not,
and spm trains on them as given, each mapped to codes the way spm's normalizer maps text
(:func:`training_form`). An exception in the user's callable stops the training with stock's
``RuntimeError("Pretokenizer failed: ...")``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from brahmic_pua.codec import PUACodec
from brahmic_pua.codec.layout import ESCAPE, ESCAPED_LITERALS, PRIVATE_USE
from brahmic_pua.normalize import Normalizer

SPACE = "\u2581"  # spm's space, which a pretokenizer sees and returns as stock's does


def training_form(text: str, codec: PUACodec, normalizer: Normalizer | None = None) -> str:
    """``text`` as spm's training normalizer leaves it: N, then each cluster as its code and
    literal codes escaped, with ``▁`` kept as spm's space (a pretokenizer's piece, a delimiter or
    a seed piece is written in spm's normalized form, where ``▁`` is a space)."""
    parts = text.split(SPACE)
    return SPACE.join(
        codec.encode(normalizer(part) if normalizer is not None else part) for part in parts
    )


class PretokenizerFailed(RuntimeError):
    """The user's pretokenizer raised: stock's ``RuntimeError("Pretokenizer failed: ...")``."""


class InconsistentPretokenization(ValueError):
    """The user's pieces do not join to the sentence they were given (stock's check)."""


class ClusterPretokenizer:
    """The callable spm is given for a user's ``pretokenizer``, for one training run.

    ``codec`` is the codec of spm's training rules. spm calls this from its worker threads
    (holding the GIL); the first failure is kept in :attr:`failure` and raised again by the
    trainer once spm returns, since spm replaces it with its own message."""

    def __init__(
        self,
        user: Callable[[str], Iterable[Any]],
        codec: PUACodec,
        allow_inconsistent: bool = False,
    ) -> None:
        self.user = user
        self.codec = codec
        self.allow_inconsistent = allow_inconsistent
        self.failure: BaseException | None = None
        self.cuts_inside_clusters = 0
        self._calls = 0
        self._lock = threading.Lock()
        shown = {code: cluster for code, cluster in codec.code_pairs()}
        shown.update({stand_in: literal for literal, stand_in in ESCAPED_LITERALS.items()})
        self._shown = shown

    def __call__(self, text: str) -> list[str]:
        with self._lock:
            self._calls += 1
            number = self._calls
        try:
            return self._split(text, number)
        except BaseException as error:
            with self._lock:
                if self.failure is None:
                    self.failure = error
            raise

    def error(self) -> BaseException | None:
        """The error training stops with, in stock's type, or None."""
        failure = self.failure
        if failure is None or isinstance(failure, InconsistentPretokenization):
            return failure
        return PretokenizerFailed(f"Pretokenizer failed: {type(failure).__name__}: {failure}")

    def _split(self, text: str, number: int) -> list[str]:
        plain, boundaries = self._view(text)
        chunks = [_chunk(item) for item in self.user(plain)]
        joined = "".join(chunks)
        if joined != plain:
            if not self.allow_inconsistent:
                raise InconsistentPretokenization(
                    f"pretokenizer output does not join to its input (sentence {number}): "
                    f"joined={_short(joined)}, original={_short(plain)}; return pieces that "
                    "concatenate to the text, or pass allow_inconsistent_pretokenization=True"
                )
            return [training_form(chunk, self.codec) for chunk in chunks]
        if boundaries is None:  # no code in the sentence: the text is spm's
            return chunks
        pieces, start, at, inside = [], 0, 0, 0
        for chunk in chunks[:-1]:
            at += len(chunk)
            cut = boundaries.get(at)
            if cut is None:  # inside a cluster: one code, which no cut may split
                inside += 1
                continue
            pieces.append(text[start:cut])
            start = cut
        pieces.append(text[start:])
        if inside:
            with self._lock:
                self.cuts_inside_clusters += inside
        return pieces

    def _view(self, text: str) -> tuple[str, dict[int, int] | None]:
        """The sentence as text, and for each offset of that text where a symbol of spm's
        sentence starts (or ends the text), the offset in spm's sentence; None when the two
        are the same (no Private Use character in it)."""
        if PRIVATE_USE.search(text) is None:
            return text, None
        shown = self._shown
        parts: list[str] = []
        boundaries: dict[int, int] = {}
        i = at = 0
        size = len(text)
        while i < size:
            boundaries.setdefault(at, i)
            ch = text[i]
            if ch == ESCAPE and i + 1 < size:  # an escaped literal: the character itself
                part = text[i + 1]
                i += 2
            else:
                part = shown.get(ch, ch)
                i += 1
            parts.append(part)
            at += len(part)
        boundaries[at] = size
        return "".join(parts), boundaries


def _chunk(item: Any) -> str:
    """One piece a pretokenizer returned: str, or UTF-8 bytes (stock takes both)."""
    if isinstance(item, bytes):
        return item.decode("utf-8")
    if not isinstance(item, str):
        raise TypeError(f"the pretokenizer returned a {type(item).__name__}, not str")
    return item


def _short(text: str, most: int = 60) -> str:
    return repr(text if len(text) <= most else text[:most] + "…")


__all__ = [
    "ClusterPretokenizer",
    "InconsistentPretokenization",
    "PretokenizerFailed",
    "training_form",
]
