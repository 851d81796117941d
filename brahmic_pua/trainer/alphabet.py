"""Plan the alphabet so SentencePiece never stops with "Vocabulary size is smaller than
required_chars": choose ``character_coverage`` from the symbol counts of the PUA text and the
vocabulary size, or say which vocabulary size is needed."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from brahmic_pua.codec import PUACodec
from brahmic_pua.codec.closed_set import closed_under_prefixes
from brahmic_pua.io.wording import counted
from brahmic_pua.model.display import starts_with_mark
from brahmic_pua.orthography.classify import script_of_char

SPACE = "\u2581"
BYTE_PIECES = 256
MIN_COVERAGE = 0.98  # spm refuses a lower character_coverage
SPM_COVERAGE = 0.9995  # spm's default character_coverage


@dataclass(frozen=True)
class AlphabetPlan:
    symbols: int  # distinct symbols in the PUA text
    kept: int  # symbols that get a piece; the rest are spelled in bytes
    character_coverage: float


def symbol_counts(codec: PUACodec, characters: Counter[str], lines: int) -> Counter[str]:
    """Symbol frequencies of the text SentencePiece will see: one code per table cluster, the
    characters outside mapped scripts as they are, spaces as ▁ (plus spm's dummy prefix)."""
    symbols: Counter[str] = Counter()
    for cluster, count in codec.counts().items():
        code = codec.code_of(cluster)
        if count and code is not None:
            symbols[code] = count
    for ch, count in characters.items():
        if script_of_char(ch) not in codec.scripts:
            symbols[SPACE if ch == " " else ch] += count
    symbols[SPACE] += lines
    return symbols


def plan(
    symbols: Counter[str], vocab_size: int, reserved: int, model_type: str, byte_fallback: bool
) -> AlphabetPlan:
    """Keep every symbol if there is room; otherwise the most frequent ones that fit in half the
    free vocabulary (the other half is for merged pieces), the rest going to byte fallback
    (without it, to <unk>: then spm's own coverage decides, as in stock).
    A vocabulary too small for spm's floor (98% of the text as single symbols) is one error
    that names the smallest size that trains."""
    fixed = reserved + (BYTE_PIECES if byte_fallback else 0)
    free = vocab_size - fixed
    room = free if model_type in ("char", "word") else max(1, free // 2)
    if len(symbols) <= room:
        return AlphabetPlan(len(symbols), len(symbols), 1.0)
    ranked = sorted(symbols.values(), reverse=True)
    if not byte_fallback:  # the rest become <unk> (said already): spm's coverage, as in stock
        kept = kept_at(ranked, SPM_COVERAGE)
        if kept <= free:
            return AlphabetPlan(len(symbols), kept, SPM_COVERAGE)
        raise ValueError(
            f"vocab_size={vocab_size} has room for {counted(max(free, 0), 'symbol')}, and "
            f"without byte fallback SentencePiece keeps {kept:,} of the corpus's "
            f"{len(symbols):,} (its character_coverage={SPM_COVERAGE}); use vocab_size >= "
            f"{reserved + kept} (more leaves room for merged pieces), or turn byte_fallback on"
        )
    minimum = kept_at(ranked, MIN_COVERAGE)
    if free < minimum:
        raise ValueError(
            f"vocab_size={vocab_size} is too small for this corpus: SentencePiece keeps at least "
            f"{MIN_COVERAGE:.0%} of the text as single symbols ({counted(minimum, 'symbol')} here) "
            f"and {counted(fixed, 'piece is', 'pieces are')} reserved ({reserved} special"
            + (f", {BYTE_PIECES} bytes" if byte_fallback else "")
            + f"); the smallest vocab_size that trains is {fixed + minimum} (more leaves room "
            "for merged pieces)"
        )
    total = sum(ranked)
    kept_mass = sum(ranked[:room])
    previous = kept_mass - ranked[room - 1]
    coverage = (previous + kept_mass) / 2 / total  # spm stops once coverage is reached
    if coverage >= MIN_COVERAGE:
        return AlphabetPlan(len(symbols), room, coverage)
    return AlphabetPlan(len(symbols), minimum, MIN_COVERAGE)


def kept_at(ranked: list[int], coverage: float) -> int:
    """How many of the most frequent symbols spm keeps for ``coverage``."""
    total = sum(ranked) or 1
    kept = accumulated = 0
    for count in ranked:
        if accumulated / total >= coverage:
            break
        accumulated += count
        kept += 1
    return kept


def check_coverage(
    symbols: Counter[str], coverage: float, vocab_size: int, reserved: int, byte_fallback: bool
) -> None:
    """A user-given character_coverage must still fit the vocabulary."""
    kept = kept_at(sorted(symbols.values(), reverse=True), coverage)
    limit = vocab_size - reserved - (BYTE_PIECES if byte_fallback else 0)
    if kept > limit:
        raise ValueError(
            f"character_coverage={coverage} keeps {counted(kept, 'symbol')} but "
            f"vocab_size={vocab_size} has room for {max(limit, 0):,}; lower the coverage, leave "
            f"it out, or use vocab_size >= {vocab_size + kept - limit}"
        )


def coded_clusters(codec: PUACodec, symbols: Counter[str], kept: int) -> list[str]:
    """The clusters that keep a code: those whose code spm will keep as a character (the
    ``kept`` most frequent symbols, in spm's order: count, then code point).

    Every other cluster is left as text, so a cluster without a piece is spelled in the bytes
    of its own characters, never in the bytes of a private code; a cluster that starts with a
    mark (a piece that would be disabled) stays text too.
    """
    ranked = sorted(symbols.items(), key=lambda item: (-item[1], item[0]))
    keeps = {symbol for symbol, _ in ranked[:kept]}
    return [
        cluster
        for code, cluster in codec.code_pairs()
        if code in keeps and not starts_with_mark(cluster)
    ]


def spellable(clusters: list[str], policy: str, model_type: str) -> list[str]:
    """The clusters that keep a code: for a fixtoken BPE model, only those whose prefixes keep
    one too (:func:`~brahmic_pua.codec.closed_set.closed_under_prefixes`), so that the model can
    be spelled in text, exactly (``brahmic-pua export --to spm``, brahmic_pua.model.text_spelling);
    a Unigram model or another policy cannot be, and keeps them all."""
    if policy == "fixtoken" and model_type == "bpe":
        return closed_under_prefixes(clusters)
    return clusters
