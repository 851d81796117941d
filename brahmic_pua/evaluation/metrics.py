"""The one home of every tokenizer metric (ARCHITECTURE.md's names), for eval, tests, bench and
demo.

Each takes rows of ids from the real encode path and the texts they came from, or a processor,
stock sentencepiece's or brahmic_pua's, so both are measured the same way: a
:class:`~brahmic_pua.model.processor_types.Vocabulary` where only the pieces are read (a Hugging
Face tokenizer's too), a :class:`~brahmic_pua.model.processor_types.Processor` where stock
sentencepiece must re-read the model. ``normalized`` texts are N(s): what the
processor promises to decode back to (for a plain spm model, the text itself).
"""

from __future__ import annotations

import bisect
import math
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import accumulate

import regex
import sentencepiece

from brahmic_pua.codec.layout import is_private_use
from brahmic_pua.model.processor_types import Processor, Vocabulary
from brahmic_pua.model.script_ids import SCRIPT_ID_NAMES, SPECIAL, script_ids
from brahmic_pua.orthography.charclass import CharClass
from brahmic_pua.orthography.classify import classify, indic_category, script_of_char
from brahmic_pua.segment import segment

Rows = Sequence[Sequence[int]]
_MARKS = frozenset({"Mn", "Mc", "Me"})
_NEWER_MARK = regex.compile(r"\p{M}")
_ZWJ = "\u200d"
_CONJUNCT_KILLERS = frozenset({"VIRAMA", "INVISIBLESTACKER"})


def total_tokens(rows: Rows) -> int:
    return sum(map(len, rows))


def fertility(rows: Rows, texts: Sequence[str]) -> float:
    """Tokens per whitespace-separated word: how much longer a sequence gets than its words."""
    words = sum(len(text.split()) for text in texts)
    return total_tokens(rows) / max(words, 1)


def tokens_per_char(rows: Rows, normalized: Sequence[str]) -> float:
    """Tokens per character of N(s): independent of how a script spaces its words."""
    return total_tokens(rows) / max(sum(map(len, normalized)), 1)


def bytes_per_token(rows: Rows, normalized: Sequence[str]) -> float:
    """UTF-8 bytes of N(s) per token: the compression a model's context window sees."""
    size = sum(len(text.encode("utf-8")) for text in normalized)
    return size / max(total_tokens(rows), 1)


def nsl(rows: Rows, baseline_rows: Rows) -> float:
    """Normalized sequence length (Dagan et al. 2024): total tokens ÷ a baseline tokenizer's
    total tokens on the same texts; below 1 means shorter sequences than the baseline."""
    return total_tokens(rows) / max(total_tokens(baseline_rows), 1)


def orphan_mark_ids(processor: Vocabulary) -> frozenset[int]:
    """Ids whose piece, after a leading ▁, starts with a combining mark (General_Category Mn,
    Mc or Me; byte pieces aside). Decided from Unicode's categories, not by brahmic_pua's own
    predicate, so that the metric audits the library instead of repeating it."""
    bad = set()
    for i in range(processor.get_piece_size()):
        body = processor.id_to_piece(i).lstrip("\u2581")
        if body and not processor.is_byte(i) and _is_mark(body[0]):
            bad.add(i)
    return frozenset(bad)


def _is_mark(ch: str) -> bool:
    """General_Category Mn, Mc or Me. Python 3.11's ``unicodedata`` knows Unicode 14 only: a
    character it calls unassigned is looked up in ``regex``'s newer tables (Kannada U+0CF3,
    the Kawi and Tulu-Tigalari marks came in Unicode 15 and 16)."""
    category = unicodedata.category(ch)
    return category in _MARKS or (category == "Cn" and bool(_NEWER_MARK.match(ch)))


def orphan_marks_per_1000(rows: Rows, processor: Vocabulary) -> float:
    """Orphan-mark tokens per 1000 tokens: pieces that render on a dotted circle."""
    bad = orphan_mark_ids(processor)
    return _per_1000(sum(1 for row in rows for i in row if i in bad), rows)


def byte_fallback_per_1000(rows: Rows, processor: Vocabulary) -> float:
    """Byte-fallback tokens per 1000 tokens: text the vocabulary spells byte by byte."""
    size = processor.get_piece_size()
    byte = frozenset(i for i in range(size) if processor.is_byte(i))
    return _per_1000(sum(1 for row in rows for i in row if i in byte), rows)


def unk_rate(rows: Rows, processor: Vocabulary) -> float:
    """Unknown tokens ÷ tokens: text the model cannot give back (no byte fallback)."""
    unknown = {i for i in range(processor.get_piece_size()) if processor.is_unknown(i)}
    return sum(1 for row in rows for i in row if i in unknown) / max(total_tokens(rows), 1)


def private_code_byte_runs(rows: Rows, processor: Vocabulary) -> tuple[int, int]:
    """(runs of byte pieces, private code points those runs decode to). brahmic_pua keeps the
    second at 0: a byte piece must stand for bytes of the text, not for an internal code."""
    runs = private = 0
    for row in rows:
        run = bytearray()
        for i in [*row, -1]:
            if i >= 0 and processor.is_byte(i):
                run.append(int(processor.id_to_piece(i)[3:5], 16))
            elif run:
                text = run.decode("utf-8", "replace")
                private += sum(1 for ch in text if is_private_use(ch))
                runs += 1
                run = bytearray()
    return runs, private


def round_trip_rate(texts: Sequence[str], decoded: Sequence[str]) -> float:
    """Share of lines whose decoding equals the expected text (N(text) for brahmic_pua)."""
    return sum(a == b for a, b in zip(texts, decoded, strict=True)) / max(len(texts), 1)


