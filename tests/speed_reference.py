"""Plain, slow versions of the steps that training and decoding do faster, for the tests in
test_speed_paths.py, test_shards.py and test_distributed.py: each is the straightforward
algorithm the fast one must agree with (reading a file line by line among them)."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from functools import cache
from itertools import permutations

from brahmic_pua.codec import PUACodec, cluster_script
from brahmic_pua.model import rules as fast_rules
from brahmic_pua.normalize import Normalizer
from brahmic_pua.normalize.folding import ZWJ, LongestMatch
from brahmic_pua.normalize.spellings import (
    MAX_RUN,
    MAX_SPELLINGS,
    alone,
    composites,
    longest_decomposition,
)
from brahmic_pua.normalize.spellings import decomposing_characters as decomposing
from brahmic_pua.segment.counting import CorpusCounts, lookup_pattern


def count_corpus(texts: list[str], policy: str) -> CorpusCounts:
    """Every cluster the codec looks up, found in each whole text; every character."""
    pattern = lookup_pattern(policy)
    counts = CorpusCounts()
    for text in texts:
        counts.clusters.update(pattern.findall(text))
        counts.characters.update(text)
    return counts


@cache
def spellings(text: str) -> tuple[str, ...]:
    """Every order of the marks (each permutation NFD maps back), every composition of it."""
    if alone(text):
        return (text,)
    seen = dict.fromkeys([text])
    for order in _orders(unicodedata.normalize("NFD", text)):
        for spelled in _compositions(order):
            seen.setdefault(spelled)
            if len(seen) >= MAX_SPELLINGS:
                return tuple(seen)
    return tuple(seen)


def _orders(decomposed: str) -> Iterator[str]:
    parts: list[list[str]] = [[]]
    run: list[str] = []
    for ch in (*decomposed, ""):
        if ch and unicodedata.combining(ch):
            run.append(ch)
            continue
        if run:
            parts = [[*p, r] for p in parts for r in run_orders(run)]
            run = []
        if ch:
            parts = [[*p, ch] for p in parts]
    for p in parts:
        yield "".join(p)


def run_orders(run: list[str]) -> list[str]:
    """The permutations of ``run`` whose NFD is ``run``, ``run`` first."""
    if len(run) > MAX_RUN:
        return ["".join(run)]
    canonical = "".join(run)
    orders = dict.fromkeys([canonical])
    for perm in permutations(run):
        candidate = "".join(perm)
        if unicodedata.normalize("NFD", candidate) == canonical:
            orders.setdefault(candidate)
    return list(orders)


def _compositions(order: str) -> list[str]:
    table = composites()
    longest = longest_decomposition()
    size = len(order)
    tails: list[list[str]] = [[] for _ in range(size)] + [[""]]
    for i in range(size - 1, -1, -1):
        for k in range(1, min(longest, size - i) + 1):
            piece = order[i : i + k]
            heads = (piece, *table.get(piece, ())) if k == 1 else table.get(piece, ())
            tails[i] += [head + rest for head in heads for rest in tails[i + k]]
    return tails[0]


def interacts(cluster: str, mark: str) -> bool:
    decomposed = unicodedata.normalize("NFD", cluster)
    end = len(decomposed)
    while end and unicodedata.combining(decomposed[end - 1]):
        end -= 1
    own = unicodedata.combining(mark)
    moves = any(unicodedata.combining(x) != own for x in decomposed[end:])
    table = composites()
    composes = any(decomposed[i:] + mark in table for i in range(len(decomposed)))
    return moves or composes or not unicodedata.is_normalized("NFC", cluster + mark)


def followed_by_marks(clusters: list[str]) -> list[str]:
    """Every frontier text spelled, sorted by its number of spellings."""
    found: dict[str, None] = {}
    frontier = clusters
    budget = fast_rules.MAX_FOLLOWED
    for _ in range(fast_rules.MARKS_AFTER):
        step = {
            unicodedata.normalize("NFC", text + mark): None
            for text in frontier
            for mark in fast_rules._reordering_marks(cluster_script(text))
            if interacts(text, mark)
        }
        frontier = sorted((t for t in step if t not in found), key=lambda t: len(spellings(t)))
        for text in frontier:
            budget -= len(spellings(text))
            if budget < 0:
                break
            found[text] = None
        frontier = [text for text in frontier if text in found]
    return list(found)


def normalizer_rules(codec: PUACodec, n: Normalizer) -> list[tuple[str, str]]:
    """N of every spelling and fold of it taken one spelling at a time; prefixes counted in
    both tables for every rule."""
    base = fast_rules.rule_pairs(codec)
    if not n.composes:
        return base
    rules = {s: t for s, t in base if n(s) == s}
    match = LongestMatch(rules)
    characters = sorted({unicodedata.normalize("NFC", ch) for ch in decomposing()})
    wanted = [*rules, *characters]
    wanted += [unicodedata.normalize("NFC", source) for source, _ in base if n(source) != source]
    brahmic = [text for text in characters if cluster_script(text) is not None]
    wanted += followed_by_marks([cluster for cluster in rules if not alone(cluster)] + brahmic)
    folded = fast_rules._folding_sources(n, codec)
    wanted += folded
    if n.strips_zwj:
        wanted += [ZWJ, *(t for s in [*rules, *folded] for t in fast_rules._with_zwj(s))]
    extra: dict[str, str] = {}
    for text in wanted:
        for spelled in spellings(text):
            if spelled not in rules and spelled not in extra and n(spelled) != spelled:
                extra[spelled] = match(n(spelled))

    def prefixes(source: str) -> int:
        return sum(
            1 for k in range(1, len(source) + 1) if source[:k] in rules or source[:k] in extra
        )

    kept = [(s, t) for s, t in extra.items() if prefixes(s) < fast_rules.MAX_SHARED_PREFIXES]
    return list(rules.items()) + kept


def file_lines(name: str) -> Iterator[str]:
    """Lines of a UTF-8 file without their line ending or a leading byte-order mark; a bad
    byte is reported with its line and its offset in the file."""
    offset = 0
    with open(name, "rb") as stream:
        for number, raw in enumerate(stream, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise ValueError(
                    f"{name} is not UTF-8 at line {number} (byte offset {offset + error.start}: "
                    f"{error.reason}): convert it with iconv -t UTF-8"
                ) from None
            offset += len(raw)
            if number == 1:
                line = line.removeprefix("\ufeff")
            yield line.rstrip("\r\n")
