"""Where the bits go: a model's held-out NLL split by token class, per byte of the text.

Every held-out token (and every line's end-of-sentence id) gets one class in each of six
dimensions, and its bits (−log2 p, the mean over seeds of the final models' NLL) and its bytes
add up within the class, so that in every dimension the classes' contributions (their bits over
all held-out bytes) sum to the arm's bits per byte, and their differences between two arms sum
to the gap between them.

Bytes of a token: the UTF-8 bytes of its text, from the processor's shown piece (for brahmic_pua
the cluster text, not the Private Use code): "▁" is one space byte, a byte-fallback piece
<0xNN> is that one byte, and the end-of-sentence id is the line's newline byte. The "▁" that
spm puts before each line (add_dummy_prefix) stands for no byte of the text: the line's first
token gets one byte less. With these rules the tokens of a line spell the line's UTF-8 bytes
exactly; an arm whose pieces do not (a normalizing tokenizer: stock spm) is not attributed.

Dimensions and classes (each token in exactly one class per dimension; "line end" is the
end-of-sentence id in every dimension):

* position: word start (the token holds the first character of a word, a word being a run of
  non-space characters), word rest (it holds word characters, not the first one), space alone
  (only spaces, e.g. a lone "▁": spm's Unigram often splits the word's space off).
* conjunct: holds a conjunct (a consonant, a virama and a consonant, in a row, inside the
  token's own text), no conjunct.
* byte fallback: a byte-fallback piece, or a vocabulary piece.
* cluster frequency: the token overlaps a cluster (fixtoken segmentation of the text, the same
  for every arm) seen fewer than ``rare`` times in the training text, or only frequent
  clusters, or only spaces.
* script: Brahmic (a character of a Brahmic script that is not a digit), Latin, number,
  punctuation or other (ZWNJ alone included), space alone; in that order of precedence.
* cluster cut: the token starts inside a cluster (its first byte is not the first byte of a
  fixtoken cluster of the line: plain spm's pieces that begin with a vowel sign, such as the
  Telugu suffixes ా, ానికి, ంగా, which a brahmic_pua tokenizer cannot have), or it starts a
  cluster, or it is spaces alone. The cut tokens are where the two tokenizations differ most.
"""

from __future__ import annotations

import math
import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable
from typing import Any

from brahmic_pua import segment
from brahmic_pua.orthography import CharClass, classify, script_of_char, unicode_script

from .data import Arm

RARE = 10  # a cluster seen fewer times than this in the training text is rare
LINE_END = "line end"
DIMENSIONS: dict[str, tuple[str, ...]] = {
    "position": ("word start", "word rest", "space alone", LINE_END),
    "conjunct": ("holds a conjunct", "no conjunct", LINE_END),
    "byte fallback": ("byte-fallback piece", "vocabulary piece", LINE_END),
    "cluster frequency": ("rare cluster", "frequent clusters only", "space alone", LINE_END),
    "script": ("Brahmic", "Latin", "number", "punctuation or other", "space alone", LINE_END),
    "cluster cut": ("starts inside a cluster", "starts a cluster", "space alone", LINE_END),
}


class NotAttributable(ValueError):
    """The arm's pieces do not spell the held-out text (a normalizing tokenizer)."""


def cluster_counts(lines: Iterable[str]) -> Counter[str]:
    """How often each fixtoken cluster occurs in the training text."""
    counts: Counter[str] = Counter()
    for line in lines:
        counts.update(segment(line))
    return counts


def piece_text(processor: Any, token: int) -> str | None:
    """The text a vocabulary piece stands for, "▁" as a space (a brahmic_pua processor shows
    the cluster text, not the Private Use code); None for a byte-fallback, unknown or control
    piece, which stands for no text of its own."""
    if processor.is_byte(token) or processor.is_unknown(token) or processor.is_control(token):
        return None
    return str(processor.id_to_piece(token)).replace("▁", " ")


def _piece_bytes(arm: Arm, token: int, cache: dict[int, bytes]) -> bytes:
    if token not in cache:
        processor = arm.processor
        text = piece_text(processor, token)
        if text is not None:
            cache[token] = text.encode("utf-8")
        elif processor.is_byte(token):
            cache[token] = bytes([int(str(processor.id_to_piece(token))[3:-1], 16)])
        else:
            piece = processor.id_to_piece(token)
            raise NotAttributable(f"{arm.name}: the held-out encoding holds {piece}")
    return cache[token]


def token_spans(arm: Arm, line: str, row: list[int], cache: dict[int, bytes]) -> list[int]:
    """The byte offset in ``line`` (UTF-8) at which each token of ``row`` ends, the line's
    leading "▁" counted as no byte (see the module docstring)."""
    pieces = [_piece_bytes(arm, token, cache) for token in row]
    text = line.encode("utf-8")
    spelled = b"".join(pieces)
    if spelled == b" " + text:
        shift = 1
    elif spelled == text:
        shift = 0
    else:
        raise NotAttributable(f"{arm.name}: pieces do not spell the line {line[:40]!r}")
    ends, at = [], -shift
    for piece in pieces:
        at += len(piece)
        ends.append(max(at, 0))
    return ends


