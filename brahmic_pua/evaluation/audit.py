"""Audit a tokenizer someone already has: where its vocabulary, and its encodings of text, break
Brahmic clusters (issue 9). Any SentencePiece ``.model`` (plain or brahmic_pua) or Hugging Face
``tokenizer.json`` (with the optional ``tokenizers`` package) is judged by the same predicates.

A piece is judged by its text: a brahmic_pua piece as the clusters its codes stand for, a
byte-level BPE piece (GPT-2's byte-to-unicode alphabet) as the UTF-8 it spells, a WordPiece
``##`` piece without its prefix; a space or the start of a word is ``▁``. Per usable piece
(control, unknown and unused pieces aside):

* **mark-start**: after a leading ``▁`` it starts with a combining mark (Mn, Mc, Me), the
  orphan-mark test of :func:`brahmic_pua.evaluation.metrics.orphan_mark_ids`: it renders on a
  dotted circle.
* **virama-end**: it ends in a virama that joins the next consonant into a conjunct
  (:func:`brahmic_pua.evaluation.metrics.ends_in_conjunct_virama`: Indic_Syllabic_Category Virama or
  Invisible_Stacker, a ZWJ after it allowed; not a pure killer, not a virama + ZWNJ). fixtoken
  keeps the virama with its consonant, so the piece is cluster-valid, but wherever a consonant
  follows it in the text the conjunct (one akshara) is cut in two; on text,
  :func:`brahmic_pua.evaluation.metrics.split_conjuncts` counts exactly those boundaries.
* **cross-script**: it holds letters of two scripts (script id ``mixed`` of
  :mod:`brahmic_pua.model.script_ids`; Common and Inherited characters join any script).
* **byte**: a piece that is not whole characters: spm's ``<0x..>`` byte fallback, or a byte-level
  BPE piece whose bytes are not complete UTF-8. Such a piece has no text to judge.

Rows are scripts: a piece counts under the script of its first letter (a Brahmic script,
``latin`` or ``other``), ``punctuation`` or ``format`` when it has no letter, ``byte`` for byte
pieces. On text, a byte token counts under the script of the characters its bytes spell.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from brahmic_pua.evaluation import metrics
from brahmic_pua.evaluation.evaluate import text_metrics
from brahmic_pua.evaluation.report import grid, labels_of, table
from brahmic_pua.model.manifest import NotAModelError
from brahmic_pua.model.script_ids import (
    FMT,
    MIXED,
    PUN,
    SCRIPT_ID_NAMES,
    piece_texts,
    script_of_text,
)
from brahmic_pua.runtime.processor import SentencePieceProcessor
from brahmic_pua.runtime.protocol import Processor

#: The per-piece judgements, in table order.
FLAGS = ("mark_start", "virama_end", "cross_script", "byte")
_HEADERS = [flag.replace("_", "-") for flag in FLAGS]
#: Table labels of the text summary, in table order: the metric bundle of
#: :func:`brahmic_pua.evaluation.evaluate.text_metrics` that the audit reports, worded as in
#: :data:`brahmic_pua.evaluation.report.LABELS`.
SUMMARY: dict[str, str] = labels_of(
    [
        "lines",
        "tokens",
        "fertility",
        "orphan_marks_per_1000",
        "byte_fallback_per_1000",
        "cluster_split_rate",
        "conjunct_split_rate",
        "unk_rate",
        "round_trip_rate",
    ]
)
INSTALL_HF = "pip install 'brahmic-pua[hf]' (or pip install tokenizers)"

SPACE = "\u2581"
_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")
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
    reason = " ".join(str(error).split())
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


class HFTokenizer:
    """A Hugging Face ``tokenizer.json`` behind the processor interface that
    :mod:`brahmic_pua.evaluation.metrics` takes, so every metric has one definition for both kinds:
    ``id_to_piece`` gives a piece's text as spm would show it (``▁`` for a space or a word
    start), byte pieces spelled ``<0x..>`` per byte; ``encode`` and ``decode`` work on lists
    of texts without special tokens; ``token_starts`` comes from the character offsets."""

    def __init__(self, path: str | Path) -> None:
        try:
            module = importlib.import_module("tokenizers")
        except ImportError:
            raise ValueError(f"{path}: reading a tokenizer.json needs {INSTALL_HF}") from None
        try:
            self._tokenizer = _run_rust(lambda: module.Tokenizer.from_file(str(path)))
            spec = json.loads(_run_rust(self._tokenizer.to_str))
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
                f"{path}: its ids run to {size - 1} for {len(ids)} tokens; renumber the vocabulary"
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
            elif model.get("byte_fallback") and _BYTE_PIECE.fullmatch(token):
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
                f"{sum(map(len, texts))} characters: its pre-tokenizer's regex likely backtracks; "
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


#: What the audit judges: a SentencePiece processor (brahmic_pua's, or stock's on a plain model)
#: or a Hugging Face ``tokenizer.json``; both are a
#: :class:`~brahmic_pua.runtime.protocol.Vocabulary` and an
#: :class:`~brahmic_pua.runtime.protocol.Encoder`, and only a processor re-reads its model.
Audited = HFTokenizer | Processor


def load(path: str | Path) -> Audited:
    """The tokenizer in ``path``: brahmic_pua's processor for a SentencePiece ``.model`` (plain
    or brahmic_pua), :class:`HFTokenizer` for a ``tokenizer.json`` (a JSON object)."""
    with open(path, "rb") as stream:
        head = stream.read(4096).lstrip()
    if head.startswith(b"{"):
        return HFTokenizer(path)
    try:
        return SentencePieceProcessor(model_file=path)
    except NotAModelError:  # a damaged manifest's own message says what to do: it stays
        raise ValueError(
            f"{path} is neither a SentencePiece .model nor a Hugging Face tokenizer.json"
        ) from None


def kind_of(tokenizer: Audited) -> str:
    """What the report calls the tokenizer: brahmic_pua, sentencepiece or tokenizer.json's."""
    if isinstance(tokenizer, HFTokenizer):
        return tokenizer.kind
    return "brahmic_pua" if getattr(tokenizer, "is_brahmic", False) else "sentencepiece"


