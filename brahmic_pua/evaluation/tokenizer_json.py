"""A Hugging Face ``tokenizer.json`` as the audit and ``eval`` read a tokenizer: its vocabulary
as text and its encodings, through the optional ``tokenizers`` package. An adapter for an
outside tokenizer, beside the audit that uses it (as tokenizers keeps its ``implementations/``).

A piece is read as text: a byte-level BPE piece (GPT-2's byte-to-unicode alphabet) as the UTF-8
it spells, a WordPiece ``##`` piece without its prefix; a space or the start of a word is ``▁``.
A tokenizer.json is untrusted input: tokenizers' Rust panics (which derive from BaseException)
and encodes that run past a time bound (a backtracking pre-tokenizer regex) are one-line
errors.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Final, TypeVar

from brahmic_pua.io.bounded import read_bounded
from brahmic_pua.io.wording import counted, one_line

INSTALL_HF = "pip install 'brahmic-pua[hf]' (or pip install tokenizers)"

SPACE = "\u2581"
#: spm's spelling of a byte piece, <0xAB>.
BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")
#: How many ids a tokenizer.json's vocabulary may skip: each becomes an unused piece.
_MAX_GAP = 1 << 20
#: The time bound on one call that encodes text with a tokenizer.json: this many seconds, plus
#: one per :data:`ENCODE_CHARS_PER_SECOND` characters. tokenizers encodes far faster (millions
#: of characters a second); only a pre-tokenizer regex that backtracks (``(a+)+$``, which
#: Oniguruma's per-match retry limit does not stop when every match stays just under it) runs
#: past it.
ENCODE_GRACE_SECONDS = 30.0
ENCODE_CHARS_PER_SECOND = 10_000

_T = TypeVar("_T")


def _is_panic(error: BaseException) -> bool:
    """A Rust panic inside tokenizers: pyo3's ``PanicException`` derives from BaseException
    (so ``except Exception`` lets it through) and lives in ``pyo3_runtime``, which cannot be
    imported, so it is known by its module and name."""
    kind = type(error)
    return kind.__module__ == "pyo3_runtime" and kind.__name__ == "PanicException"


def _run_rust(call: Callable[[], _T], seconds: float | None = None) -> _T:
    """``call()`` into tokenizers, bounded and quiet: Rust's panic hook writes its message (and,
    with RUST_BACKTRACE set, a backtrace of dozens of lines) straight to file descriptor 2, out
    of Python's reach, so fd 2 is held in a temporary file while the call runs and what was
    written is passed on unless the call panicked (the panic's message then goes into the
    caller's one-line error). With ``seconds``, the call runs on a daemon thread (tokenizers
    releases the GIL while it encodes) and :class:`TimeoutError` is raised when it is not done
    by then; the thread cannot be stopped, and ends with the process."""
    outcome: list[Any] = []

    def target() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as error:  # a panic, or tokenizers' bare Exception: passed on
            outcome.append((False, error))

    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no fd 2 to hold: nothing to hide the panic message from
        saved = -1
    with tempfile.TemporaryFile() as held:
        try:
            if saved >= 0:
                os.dup2(held.fileno(), 2)
            worker = threading.Thread(target=target, name="tokenizers", daemon=True)
            worker.start()
            worker.join(seconds)
        finally:
            if saved >= 0:
                os.dup2(saved, 2)
                os.close(saved)
        if not outcome:
            raise TimeoutError(seconds)
        ok, value = outcome[0]
        if saved >= 0 and (ok or not _is_panic(value)):
            held.seek(0)
            if written := held.read():
                os.write(2, written)
    if ok:
        return value  # type: ignore[no-any-return]
    raise value


def _reason(error: BaseException) -> str:
    """tokenizers' message on one line; a panic's marked as such."""
    reason = one_line(error)
    return f"it panicked: {reason}" if _is_panic(error) else reason


def _panic_or_exception(error: BaseException) -> bool:
    """Whether ``error`` is tokenizers' failure (a bare Exception or a Rust panic), not an
    interrupt or exit, which pass through."""
    return isinstance(error, Exception) or _is_panic(error)


@cache
def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-to-unicode alphabet, inverted: each byte is a printable character, the
    printable Latin-1 ones as themselves, the others shifted to U+0100 and up."""
    kept = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    shifted = [b for b in range(256) if b not in kept]
    table = {chr(b): b for b in kept}
    table.update({chr(256 + n): b for n, b in enumerate(shifted)})
    return table


