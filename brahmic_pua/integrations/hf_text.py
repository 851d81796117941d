"""How :class:`~brahmic_pua.integrations.hf.BrahmicPuaTokenizer` cuts a text at its added
tokens, encodes the stretches between them and decodes them back: transformers'
``legacy=False`` rule, written once for encoding, offsets and decoding.

transformers splits a text at its added and special tokens (``<s>``, ``<extra>``) and encodes
each stretch between them on its own. Encoding every stretch as a whole text, as spm does,
gives each one spm's dummy prefix, a ``▁`` that stands for no character: ``"ఇది <s> ఒక"`` became
``▁ఇది ▁ <s> ▁ ▁ఒక``, the stretch ``" ఒక"`` spelled ``▁`` (the dummy) + ``▁ఒక`` (its own space).
transformers' ``legacy=False`` (LlamaTokenizer, and the ``Metaspace`` pre-tokenizer's
``prepend_scheme="first"`` of its fast tokenizers) gives the dummy prefix to the text's start
only:

* the stretch that starts the text is encoded as spm encodes a text, except that a space it
  starts with is its ``▁`` (so ``" hello world"`` is ``▁hello ▁world``, the tokens of the words
  ``hello`` and ``world`` pretokenized), where spm writes a dummy ``▁`` and then the space's;
* a stretch after an added token gets no dummy prefix: its space, if it has one, is its first
  word's ``▁``, and without one its first word has no ``▁`` (``"<s>ఒక"``: ``<s> ఒ క``);
* the ``▁`` of a space *before* an added token stays (``▁ఇది ▁ <s>``): brahmic_pua models keep
  every space (``remove_extra_whitespaces=False``), and without it ``"ఇది <s>"`` and
  ``"ఇది<s>"`` would get the same ids. transformers' own ``legacy=False`` pipeline gives the same
  ids on a model that keeps spaces. On a model that removes extra whitespace (spm's default for
  plain models) the space is removed, as spm removes a text's trailing space.

Decoding mirrors it: the ids before the first literal token decode as spm decodes a text (the
dummy ``▁`` is no space), every run after one decodes with its first ``▁`` as a space. So
``decode(encode(text)) == N(text)`` for every text with added tokens in it, except that a space
that starts the text is its first ``▁`` and so not given back (as in transformers).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from brahmic_pua.model.proto import model_pb2
from brahmic_pua.runtime.processor import SentencePieceProcessor

#: A token's characters in the caller's string: ``text[start:end]``.
Span = tuple[int, int]


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
    pieces: Sequence[str],
    encoder: Mapping[str, int],
    decoder: Mapping[int, AddedTokenLike],
) -> list[Part]:
    """``source`` cut by transformers' trie into ``pieces`` (stretches and added tokens, in
    order), with ``PreTrainedTokenizer.tokenize``'s handling of ``lstrip``, ``rstrip`` and
    ``single_word`` applied, each part keeping where its characters are in ``source``."""
    parts, at = [], 0
    for piece in pieces:
        parts.append(Part([[at, at + len(piece)]]))
        at += len(piece)
    for i, part in enumerate(parts):
        id = encoder.get(part.text(source))
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
    for part in parts:  # as transformers decides: a part whose text is an added token is one
        part.token = encoder.get(part.text(source))
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
        """The processor that encodes ``text``: with spm's dummy prefix where the text starts
        with it and has no space of its own to be its ``▁``; also where the model squeezes
        spaces and the stretch starts with one (spm strips that space and writes the dummy
        ``▁`` in its place, the one ``▁`` the stretch then has)."""
        spaced = text.startswith(" ")
        prefixed = (starts_text and not spaced) or (spaced and self.collapses)
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