def _row_of(text: str) -> str:
    """The script of a text's first letter; ``punctuation`` or ``format`` without letters."""
    body = text.lstrip(SPACE)
    first = next((s for s in map(script_of_text, body) if s not in (PUN, FMT)), None)
    return SCRIPT_ID_NAMES[script_of_text(body) if first is None else first]


class _Judged:
    """Each usable piece's row and the :data:`FLAGS` it raises; control, unknown and unused
    pieces have no row. Decided once, then counted over the vocabulary and over encodings."""

    def __init__(self, tokenizer: Audited) -> None:
        orphans = metrics.orphan_mark_ids(tokenizer)
        self.rows: list[str | None] = []
        self.flags: list[tuple[str, ...]] = []
        self.bytes: dict[int, bytes] = {}
        for i, text in enumerate(piece_texts(tokenizer)):
            if tokenizer.is_control(i) or tokenizer.is_unknown(i) or tokenizer.is_unused(i):
                self.rows.append(None)
                self.flags.append(())
            elif tokenizer.is_byte(i):
                spelled = _BYTE_PIECE.findall(tokenizer.id_to_piece(i))
                self.bytes[i] = bytes(int(b, 16) for b in spelled)
                self.rows.append("byte")
                self.flags.append(("byte",))
            else:
                judged = (
                    i in orphans,
                    metrics.ends_in_conjunct_virama(text),
                    script_of_text(text) == MIXED,
                )
                self.rows.append(_row_of(text))
                self.flags.append(tuple(f for f, on in zip(FLAGS, judged, strict=False) if on))

    def token_rows(self, row: Sequence[int]) -> Iterator[str]:
        """The script row of each token of an encoding; a run of byte tokens is decoded, and
        each byte token counts under the script of the characters it spells."""
        run: list[int] = []
        for i in [*row, -1]:
            if i in self.bytes:
                run.append(i)
                continue
            if run:
                yield from self._byte_rows(run)
                run = []
            if i >= 0:
                yield self.rows[i] or "special"

    def _byte_rows(self, run: list[int]) -> Iterator[str]:
        data = b"".join(self.bytes[i] for i in run)
        chars: list[str] = []
        char_at: list[int] = []  # byte offset → index of the character it belongs to
        while len(char_at) < len(data):
            lead = data[len(char_at)]
            width = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
            chunk = data[len(char_at) : len(char_at) + width]
            chars.append(chunk.decode("utf-8", "replace")[0])
            char_at += [len(chars) - 1] * len(chunk)
        begin = 0
        for i in run:
            end = begin + len(self.bytes[i])
            yield _row_of("".join(chars[char_at[begin] : char_at[end - 1] + 1]))
            begin = end


