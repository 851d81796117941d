"""llama.cpp for brahmic_pua models: a vocabulary-only GGUF, and the text on either side of it.

A brahmic_pua model's pieces are Private Use code points, and its normalizer (the compiled rules
that turn clusters into those codes) is what makes ids of text. llama.cpp's tokenizers read the
pieces from a GGUF file but not the rules: its SentencePiece-BPE tokenizer ("llama") applies no
normalizer at all, and its Unigram one ("t5") applies ``precompiled_charsmap`` but has no byte
fallback. So a BPE model's GGUF holds the model spelled in text
(:mod:`brahmic_pua.model.text_spelling`, :func:`llama_model`), which llama.cpp segments as spm
does given the raw text, once it is in N's form (NFC under the default normalization); and a
Unigram model's GGUF holds its codes, behind a pre-step in Python, :func:`llama_input`, which
hands llama.cpp the text spm itself segments, and a post-step, :func:`llama_output`, which turns
what llama.cpp's detokenizer writes (codes) back into clusters, as our ``decode`` does. For a
BPE model the same two functions are what makes any text exact: N(text) with a literal ▁,
U+2585 or Private Use character escaped as the model escapes it (spm's normalization of the
spelled model, less the dummy ▁ llama.cpp adds itself), and the escapes turned back. One edge
stays: a text that N empties (a ZWJ alone under nepali-lm), for which spm writes its ▁ and
llama.cpp, given nothing, writes nothing.

**The pre-step** (a Unigram model's GGUF). ``llama_input(model, text)`` is stock's
``normalize(N(text))`` (N: the manifest's normalization, :meth:`Manifest.stock_input`, as our
``encode`` applies it) with every ``▁`` written as a space. The dummy prefix stays in it, as a
leading space, and the GGUF says ``add_space_prefix = false``: llama.cpp escapes each space to
``▁`` and segments exactly the string spm segments, with no whitespace logic of its own.
Dropping the dummy and letting llama.cpp add it back would serve most texts too, but not all:
llama.cpp's SPM path adds no space to an empty text (N can empty a non-empty text, for which spm
still writes ``▁``), and its Unigram path adds none to a text of spaces alone.
``remove_extra_whitespaces`` and ``treat_whitespace_as_suffix`` need nothing either: stock's
normalize has applied them already.

**The post-step.** ``llama_output(model, text)`` drops the leading space spm's decode drops
(the ``▁`` the first piece starts with, under ``add_dummy_prefix``; every leading one under
``remove_extra_whitespaces``; a ``treat_whitespace_as_suffix`` model keeps its trailing one),
then applies the model's denormalizer (code → cluster), the second pass of spm's decode
(``brahmic_pua.model.decoding``, path 1). On the ids our encoder writes it equals our
``decode``: llama.cpp writes a piece's ``▁`` as a space and a byte piece as its byte, as spm
does. It cannot on ids our encoder never writes: llama.cpp writes nothing for an unknown id
(spm writes " ⁇ "), for a control id, and for an UNUSED piece (spm writes its text); a byte run
that is not UTF-8 comes out as raw bytes, which the caller's UTF-8 reading turns into U+FFFDs
(spm writes one per byte).

**What still differs in the ids.** llama.cpp's tokenizers build UNUSED pieces, which spm never
does: SPM merges any pair that is a piece, and UGM matches NORMAL, USER_DEFINED and UNUSED
pieces alike. And UGM has no byte fallback: a character that is no piece becomes the unknown
id (a run of them one id) where spm writes its UTF-8 bytes.

**The GGUF** (:func:`write_gguf`) holds the tokenizer alone: architecture "llama" (any known
one would do; a vocabulary-only load reads no hyperparameter), the pieces (a brahmic_pua BPE
model's spelled in text, any other model's as they are), their scores and types, the special
ids. A BPE model gets llama.cpp's "llama" tokenizer, whose merges by score are spm's BPE; a
Unigram model gets "t5" (UGM, a Viterbi search over the scores). A file for raw text (a
brahmic_pua BPE model's, or any model's with ``raw_text=True``, as converters of plain spm
models write) says ``add_space_prefix`` and ``remove_extra_whitespaces`` as the model has them
and, for Unigram, holds the charsmap, which llama.cpp applies by longest match; there
llama.cpp's detokenizer drops the dummy itself (``llama_output(..., raw_text=True)`` for a
file written with ``raw_text=True``; a BPE model's :class:`LlamaText` knows it).

The ``gguf`` package (``pip install gguf``) is optional: only :func:`write_gguf` imports it.
"""

