"""OpenAI's o200k_base encoding as a baseline tokenizer for ``eval`` (NSL): an adapter for an
outside tokenizer, in its own module, from the optional ``bpe-openai`` package."""

from __future__ import annotations

import importlib
from collections.abc import Sequence


class O200k:
    """OpenAI's o200k_base encoding as a baseline, from the optional ``bpe-openai`` package
    (``pip install 'brahmic-pua[compare]'``): ordinary text, no special tokens."""

    name = "o200k"

    def __init__(self) -> None:
        try:
            module = importlib.import_module("bpe_openai")
        except ImportError:
            raise ValueError(
                "the o200k baseline needs the optional bpe-openai package: "
                "pip install 'brahmic-pua[compare]' (or pip install bpe-openai)"
            ) from None
        self._encoding = module.get_encoding("o200k_base")

    def encode(self, input: list[str]) -> list[list[int]]:
        return [list(self._encoding.encode_ordinary(text)) for text in input]

    def decode(self, input: Sequence[Sequence[int]]) -> list[str]:
        return [str(self._encoding.decode(list(row))) for row in input]
