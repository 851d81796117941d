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

import os
import stat
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from brahmic_pua.evaluation import metrics
from brahmic_pua.evaluation.evaluate import text_metrics
from brahmic_pua.evaluation.report import grid, labels_of, table
from brahmic_pua.evaluation.tokenizer_json import (
    BYTE_PIECE,
    MAX_TOKENIZER_JSON,
    SPACE,
    HFTokenizer,
)
from brahmic_pua.io.bounded import read_bounded
from brahmic_pua.io.wording import counted
from brahmic_pua.model.manifest import NotAModelError
from brahmic_pua.model.processor_types import Processor
from brahmic_pua.model.script_ids import (
    FMT,
    MIXED,
    PUN,
    SCRIPT_ID_NAMES,
    piece_texts,
    script_of_text,
)
from brahmic_pua.runtime.processor import SentencePieceProcessor

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
#: What the audit judges: a SentencePiece processor (brahmic_pua's, or stock's on a plain model)
#: or a Hugging Face ``tokenizer.json``; both are a
#: :class:`~brahmic_pua.model.processor_types.Vocabulary` and an
#: :class:`~brahmic_pua.model.processor_types.Encoder`, and only a processor re-reads its model.
Audited = HFTokenizer | Processor


def load(path: str | Path) -> Audited:
    """The tokenizer in ``path``: brahmic_pua's processor for a SentencePiece ``.model`` (plain
    or brahmic_pua), :class:`HFTokenizer` for a ``tokenizer.json`` (a JSON object). A pipe
    (``<(...)``) or device is read once, and no further than a tokenizer.json may be long."""
    data = None
    if stat.S_ISREG(os.stat(path).st_mode):
        with open(path, "rb") as stream:
            head = stream.read(4096).lstrip()
    else:
        data = read_bounded(path, MAX_TOKENIZER_JSON, "model or tokenizer.json")
        head = data[:4096].lstrip()
    if head.startswith(b"{"):
        return HFTokenizer(path, data)
    try:
        if data is not None:
            return SentencePieceProcessor.from_proto(data, source=str(path))
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
                spelled = BYTE_PIECE.findall(tokenizer.id_to_piece(i))
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
        f"{report['model'] or 'model'}: {report['kind']}, {counted(vocabulary['size'], 'piece')} "
        f"({usable:,} usable, {vocabulary['special']:,} control/unknown/unused)",
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