def _has_type(node: Any, name: str) -> bool:
    """Whether a tokenizer.json component, or one nested in a Sequence, is of type ``name``."""
    if isinstance(node, dict):
        return node.get("type") == name or any(_has_type(v, name) for v in node.values())
    if isinstance(node, list):
        return any(_has_type(v, name) for v in node)
    return False


def _spelled(data: bytes) -> str:
    return "".join(f"<0x{b:02X}>" for b in data)


def _read(path: str | Path, data: bytes | None = None) -> tuple[Any, dict[str, Any]]:
    """The ``tokenizers.Tokenizer`` of ``path`` (whose bytes are ``data`` where the caller
    read them already) and its JSON spec, or a one-line ValueError (a bad file, a Rust panic,
    tokenizers not installed)."""
    try:
        module = importlib.import_module("tokenizers")
    except ImportError:
        raise ValueError(f"{path}: reading a tokenizer.json needs {INSTALL_HF}") from None
    text = _bounded_text(path, data)
    try:
        tokenizer = _run_rust(lambda: module.Tokenizer.from_str(text))
        spec: dict[str, Any] = json.loads(_run_rust(tokenizer.to_str))
    except BaseException as error:  # a bare Exception for a bad file, or a Rust panic
        if not _panic_or_exception(error):
            raise
        hint = (
            "; its model is inconsistent (e.g. a BPE merge whose parts or result are not in "
            "its vocabulary): fix the file or save it again with tokenizers"
            if _is_panic(error)
            else ""
        )
        raise ValueError(
            f"{path} is not a Hugging Face tokenizer.json ({_reason(error)}){hint}"
        ) from None
    return tokenizer, spec


#: The largest tokenizer.json read: real ones are tens of MB (a 256,000-token vocabulary with
#: its merges is about 35 MB), and tokenizers holds the whole text and its parse at once.
MAX_TOKENIZER_JSON: Final[int] = 512 << 20


def _bounded_text(path: str | Path, data: bytes | None = None) -> str:
    """The text of ``path``, never more than :data:`MAX_TOKENIZER_JSON` bytes of it (a device
    or an endless pipe is refused there, not read to a MemoryError), or a one-line ValueError."""
    if data is None:
        data = read_bounded(path, MAX_TOKENIZER_JSON, "tokenizer.json")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"{path} is not a Hugging Face tokenizer.json (not UTF-8 at byte {error.start})"
        ) from None