from __future__ import annotations

import importlib
import math
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Final, Protocol

import sentencepiece as stock

from brahmic_pua.io.atomic import atomic_path
from brahmic_pua.model.display import display, mark_private_use
from brahmic_pua.model.loader import load_model
from brahmic_pua.model.manifest import Manifest, read
from brahmic_pua.model.model_file import read_model_file
from brahmic_pua.model.model_proto import (
    BYTE,
    CONTROL,
    NORMAL,
    UNKNOWN,
    UNUSED,
    USER_DEFINED,
    ModelProto,
    type_of,
)
from brahmic_pua.model.processor_types import StockProcessor
from brahmic_pua.model.rule_check import rules_normalizer
from brahmic_pua.model.text_spelling import NotSpellable, spell_in_text
from brahmic_pua.segment.sure_cuts import check_no_surrogates

#: The architecture the GGUF names. A vocabulary-only load stops before any hyperparameter
#: (llama.cpp's ``load_hparams`` returns once it has the name), so none is written.
#: node-llama-cpp's loadModel also tries a full load of its own to estimate memory, which logs
#: "key not found: llama.context_length" and goes on; hyperparameters would only move that
#: message on to the missing tensors.
ARCHITECTURE: Final[str] = "llama"

#: spm piece type → llama.cpp ``llama_token_type`` (llama.h). The numbers happen to agree; the
#: table says so instead of relying on it.
TOKEN_TYPES: Final[dict[int, int]] = {
    NORMAL: 1,
    UNKNOWN: 2,
    CONTROL: 3,
    USER_DEFINED: 4,
    UNUSED: 5,
    BYTE: 6,
}

#: spm model type → llama.cpp's ``tokenizer.ggml.model``.
TOKENIZERS: Final[dict[str, str]] = {"bpe": "llama", "unigram": "t5"}

_SPACE: Final[str] = "\u2581"

#: A GGUF metadata value as :func:`gguf_fields` gives it: a string, a bool, a token id
#: (uint32), or an array (of strings, of float32 scores, of int32 types, of uint8 bytes).
Value = str | bool | int | list[str] | list[float] | list[int] | bytes


def _checked_scores(
    model: ModelProto, kind: str, raw_text: bool, manifest: Manifest | None
) -> list[float]:
    """The pieces' scores, once what llama.cpp cannot take is refused in one line: a model
    type it has no tokenizer for, spaces not escaped, a BPE model without byte pieces, a dummy
    ▁ at the end, a score that is not finite (:func:`gguf_fields` says why for each)."""
    if kind not in TOKENIZERS:
        raise ValueError(f"llama.cpp has no tokenizer for a {kind} model: only bpe and unigram")
    if not model.normalizer_spec.escape_whitespaces:
        raise ValueError("llama.cpp writes spaces as ▁ always: the model must escape them too")
    if kind == "bpe" and not any(p.type == BYTE for p in model.pieces):
        # llama.cpp spells a character that is no piece in <0xXX> pieces, and without them
        # throws std::out_of_range, which aborts the process (node-llama-cpp's loadModel
        # tokenizes text of its own, so such a file does not even load there).
        raise ValueError(
            "llama.cpp aborts on a BPE model without byte pieces: train it with "
            "byte_fallback=true (brahmic_pua's default)"
        )
    if raw_text and model.trainer_spec.treat_whitespace_as_suffix:
        raise ValueError("llama.cpp cannot put the dummy ▁ at the end: use llama_input")
    scores = [float(p.score) for p in model.pieces]
    if not all(map(math.isfinite, scores)):
        at = next(i for i, score in enumerate(scores) if not math.isfinite(score))
        piece = _text(model.pieces[at].piece)
        shown = display(piece, manifest.codec) if manifest else mark_private_use(piece)
        raise ValueError(
            f"piece {at} ({shown}) has score {scores[at]}: a score must be a finite number, "
            "which training always writes; the file is damaged: export the model as trained"
        )
    return scores


