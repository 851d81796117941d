"""transformers' tokenizer, a batch of texts in one pass: :func:`encode_batch`.

transformers' ``_encode_plus`` encodes a batch a row at a time (the tokenizer's encode, then
``prepare_for_model`` and one ``pad``); for the common call, a list of texts with special
tokens, masks and a truncation of single sequences, :func:`encode_batch` encodes every text by
one batch call and builds the rows as ``prepare_for_model`` would, so that the output is key
for key the row-at-a-time path's. Apart from :mod:`brahmic_pua.integrations.hf` so that the
tokenizer reads at one sitting; the functions take the tokenizer (transformers' public
methods and flags) and the one method of ours they need, the ids of texts, as arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from transformers import BatchEncoding, PreTrainedTokenizer
from transformers.tokenization_utils_base import TruncationStrategy

from brahmic_pua.integrations.hf_options import EncodeOptions

#: What ``__call__`` passes on to ``_encode_plus`` in its keywords that the batch path reads;
#: a batch with any other keyword takes transformers' path, a row at a time.
BATCH_KEYWORDS = frozenset({"split_special_tokens", "return_offsets_mapping"})
#: The truncations the batch path applies to a single sequence, as ``truncate_sequences`` does.
BATCH_TRUNCATION = (
    TruncationStrategy.DO_NOT_TRUNCATE,
    TruncationStrategy.LONGEST_FIRST,
    TruncationStrategy.ONLY_FIRST,
)


def encode_batch(
    tok: PreTrainedTokenizer,
    text: Any,
    text_pair: Any,
    options: EncodeOptions,
    ids_of: Callable[[Sequence[str], bool], list[list[int]]],
) -> Any:
    """A batch of texts in one pass, or ``None`` where transformers' path is to encode it.

    transformers' ``_encode_plus`` encodes a batch a row at a time: this method, then
    ``prepare_for_model`` (special tokens, truncation, the masks), then one ``pad``. Here
    the texts are encoded by one batch call of each processor (a text with an added
    token's text in it as one text is), and the rows are built as ``prepare_for_model``
    builds them, from the ids it puts around every sequence; ``pad`` is the same call.
    Taken where :func:`applies`; the output is the row-at-a-time path's, key for key
    (tests/integrations/test_hf_batch.py). ``ids_of(texts, split_special_tokens)``: the
    tokenizer's ids of each text, without special tokens."""
    if not applies(tok, text, text_pair, options):
        return None
    split_special_tokens = options.extra.get("split_special_tokens", tok.split_special_tokens)
    try:
        wrapped = around(tok) if options.add_special_tokens else ([], [], 0)
        rows = ids_of(text, bool(split_special_tokens))
    except ValueError:
        # build_inputs_with_special_tokens without the pattern's token, or a text that is
        # not Unicode (a lone surrogate): the row-at-a-time path raises it, as it always has
        return None
    if wrapped is None:
        return None
    out = batch_rows(tok, truncated(tok, rows, options), wrapped, options)
    padded = tok.pad(
        out,
        padding=options.padding_strategy.value,
        max_length=options.max_length,
        pad_to_multiple_of=options.pad_to_multiple_of,
        padding_side=options.padding_side,
        return_attention_mask=options.return_attention_mask,
    )
    return BatchEncoding(padded, tensor_type=options.return_tensors)


def applies(tok: PreTrainedTokenizer, text: Any, text_pair: Any, options: EncodeOptions) -> bool:
    """Whether :func:`encode_batch` takes the call: a list of texts, no pair, no words,
    no offsets, no overflow, no stride, a truncation of a single sequence to
    ``max_length`` (or none), no keyword it does not know, and transformers'
    ``prepare_for_tokenization`` (a subclass's own may change the texts)."""
    truncation = options.truncation_strategy
    return (
        text_pair is None
        and not options.is_split_into_words
        and not options.return_overflowing_tokens
        and not options.stride
        and isinstance(text, (list, tuple))
        and bool(text)
        and all(isinstance(item, str) for item in text)
        and not options.extra.keys() - BATCH_KEYWORDS
        and not options.extra.get("return_offsets_mapping")
        and truncation in BATCH_TRUNCATION
        and (truncation == TruncationStrategy.DO_NOT_TRUNCATE or options.max_length is not None)
        and type(tok).prepare_for_tokenization is PreTrainedTokenizer.prepare_for_tokenization
    )


def truncated(
    tok: PreTrainedTokenizer, rows: list[list[int]], options: EncodeOptions
) -> list[list[int]]:
    """Each row cut to ``max_length`` with its special tokens, on the tokenizer's
    ``truncation_side``, as ``truncate_sequences`` cuts a single sequence."""
    if options.truncation_strategy == TruncationStrategy.DO_NOT_TRUNCATE:
        return rows
    if not options.max_length:
        return rows
    specials = tok.num_special_tokens_to_add(pair=False) if options.add_special_tokens else 0
    left = tok.truncation_side == "left"
    out = []
    for ids in rows:
        cut = len(ids) + specials - options.max_length
        out.append(ids if cut <= 0 else ids[cut:] if left else ids[:-cut])
    return out


def batch_rows(
    tok: PreTrainedTokenizer,
    rows: list[list[int]],
    around: tuple[list[int], list[int], int],
    options: EncodeOptions,
) -> dict[str, Any]:
    """The unpadded keys of the rows, as ``prepare_for_model`` gives them: the ids with
    what it puts ``around`` them, the masks and lengths asked for; the warning it gives
    for a sequence longer than the model's, once."""
    prefix, suffix, typed = around
    sequences = [prefix + ids + suffix for ids in rows]
    out: dict[str, Any] = {"input_ids": sequences}
    return_token_type_ids = options.return_token_type_ids
    if return_token_type_ids is None:
        return_token_type_ids = "token_type_ids" in tok.model_input_names
    if return_token_type_ids:
        out["token_type_ids"] = [[0] * (len(ids) + typed) for ids in rows]
    if options.return_special_tokens_mask:
        head, tail = [1] * len(prefix), [1] * len(suffix)
        out["special_tokens_mask"] = [head + [0] * len(ids) + tail for ids in rows]
    if options.verbose and options.max_length is None:
        long = next((ids for ids in sequences if len(ids) > tok.model_max_length), None)
        if long is not None:  # prepare_for_model gives the warning, as for the row alone
            tok.prepare_for_model(long, add_special_tokens=False, return_attention_mask=False)
    if options.return_length:
        out["length"] = [len(ids) for ids in sequences]
    return out


def around(tok: PreTrainedTokenizer) -> tuple[list[int], list[int], int] | None:
    """What ``prepare_for_model`` puts around every single sequence with
    ``add_special_tokens``: the ids before and after it (``special_tokens_mask`` 1, the
    rest 0) and how many more ``token_type_ids`` (all 0) it has than the sequence has ids;
    read off the methods it calls, on stand-in ids. ``None`` where they put anything else."""
    one, two = [-1], [-1, -2]
    built: list[int] = tok.build_inputs_with_special_tokens(one)
    if built.count(-1) != 1:
        return None
    at = built.index(-1)
    prefix, suffix = built[:at], built[at + 1 :]
    if tok.build_inputs_with_special_tokens(two) != prefix + two + suffix:
        return None
    if tok.get_special_tokens_mask(one) != [1] * len(prefix) + [0] + [1] * len(suffix):
        return None
    types: list[int] = tok.create_token_type_ids_from_sequences(one)
    if any(types) or len(tok.create_token_type_ids_from_sequences(two)) != len(types) + 1:
        return None
    return prefix, suffix, len(types) - 1
