"""The fast tokenizer saved beside a BrahmicPuaTokenizer, so that transformers loads a BPE model
without remote code.

``BrahmicPuaTokenizer.save_pretrained`` writes, for a BPE model that can be spelled in text,
the :mod:`~brahmic_pua.integrations.hf_json` tokenizer.json with a post-processor adding ``<s>``
and ``</s>`` as the tokenizer adds them, and names ``PreTrainedTokenizerFast`` as the config's
``tokenizer_class``: ``AutoTokenizer.from_pretrained(folder)`` then loads a fast tokenizer with
our ids and no code from the folder, while the config's ``auto_map`` still points
``trust_remote_code=True`` at the shim that loads ours, and ``BrahmicPuaTokenizer
.from_pretrained(folder)`` loads ours as before. A model with no such file (Unigram, or one
:func:`~brahmic_pua.integrations.hf_json.tokenizer_json` refuses) keeps ours as the class.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from brahmic_pua.integrations.hf_json import tokenizer_json, with_special_tokens
from brahmic_pua.model.text_spelling import NotSpellable

FAST_FILE: Final[str] = "tokenizer.json"
FAST_CLASS: Final[str] = "PreTrainedTokenizerFast"


def fast_file_text(
    model_data: bytes, bos: tuple[str, int] | None, eos: tuple[str, int] | None
) -> str | None:
    """The tokenizer.json to save beside the model, or None where none gives its ids."""
    try:
        made = tokenizer_json(model_data)
    except NotSpellable:
        return None
    return with_special_tokens(made.text, bos, eos)


def save_fast_file(path: Path, model: Path, tokenizer: Any) -> Path | None:
    """Write the tokenizer.json of the saved ``model`` to ``path``, with the ``<s>`` and
    ``</s>`` that ``tokenizer`` (a BrahmicPuaTokenizer) adds; None, writing nothing, where no
    tokenizer.json gives the model's ids."""
    bos = eos = None
    if tokenizer.add_bos_token and tokenizer.bos_token is not None:
        bos = (str(tokenizer.bos_token), int(tokenizer.bos_token_id))
    if tokenizer.add_eos_token and tokenizer.eos_token is not None:
        eos = (str(tokenizer.eos_token), int(tokenizer.eos_token_id))
    text = fast_file_text(model.read_bytes(), bos, eos)
    if text is None:
        return None
    path.write_text(text, encoding="utf-8")
    return path


def point_at_fast(config_file: str | Path) -> None:
    """Name the fast class in a saved ``tokenizer_config.json`` (its ``auto_map`` stays)."""
    path = Path(config_file)
    config = json.loads(path.read_text(encoding="utf-8"))
    config["tokenizer_class"] = FAST_CLASS
    path.write_text(json.dumps(config, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