def _special_ids(processor: Any) -> dict[str, int]:
    """GGUF's special ids, by its names, as stock's processor reads them off the pieces."""
    ids = (processor.bos_id(), processor.eos_id(), processor.unk_id(), processor.pad_id())
    return dict(zip(("bos", "eos", "unknown", "padding"), map(int, ids), strict=True))


def gguf_fields(model_data: bytes, *, raw_text: bool = False) -> dict[str, Value]:
    """The GGUF metadata of a vocabulary-only file for a serialized BPE or Unigram model.

    Every key is one llama.cpp reads (``llama_vocab::impl::load``); its defaults are the
    reason for each explicit one: a "llama" vocabulary adds BOS and a space prefix unless told
    not to, a "t5" one adds EOS, and an id not given defaults to a fixed number (bos 1, eos 2,
    unk 0 for "llama"). A special id spm has off (-1) is left out, as GGUF has no "none".

    What a hostile ``.model`` may hold that stock loads, and what llama.cpp is handed for it.
    Checked here, where the model leaves for another runtime, not in the one model loader:
    there stock's processor does the work and gives stock's ids whatever the file holds, and
    a load refused where stock loads would break the drop-in.

    * The special ids are stock's processor's (``bos_id()`` …: the ``<s>``, ``</s>``,
      ``<unk>``, ``<pad>`` pieces by their types), not ``trainer_spec``'s numbers, which stock
      never reads once a model is trained: a ``bos_id`` of 10⁹ there, or an ``unk_id`` naming
      a byte piece, would reach llama.cpp as an id past the vocabulary (it warns and takes
      its default) or as the wrong piece (a character no piece holds would come out as that
      byte in llama.cpp's Unigram tokenizer).
    * A score that is not finite is refused in one line: stock's loader refuses one in a
      Unigram model (the loader says so first) but takes one in a BPE model, where a merge
      order with NaN has no order (every comparison with it is false), so llama.cpp and stock
      need not merge alike and our ids would change in silence; ±inf is no log-probability
      either, and -inf + inf is NaN again.
    * A piece type outside spm's enum reads as ``NORMAL`` (a proto2 enum keeps an unknown
      value aside as an unknown field), in stock's C++ and here alike: llama.cpp is handed
      the type stock uses, which is harmless.
    """
    loaded = load_model(model_data)
    model, manifest, processor = loaded.message, loaded.manifest, loaded.processor
    special = _special_ids(processor)
    del loaded, processor  # freed before the lists: 1.5M pieces peaked at 817 MB, not 661
    kind = type_of(model)
    scores = _checked_scores(model, kind, raw_text, manifest)
    spec = model.normalizer_spec
    fields: dict[str, Value] = {
        "general.architecture": ARCHITECTURE,
        "tokenizer.ggml.model": TOKENIZERS[kind],
        # protobuf gives a piece that is not UTF-8 as bytes (spm writes none such).
        "tokenizer.ggml.tokens": [_text(p.piece) for p in model.pieces],
        "tokenizer.ggml.scores": scores,
        "tokenizer.ggml.token_type": [TOKEN_TYPES[p.type] for p in model.pieces],
    }
    for name, number in special.items():
        if number >= 0:
            fields[f"tokenizer.ggml.{name}_token_id"] = int(number)
    fields["tokenizer.ggml.add_bos_token"] = False
    fields["tokenizer.ggml.add_eos_token"] = False
    # llama_input's text holds its dummy already, and stock has removed any extra whitespace.
    fields["tokenizer.ggml.add_space_prefix"] = raw_text and bool(spec.add_dummy_prefix)
    fields["tokenizer.ggml.remove_extra_whitespaces"] = raw_text and bool(
        spec.remove_extra_whitespaces
    )
    if raw_text and kind == "unigram" and spec.precompiled_charsmap:
        # Only llama.cpp's Unigram tokenizer reads it; applied twice, rules would escape twice.
        fields["tokenizer.ggml.precompiled_charsmap"] = bytes(spec.precompiled_charsmap)
    return fields


