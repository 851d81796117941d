"""The keywords transformers gives a tokenizer's ``_encode_plus``, as one value.

Both the row-at-a-time path (:mod:`brahmic_pua.integrations.hf`) and the one-pass batch
(:mod:`brahmic_pua.integrations.hf_batch`) read them; :class:`EncodeOptions` holds them with
transformers' defaults and gives them back in the two forms transformers' own methods take.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from transformers.tokenization_utils_base import TruncationStrategy
from transformers.utils import PaddingStrategy

#: What :class:`EncodeOptions` does not pass to ``prepare_for_model`` (it takes the strategies
#: by name, as ``padding`` and ``truncation``; tensors and words are the caller's business).
NOT_FOR_MODEL = frozenset(
    {"padding_strategy", "truncation_strategy", "is_split_into_words", "return_tensors", "extra"}
)


@dataclass(frozen=True)
class EncodeOptions:
    """The keywords transformers gives ``_encode_plus`` besides the texts, with its defaults,
    as one value: each step of the encoding reads what it needs, and :meth:`keywords` and
    :meth:`for_model` give them back to transformers' own ``_encode_plus`` and
    ``prepare_for_model``."""

    add_special_tokens: bool = True
    padding_strategy: PaddingStrategy = PaddingStrategy.DO_NOT_PAD
    truncation_strategy: TruncationStrategy = TruncationStrategy.DO_NOT_TRUNCATE
    max_length: int | None = None
    stride: int = 0
    is_split_into_words: bool = False
    pad_to_multiple_of: int | None = None
    padding_side: str | None = None
    return_tensors: Any = None
    return_token_type_ids: bool | None = None
    return_attention_mask: bool | None = None
    return_overflowing_tokens: bool = False
    return_special_tokens_mask: bool = False
    return_length: bool = False
    verbose: bool = True
    #: Every other keyword (``__call__`` passes ``split_special_tokens`` and
    #: ``return_offsets_mapping``; ``apply_chat_template`` ``sanitize_control_tokens``...).
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, keywords: dict[str, Any]) -> EncodeOptions:
        names = {option.name for option in fields(cls)} - {"extra"}
        given = {name: value for name, value in keywords.items() if name in names}
        extra = {k: v for k, v in keywords.items() if k not in names}
        # apply_chat_template passes it, False unless asked: False is no keyword at all (it
        # kept a batch of chats off the one-pass path)
        if not extra.get("sanitize_control_tokens", True):
            del extra["sanitize_control_tokens"]
        return cls(**given, extra=extra)

    def keywords(self) -> dict[str, Any]:
        """All of them, as ``_encode_plus`` takes them."""
        named = {option.name: getattr(self, option.name) for option in fields(self)}
        del named["extra"]
        return named | self.extra

    def for_model(self) -> dict[str, Any]:
        """Those ``prepare_for_model`` takes (the strategies by name), but the tensors."""
        named = {
            option.name: getattr(self, option.name)
            for option in fields(self)
            if option.name not in NOT_FOR_MODEL
        }
        strategies = {"padding": self.padding_strategy.value}
        return named | strategies | {"truncation": self.truncation_strategy.value}
