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
    tok.save_pretrained("dir")                          # brahmic_pua.model + tokenizer_config.json
    tok = BrahmicPuaTokenizer.from_pretrained("dir")    # explicit class: no remote code
    tok = AutoTokenizer.from_pretrained("dir", trust_remote_code=True)

``save_pretrained`` writes a three-line module, ``tokenization_brahmic_pua.py``, that imports
this class from the installed package, and points ``auto_map`` at it: AutoTokenizer then runs
the installed brahmic_pua, never a copy of it. No ``tokenizer.json`` is written: a fast
(``tokenizers``) pipeline does not reproduce spm's longest-match normalization rules.

Special tokens follow LlamaTokenizer: ``<s>`` before every sequence, no ``</s>``
(``add_bos_token=True, add_eos_token=False``; T5's convention is ``False, True``). unk, bos,
eos and pad are the model's own pieces at the model's ids; a model trained without a pad piece
(spm's default ``pad_id=-1``) has no pad token, so set one before padding, as for Llama:
``tok.pad_token = tok.eos_token``, or train with ``pad_id=3``. As in every transformers
tokenizer, a special or added token written in the text is encoded as that token;
``split_special_tokens=True`` encodes such text as stock spm does.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

try:
    from transformers import PreTrainedTokenizer
except ModuleNotFoundError as error:
    if error.name != "transformers":
        raise
    raise ImportError("brahmic_pua.hf needs transformers: pip install 'brahmic-pua[hf]'") from None

from brahmic_pua.runtime.processor import SentencePieceProcessor

MODEL_FILE = "brahmic_pua.model"
#: Not ``tokenizer.model``: generic loaders would pick that up and decode it to PUA codes.
VOCAB_FILES_NAMES = {"vocab_file": MODEL_FILE}
AUTO_MODULE = "tokenization_brahmic_pua"
AUTO_MODULE_TEXT = '''"""For AutoTokenizer.from_pretrained(dir, trust_remote_code=True): the
tokenizer from the installed brahmic_pua (pip install 'brahmic-pua[hf]')."""

from brahmic_pua.hf import {name}

__all__ = ["{name}"]
'''
#: What ``save_pretrained(dir, filename_prefix=P)`` writes as ``P-<name>``, by the key under
#: which ``from_pretrained`` resolves the unprefixed file (it never looks for prefixed ones).
PREFIXED = {
    "vocab_file": MODEL_FILE,
    "tokenizer_config_file": "tokenizer_config.json",
    "added_tokens_file": "added_tokens.json",
    "special_tokens_map_file": "special_tokens_map.json",
    "chat_template_file": "chat_template.jinja",
}
#: PythonBackend's ``special_tokens_pattern`` values for (add_bos_token, add_eos_token).
PATTERNS = {
    (False, False): "none", (True, False): "bos", (False, True): "eos", (True, True): "bos_eos"
}  # fmt: skip
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
        # Saved with the config (save_pretrained writes every init kwarg's current value).
        self.init_kwargs["special_tokens_pattern"] = self.special_tokens_pattern
        self._auto_map = {"AutoTokenizer": [f"{AUTO_MODULE}.{type(self).__name__}", None]}

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
            resolved_vocab_files = {**resolved_vocab_files, **_prefixed(Path(where), prefix)}
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
        self.init_kwargs["special_tokens_pattern"] = self.special_tokens_pattern

    @property
    def add_eos_token(self) -> bool:
        return FLAGS[self.special_tokens_pattern][1]

    @add_eos_token.setter
    def add_eos_token(self, value: bool) -> None:
        self.special_tokens_pattern = PATTERNS[self.add_bos_token, bool(value)]
        self.init_kwargs["special_tokens_pattern"] = self.special_tokens_pattern

    # -- the vocabulary -----------------------------------------------------------------------

    @property
    def vocab_size(self) -> int:
        return len(self._base_vocab)

    def get_vocab(self) -> dict[str, int]:
        """Readable pieces (as ``id_to_piece`` shows them) to ids, and the added tokens."""
        added: dict[str, int] = self.added_tokens_encoder
        return self._base_vocab | added

    def _tokenize(self, text: str, **kwargs: Any) -> list[str]:
        """Pieces by id, so that pieces → ids is exact (shown pieces are distinct)."""
        pieces: list[str] = self.sp.id_to_piece(self.sp.encode(text))
        return pieces

    def _convert_token_to_id(self, token: str) -> int:
        found = self._base_vocab.get(token)
        return int(self.sp.piece_to_id(token)) if found is None else found

    def _convert_id_to_token(self, index: int) -> str:
        return str(self.sp.id_to_piece(index))

    # -- decoding -----------------------------------------------------------------------------

    def _literal(self, id: int | None) -> str | None:
        """The text of a token shown as itself: special, or added beyond the model's pieces."""
        if id is None or id not in self._added_tokens_decoder:
            return None
        token = self._added_tokens_decoder[id]
        return str(token.content) if token.special or id >= self.vocab_size else None

    def _join(self, items: list[Any], literal: Callable[[Any], str | None]) -> str:
        """Runs of ids or pieces decoded by the processor, with literal tokens between them:
        no space is added around a special token, and nothing is cleaned up."""
        parts: list[str] = []
        run: list[Any] = []
        for item in items:
            text = literal(item)
            if text is None:
                run.append(item)
            else:
                parts += [self.sp.decode(run), text]
                run = []
        return "".join([*parts, self.sp.decode(run)])

    def _decode(
        self,
        token_ids: int | list[int],
        skip_special_tokens: bool = False,
        clean_up_tokenization_spaces: bool | None = None,
        **kwargs: Any,
    ) -> str:
        """The processor's text; ``clean_up_tokenization_spaces`` is ignored (it edits text).

        Skipped special tokens in a row of the model's ids are dropped before decoding, as
        stock spm drops control ids: the text is stock's, and the ``▁`` of a word after
        ``</s><s>`` (or between a pair) is still its space, where a run decoded on its own
        would drop it as a text's first. A row with added tokens beyond the model, which
        stock cannot decode, is text transformers encoded stretch by stretch (each with its
        own leading ``▁``): a skipped special token there still ends a stretch, and only its
        text is left out."""
        ids = [token_ids] if isinstance(token_ids, int) else [int(id) for id in token_ids]
        if not skip_special_tokens:
            return self._join(ids, self._literal)
        skipped = set(self.all_special_ids)
        kept = [id for id in ids if id not in skipped]
        if not any(self._literal(id) is not None for id in kept):
            return str(self.sp.decode(kept))
        return self._join(ids, lambda id: "" if id in skipped else self._literal(id))

    def convert_tokens_to_string(self, tokens: list[str]) -> str:
        """Readable pieces back to text, as ``decode`` gives it for their ids; a piece not in
        the vocabulary gives its own text, as in the processor."""
        encoder = self._added_tokens_encoder
        return self._join(tokens, lambda token: self._literal(encoder.get(token)))

    # -- saving -------------------------------------------------------------------------------

    def save_vocabulary(
        self, save_directory: str, filename_prefix: str | None = None
    ) -> tuple[str, ...]:
        """The model (from memory: the original file may be gone) and the AutoTokenizer shim."""
        prefix = f"{filename_prefix}-" if filename_prefix else ""
        model = Path(save_directory, prefix + MODEL_FILE)
        model.write_bytes(self.sp.serialized_model_proto())
        shim = Path(save_directory, f"{AUTO_MODULE}.py")
        shim.write_text(AUTO_MODULE_TEXT.format(name=type(self).__name__), encoding="utf-8")
        return str(model), str(shim)


def _prefixed(directory: Path, prefix: str | None) -> dict[str, str | None]:
    """The files ``save_pretrained(directory, filename_prefix=prefix)`` wrote, by the keys
    ``from_pretrained`` resolves (``None`` where one was not written); without ``prefix``, the
    one prefix of a ``*-brahmic_pua.model`` in the directory. A missing or ambiguous model is
    one line saying so, not the processor's "cannot read model None"."""
    if prefix is None:
        found = sorted(
            path.name[: -len(MODEL_FILE) - 1] for path in directory.glob(f"?*-{MODEL_FILE}")
        )
        if not found:
            raise ValueError(
                f"{directory} holds no {MODEL_FILE}: not a directory that "
                "BrahmicPuaTokenizer.save_pretrained wrote"
            )
        if len(found) > 1:
            raise ValueError(
                f"{directory} holds {len(found)} prefixed models ({', '.join(found)}): "
                "pass filename_prefix= to from_pretrained to choose one"
            )
        prefix = found[0]
    files = {key: directory / f"{prefix}-{name}" for key, name in PREFIXED.items()}
    if not files["vocab_file"].is_file():
        raise ValueError(f"{directory} holds no {prefix}-{MODEL_FILE}")
    return {key: str(path) if path.is_file() else None for key, path in files.items()}
