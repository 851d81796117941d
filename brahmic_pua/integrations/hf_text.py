"""How :class:`~brahmic_pua.integrations.hf.BrahmicPuaTokenizer` cuts a text at its added
tokens, encodes the stretches between them and decodes them back: transformers'
``legacy=False`` rule around the tokens, spm's at the text's start, written once for encoding,
offsets and decoding.

transformers splits a text at its added and special tokens (``<s>``, ``<extra>``) and encodes
each stretch between them on its own. Encoding every stretch as a whole text, as spm does,
gives each one spm's dummy prefix, a ``▁`` that stands for no character: ``"ఇది <s> ఒక"`` became
``▁ఇది ▁ <s> ▁ ▁ఒక``, the stretch ``" ఒక"`` spelled ``▁`` (the dummy) + ``▁ఒక`` (its own space).
transformers' ``legacy=False`` (LlamaTokenizer, and the ``Metaspace`` pre-tokenizer's
``prepend_scheme="first"`` of its fast tokenizers) gives the dummy prefix to the text's start
only:

* the stretch that starts the text is encoded exactly as spm encodes a text, a space it starts
  with included (``" క్రాంతి"``: the dummy ``▁``, then the space's ``▁``), so a text without
  added tokens gets exactly the processor's (and stock spm's) ids and ``decode`` gives its
  spaces back. transformers' ``Metaspace`` pipeline writes no dummy before a text that starts
  with a space (``▁క్రాంతి``), and so loses that space in ``decode``;
* a stretch after an added token gets no dummy prefix: its space, if it has one, is its first
  word's ``▁``, and without one its first word has no ``▁`` (``"<s>ఒక"``: ``<s> ఒ క``);
* the ``▁`` of a space *before* an added token stays (``▁ఇది ▁ <s>``): brahmic_pua models keep
  every space (``remove_extra_whitespaces=False``), and without it ``"ఇది <s>"`` and
  ``"ఇది<s>"`` would get the same ids. transformers' own ``legacy=False`` pipeline gives the same
  ids on a model that keeps spaces. On a model that removes extra whitespace (spm's default for
  plain models) the space is removed, as spm removes a text's trailing space.

Decoding mirrors it: the ids before the first literal token decode as spm decodes a text (the
dummy ``▁`` is no space), every run after one decodes with its first ``▁`` as a space. So
``decode(encode(text)) == N(text)`` for every text with added tokens in it.

Where the text is cut: transformers' trie finds the added tokens (the leftmost match, the
longest there), anywhere in the text; here an added token that is not special matches only
where it starts and ends on a cluster boundary of the text (:func:`cut`), so no token splits a
cluster (guarantee 2): with ``భారత`` added, ``"భారతి"`` is the model's pieces of the word, not
``భారత`` and the vowel sign ``ి`` in bytes. Special tokens (``<s>``, ``</s>``, tokens added as
special) match anywhere, as in transformers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any, Protocol

from brahmic_pua.model.model_proto import model_pb2
from brahmic_pua.runtime.processor import SentencePieceProcessor
from brahmic_pua.segment import segment as clusters

#: A token's characters in the caller's string: ``text[start:end]``.
Span = tuple[int, int]
#: transformers' trie's mark of a node where a token ends (``Trie.data``: ``{"a": {"": 1}}``).
ENDS = ""


class TrieLike(Protocol):
    """What the cut reads of transformers' ``Trie`` (``tokenizer.tokens_trie``): ``split``,
    and its nested ``data`` dicts as its docstring shows them."""

    data: dict[str, Any]

    def split(self, text: str) -> list[str]: ...


#: A piece of a cut text, and whether it is a match of an added token (else a stretch of text).
Piece = tuple[str, bool]


def cut(
    text: str, trie: TrieLike, anywhere: Callable[[], Container[str]], policy: str
) -> list[Piece]:
    """``text`` cut into stretches and added tokens, as ``trie.split`` cuts it (the leftmost
    match, the longest there), except that a token not in ``anywhere()`` (the special tokens)
    matches only where it starts and ends on a cluster boundary of ``text`` (``segment(text,
    policy)``). transformers matches added tokens before the model sees the text, so
    ``భారత`` added would cut ``"భారతి"`` before its vowel sign, which the model then spells in
    bytes: a token inside a cluster.

    The trie's cut is kept where every token it found is allowed (always where it found none),
    each piece that is a token's text a match, as transformers takes it; else the text is
    walked again on the same trie, taking the leftmost longest allowed match each time. (The
    trie's own lookahead can resume a partial match that failed at the character before, and
    so cut out a piece that is no token, missing a token in it, where overlapping tokens
    share characters; the walk does not copy that.) A token's text left in a stretch by the
    walk is text: the flag, not the piece's text, says which pieces are matches."""
    out: list[Piece] = []
    allowed = None  # found on the first match: most texts have none
    at = 0
    for piece in trie.split(text):
        matched = _holds(trie.data, piece)
        if matched:
            allowed = allowed or _allowed(text, anywhere(), policy)
            if not allowed(at, at + len(piece)):  # walked again from the stretch before it
                if out and not out[-1][1]:
                    at -= len(out.pop()[0])
                return out + _walk(text, trie.data, allowed, at)
        out.append((piece, matched))
        at += len(piece)
    return out