def llama_model(model_data: bytes) -> tuple[bytes, bool]:
    """``(model, raw_text)``: the model whose pieces the GGUF holds, and whether llama.cpp takes
    raw text with it. A brahmic_pua BPE model is spelled in text
    (:func:`~brahmic_pua.model.text_spelling.spell_in_text`), which llama.cpp's "llama"
    tokenizer segments as spm does, on raw (N-normal) text: no pre-step. Any model that cannot
    be spelled so is written as it is, behind :func:`llama_input`: a Unigram model (llama.cpp's
    UGM tokenizer has no byte fallback and its charsmap is not our N), another policy than
    fixtoken, a plain model, and a BPE model that puts its ▁ at the end of words
    (``treat_whitespace_as_suffix``), which llama.cpp cannot do."""
    if _message(model_data).trainer_spec.treat_whitespace_as_suffix:
        return model_data, False
    try:
        return spell_in_text(model_data).data, True
    except NotSpellable:
        return model_data, False


def write_gguf(model_data: bytes, path: str | Path, *, raw_text: bool | None = None) -> None:
    """Write :func:`gguf_fields` to ``path`` as a GGUF file with no tensors, which llama.cpp
    loads with ``vocab_only`` (node-llama-cpp: ``loadModel({modelPath, vocabOnly: true})``).
    ``raw_text`` None: the model :func:`llama_model` chooses (a brahmic_pua BPE model spelled
    in text, for raw text); True or False: ``model_data``'s own pieces, for raw text or for
    :func:`llama_input`'s text.

    Whole or not at all (brahmic_pua.io.atomic): the file is written beside ``path`` and
    renamed over it at the end, so an interrupt (Ctrl-C while a large vocabulary is written)
    or an error leaves the file that was there, and no temporary file."""
    if raw_text is None:
        model_data, raw_text = llama_model(model_data)
    fields = gguf_fields(model_data, raw_text=raw_text)
    gguf = _gguf()
    with atomic_path(path) as written:
        _write(gguf, fields, written)


def _write(gguf: Any, fields: dict[str, Value], path: Path) -> None:
    """``fields`` as a GGUF file with no tensors at ``path``, by gguf's writer."""
    kinds = gguf.GGUFValueType
    writer = gguf.GGUFWriter(str(path), str(fields.pop("general.architecture")))
    for key, value in fields.items():
        if isinstance(value, bool):
            writer.add_key_value(key, value, kinds.BOOL)
        elif isinstance(value, int):
            writer.add_key_value(key, value, kinds.UINT32)
        elif isinstance(value, str):
            writer.add_key_value(key, value, kinds.STRING)
        elif isinstance(value, bytes):
            writer.add_key_value(key, value, kinds.ARRAY, sub_type=kinds.UINT8)
        else:  # a list, never empty: the pieces, their scores or their types
            item = {str: kinds.STRING, float: kinds.FLOAT32, int: kinds.INT32}[type(value[0])]
            writer.add_key_value(key, value, kinds.ARRAY, sub_type=item)
    try:
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
    finally:
        writer.close()


class ModelSource(Protocol):
    """A processor holding a model: ours, or stock sentencepiece's."""

    def serialized_model_proto(self) -> bytes: ...