def _count(
    rows: Sequence[str], flags: Sequence[tuple[str, ...]], size_key: str
) -> dict[str, dict[str, int]]:
    """Per script row (largest first, then ``total``): pieces or tokens, and each flag."""
    table: dict[str, Counter[str]] = {}
    for row, raised in zip(rows, flags, strict=True):
        table.setdefault(row, Counter()).update((size_key, *raised))
    table = dict(sorted(table.items(), key=lambda item: (-item[1][size_key], item[0])))
    table["total"] = sum(table.values(), Counter())
    return {row: {key: counts[key] for key in (size_key, *FLAGS)} for row, counts in table.items()}


def audit_vocabulary(tokenizer: Audited) -> dict[str, Any]:
    """The vocabulary's counts: ``size``, ``special`` (control, unknown and unused pieces) and
    ``scripts``: script row → ``pieces`` and each of :data:`FLAGS`."""
    return _vocabulary(_Judged(tokenizer))


def _vocabulary(judged: _Judged) -> dict[str, Any]:
    usable = [i for i, row in enumerate(judged.rows) if row is not None]
    scripts = _count(
        [judged.rows[i] or "" for i in usable], [judged.flags[i] for i in usable], "pieces"
    )
    return {"size": len(judged.rows), "special": len(judged.rows) - len(usable), "scripts": scripts}


def audit_text(tokenizer: Audited, texts: Sequence[str]) -> dict[str, Any]:
    """The same judgements on ``tokenizer``'s encodings of ``texts``: :data:`SUMMARY`'s
    metrics, and ``scripts``: script row → ``tokens`` and each of :data:`FLAGS`."""
    return _text(tokenizer, _Judged(tokenizer), texts)


def _text(tokenizer: Audited, judged: _Judged, texts: Sequence[str]) -> dict[str, Any]:
    texts = list(texts)
    if not texts:
        raise ValueError("no text to audit")
    rows = tokenizer.encode(texts)
    token_rows = [name for row in rows for name in judged.token_rows(row)]
    scripts = _count(token_rows, [judged.flags[i] for row in rows for i in row], "tokens")
    return text_metrics(tokenizer, texts, SUMMARY, rows=rows) | {"scripts": scripts}


def audit(
    tokenizer: Audited,
    texts: Sequence[str] | None = None,
    files: Sequence[str] = (),
    model: str = "",
) -> dict[str, Any]:
    """The whole report, JSON-ready: the ``model``'s name and ``kind``, ``vocabulary``
    (:func:`audit_vocabulary`) and, with ``texts``, ``text`` (:func:`audit_text`, plus the
    ``files`` they came from)."""
    judged = _Judged(tokenizer)  # every piece judged once, for both tables
    report: dict[str, Any] = {
        "model": model,
        "kind": kind_of(tokenizer),
        "vocabulary": _vocabulary(judged),
    }
    if texts is not None:
        report["text"] = {"files": list(files)} | _text(tokenizer, judged, texts)
    return report


def format_report(report: dict[str, Any]) -> str:
    """The report as text tables: vocabulary counts per script, then (with text) the same
    per 1000 tokens of each script's row, and the summary metrics."""
    vocabulary = report["vocabulary"]
    usable = vocabulary["scripts"]["total"]["pieces"]
    lines = [
        f"{report['model'] or 'model'}: {report['kind']}, {vocabulary['size']} pieces "
        f"({usable} usable, {vocabulary['special']} control/unknown/unused)",
        "",
    ]
    pieces = [["vocabulary", "pieces", *_HEADERS]]
    for row, counts in vocabulary["scripts"].items():
        pieces.append([row, *(str(counts[k]) for k in ("pieces", *FLAGS))])
    lines += grid(pieces)
    text = report.get("text")
    if text is not None:
        lines += ["", f"text: {', '.join(text['files']) or 'given lines'}", ""]
        tokens = [["per 1000 tokens", "tokens", *_HEADERS]]
        for row, counts in text["scripts"].items():
            per = 1000 / max(counts["tokens"], 1)
            tokens.append([row, str(counts["tokens"]), *(f"{counts[k] * per:.1f}" for k in FLAGS)])
        lines += grid(tokens)
        lines.append("")
        lines += table({"text": text}, SUMMARY, header=False)
    lines += ["", LEGEND]
    return "\n".join(lines)


LEGEND = """\
mark-start: starts with a combining mark (renders on a dotted circle)
virama-end: ends in a conjunct-forming virama (a conjunct is split where a consonant follows)
cross-script: letters of two scripts; byte: not whole characters (byte fallback, partial UTF-8)
rows: the script of a piece's first letter; a byte token's: of the characters it spells"""