def _holds(data: dict[str, Any], word: str) -> bool:
    """Whether ``word`` is one of the trie's tokens."""
    node = data
    for char in word:
        found = node.get(char)
        if found is None:
            return False
        node = found
    return ENDS in node


def trie_tokens(trie: TrieLike) -> set[str]:
    """Every token ``trie`` holds, read off its ``data`` (transformers keeps a set of them, but
    private: ``Trie._tokens``)."""
    found: set[str] = set()
    nodes: list[tuple[str, dict[str, Any]]] = [("", trie.data)]
    while nodes:
        prefix, node = nodes.pop()
        for char, child in node.items():
            if char == ENDS:
                found.add(prefix)
            else:
                nodes.append((prefix + char, child))
    return found


def _allowed(text: str, anywhere: Container[str], policy: str) -> Callable[[int, int], bool]:
    """Whether the token ``text[start:end]`` may be cut out: a special one anywhere, any
    other one only on cluster boundaries."""
    boundaries = {0, *accumulate(map(len, clusters(text, policy)))}

    def allowed(start: int, end: int) -> bool:
        return (start in boundaries and end in boundaries) or text[start:end] in anywhere

    return allowed


def _walk(
    text: str, data: dict[str, Any], allowed: Callable[[int, int], bool], at: int
) -> list[Piece]:
    """``text[at:]`` as the allowed matches and the stretches between them: from each
    position the longest allowed match on the trie, the walk going on after it; a position
    without one is text. Positions where no token starts are skipped by one search."""
    out: list[Piece] = []
    starts = re.compile("[" + "".join(map(re.escape, data)) + "]")
    start, size = at, len(text)
    found = starts.search(text, at)
    while found is not None:
        at = found.start()
        node, end = data, None
        for ahead in range(at, size):
            step = node.get(text[ahead])
            if step is None:
                break
            node = step
            if ENDS in node and allowed(at, ahead + 1):
                end = ahead + 1
        if end is None:
            found = starts.search(text, at + 1)
            continue
        if start < at:
            out.append((text[start:at], False))
        out.append((text[at:end], True))
        start = end
        found = starts.search(text, end)
    if start < size:
        out.append((text[start:], False))
    return out


class AddedTokenLike(Protocol):
    """What the split reads of transformers' ``AddedToken``."""

    lstrip: bool
    rstrip: bool
    single_word: bool


@dataclass
class Part:
    """A stretch of the text, or an added token (``token`` its id): the characters of
    ``segments``, spans of the caller's string, in order. One segment but where transformers
    glues a ``single_word`` token to a neighbour it stripped, which leaves a gap."""

    segments: list[list[int]]
    token: int | None = None
    #: Whether the cut found an added token here (:func:`cut`); a stretch of text if not.
    matched: bool = False

    def text(self, source: str) -> str:
        return "".join(source[start:end] for start, end in self.segments)

    def strip(self, source: str, left: bool) -> None:
        """Drop the whitespace at one end, as ``str.lstrip``/``str.rstrip`` would."""
        text = self.text(source)
        drop = len(text) - len(text.lstrip() if left else text.rstrip())
        segments = self.segments if left else self.segments[::-1]
        for segment in segments:
            take = min(drop, segment[1] - segment[0])
            segment[0 if left else 1] += take if left else -take
            drop -= take
        self.segments = [segment for segment in self.segments if segment[0] < segment[1]]

    def starts_text(self) -> bool:
        return bool(self.segments) and self.segments[0][0] == 0

    def to_source(self, spans: list[Span]) -> list[Span]:
        """Spans in this part's text as spans of the caller's string."""
        if len(self.segments) == 1:
            shift = self.segments[0][0]
            return [(start + shift, end + shift) for start, end in spans]
        starts, at = [], 0
        for start, end in self.segments:
            starts.append((at, start))
            at += end - start

        def place(offset: int) -> int:
            base, start = next((b, s) for b, s in reversed(starts) if b <= offset)
            return start + offset - base

        return [(place(start), place(end)) for start, end in spans]


