"""Seed morphemes and vocabulary filters (issue #7 items 2 and 3), measured on Nepali news.

    python bench/bench_filters.py              # the filter and seed tables (about 3 minutes)
    python bench/bench_filters.py --seed-stats # the corpus counts behind data/nepali_seeds.txt

Trains 8000-piece brahmic_pua Unigram and BPE models on ne.train.txt minus its last 3,000 lines
(held out), three ways: no user symbols; the shipped strict seeds as ``user_defined_symbols``;
every shipped seed as one. Prints, per filter, the pieces it disabled and the fertility (tokens
per whitespace word) on the held-out lines before and after, for those models and for plain
spm models trained on the same lines (stock options); then, per seed, how often an occurrence
on the held-out text (a whole word, or a suffix followed only by seeds or particles) is exactly
one piece, before and after the seed-absorb filter.

``--seed-stats`` counts, on the training lines, where each candidate seed occurs in whitespace
words (punctuation stripped, whole aksharas): the whole word, word-final, followed only by
seeds or particles (a suffix chain: हरू in मानिसहरूको), at the start of a longer word, or
inside one. A seed is strict when at least 98% of at least 300 occurrences are of the first
three kinds.
"""

from __future__ import annotations

import argparse
import io
import tempfile
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path

import regex
import sentencepiece as stock

from brahmic_pua.evaluation.metrics import fertility
from brahmic_pua.io.lines import file_lines
from brahmic_pua.nepbpe.filters import FILTERS, apply_filters
from brahmic_pua.nepbpe.seeds import Seeds, nepali_entries, nepali_seeds, units
from brahmic_pua.trainer import train_model

from common import CORPORA

HELD_OUT = 3000
VOCAB = 8000
#: Particles that follow case markers inside a word (नेपालमै, हरूसमेत): a seed before them
#: still ends its noun phrase.
PARTICLES = ("नै", "कै", "मै", "पनि", "मात्र", "मात्रै", "समेत", "लगायत", "मध्ये")
#: The seeds considered (the shipped list, and प्रति and भर, left out for want of a source).
CANDIDATES = (
    "ले",
    "लाई",
    "मा",
    "को",
    "का",
    "की",
    "बाट",
    "देखि",
    "सँग",
    "संग",
    "सम्म",
    "तिर",
    "भन्दा",
    "हरू",
    "हरु",
    "अनुसार",
    "बारे",
    "बाहेक",
    "बाहिर",
    "बीच",
    "पछि",
    "अघि",
    "माथि",
    "भित्र",
    "लागि",
    "साथ",
    "नजिक",
    "प्रति",
    "भर",
)
_EDGES = regex.compile(r"^[\p{P}\p{S}]+|[\p{P}\p{S}]+$")


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def split_corpus() -> tuple[list[str], list[str]]:
    lines = list(file_lines(CORPORA / "ne.train.txt"))
    return lines[:-HELD_OUT], lines[-HELD_OUT:]


@cache
def chain_units(suffixes: tuple[str, ...]) -> frozenset[tuple[str, ...]]:
    return frozenset(units(s) for s in suffixes)


def is_chain(rest: Sequence[str], suffixes: frozenset[tuple[str, ...]]) -> bool:
    """True when ``rest`` is a concatenation of suffixes (or empty)."""
    ok = [True] + [False] * len(rest)
    for end in range(1, len(rest) + 1):
        ok[end] = any(
            len(s) <= end and ok[end - len(s)] and tuple(rest[end - len(s) : end]) == s
            for s in suffixes
        )
    return ok[-1]


def occurrences(
    word: Sequence[str], seed: Sequence[str], suffixes: frozenset[tuple[str, ...]]
) -> Iterator[tuple[str, int]]:
    """(kind, start unit) of every whole-akshara occurrence of ``seed`` in ``word``."""
    n = len(seed)
    for i in range(len(word) - n + 1):
        if tuple(word[i : i + n]) != tuple(seed):
            continue
        rest = word[i + n :]
        if not rest:
            yield ("whole" if i == 0 else "final"), i
        elif is_chain(rest, suffixes):
            yield "chain", i
        else:
            yield ("start" if i == 0 else "inner"), i


def word_counts(lines: Sequence[str]) -> Counter[str]:
    words: Counter[str] = Counter()
    for line in lines:
        words.update(_EDGES.sub("", w) for w in nfc(line).split())
    del words[""]
    return words


def seed_stats() -> None:
    train, _ = split_corpus()
    counts = word_counts(train)
    words = {w: units(w) for w in counts}
    suffixes = chain_units(CANDIDATES + PARTICLES)
    kinds = ("whole", "final", "chain", "start", "inner")
    print(f"{len(train):,} training lines, {sum(counts.values()):,} words, {len(counts):,} types")
    print("seed\tunits\t" + "\t".join(kinds) + "\tboundary share\tverdict")
    for seed in CANDIDATES:
        su = units(seed)
        found: Counter[str] = Counter()
        for word, wu in words.items():
            for kind, _ in occurrences(wu, su, suffixes):
                found[kind] += counts[word]
        total = sum(found.values())
        share = (found["whole"] + found["final"] + found["chain"]) / max(total, 1)
        verdict = "strict" if share >= 0.98 and total >= 300 else "ambiguous"
        row = "\t".join(str(found[k]) for k in kinds)
        print(f"{seed}\t{'/'.join(su)}\t{row}\t{share:.3f}\t{verdict}")