def token_starts(processor: Processor, normalized: Sequence[str]) -> list[list[int]]:
    """For each text, the character offsets at which a token's text begins, from spm's own
    alignment of pieces to the input (stock sentencepiece on the same model).

    The bytes of one character are grouped: spm gives the character's span to its last byte
    piece and empty spans to the others. A character its normalizer expands (NFKC: क़ → क ़)
    stays one unit, as spm aligns it. ``normalized`` must be N(s): spm segments it as given.
    The tokens are checked to be the processor's own, so the spans describe its encode path.
    """
    texts = list(normalized)
    model = sentencepiece.SentencePieceProcessor(model_proto=processor.serialized_model_proto())
    starts = []
    for n, (text, row, encoded) in enumerate(
        zip(texts, processor.encode(texts), model.encode(texts, out_type="proto"), strict=True)
    ):
        if [p.id for p in encoded.pieces] != list(row):
            raise ValueError(f"text {n}: stock sentencepiece and the processor tokenize apart")
        offsets = [0, *accumulate(len(ch.encode("utf-8")) for ch in text)]
        char_at = {byte: i for i, byte in enumerate(offsets)}
        starts.append([char_at[p.begin] for p in encoded.pieces if p.begin < p.end])
    return starts


def split_clusters(text: str, starts: Sequence[int]) -> tuple[int, int]:
    """(split, counted): fixtoken clusters of ``text`` with 2+ characters and a Brahmic one,
    and how many of them have a token start strictly inside (``starts`` sorted)."""
    split = counted = position = 0
    for cluster in segment(text, "fixtoken"):
        end = position + len(cluster)
        if len(cluster) > 1 and any(script_of_char(ch) for ch in cluster):
            counted += 1
            after = bisect.bisect_right(starts, position)
            split += after < len(starts) and starts[after] < end
        position = end
    return split, counted


def cluster_split_rate(processor: Processor, normalized: Sequence[str]) -> float:
    """Share of Brahmic clusters of N(s) whose characters land in more than one token: each
    such token renders a broken cluster. A cluster spelled in byte pieces character by
    character counts as split too (it is, for the model that reads the tokens)."""
    return split_share(split_clusters, normalized, token_starts(processor, normalized))


def split_share(
    count: Callable[[str, Sequence[int]], tuple[int, int]],
    normalized: Sequence[str],
    starts: Sequence[Sequence[int]],
) -> float:
    """split ÷ counted over texts, with ``count`` :func:`split_clusters` or
    :func:`split_conjuncts`; ``starts`` from any tokenizer (spm's alignment, or the character
    offsets of a Hugging Face tokenizer), so every tokenizer is measured by the same count."""
    split = counted = 0
    for text, text_starts in zip(normalized, starts, strict=True):
        s, c = count(text, text_starts)
        split += s
        counted += c
    return split / max(counted, 1)


def ends_in_conjunct_virama(text: str) -> bool:
    """True when ``text`` ends in a virama that joins the next consonant into a conjunct
    (Indic_Syllabic_Category Virama or Invisible_Stacker), a ZWJ after it allowed (a half form
    still joins). A pure killer (Myanmar's asat, Thai's phinthu) joins nothing, and a ZWNJ
    after the virama asks for it to be shown: neither splits a conjunct."""
    body = text.removesuffix(_ZWJ)
    return bool(body) and indic_category(body[-1]) in _CONJUNCT_KILLERS


def split_conjuncts(text: str, starts: Sequence[int]) -> tuple[int, int]:
    """(split, counted): consonants of ``text`` joined to the one before by a conjunct virama
    of the same script (:func:`ends_in_conjunct_virama`), and how many of them begin a token.
    Such a boundary is a cluster boundary (fixtoken keeps the virama with its consonant), yet
    the conjunct, one akshara, is cut in two."""
    begins = set(starts)
    split = counted = 0
    for i, ch in enumerate(text):
        before = text[max(i - 2, 0) : i]  # the virama, or the virama and a ZWJ
        if (
            classify(ch) == CharClass.CONSONANT
            and ends_in_conjunct_virama(before)
            and script_of_char(before.removesuffix(_ZWJ)[-1]) == script_of_char(ch)
        ):
            counted += 1
            split += i in begins
    return split, counted


def vocabulary_share(processor: Vocabulary) -> dict[str, float]:
    """Share of the usable vocabulary (control, unknown and unused pieces aside) per script id
    name, in id order: how the vocabulary budget is spent (NepBPE's dev_budget_share)."""
    counts = Counter(s for s in script_ids(processor) if s != SPECIAL)
    usable = max(sum(counts.values()), 1)
    return {SCRIPT_ID_NAMES[s]: counts[s] / usable for s in sorted(counts)}


def _per_1000(count: int, rows: Rows) -> float:
    return 1000 * count / max(total_tokens(rows), 1)


def per_token_perplexity(total_nll_nats: float, tokens: int) -> float:
    """exp(mean NLL per token). Not comparable across tokenizers (Mielke et al. 2019): a
    tokenizer that cuts the same text into fewer tokens has more surprise per token."""
    return math.exp(total_nll_nats / max(tokens, 1))


def bits_per_byte(total_nll_nats: float, text_bytes: int) -> float:
    """Total NLL in bits ÷ UTF-8 bytes of the original text: the same denominator for every
    tokenizer, so language models over different tokenizations compare."""
    return total_nll_nats / math.log(2) / max(text_bytes, 1)


def bits_per_char(total_nll_nats: float, characters: int) -> float:
    """Total NLL in bits ÷ code points of the original text (BPC, NepBPE's E4)."""
    return total_nll_nats / math.log(2) / max(characters, 1)