def _line_classes(
    line: str, ends: list[int], row: list[int], arm: Arm, clusters: Counter[str], rare: int
) -> list[dict[str, str]]:
    """The classes of each token of one line (see the module docstring)."""
    data = line.encode("utf-8")
    starts_of_chars, at = [], 0
    for ch in line:
        starts_of_chars.append(at)
        at += len(ch.encode("utf-8"))
    word_start = {
        i for i, ch in enumerate(line) if not ch.isspace() and (i == 0 or line[i - 1].isspace())
    }
    cluster_of_char: list[int] = []  # training count of the cluster each character is in
    cluster_starts = set()  # byte offset of each cluster's first byte
    for cluster in segment(line):
        cluster_starts.add(starts_of_chars[len(cluster_of_char)])
        cluster_of_char.extend([clusters.get(cluster, 0)] * len(cluster))
    out = []
    begin = 0
    for token, end in zip(row, ends, strict=True):
        # characters overlapping [begin, end), and those wholly inside
        first = bisect_right(starts_of_chars, begin) - 1 if end > begin else len(line)
        last = bisect_right(starts_of_chars, end - 1) - 1 if end > begin else len(line) - 1
        chars = range(max(first, 0), last + 1)
        inside = [
            i
            for i in chars
            if starts_of_chars[i] >= begin and starts_of_chars[i] + len(line[i].encode()) <= end
        ]
        text = [line[i] for i in chars]
        spaces = all(ch.isspace() for ch in text)
        if spaces:
            position = "space alone"
        elif any(i in word_start and starts_of_chars[i] >= begin for i in chars):
            position = "word start"
        else:
            position = "word rest"
        held = [classify(line[i]) for i in inside]
        conjunct = any(
            held[k] == CharClass.CONSONANT
            and held[k + 1] == CharClass.VIRAMA
            and held[k + 2] == CharClass.CONSONANT
            for k in range(len(held) - 2)
        )
        counts = [cluster_of_char[i] for i in chars if not line[i].isspace()]
        if not counts:
            frequency = "space alone"
        elif min(counts) < rare:
            frequency = "rare cluster"
        else:
            frequency = "frequent clusters only"
        out.append(
            {
                "position": position,
                "conjunct": "holds a conjunct" if conjunct else "no conjunct",
                "byte fallback": "byte-fallback piece"
                if arm.processor.is_byte(token)
                else "vocabulary piece",
                "cluster frequency": frequency,
                "script": _script(text),
                "cluster cut": "space alone"
                if spaces
                else "starts a cluster"
                if begin in cluster_starts
                else "starts inside a cluster",
            }
        )
        begin = end
    if begin != len(data):
        raise AssertionError(f"token bytes {begin} != line bytes {len(data)}")
    return out


def _script(text: list[str]) -> str:
    def digit(ch: str) -> bool:
        return unicodedata.category(ch).startswith("N")

    if any(script_of_char(ch) is not None and not digit(ch) for ch in text):
        return "Brahmic"
    if any(unicode_script(ch) == "latin" for ch in text):
        return "Latin"
    if any(digit(ch) for ch in text):
        return "number"
    if any(not ch.isspace() for ch in text):
        return "punctuation or other"
    return "space alone"


def attribute(
    arm: Arm, lines: list[str], nll_nats: list[float], clusters: Counter[str], rare: int = RARE
) -> dict[str, Any]:
    """Per dimension and class: tokens, bytes and bits of ``arm`` on ``lines``, from one NLL
    per token of the held-out stream after its leading end-of-sentence id (as ``score`` gives
    it). Raises NotAttributable for an arm whose pieces do not spell the text."""
    rows = arm.encode(lines)
    cache: dict[int, bytes] = {}
    table: dict[str, dict[str, dict[str, float]]] = {
        dim: {name: {"tokens": 0, "bytes": 0, "bits": 0.0} for name in names}
        for dim, names in DIMENSIONS.items()
    }
    at = 0
    total_bytes = 0
    for line, row in zip(lines, rows, strict=True):
        ends = token_spans(arm, line, row, cache)
        classes = _line_classes(line, ends, row, arm, clusters, rare)
        begin = 0
        for k, end in enumerate(ends):
            bits = nll_nats[at + k] / math.log(2)
            for dim, name in classes[k].items():
                cell = table[dim][name]
                cell["tokens"] += 1
                cell["bytes"] += end - begin
                cell["bits"] += bits
            begin = end
        eos_bits = nll_nats[at + len(row)] / math.log(2)
        for dim in DIMENSIONS:
            cell = table[dim][LINE_END]
            cell["tokens"] += 1
            cell["bytes"] += 1
            cell["bits"] += eos_bits
        at += len(row) + 1
        total_bytes += len(line.encode("utf-8")) + 1
    if at != len(nll_nats):
        raise ValueError(f"{at} tokens in the lines, {len(nll_nats)} NLL values")
    return {"bytes": total_bytes, "tokens": at, "classes": table}


def attribute_pairs(
    arms: list[Arm], heldout: list[str], train_text: list[str], mean_nll: dict[str, list[float]]
) -> dict[str, Any]:
    """Per brahmic_pua arm and its plain arm: the held-out bits per token class, from the final
    models' NLL per token, the mean over seeds (results.json's "attribution"). A stock arm is
    left out: its normalized pieces do not spell the text."""
    pairs = [a for a in arms if a.kind == "brahmic_pua"]
    if not pairs:
        return {}
    clusters = cluster_counts(train_text)
    tables: dict[str, Any] = {}
    out: dict[str, Any] = {}
    for arm in arms:
        if arm.kind == "stock":
            continue
        try:
            tables[arm.name] = attribute(arm, heldout, mean_nll[arm.name], clusters)
        except NotAttributable as error:
            tables[arm.name] = {"error": str(error)}
    for arm in pairs:
        base = f"plain-{arm.model_type}"
        out[arm.name] = {"baseline": base, "arm": tables[arm.name], "plain": tables[base]}
    return out