def split(
    source: str,
    pieces: Sequence[Piece],
    encoder: Mapping[str, int],
    decoder: Mapping[int, AddedTokenLike],
) -> list[Part]:
    """``source`` cut (:func:`cut`) into ``pieces`` (stretches and added tokens, in order),
    with ``PreTrainedTokenizer.tokenize``'s handling of ``lstrip``, ``rstrip`` and
    ``single_word`` applied, each part keeping where its characters are in ``source``."""
    parts, at = [], 0
    for piece, matched in pieces:
        parts.append(Part([[at, at + len(piece)]], matched=matched))
        at += len(piece)
    for i, part in enumerate(parts):
        id = encoder.get(part.text(source)) if part.matched else None
        added = None if id is None else decoder.get(id)
        if added is None:
            continue
        left = parts[i - 1] if i > 0 else None
        right = parts[i + 1] if i < len(parts) - 1 else None
        if added.rstrip and right is not None and right.segments:
            right.strip(source, left=True)
        if added.lstrip and left is not None and left.segments:
            left.strip(source, left=False)
        if added.single_word:
            if left is not None and left.segments and left.text(source)[-1] != " ":
                left.segments += part.segments
                part.segments = []
            elif right is not None and right.segments and right.text(source)[0] != " ":
                right.segments = part.segments + right.segments
                part.segments = []
    for part in parts:  # as transformers decides: a match whose text is an added token is one
        part.token = encoder.get(part.text(source)) if part.matched else None
    return [part for part in parts if part.segments]


@dataclass
class Encoded:
    """One text's ids, and when asked for, their spans in it and the word each is in."""

    ids: list[int] = field(default_factory=list)
    spans: list[Span] | None = None
    words: list[int] = field(default_factory=list)


class Stretches:
    """The model's processor and its twin without the dummy prefix, and the rule of which
    encodes or decodes a stretch."""

    def __init__(self, processor: SentencePieceProcessor) -> None:
        self.processor = processor
        proto = model_pb2.ModelProto.FromString(processor.serialized_model_proto())
        spec = proto.normalizer_spec
        #: spm's normalizer drops a space at either end and squeezes runs of them.
        self.collapses = bool(spec.remove_extra_whitespaces)
        self.bare = processor
        if spec.add_dummy_prefix:
            spec.add_dummy_prefix = False
            self.bare = SentencePieceProcessor(model_proto=proto.SerializeToString())

    def for_text(self, text: str, starts_text: bool) -> SentencePieceProcessor:
        """The processor that encodes ``text``: the model's own (spm's dummy prefix) where the
        stretch starts the text, whatever it starts with; also where the model squeezes spaces
        and the stretch starts with one (spm strips that space and writes the dummy ``▁`` in
        its place, the one ``▁`` the stretch then has)."""
        prefixed = starts_text or (self.collapses and text.startswith(" "))
        return self.processor if prefixed else self.bare

    def encode(self, text: str, starts_text: bool) -> list[int]:
        ids: list[int] = self.for_text(text, starts_text).encode(text)
        return ids

    def encode_batch(self, texts: Sequence[str], starts_text: bool) -> list[list[int]]:
        """``[self.encode(text, starts_text) for text in texts]``, with one ``encode`` call of
        each processor on the list of texts it encodes (spm's batch encode, not a call a text)."""
        chosen = [self.for_text(text, starts_text) for text in texts]
        out: list[list[int]] = [[] for _ in texts]
        both = [self.processor] if self.bare is self.processor else [self.processor, self.bare]
        for processor in both:
            at = [i for i, taken in enumerate(chosen) if taken is processor]
            if at:
                for i, ids in zip(at, processor.encode([texts[i] for i in at]), strict=True):
                    out[i] = ids
        return out

    def encode_with_spans(self, text: str, starts_text: bool) -> tuple[list[int], list[Span]]:
        """Ids and each one's characters in ``text``: the processor's
        ``encode(text, out_type="offset_mapping")`` (a piece's span holds the space its ``▁``
        stands for; spm's dummy ``▁`` has none)."""
        found = self.for_text(text, starts_text).encode(text, out_type="offset_mapping")
        return list(found["ids"]), [(int(start), int(end)) for start, end in found["offsets"]]

    def decode(self, items: list[Any], starts_text: bool) -> str:
        """Ids or pieces of one run: a text's first run as spm decodes a text, a later one
        with its first ``▁`` as the space it stands for."""
        processor = self.processor if starts_text else self.bare
        return str(processor.decode(items))

    def join(self, items: Sequence[Any], literal: Callable[[Any], str | None]) -> str:
        """Runs of ids or pieces decoded, with the text of literal tokens between them."""
        parts: list[str] = []
        run: list[Any] = []
        for item in items:
            text = literal(item)
            if text is None:
                run.append(item)
            else:
                parts += [self.decode(run, not parts), text]
                run = []
        return "".join([*parts, self.decode(run, not parts)])