class HFTokenizer:
    """A Hugging Face ``tokenizer.json`` behind the processor interface that
    :mod:`brahmic_pua.evaluation.metrics` takes, so every metric has one definition for both kinds:
    ``id_to_piece`` gives a piece's text as spm would show it (``▁`` for a space or a word
    start), byte pieces spelled ``<0x..>`` per byte; ``encode`` and ``decode`` work on lists
    of texts without special tokens; ``token_starts`` comes from the character offsets."""

    def __init__(self, path: str | Path, data: bytes | None = None) -> None:
        """``data``: the file's bytes, where the caller has read them (a pipe reads once)."""
        self._tokenizer, spec = _read(path, data)
        model = spec["model"]
        self.kind: str = "tokenizer.json " + model["type"]
        byte_level = _has_type(spec.get("pre_tokenizer"), "ByteLevel") or _has_type(
            spec.get("decoder"), "ByteLevel"
        )
        if byte_level:
            self.kind += " (byte-level)"
        prefix = model.get("continuing_subword_prefix") or None
        suffix = model.get("end_of_word_suffix") or None
        added = self._tokenizer.get_added_tokens_decoder()
        # Ids need not be contiguous (a WordLevel or WordPiece vocab is any token → id map):
        # the table runs to the highest id, and an id no token has is an unused piece.
        ids = self._tokenizer.get_vocab(with_added_tokens=True).values()
        size = max(max(ids, default=-1) + 1, self._tokenizer.get_vocab_size(with_added_tokens=True))
        if size > len(ids) + _MAX_GAP:  # a table of unused ids that would not fit in memory
            raise ValueError(
                f"{path}: its ids run to {size - 1} for {counted(len(ids), 'token')}; renumber the "
                "vocabulary"
            )
        unk = model.get("unk_token")
        unk_id = model.get("unk_id")
        self._path = str(path)
        self._missing_unk: str | None = None  # an unk_token the vocabulary lacks: encode fails
        if isinstance(unk, str) and self._tokenizer.token_to_id(unk) is None:
            name = model["type"]
            self._missing_unk = f"its {name} model's unk_token {unk!r} is not in its vocabulary"
        self._pieces: list[str] = []
        self._kinds: list[str] = []  # normal, byte, control, unknown or unused
        for i in range(size):
            token = self._tokenizer.id_to_token(i)
            if token is None:
                piece, kind = "", "unused"
            elif i in added:
                piece, kind = token, "control" if added[i].special else "normal"
            elif token == unk or i == unk_id:
                piece, kind = token, "unknown"
            elif model.get("byte_fallback") and BYTE_PIECE.fullmatch(token):
                piece, kind = token.upper().replace("0X", "0x"), "byte"
            else:
                piece, kind = self._text(token, byte_level, prefix, suffix)
            self._pieces.append(piece)
            self._kinds.append(kind)

    @staticmethod
    def _text(
        token: str, byte_level: bool, prefix: str | None, suffix: str | None
    ) -> tuple[str, str]:
        """A model piece's text and kind: ``byte`` when its bytes are not whole characters."""
        if byte_level:
            decoder = _byte_decoder()
            if all(ch in decoder for ch in token):
                data = bytes(decoder[ch] for ch in token)
                try:
                    token = data.decode("utf-8")
                except UnicodeDecodeError:
                    return _spelled(data), "byte"
        if suffix is not None:
            token = token.removesuffix(suffix)
        if prefix is not None:  # WordPiece: a piece without the prefix starts a word
            token = token[len(prefix) :] if token.startswith(prefix) else SPACE + token
        return token.replace(" ", SPACE), "normal"

    def get_piece_size(self) -> int:
        return len(self._pieces)

    def id_to_piece(self, id: int) -> str:
        return self._pieces[id]

    def is_byte(self, id: int) -> bool:
        return self._kinds[id] == "byte"

    def is_control(self, id: int) -> bool:
        return self._kinds[id] == "control"

    def is_unknown(self, id: int) -> bool:
        return self._kinds[id] == "unknown"

    def is_unused(self, id: int) -> bool:
        return self._kinds[id] == "unused"

    def _encodings(self, texts: list[str]) -> list[Any]:
        """``tokenizers``' encodings of ``texts``; its failure (a bare ``Exception``, e.g. a
        word outside a vocabulary that lacks its ``unk_token``) as a one-line ValueError that
        says what is wrong with the file, not a traceback from inside ``tokenizers``."""
        seconds = ENCODE_GRACE_SECONDS + sum(map(len, texts)) / ENCODE_CHARS_PER_SECOND
        try:
            return _run_rust(
                lambda: list(self._tokenizer.encode_batch(texts, add_special_tokens=False)),
                seconds,
            )
        except TimeoutError:
            raise ValueError(
                f"{self._path}: tokenizers took over {seconds:.3g} s to encode "
                f"{counted(sum(map(len, texts)), 'character')}: its pre-tokenizer's regex "
                "likely backtracks; "
                "rewrite the regex without nested quantifiers such as (a+)+"
            ) from None
        except BaseException as error:  # tokenizers raises a bare Exception, or panics
            if not _panic_or_exception(error):
                raise
            reason = _reason(error)
            if "Regex" in reason or "retry-limit" in reason:
                raise ValueError(
                    f"{self._path}: tokenizers cannot encode the text ({reason}): its "
                    "pre-tokenizer's regex backtracks past Oniguruma's limit; rewrite the regex "
                    "without nested quantifiers such as (a+)+"
                ) from None
            if self._missing_unk is not None:
                raise ValueError(
                    f"{self._path}: {self._missing_unk}, so tokenizers cannot encode text "
                    f"outside the vocabulary ({reason}); add the token to the vocabulary"
                ) from None
            raise ValueError(
                f"{self._path}: tokenizers cannot encode the text ({reason})"
            ) from None

    def encode(self, texts: list[str]) -> list[list[int]]:
        return [list(e.ids) for e in self._encodings(texts)]

    def decode(self, rows: Sequence[Sequence[int]]) -> list[str]:
        batch = [list(row) for row in rows]
        try:
            return _run_rust(
                lambda: list(self._tokenizer.decode_batch(batch, skip_special_tokens=False))
            )
        except BaseException as error:  # tokenizers raises a bare Exception, or panics
            if not _panic_or_exception(error):
                raise
            raise ValueError(
                f"{self._path}: tokenizers cannot decode its own tokens ({_reason(error)}); "
                "check the tokenizer.json's decoder"
            ) from None

    def token_starts(self, texts: Sequence[str]) -> list[list[int]]:
        """Character offsets where tokens begin (the tokenizer's own offsets): a character
        whose bytes several tokens share counts once, at its offset, as in spm's alignment."""
        encodings = self._encodings(list(texts))
        return [sorted({a for a, b in e.offsets if a < b}) for e in encodings]