def train(lines: list[str], model_type: str, symbols: Sequence[str], work: str) -> bytes:
    prefix = f"{work}/{model_type}{len(symbols)}"
    options = {"user_defined_symbols": ",".join(symbols)} if symbols else {}
    train_model(
        sentence_iterator=iter(lines),
        model_prefix=prefix,
        vocab_size=VOCAB,
        model_type=model_type,
        **options,
    )
    return Path(f"{prefix}.model").read_bytes()


def train_plain(lines: list[str], model_type: str) -> bytes:
    out = io.BytesIO()
    stock.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=out,
        vocab_size=VOCAB,
        model_type=model_type,
        minloglevel=2,
    )
    return out.getvalue()


def fertility_of(data: bytes, held: list[str]) -> float:
    sp = stock.SentencePieceProcessor(model_proto=data)
    texts = [nfc(line) for line in held]
    return fertility(sp.encode(texts), texts)


def one_piece_rates(data: bytes, held: list[str], seeds: Seeds) -> dict[str, tuple[int, int]]:
    """seed -> (occurrences on the held-out text, those that are exactly one piece)."""
    sp = stock.SentencePieceProcessor(model_proto=data)
    every = seeds.strict + seeds.ambiguous
    suffixes = chain_units(every + PARTICLES)
    tokens = Counter(t for line in held for t in nfc(line).split())
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for token, n in tokens.items():
        core = _EDGES.sub("", token)
        if not core:
            continue
        offset = len(token[: token.index(core)].encode("utf-8"))
        wu = units(core)
        starts = [offset]
        for unit in wu:
            starts.append(starts[-1] + len(unit.encode("utf-8")))
        spans = {(p.begin, p.end) for p in sp.encode(token, return_type="proto").pieces}
        for seed in every:
            su = units(seed)
            for kind, i in occurrences(wu, su, suffixes):
                if kind in ("whole", "final", "chain"):
                    out[seed][0] += n
                    out[seed][1] += n * ((starts[i], starts[i + len(su)]) in spans)
    return {seed: (total, whole) for seed, (total, whole) in out.items()}


def rate(pairs: Sequence[tuple[int, int]]) -> str:
    total = sum(t for t, _ in pairs)
    return f"{sum(w for _, w in pairs) / total:.3f}" if total else "–"


def report_filters(name: str, data: bytes, train_lines: list[str], held: list[str]) -> None:
    seeds = nepali_seeds()
    before = fertility_of(data, held)
    names = [f for f in FILTERS if f in ("cross-script", "punct-join", "mark-start")]
    if name.startswith("brahmic"):
        names = list(FILTERS)
    for chosen in [[f] for f in names] + [names]:
        out, report = apply_filters(data, chosen, seeds=seeds, corpus=train_lines)
        after = fertility_of(out, held)
        label = chosen[0] if len(chosen) == 1 else "all of them"
        notes = "; ".join(r.note for r in report.results if r.note and len(chosen) == 1)
        print(
            f"| {name} | {label} | {report.disabled} | {before:.4f} | {after:.4f} | "
            f"{(after / before - 1) * 100:+.2f}% | {notes} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed-stats", action="store_true", help="only the seed corpus counts")
    args = parser.parse_args()
    if args.seed_stats:
        seed_stats()
        return
    train_lines, held = split_corpus()
    seeds = nepali_seeds()
    kinds = {e.seed: e.kind for e in nepali_entries()}
    variants = {"none": (), "strict": seeds.strict, "all seeds": seeds.strict + seeds.ambiguous}
    print(f"training on {len(train_lines):,} lines, held out {len(held):,}; vocab {VOCAB}")
    print("\n| model | filter | pieces disabled | fertility before | after | change | note |")
    print("|---|---|---:|---:|---:|---:|---|")
    rates: dict[tuple[str, str, bool], dict[str, tuple[int, int]]] = {}
    with tempfile.TemporaryDirectory() as work:
        for model_type in ("unigram", "bpe"):
            for variant, symbols in variants.items():
                data = train(train_lines, model_type, symbols, work)
                if variant == "none":
                    report_filters(f"brahmic {model_type}", data, train_lines, held)
                else:
                    before = fertility_of(data, held)
                    print(
                        f"| brahmic {model_type}, {variant} as user symbols | – | 0 | "
                        f"{before:.4f} | | | |"
                    )
                absorbed, _ = apply_filters(data, ["seed-absorb"], seeds=seeds)
                rates[model_type, variant, False] = one_piece_rates(data, held, seeds)
                rates[model_type, variant, True] = one_piece_rates(absorbed, held, seeds)
            report_filters(
                f"plain spm {model_type}", train_plain(train_lines, model_type), [], held
            )
    for model_type in ("unigram", "bpe"):
        print(f"\nSeed occurrences that are exactly one piece, {model_type} (held out)")
        header = " | ".join(f"{v} | {v} + seed-absorb" for v in variants)
        print(f"| seed | kind | occurrences | {header} |")
        print("|---|---|---:|" + "---:|" * (2 * len(variants)))
        columns = [rates[model_type, v, a] for v in variants for a in (False, True)]
        for kind in ("strict", "ambiguous"):
            chosen = [s for s in seeds.strict + seeds.ambiguous if kinds[s] == kind]
            for seed in chosen:
                n = columns[0].get(seed, (0, 0))[0]
                cells = " | ".join(rate([c.get(seed, (0, 0))]) for c in columns)
                print(f"| {seed} | {kind} | {n:,} | {cells} |")
            n = sum(columns[0].get(s, (0, 0))[0] for s in chosen)
            cells = " | ".join(rate([c.get(s, (0, 0)) for s in chosen]) for c in columns)
            print(f"| **all {kind}** | | {n:,} | {cells} |")


if __name__ == "__main__":
    main()