@dataclass(frozen=True)
class LlamaText:
    """The pre-step and post-step for one model, built once (:func:`llama_text`): stock's
    processor for ``normalize``, the manifest for N, the denormalizer for codes."""

    processor: StockProcessor
    manifest: Manifest | None
    denormalizer: Any
    #: The leading spaces spm's decode drops: "one" (the ▁ the first piece starts with, under
    #: add_dummy_prefix), "all" (under remove_extra_whitespaces) or "" (none).
    leading: str
    #: Whether the GGUF takes raw text (:func:`llama_model`): llama.cpp adds the dummy ▁ itself
    #: (``add_space_prefix``) and its detokenizer drops it again.
    raw: bool = False

    def input(self, text: str) -> str:
        """What llama.cpp must tokenize (module docstring: the pre-step). For a GGUF that takes
        raw text, the same string less the dummy ▁, which llama.cpp adds: N(text) with a
        literal ▁, U+2585 or Private Use character escaped as the model escapes it. A lone
        surrogate is the ValueError ``encode`` gives."""
        check_no_surrogates(text)
        if self.manifest is not None:
            text = self.manifest.stock_input(text)
        normalized = str(self.processor.normalize(text))
        if self.raw and self.leading and normalized.startswith(_SPACE):
            normalized = normalized[1:]
        return normalized.replace(_SPACE, " ")

    def output(self, text: str, *, raw_text: bool = False) -> str:
        """Our decoded text from llama.cpp's detokenized ``text`` (module docstring: the
        post-step). ``raw_text``: the GGUF was written with ``raw_text=True``, whose
        ``add_space_prefix`` makes llama.cpp's detokenizer drop the leading space itself."""
        check_no_surrogates(text)
        if self.leading == "all":  # exact but for a leading piece holding two ▁ or more
            text = text.lstrip(" ")
        elif self.leading == "one" and not (raw_text or self.raw) and text.startswith(" "):
            text = text[1:]
        if self.denormalizer is None:
            return text
        return str(self.denormalizer.normalize(text))


def llama_text(model: LlamaText | ModelSource | bytes | str | os.PathLike[str]) -> LlamaText:
    """The :class:`LlamaText` of a model (a ``.model`` file's path, its bytes, or a processor
    holding it). Built once per model and kept (the last four): a processor's model is
    serialized on each call, so code that converts many texts should call this once and use
    its methods. Anything else is a TypeError, a damaged model a one-line ModelFileError."""
    if isinstance(model, LlamaText):
        return model
    if isinstance(model, bytes):
        return _built(model)
    if isinstance(model, str | os.PathLike):
        return _built(read_model_file(os.fspath(model)))
    serialize = getattr(model, "serialized_model_proto", None)
    if not callable(serialize):
        raise TypeError(
            f"llama_text takes a model: a .model path, its bytes or a SentencePieceProcessor, "
            f"not {type(model).__name__}"
        )
    return _built(bytes(serialize()))


def llama_input(model: LlamaText | ModelSource | bytes | str | os.PathLike[str], text: str) -> str:
    """The text to give llama.cpp's tokenizer (``tokenize(text, add_special=false,
    parse_special=false)``) on the GGUF of :func:`write_gguf` so that it writes our ids."""
    return llama_text(model).input(text)


def llama_output(
    model: LlamaText | ModelSource | bytes | str | os.PathLike[str],
    text: str,
    *,
    raw_text: bool = False,
) -> str:
    """Our ``decode(ids)`` from llama.cpp's ``detokenize(ids)`` (special tokens not shown)."""
    return llama_text(model).output(text, raw_text=raw_text)


@lru_cache(maxsize=4)
def _built(data: bytes) -> LlamaText:
    manifest = read(data, "model_proto")[1]
    data, raw = llama_model(data)
    model = _message(data)
    # Only the rules: spm's decode joins the pieces (▁ as spaces) before they run.
    denormalizer = rules_normalizer(model.denormalizer_spec)
    spec = model.normalizer_spec
    leading = "all" if spec.remove_extra_whitespaces else "one" if spec.add_dummy_prefix else ""
    processor: StockProcessor = stock.SentencePieceProcessor(model_proto=data)
    return LlamaText(processor, manifest, denormalizer, leading, raw)


def _message(data: bytes) -> Any:
    return read(data, "model_proto")[0]


def _text(piece: str | bytes) -> str:
    return piece if isinstance(piece, str) else piece.decode("utf-8", "replace")


def _gguf() -> Any:
    """The ``gguf`` package, loaded by name and typed Any (as ``model_pb2`` is): it is not a
    dependency, so the module type-checks the same whether or not it is installed."""
    try:
        return importlib.import_module("gguf")
    except ImportError:
        raise ImportError("write_gguf needs the gguf package: pip install gguf") from None
