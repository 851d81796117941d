"""A Hugging Face transformers tokenizer for brahmic_pua models (``pip install 'brahmic-pua[hf]'``).

transformers' own SentencePiece tokenizers fail on a brahmic_pua model (examples/hf_parity.py):
the slow ``SentencePieceBackend`` gets the ids right but decodes the pieces itself, without the
model's denormalizer, so text and tokens come back as Private Use code points; Llama/T5/Auto
tokenizers convert the model to a ``tokenizers`` pipeline and get the ids wrong.
:class:`BrahmicPuaTokenizer` runs every encode and decode through
:class:`brahmic_pua.SentencePieceProcessor`: ids are exactly brahmic_pua's (and stock spm's),
tokens are readable pieces and ``decode`` gives the (normalized) text back.

Loading::

    tok = BrahmicPuaTokenizer("te.model")               # or .from_pretrained("te.model")
    tok.save_pretrained("dir")                          # brahmic_pua.model, configs, tokenizer.json
    tok = BrahmicPuaTokenizer.from_pretrained("dir")    # explicit class: no remote code
    tok = AutoTokenizer.from_pretrained("dir", trust_remote_code=True)

``save_pretrained`` writes a three-line module, ``tokenization_brahmic_pua.py``, that imports
this class from the installed package, and points ``auto_map`` at it: AutoTokenizer with
``trust_remote_code=True`` then runs the installed brahmic_pua, never a copy of it. For a BPE
model it also writes a ``tokenizer.json`` that gives the same ids (:mod:`.hf_fast`), and
names ``PreTrainedTokenizerFast`` as the class, so ``AutoTokenizer.from_pretrained(dir)``
without remote code loads a fast tokenizer.

Special tokens follow LlamaTokenizer: ``<s>`` before every sequence, no ``</s>``
(``add_bos_token=True, add_eos_token=False``; T5's convention is ``False, True``). unk, bos,
eos and pad are the model's own pieces at the model's ids; a model trained without a pad piece
(spm's default ``pad_id=-1``) has no pad token, so set one before padding, as for Llama:
``tok.pad_token = tok.eos_token``, or train with ``pad_id=3``. As in every transformers
tokenizer, a special or added token written in the text is encoded as that token, and the
text around it as transformers' ``legacy=False`` tokenizers encode it (the dummy ``▁`` at the
text's start only: :mod:`brahmic_pua.integrations.hf_text`); ``split_special_tokens=True``
encodes the tokens' text as text. An added token that is not special is that token only where
it starts and ends on a cluster boundary (so ``భారత`` added leaves ``"భారతి"`` whole); special
tokens match anywhere. Every text without added tokens gets exactly brahmic_pua's ids, a text
that starts with a space too.

A batch of texts, ``tok(texts, ...)``, is encoded in one pass where it can
(:mod:`brahmic_pua.integrations.hf_batch`), key for key as transformers' row-at-a-time path.

``return_offsets_mapping=True`` gives each token its characters in the caller's string (the
processor's offsets; special tokens and padding ``(0, 0)``), and the output's ``word_ids()``,
``sequence_ids()``, ``tokens()``, ``char_to_token()``... work as a fast tokenizer's
(:mod:`brahmic_pua.integrations.hf_encoding`).

Chat templates are transformers' (``chat_template=``, saved as ``chat_template.jinja``); none
is set unless given, and :data:`CHAT_TEMPLATE` is a simple one for a model trained without
one, its turns marked by the model's own ``<s>`` and ``</s>``.
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

try:
    from transformers import BatchEncoding, PreTrainedTokenizer
    from transformers.utils import PaddingStrategy
except ModuleNotFoundError as error:
    if error.name != "transformers":
        raise
    raise ImportError("brahmic_pua.hf needs transformers: pip install 'brahmic-pua[hf]'") from None

from brahmic_pua.integrations.hf_batch import encode_batch
from brahmic_pua.integrations.hf_encoding import (
    ROW_MAPS,
    RowMaps,
    row_maps,
    with_spans,
    word_starts,
)
from brahmic_pua.integrations.hf_fast import FAST_FILE, point_at_fast, save_fast_file
from brahmic_pua.integrations.hf_files import (
    AUTO_MODULE,
    AUTO_MODULE_TEXT,
    MODEL_FILE,
    VOCAB_FILES_NAMES,
    prefixed_files,
    remove_earlier,
)
from brahmic_pua.integrations.hf_options import EncodeOptions
from brahmic_pua.integrations.hf_text import (
    Encoded,
    Part,
    Stretches,
    cut,
    split,
    trie_tokens,
)
from brahmic_pua.runtime.processor import SentencePieceProcessor

#: A chat template for a model trained without one (docs/huggingface.md#chat-templates): each
#: message ``<s>role: content</s>``, the prompt for a reply ``<s>assistant:``. Only the model's
#: own ``<s>`` and ``</s>`` mark the turns, so no token is added (no embedding to resize). The
#: prompt ends before the space, which the reply's first piece holds (``▁word``) as in the
#: messages the model trained on; the reply and its ``</s>`` are the ``generation`` block, the
#: tokens ``return_assistant_tokens_mask`` marks.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ bos_token }}{{ message['role'] }}:"
    "{% if message['role'] == 'assistant' %}"
    "{% generation %} {{ message['content'] }}{{ eos_token }}{% endgeneration %}"
    "{% else %} {{ message['content'] }}{{ eos_token }}{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ bos_token }}assistant:{% endif %}"
)
NO_CHAT_TEMPLATE = (
    "this tokenizer has no chat template: give the one the model was trained with, "
    "BrahmicPuaTokenizer(model, chat_template=...) or tok.chat_template = ...; for a model "
    "trained without one, chat_template=brahmic_pua.hf.CHAT_TEMPLATE "
    "(docs/huggingface.md, Chat templates)"
)
#: PythonBackend's ``special_tokens_pattern`` values for (add_bos_token, add_eos_token).
PATTERNS = {
    (False, False): "none",
    (True, False): "bos",
    (False, True): "eos",
    (True, True): "bos_eos",
}
FLAGS = {pattern: flags for flags, pattern in PATTERNS.items()}


class BrahmicPuaTokenizer(PreTrainedTokenizer):  # type: ignore[misc]
    """A slow (Python) transformers tokenizer on a brahmic_pua ``.model`` (plain spm works too).

    Encoding and decoding are the processor's, not transformers' join of pieces: no
    ``clean_up_tokenization_spaces`` and no spaces around special tokens change the text.
    """

    vocab_files_names = VOCAB_FILES_NAMES

    def __init__(
        self,
        vocab_file: str | os.PathLike[str],
        unk_token: Any = None,
        bos_token: Any = None,
        eos_token: Any = None,
        pad_token: Any = None,
        add_bos_token: bool | None = None,
        add_eos_token: bool | None = None,
        special_tokens_pattern: str | None = None,
        **kwargs: Any,
    ) -> None:
        """``special_tokens_pattern`` is what ``save_pretrained`` records of the two flags
        (transformers drops ``add_bos_token``/``add_eos_token`` from a saved config); an
        explicit flag overrides it."""
        self.vocab_file = str(vocab_file)
        self.sp = SentencePieceProcessor(model_file=self.vocab_file)
        self._text = Stretches(self.sp)
        #: The added tokens' texts, and one pattern that finds any of them (the batch path).
        self._added_search: tuple[frozenset[str], re.Pattern[str]] | None = None
        self._base_vocab = {self.sp.id_to_piece(i): i for i in range(len(self.sp))}
        given = {"unk_token": unk_token, "bos_token": bos_token, "eos_token": eos_token}
        given["pad_token"] = pad_token
        ids = {"unk_token": self.sp.unk_id(), "bos_token": self.sp.bos_id()}
        ids |= {"eos_token": self.sp.eos_id(), "pad_token": self.sp.pad_id()}
        tokens = {  # the model's piece where the caller gave none and the model has one
            name: self.sp.id_to_piece(ids[name]) if value is None and ids[name] >= 0 else value
            for name, value in given.items()
        }
        if special_tokens_pattern is not None and special_tokens_pattern not in FLAGS:
            raise ValueError(
                f"special_tokens_pattern {special_tokens_pattern!r}: this tokenizer adds only "
                f"<s> and </s>, so it takes one of {', '.join(FLAGS)}"
            )
        bos, eos = FLAGS[special_tokens_pattern or PATTERNS[tokens["bos_token"] is not None, False]]
        bos = bos if add_bos_token is None else add_bos_token
        eos = eos if add_eos_token is None else add_eos_token
        kwargs.setdefault("clean_up_tokenization_spaces", False)
        super().__init__(**tokens, special_tokens_pattern=PATTERNS[bos, eos], **kwargs)
        self._record_flags()
        #: What ``save_pretrained`` writes to the config from ``init_kwargs``: AutoTokenizer's
        #: pointer to the saved shim module.
        self.init_kwargs["auto_map"] = {
            "AutoTokenizer": [f"{AUTO_MODULE}.{type(self).__name__}", None]
        }

    @classmethod
    def _from_pretrained(
        cls,
        resolved_vocab_files: dict[str, Any],
        pretrained_model_name_or_path: Any,
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        """A directory written by ``save_pretrained(dir, filename_prefix=P)`` holds
        ``P-brahmic_pua.model`` and ``P-tokenizer_config.json``, but transformers resolves only
        the unprefixed names, so it would pass ``vocab_file=None``. A local directory without
        ``brahmic_pua.model`` is read under the one prefix it holds, or under
        ``filename_prefix=P`` given to ``from_pretrained`` (to choose among several)."""
        prefix = kwargs.pop("filename_prefix", None)
        where = str(pretrained_model_name_or_path)
        if os.path.isdir(where) and (
            prefix is not None or resolved_vocab_files.get("vocab_file") is None
        ):
            resolved_vocab_files = {**resolved_vocab_files, **prefixed_files(Path(where), prefix)}
        return super()._from_pretrained(
            resolved_vocab_files, pretrained_model_name_or_path, *args, **kwargs
        )

    @classmethod
    def register_for_auto_class(cls, auto_class: str = "AutoTokenizer") -> None:
        """Kept a no-op: AutoTokenizer calls it on remote-code classes, and it would make
        ``save_pretrained`` copy this module into the directory, a second copy of the class
        that can drift from the installed one; the saved shim module imports it instead."""

    # -- the flags, as LlamaTokenizer names them ----------------------------------------------

    @property
    def add_bos_token(self) -> bool:
        return FLAGS[self.special_tokens_pattern][0]

    @add_bos_token.setter
    def add_bos_token(self, value: bool) -> None:
        self.special_tokens_pattern = PATTERNS[bool(value), self.add_eos_token]
        self._record_flags()

    @property
    def add_eos_token(self) -> bool:
        return FLAGS[self.special_tokens_pattern][1]

    @add_eos_token.setter
    def add_eos_token(self, value: bool) -> None:
        self.special_tokens_pattern = PATTERNS[self.add_bos_token, bool(value)]
        self._record_flags()

    def _record_flags(self) -> None:
        """The flags as init arguments: ``special_tokens_pattern`` is what ``save_pretrained``
        keeps (it drops ``add_bos_token``/``add_eos_token`` from the config it writes), the two
        flags are the signature's (``init_kwargs`` holds every argument with a default)."""
        self.init_kwargs["special_tokens_pattern"] = self.special_tokens_pattern
        self.init_kwargs["add_bos_token"] = self.add_bos_token
        self.init_kwargs["add_eos_token"] = self.add_eos_token

    # -- the vocabulary -----------------------------------------------------------------------

    @property
    def vocab_size(self) -> int:
        return len(self._base_vocab)

    def get_vocab(self) -> dict[str, int]:
        """Readable pieces (as ``id_to_piece`` shows them) to ids, and the added tokens."""
        added: dict[str, int] = self.added_tokens_encoder
        return self._base_vocab | added

    def _convert_token_to_id(self, token: str) -> int:
        found = self._base_vocab.get(token)
        return int(self.sp.piece_to_id(token)) if found is None else found

    def _convert_id_to_token(self, index: int) -> str:
        return str(self.sp.id_to_piece(index))

    # -- encoding -----------------------------------------------------------------------------

    def _parts(self, text: str, split_special_tokens: bool) -> list[Part]:
        """The text cut at its added tokens, as transformers' ``tokenize`` cuts it, but for
        a token that is not special: it is cut out only on cluster boundaries
        (:func:`~brahmic_pua.integrations.hf_text.cut`)."""
        added = self.get_added_vocab()
        if split_special_tokens or not added:
            return [Part([[0, len(text)]])] if text else []
        codec = self.sp.codec
        return split(
            text,
            cut(text, self.tokens_trie, self._special_texts, codec.policy if codec else "fixtoken"),
            added,
            self.added_tokens_decoder,
        )

    def _special_texts(self) -> frozenset[str]:
        """The special tokens' texts (the model's ``<s>``..., tokens added as special): they
        match anywhere in a text, as in transformers, even inside a cluster."""
        added = self.added_tokens_decoder.values()
        return frozenset(self.all_special_tokens).union(t.content for t in added if t.special)

    def _encode_text(self, text: str, split_special_tokens: bool, spans: bool) -> Encoded:
        """Ids of a text, and their spans in it with ``spans``: each stretch between added
        tokens encoded by the rule of :mod:`brahmic_pua.integrations.hf_text`."""
        out = Encoded(spans=[] if spans else None)
        word = -1
        for part in self._parts(text, split_special_tokens):
            if part.token is not None:
                out.ids.append(part.token)
                if out.spans is not None:
                    out.spans += part.to_source([(0, len(part.text(text)))])
                    word += 1
                    out.words.append(word)
            elif out.spans is None:
                out.ids += self._text.encode(part.text(text), part.starts_text())
            else:
                ids, found = self._text.encode_with_spans(part.text(text), part.starts_text())
                out.ids += ids
                out.spans += part.to_source(found)
                for starts in word_starts(self.sp.id_to_piece(ids)):
                    word += starts
                    out.words.append(word)
        return out

    def tokenize(self, text: str, **kwargs: Any) -> list[str]:
        """Pieces (readable) and added tokens, by id: pieces → ids is exact."""
        split_special_tokens = kwargs.pop("split_special_tokens", self.split_special_tokens)
        text, kwargs = self.prepare_for_tokenization(text, **kwargs)
        tokens: list[str] = self.convert_ids_to_tokens(
            self._encode_text(text, split_special_tokens, spans=False).ids
        )
        return tokens

    def _tokenize(self, text: str, **kwargs: Any) -> list[str]:
        """A stretch without added tokens, as the start of a text."""
        pieces: list[str] = self.sp.id_to_piece(self._text.encode(text, starts_text=True))
        return pieces

    def _encode_input(
        self,
        text: str | list[str],
        words: bool,
        split_special_tokens: bool,
        spans: bool,
        kwargs: dict[str, Any],
    ) -> Encoded:
        """A text, or pretokenized words (spans within each word, as a fast tokenizer gives
        them). transformers reads words as the text ``" " + " ".join(words)`` (its tokenizer
        tests compare the two), whose ids are spm's: so the first word is encoded with that
        space, at the text's start (spm's dummy ``▁``, then the space's own ``▁``), and every
        other word as a text of its own, whose dummy ``▁`` is the space before it."""
        if isinstance(text, str):
            prepared: str = self.prepare_for_tokenization(
                text, is_split_into_words=words, **kwargs
            )[0]
            return self._encode_text(prepared, split_special_tokens, spans)
        out = Encoded(spans=[] if spans else None)
        for index, word in enumerate(text):
            prepared = self.prepare_for_tokenization(word, is_split_into_words=words, **kwargs)[0]
            space = " " if index == 0 else ""
            encoded = self._encode_text(space + prepared, split_special_tokens, spans)
            out.ids += encoded.ids
            out.words += [index] * len(encoded.ids) if spans else []
            if out.spans is not None and encoded.spans is not None:
                shift = len(space)  # spans in the word, the space before it none of them
                out.spans += [(max(a - shift, 0), max(b - shift, 0)) for a, b in encoded.spans]
        return out

    @staticmethod
    def _own(text: Any, words: bool) -> bool:
        """A text, or with ``is_split_into_words`` a list of words: what ``_encode_plus``
        encodes itself (ids, offsets); anything else (a batch, ids, tokens) goes to
        transformers, which comes back here for each text of a batch."""
        if isinstance(text, str):
            return True
        return (
            words
            and isinstance(text, (list, tuple))
            and bool(text)
            and all(isinstance(word, str) for word in text)
        )

    def _encode_plus(self, text: Any, text_pair: Any = None, **keywords: Any) -> Any:
        """transformers' hook for every encoding (``tok(...)``, ``encode``, ``encode_plus``),
        its keywords as :class:`EncodeOptions`. A list of texts in one pass where
        :meth:`_encode_batch` can; one text (or pair, or pretokenized words) encoded here,
        straight to ids, with ``return_offsets_mapping``: transformers' Python tokenizers
        ignore that flag; here each token gets its characters in the caller's string (an added
        special token, padding: ``(0, 0)``). Anything else (another batch, ids, tokens, a
        chat's marked text) goes transformers' way, which comes back here for each row."""
        options = EncodeOptions.of(keywords)
        batch = encode_batch(self, text, text_pair, options, self._batch_ids)
        if batch is not None:
            return batch
        words = options.is_split_into_words
        own = self._own(text, words) and (text_pair is None or self._own(text_pair, words))
        if own and not options.extra.get("sanitize_control_tokens"):
            return self._encode_row(text, text_pair, options)
        with row_maps() as rows:  # a batch comes back here a row at a time
            out = super()._encode_plus(text, text_pair, **options.keywords())
        return self._with_row_maps(out, rows, options)

    def _encode_row(self, text: Any, text_pair: Any, options: EncodeOptions) -> Any:
        """One text or pair (or pretokenized words) to ids, with ``return_offsets_mapping``
        their spans and word maps too; ``prepare_for_model`` adds the special tokens, truncates
        and pads. A row of a batch hands its maps to :func:`row_maps`."""
        rows = ROW_MAPS.get()  # a row of a batch (its maps go there), else None
        # What this row calls (a subclass's prepare_for_tokenization may encode text of its
        # own) is no row of the batch: its maps must not join the batch's.
        alone = ROW_MAPS.set(None)
        try:
            out = self._encode_alone(text, text_pair, options)
        finally:
            ROW_MAPS.reset(alone)
        if rows is not None and options.extra.get("return_offsets_mapping"):
            rows.append(out.encodings[0])  # transformers pads the row, then the batch maps it
        return out

    def _encode_alone(self, text: Any, text_pair: Any, options: EncodeOptions) -> Any:
        """:meth:`_encode_row`'s work: the ids, and the spans where asked."""
        extra = dict(options.extra)  # what is left goes to prepare_for_tokenization
        split_special_tokens = extra.pop("split_special_tokens", self.split_special_tokens)
        spans = bool(extra.pop("return_offsets_mapping", False))
        words = options.is_split_into_words
        first = self._encode_input(text, words, split_special_tokens, spans, extra)
        second = None
        if text_pair is not None:
            second = self._encode_input(text_pair, words, split_special_tokens, spans, extra)
        if not spans:
            return self.prepare_for_model(
                first.ids,
                pair_ids=None if second is None else second.ids,
                return_tensors=options.return_tensors,
                prepend_batch_axis=True,
                **options.for_model(),
            )
        return with_spans(self, first, second, options.return_tensors, options.for_model())

    def _with_row_maps(self, out: Any, rows: list[RowMaps], options: EncodeOptions) -> Any:
        """transformers' output for a batch it encoded a row at a time, calling
        ``_encode_plus`` on each row, then padding them: where every row was encoded here with
        offsets, with their maps (``rows``), padded as their ids (``word_ids(i)``,
        ``char_to_token(i, ...)``...), through the ``encoding=`` and ``n_sequences=`` that
        ``BatchEncoding`` takes."""
        if not rows or len(rows) != len(out["input_ids"]):  # not a batch, or a row not ours
            return out
        left = (options.padding_side or self.padding_side) == "left"
        maps = [
            row.padded(len(ids), left, self.pad_token_id, self.pad_token)
            for row, ids in zip(rows, out["input_ids"], strict=True)
        ]
        return BatchEncoding(out.data, encoding=maps, n_sequences=rows[0].n_sequences)

    def _batch_ids(self, texts: Sequence[str], split_special_tokens: bool) -> list[list[int]]:
        """The ids of each text, as :meth:`_encode_text` gives them: texts without an added
        token's text in them (every text with ``split_special_tokens``) by one batch call of
        each processor, the others one at a time."""
        search = None if split_special_tokens else self._added_pattern()
        plain = [i for i, text in enumerate(texts) if search is None or not search(text)]
        if len(plain) == len(texts):
            return self._text.encode_batch(texts, starts_text=True)
        rows: list[list[int]] = [[] for _ in texts]
        encoded = self._text.encode_batch([texts[i] for i in plain], starts_text=True)
        for i, ids in zip(plain, encoded, strict=True):
            rows[i] = ids
        for i in sorted(set(range(len(texts))) - set(plain)):
            rows[i] = self._encode_text(texts[i], split_special_tokens, spans=False).ids
        return rows

    def _added_pattern(self) -> Any:
        """``search`` of a pattern that finds any added token's text (the trie's tokens, which
        :meth:`_parts` cuts at), or ``None`` where :meth:`_parts` cuts nothing."""
        added = self.get_added_vocab()
        if not added:
            return None
        tokens = frozenset(token for token in (*added, *trie_tokens(self.tokens_trie)) if token)
        known = self.__dict__.get("_added_search")  # absent from a tokenizer pickled before
        if known is None or known[0] != tokens:
            longest = sorted(tokens, key=len, reverse=True)
            known = self._added_search = tokens, re.compile("|".join(map(re.escape, longest)))
        return known[1].search

    def _pad(
        self,
        encoded_inputs: Any,
        max_length: int | None = None,
        padding_strategy: PaddingStrategy = PaddingStrategy.DO_NOT_PAD,
        pad_to_multiple_of: int | None = None,
        padding_side: str | None = None,
        return_attention_mask: bool | None = None,
    ) -> Any:
        """transformers pads the other keys of a row; offsets get ``(0, 0)`` per pad token."""
        spans = encoded_inputs.get("offset_mapping")
        out = super()._pad(
            encoded_inputs,
            max_length,
            padding_strategy,
            pad_to_multiple_of,
            padding_side,
            return_attention_mask,
        )
        if spans is not None:
            missing = [(0, 0)] * (len(out[self.model_input_names[0]]) - len(spans))
            left = (padding_side or self.padding_side) == "left"
            out["offset_mapping"] = missing + list(spans) if left else list(spans) + missing
        return out

    # -- decoding -----------------------------------------------------------------------------

    def _literals(self) -> dict[int, str]:
        """The texts of the tokens shown as themselves, by id: special, or added beyond the
        model's pieces. Read once per call: ``added_tokens_decoder`` is a sorted copy."""
        size = self.vocab_size
        return {
            id: str(token.content)
            for id, token in self.added_tokens_decoder.items()
            if token.special or id >= size
        }

    def _decode(
        self,
        token_ids: int | list[int],
        skip_special_tokens: bool = False,
        clean_up_tokenization_spaces: bool | None = None,
        **kwargs: Any,
    ) -> str:
        """The processor's text; ``clean_up_tokenization_spaces`` is ignored (it edits text).

        Literal tokens (special, or added beyond the model) are their text; the runs of ids
        between them decode by the rule of :mod:`brahmic_pua.integrations.hf_text`, which
        gives back a text encoded with added tokens in it. Skipped special tokens are dropped
        first, as stock spm drops control ids: ``<s>`` + the ids of a text decode to the
        text, and the ``▁`` of a word after ``</s><s>`` (or between a pair) is its space."""
        ids = [token_ids] if isinstance(token_ids, int) else [int(id) for id in token_ids]
        if skip_special_tokens:
            skipped = set(self.all_special_ids)
            ids = [id for id in ids if id not in skipped]
        return self._text.join(ids, self._literals().get)

    def convert_tokens_to_string(self, tokens: list[str]) -> str:
        """Readable pieces back to text, as ``decode`` gives it for their ids; a piece not in
        the vocabulary gives its own text, as in the processor."""
        literals = self._literals()
        by_token = {t: literals[id] for t, id in self.get_added_vocab().items() if id in literals}
        return self._text.join(tokens, by_token.get)

    # -- chat templates -----------------------------------------------------------------------

    def get_chat_template(self, chat_template: str | None = None, tools: Any = None) -> str:
        """transformers' template lookup; where the tokenizer has none and none is given, the
        error says how to set one (transformers' points to its chat template guide)."""
        if chat_template is None and self.chat_template is None:
            raise ValueError(NO_CHAT_TEMPLATE)
        found: str = super().get_chat_template(chat_template, tools)
        return found

    def apply_chat_template(self, conversation: Any, *args: Any, **kwargs: Any) -> Any:
        """transformers' ``apply_chat_template``; with ``return_assistant_tokens_mask=True``
        the chat is encoded with offsets, which transformers reads the mask off (a fast
        tokenizer's, ``out.encodings``: a Python tokenizer has none, and it raised
        ``TypeError``); the ``offset_mapping`` it did not ask for is dropped again."""
        call = inspect.signature(PreTrainedTokenizer.apply_chat_template).bind(
            self, conversation, *args, **kwargs
        )
        call.apply_defaults()
        given = call.arguments
        options = dict(given["tokenizer_kwargs"] or {})
        added = (
            given["return_assistant_tokens_mask"]
            and given["tokenize"]
            and given["return_dict"]
            and not options.get("return_offsets_mapping")
        )
        if added:
            given["tokenizer_kwargs"] = options | {"return_offsets_mapping": True}
        out = super().apply_chat_template(*call.args[1:], **call.kwargs)
        if added:
            del out["offset_mapping"]
        return out

    # -- saving -------------------------------------------------------------------------------

    def save_pretrained(
        self,
        save_directory: str | os.PathLike[str],
        legacy_format: bool | None = None,
        filename_prefix: str | None = None,
        push_to_hub: bool = False,
        **kwargs: Any,
    ) -> tuple[str, ...] | None:
        """transformers' ``save_pretrained``, returning the files it wrote, each of them and
        only those: it lists ``added_tokens.json`` whether or not it wrote one (it writes it
        only for added tokens beyond the model's pieces). A file of :data:`WRITTEN_IF_SET`
        (and a named chat template) that an earlier save left in the directory is removed
        first: ``from_pretrained`` would read it back as this tokenizer's, a chat template
        it no longer has."""
        directory = Path(save_directory)
        if directory.is_dir():
            remove_earlier(directory, filename_prefix)
        saved: tuple[str, ...] | None = super().save_pretrained(
            save_directory, legacy_format, filename_prefix, push_to_hub, **kwargs
        )
        if saved is None:  # save_directory is a file: transformers logged it, wrote nothing
            return None
        written = tuple(path for path in saved if os.path.isfile(path))
        if any(Path(path).name.endswith(FAST_FILE) for path in written):
            point_at_fast(next(p for p in written if p.endswith("tokenizer_config.json")))
        return written

    def save_vocabulary(
        self, save_directory: str, filename_prefix: str | None = None
    ) -> tuple[str, ...]:
        """The model (from memory: the original file may be gone), the AutoTokenizer shim and,
        for a BPE model, the fast tokenizer's tokenizer.json (:mod:`.hf_fast`)."""
        prefix = f"{filename_prefix}-" if filename_prefix else ""
        model = Path(save_directory, prefix + MODEL_FILE)
        model.write_bytes(self.sp.serialized_model_proto())
        shim = Path(save_directory, f"{AUTO_MODULE}.py")
        shim.write_text(AUTO_MODULE_TEXT.format(name=type(self).__name__), encoding="utf-8")
        fast = save_fast_file(Path(save_directory, prefix + FAST_FILE), model, self)
        return (str(model), str(shim)) + ((str(fast),) if fast is not None else ())
