"""Plain, slow versions of the steps that training and decoding do faster, for the tests in
trainer/test_engine_fast_paths.py, integrations/test_shards.py and test_distributed.py: each is
the straightforward algorithm the fast one must agree with (reading a file line by line among them).

An oracle written again, not a caller of the code it checks: what it needs of Unicode comes from
``unicodedata``; of brahmic_pua it takes only public names (the limits the rules are built with,
the codec's table, the normalizer, the script tables and the longest-match pass)."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from functools import cache
from itertools import combinations_with_replacement, pairwise, permutations, product

from brahmic_pua.codec import PUACodec, cluster_script
from brahmic_pua.model import rules as fast_rules
from brahmic_pua.normalize import Normalizer
from brahmic_pua.normalize.folding import ZWJ, LongestMatch
from brahmic_pua.normalize.spellings import MAX_RUN, MAX_SPELLINGS
from brahmic_pua.orthography import indic_category, script_of_char
from brahmic_pua.segment import segment
from brahmic_pua.segment.counting import CorpusCounts, lookup_pattern


@cache
def composites() -> dict[str, tuple[str, ...]]:
    """Full canonical decomposition -> the characters that decompose to it, from unicodedata."""
    found: dict[str, list[str]] = {}
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        decomposed = unicodedata.normalize("NFD", ch)
        if decomposed != ch:
            found.setdefault(decomposed, []).append(ch)
    return {key: tuple(chars) for key, chars in found.items()}


@cache
def _longest_decomposition() -> int:
    return max(map(len, composites()))


def decomposing() -> list[str]:
    """Every character whose NFD differs from itself."""
    return [ch for chars in composites().values() for ch in chars]


@cache
def _in_decompositions() -> frozenset[str]:
    return frozenset("".join(composites()))


def alone(text: str) -> bool:
    """No other spelling: nothing decomposes or composes, no two adjacent marks of different
    combining classes could trade places."""
    if not _in_decompositions().isdisjoint(text) or unicodedata.normalize("NFD", text) != text:
        return False
    classes = [unicodedata.combining(ch) for ch in text]
    return not any(a and b and a != b for a, b in pairwise(classes))


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
    longest = _longest_decomposition()
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


@cache
def _script_characters() -> dict[str, tuple[str, ...]]:
    """Every character of each Brahmic script, in code point order."""
    found: dict[str, list[str]] = {}
    for cp in range(0x20000):  # the Brahmic scripts lie in the first two planes
        script = script_of_char(chr(cp))
        if script is not None:
            found.setdefault(script, []).append(chr(cp))
    return {script: tuple(chars) for script, chars in found.items()}


@cache
def _ending_characters() -> frozenset[str]:
    return frozenset(ch for key in composites() for ch in key[1:])


def reordering_marks(script: str | None) -> list[str]:
    """The script's marks N can move (a combining class, Vedic cantillation marks aside) or
    compose (the characters after the first of some character's decomposition)."""
    ending = _ending_characters()
    return [
        ch
        for ch in _script_characters().get(script or "", ())
        if (unicodedata.combining(ch) and indic_category(ch) != "CANTILLATIONMARK") or ch in ending
    ]


def folding_sources(n: Normalizer, codec: PUACodec) -> list[str]:
    """Each folding pattern, and the pattern followed by each tail that N turns, with the
    pattern's replacement, into a longer cluster of the table (सँग + ै is संगै). Found by trial:
    every proper suffix of every table cluster after the pattern, kept when N of the whole
    segments as the replacement does except for a last cluster that is that table cluster.
    (The library reads the tails off the replacement's last cluster instead.)"""
    clusters = [cluster for _, cluster in codec.code_pairs()]
    found = []
    for pattern, replacement in n.folding.rules:
        found.append(pattern)
        before = segment(n(replacement), codec.policy)
        for cluster in clusters:
            for k in range(1, len(cluster)):
                after = segment(n(pattern + cluster[k:]), codec.policy)
                if after[-1] == cluster != before[-1] and after[:-1] == before[:-1]:
                    found.append(pattern + cluster[k:])
    return found


def with_zwj(text: str) -> list[str]:
    """``text`` with one ZWJ put in at each inner place."""
    return [text[:i] + ZWJ + text[i:] for i in range(1, len(text))]


def followed_by_marks(clusters: list[str]) -> list[str]:
    """Every frontier text spelled, sorted by its number of spellings."""
    found: dict[str, None] = {}
    frontier = clusters
    budget = fast_rules.MAX_FOLLOWED
    for _ in range(fast_rules.MARKS_AFTER):
        step = {
            unicodedata.normalize("NFC", text + mark): None
            for text in frontier
            for mark in reordering_marks(cluster_script(text))
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


def mark_runs(clusters: list[str]) -> list[str]:
    """NFC of every run of one to ``MARK_RUN`` marks with a combining class of each script of
    ``clusters`` (every order up to ``ORDERED_RUN`` marks, each multiset once beyond), and of
    those shorter than ``MARK_RUN`` after a vowel sign whose decomposition ends with such a
    mark."""
    scripts = sorted({script for script in map(cluster_script, clusters) if script is not None})
    runs: dict[str, None] = {}
    for script in scripts:
        marks = [mark for mark in reordering_marks(script) if unicodedata.combining(mark)]
        signs = [ch for ch in _script_characters()[script] if _decomposing_sign(ch)]
        for size in range(1, fast_rules.MARK_RUN + 1):
            if size <= fast_rules.ORDERED_RUN:
                found = list(product(marks, repeat=size))
            else:
                found = list(combinations_with_replacement(marks, size))
            for run in found:
                for sign in ["", *signs] if size < fast_rules.MARK_RUN else [""]:
                    if size > 1 or sign:
                        runs[unicodedata.normalize("NFC", sign + "".join(run))] = None
    return list(runs)


def _decomposing_sign(ch: str) -> bool:
    decomposed = unicodedata.normalize("NFD", ch)
    return (
        unicodedata.category(ch).startswith("M")
        and len(decomposed) > 1
        and unicodedata.combining(decomposed[-1]) > 0
    )


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
    folded = folding_sources(n, codec)
    followed = followed_by_marks(list(rules)) + mark_runs(list(rules)) + followed_by_marks(folded)
    wanted += followed
    letters = [text for text in characters if cluster_script(text) is not None]
    wanted += followed_by_marks(letters)
    wanted += folded
    if n.strips_zwj:
        wanted += [ZWJ, *(t for s in [*rules, *folded] for t in with_zwj(s))]
    extra: dict[str, str] = {}
    for text in wanted:
        for spelled in spellings(text):
            if spelled not in rules and spelled not in extra and n(spelled) != spelled:
                extra[spelled] = match(n(spelled))
    if n.strips_zwj:
        for text in [*letters, *followed]:
            for joined in (j for spelled in spellings(text) for j in with_zwj(spelled)):
                if joined not in rules and joined not in extra:
                    extra[joined] = match(n(joined))

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
