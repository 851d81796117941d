"""Orthographic folding (NepBPE Phase 1): spelling variants rewritten to one form.

A folding table is applied in ONE left-to-right, longest-match pass, exactly the way
SentencePiece applies its normalizer rules, so the same table compiled into a model gives stock
spm the same text. One pass is only a normalization if it is idempotent, which the seed states
as "no replacement contains a pattern" and which is not enough: ``{ab → ""}`` turns ``aabb``
into ``ab``, and ``{ab → c, cd → e}`` turns ``abd`` into ``cd``. :func:`validate_folding_rules`
checks every way a second pass could find a match, and a table is refused unless it passes.

Why the checks are enough (the proof behind "N(N(s)) == N(s)"): after one pass on NFC text the
output is untouched characters and replacements. A match in it cannot lie inside untouched
text alone (the pass would have taken it there: untouched text is contiguous in the input
when nothing was deleted). So it touches a replacement: it lies inside one (``contains``), or
crosses one of its ends (``overlaps``), or spans a deletion (``deletes``). And the output is
NFC: replacements are NFC, start with a character that nothing before can combine with (no
mark, joiner or character that follows the first in a canonical decomposition: Hangul jamo,
Bengali ৗ), and end with one whose compositions with what may follow, in any number of steps,
are in no pattern (``nfc``: x → e with ệ → y is refused, since e + U+0323 + U+0302 composes
to ệ in two steps; x → 가 with 각 → y, since 가 + ᆨ is 각). A composition of the replacement's
last character c with a tail t is a character h canonically equivalent to c + t, since NFC(c + t)
is the NFC character equivalent to it: h has c's base, and its decomposition holds c's marks and
t's (t's may sort first: ô + U+0323 is ộ, o U+0323 U+0302). So the check takes each character
of the patterns with c's base, removes c's marks from its decomposition, and tests NFC(c + the
rest): every chain of steps at once. With none of
these, a second pass finds nothing: the fixpoint is reached after one pass.

The check is bounded by the table's size, not by its problems: every way two rules can meet is
found by looking pieces of a replacement up among the patterns' prefixes and suffixes, and a
table is refused at its first problem (a hostile table in a downloaded model cannot make a load
slow: 128 rules of 32 code points check in about 0.07 s here).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from importlib import resources
from itertools import islice

from brahmic_pua.io.digest import fingerprint
from brahmic_pua.io.lines import bounded_lines, split_text
from brahmic_pua.io.wording import counted
from brahmic_pua.normalize.spellings import composites
from brahmic_pua.segment.sure_cuts import check_no_surrogates

ZWJ = "\u200d"


@dataclass(frozen=True)
class Violation:
    """One way a folding table fails; ``witness`` is a text on which two passes differ
    (None when the failure is about the table itself)."""

    kind: str  # "empty", "starts-with-mark", "not-nfc", "nfc", "contains", "overlaps", "deletes"
    pattern: str
    other: str
    witness: str | None

    def __str__(self) -> str:
        example = f" (e.g. {self.witness!r})" if self.witness is not None else ""
        return f"{self.kind}: {self.pattern!r} vs {self.other!r}{example}"


class LongestMatch:
    """One longest-match pass with a fixed set of rules, as spm's normalizer does it: at each
    position the longest matching source is replaced; where none matches, one character passes
    unchanged. Linear in the text for bounded sources (a dict lookup of every prefix at every
    position is quadratic in the source length, and sources of 8,000 characters made a line of
    10,000 take a minute).

    Two ways to find the matches, chosen by the number of rules and giving the same result:
    a folding table (a few rules, long texts) becomes one ``re`` alternation of its sources,
    longest first, so that at a position the first alternative that matches is the longest
    (``re`` scans in C, about five times faster than a walk in Python); the compiled rules of a
    model (tens of thousands, short texts) become a trie, which is built in a fraction of the
    time ``re`` takes to compile them. An empty source matches nothing, as in spm."""

    __slots__ = ("_pattern", "_root", "_rules", "_starts")

    #: Up to this many rules, the ``re`` alternation.
    ALTERNATION = 1024

    def __init__(self, rules: Mapping[str, str]) -> None:
        self._rules = {source: target for source, target in rules.items() if source}
        self._pattern: re.Pattern[str] | None = None
        self._root: _Node = {}
        if len(self._rules) <= self.ALTERNATION:
            longest_first = sorted(self._rules, key=len, reverse=True)
            self._pattern = re.compile("|".join(map(re.escape, longest_first)) or "(?!)")
            return
        for source, target in self._rules.items():
            node = self._root
            for ch in source:
                node = node.setdefault(ch, {})  # type: ignore[assignment]
            node[_END] = target
        # The next position where some source could start is found by ``re`` (in C).
        firsts = "".join(map(re.escape, sorted(self._root)))
        self._starts = re.compile(f"[{firsts}]" if firsts else "(?!)")

    def __call__(self, text: str) -> str:
        if self._pattern is not None:
            rules = self._rules
            return self._pattern.sub(lambda found: rules[found.group()], text)
        root, search = self._root, self._starts.search
        out: list[str] = []
        done = 0  # text[:done] is in out
        size = len(text)
        start = search(text)
        while start is not None:
            i = start.start()
            node = root.get(text[i])
            end, target, j = i, "", i + 1
            while isinstance(node, dict):
                found = node.get(_END)
                if isinstance(found, str):
                    end, target = j, found
                node = node.get(text[j]) if j < size else None
                j += 1
            if end == i:
                start = search(text, i + 1)
                continue
            out += (text[done:i], target)
            done = end
            start = search(text, end)
        if not done:
            return text
        out.append(text[done:])
        return "".join(out)


#: A trie node: a character leads to the next node; ``_END`` (no character is empty) holds the
#: target of the source that ends here.
_Node = dict[str, "_Node | str"]
_END = ""


def fold(text: str, rules: Mapping[str, str]) -> str:
    """One longest-match pass of ``rules`` over ``text`` (build a :class:`LongestMatch` once to
    apply the same rules to many texts)."""
    return LongestMatch(rules)(text) if rules else text


def validate_folding_rules(rules: Mapping[str, str], limit: int | None = None) -> list[Violation]:
    """Every reason (the first ``limit``) one pass of ``rules`` over NFC text might not be
    idempotent or might not give NFC text; an empty list means N(N(s)) == N(s) for every s
    (see the module's proof). The work is bounded by the table's size, not by its problems: a
    table is checked in O(rules × length²) lookups, and a table refused stops at its first.

        >>> from brahmic_pua import validate_folding_rules
        >>> validate_folding_rules({"सङ्ग": "संग"})
        []
        >>> [problem.kind for problem in validate_folding_rules({"ab": "b"})]  # aab → ab → b
        ['overlaps']
    """
    return list(islice(violations(rules), limit))


def violations(rules: Mapping[str, str]) -> Iterator[Violation]:
    """The reasons of :func:`validate_folding_rules`, found one by one. A rule holding a lone
    surrogate is no reason but the ValueError ``encode`` gives for one: it is no text."""
    check_rule_texts(rules.items())
    check = _Check(rules)
    for pattern, replacement in rules.items():
        yield from _alone(pattern, replacement, rules, check)
    beginning: dict[str, list[str]] = {}
    ending: dict[str, list[str]] = {}
    for other in rules:
        for k in range(1, len(other) + 1):
            beginning.setdefault(other[:k], []).append(other)
            ending.setdefault(other[-k:], []).append(other)
    for pattern, replacement in rules.items():
        yield from _interactions(pattern, replacement, rules, check, beginning, ending)


class _Check:
    """N of a witness under the table being checked, to keep only witnesses that show it."""

    def __init__(self, rules: Mapping[str, str]) -> None:
        self.match = LongestMatch(rules)

    def normalized(self, text: str) -> str:
        nfc = unicodedata.normalize("NFC", text)
        return unicodedata.normalize("NFC", self.match(nfc))

    def violation(self, kind: str, pattern: str, other: str, witness: str) -> Violation:
        """A violation, with ``witness`` kept only if two passes of N really differ on it."""
        once = self.normalized(witness)
        example = witness if self.normalized(once) != once else None
        return Violation(kind, pattern, other, example)


def _alone(
    pattern: str, replacement: str, rules: Mapping[str, str], check: _Check
) -> Iterator[Violation]:
    """A rule on its own: non-empty NFC strings that begin where a cluster can begin (so stock
    spm can apply it), and a replacement whose last character cannot compose with the marks or
    jamo after it, in any number of steps, into a character some pattern holds (e + U+0323 +
    U+0302 is ệ; 가 + ᆨ is 각)."""
    if not pattern:
        yield Violation("empty", pattern, replacement, None)
    for text in (pattern, replacement):
        if text and _attaches_left(text[0]):
            yield Violation("starts-with-mark", pattern, replacement, None)
        if not unicodedata.is_normalized("NFC", text):
            yield Violation("not-nfc", pattern, replacement, None)
    if not replacement:
        return
    held = _held(rules)
    for made, tail in _composed_from(replacement[-1], held):
        yield check.violation("nfc", pattern, made, pattern + tail)
    if unicodedata.combining(replacement[-1]) and any(map(unicodedata.combining, held)):
        yield Violation("nfc", pattern, replacement, None)


def _held(rules: Mapping[str, str]) -> frozenset[str]:
    return frozenset("".join(rules))


def _interactions(
    pattern: str,
    replacement: str,
    rules: Mapping[str, str],
    check: _Check,
    beginning: Mapping[str, list[str]],
    ending: Mapping[str, list[str]],
) -> Iterator[Violation]:
    """Can another pattern match in the output where ``pattern`` was replaced? It can if it
    overlaps the replacement at some alignment (inside it, across one end, around it) with the
    shared characters equal, or, for a deletion, if it spans the point where text closes up.

    Each alignment shares a piece ``replacement[a:b]`` with the other pattern, which either
    starts there (``a > 0``: a pattern beginning with the piece) or began earlier (``a == 0``),
    and either ends there (``b < len``: a pattern ending with the piece) or goes on: so the
    alignments are found by looking the replacement's pieces up in the patterns' prefixes and
    suffixes, never by trying every pattern at every offset."""
    size = len(replacement)
    seen: set[tuple[str, str, str]] = set()

    def found(kind: str, other: str, witness: str) -> Iterator[Violation]:
        if (kind, other, witness) not in seen:
            seen.add((kind, other, witness))
            yield check.violation(kind, pattern, other, witness)

    if not replacement:
        for other in rules:
            for k in range(len(other) + 1):
                yield from found("deletes", other, other[:k] + pattern + other[k:])
        return
    for other in rules:  # around: the whole replacement inside a longer pattern
        offset = other.find(replacement)
        while offset >= 0:
            if len(other) == size:
                yield from found("contains", other, pattern)
            else:
                before, after = other[:offset], other[offset + size :]
                yield from found("overlaps", other, before + pattern + after)
            offset = other.find(replacement, offset + 1)
    for b in range(1, size):  # across the start: a pattern ending with replacement[:b]
        for other in ending.get(replacement[:b], ()):
            if len(other) == b:
                yield from found("contains", other, pattern)
            else:
                yield from found("overlaps", other, other[: len(other) - b] + pattern)
    for a in range(1, size):
        for other in beginning.get(replacement[a:], ()):  # from inside to the end, or on
            if len(other) == size - a:
                yield from found("contains", other, pattern)
            else:
                yield from found("overlaps", other, pattern + other[size - a :])
        for b in range(a + 1, size):  # strictly inside, ending before the end
            if replacement[a:b] in rules:
                yield from found("contains", replacement[a:b], pattern)


@cache
def _composing_starts() -> frozenset[str]:
    """Characters that compose with what comes before them: every character after the first
    of a full canonical decomposition (marks, Hangul vowel and final jamo, Bengali ৗ)."""
    return frozenset(ch for key in composites() for ch in key[1:])


@lru_cache(maxsize=8)
def _by_base(held: frozenset[str]) -> dict[str, list[tuple[str, str]]]:
    """The characters of ``held`` that decompose, with their decompositions, by first code point."""
    found: dict[str, list[tuple[str, str]]] = {}
    for made in sorted(held):
        decomposed = unicodedata.normalize("NFD", made)
        if len(decomposed) > 1:
            found.setdefault(decomposed[0], []).append((made, decomposed))
    return found


def _composed_from(ch: str, held: frozenset[str]) -> list[tuple[str, str]]:
    """(character, tail) for every character of ``held`` that ``ch`` followed by ``tail``
    composes to, in as many steps as composition takes: h with the same base as ``ch`` whose
    decomposition holds the marks of ``ch``'s and more (the tail), such that NFC(ch + tail) is h.
    The tail's marks may sort before ``ch``'s own (ô + U+0323 is ộ, whose decomposition is
    o U+0323 U+0302), so ``ch``'s decomposition need not be a prefix of h's."""
    start = unicodedata.normalize("NFD", ch)
    found = []
    for made, decomposed in _by_base(held).get(start[0], ()):
        if len(decomposed) <= len(start):
            continue
        tail = list(decomposed[1:])
        try:
            for mark in start[1:]:
                tail.remove(mark)
        except ValueError:
            continue
        if unicodedata.normalize("NFC", ch + "".join(tail)) == made:
            found.append((made, "".join(tail)))
    return found


def _attaches_left(ch: str) -> bool:
    """A character that belongs to the cluster before it: a mark, a joiner, or a character
    that composes with the one before it (Bengali ৗ, Hangul jamo)."""
    category = unicodedata.category(ch)
    return category in ("Mn", "Mc", "Me") or ch in _composing_starts() or ch in "\u200c\u200d"


#: The bounds of a folding table, wherever it comes from (``train --folding_rules``, a model's
#: manifest): the number and length of the rules bound the work of every load of a model that
#: records them (checking 128 rules of 32 code points takes about 0.07 s here) and of every fold
#: (a position is compared with at most 32 characters). A folding table is a few rules written by
#: hand (the shipped one has 6, of at most 6 code points), so these are far above any.
MAX_FOLDING_RULES = 128
MAX_FOLDING_TEXT = 32
#: The largest folding file read: its 128 rules of 32 code points each way are at most 33 KB,
#: with comments as long as one likes to write; the shipped file is 2.4 KB. A file past this is
#: no folding table (a 300 MB one-line file was read whole before its first line was refused).
MAX_FOLDING_FILE_BYTES = 1 << 20


def check_rule_texts(rules: Iterable[tuple[str, str]]) -> None:
    """The ValueError ``encode`` gives for a lone surrogate, naming the rule that holds one."""
    for pattern, replacement in rules:
        for text in (pattern, replacement):
            try:
                check_no_surrogates(text)
            except ValueError as error:
                raise ValueError(f"folding rule {pattern!r} -> {replacement!r}: {error}") from None


def check_table_size(rules: Sequence[tuple[str, str]]) -> None:
    """A one-line ValueError for a table over the bounds, before the quadratic check runs."""
    if len(rules) > MAX_FOLDING_RULES:
        raise ValueError(
            f"{counted(len(rules), 'folding rule')}: at most {MAX_FOLDING_RULES} (each is checked "
            "against every other when a model loads)"
        )
    for pattern, replacement in rules:
        if max(len(pattern), len(replacement)) > MAX_FOLDING_TEXT:
            raise ValueError(
                f"a folding rule of {counted(max(len(pattern), len(replacement)), 'code point')}: "
                f"at most "
                f"{MAX_FOLDING_TEXT} in a pattern or a replacement"
            )


@dataclass(frozen=True)
class FoldingTable:
    """Validated folding rules, with the fingerprint a model's manifest records.

    >>> from brahmic_pua import FoldingTable
    >>> table = FoldingTable((("सङ्ग", "संग"),))
    >>> table.apply("सङ्ग गयो")
    'संग गयो'
    >>> FoldingTable((("a", "aa"),))  # a second pass would change the text again
    Traceback (most recent call last):
    ...
    ValueError: folding rules are not a normalization: contains: 'a' vs 'a' (e.g. 'a')
    """

    rules: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        check_rule_texts(self.rules)  # first: a lone surrogate is the one error everywhere
        check_table_size(self.rules)
        problem = next(violations(dict(self.rules)), None)
        if problem is not None:
            raise ValueError(f"folding rules are not a normalization: {problem}")

    @property
    def fingerprint(self) -> str:
        return fingerprint("\n".join(f"{p}\t{r}" for p, r in self.rules).encode("utf-8"))

    @cached_property
    def mapping(self) -> dict[str, str]:
        return dict(self.rules)

    @cached_property
    def _match(self) -> LongestMatch:
        return LongestMatch(self.mapping)

    def apply(self, text: str) -> str:
        """One pass of the rules (linear in ``text``). A lone surrogate passes, as any text no
        rule matches: this runs on every encode, and stock names one after N."""
        return self._match(text) if self.rules else text

    def __len__(self) -> int:
        return len(self.rules)


def read_table(path: str, mode: str) -> FoldingTable:
    """A user's folding file, in the shipped table's format (:func:`parse_table`), read whole,
    at most :data:`MAX_FOLDING_FILE_BYTES` of it."""
    return parse_table(bounded_lines(path, MAX_FOLDING_FILE_BYTES, "folding table"), mode, path)


@cache
def nepali_table(mode: str) -> FoldingTable:
    """The shipped Nepali table for ``"lm"`` (full) or ``"ocr"`` (minimal); sources inside."""
    data = resources.files("brahmic_pua.data").joinpath("nepali_folding.txt")
    return parse_table(split_text(data.read_text("utf-8")), mode, "nepali_folding.txt")


def parse_table(lines: Iterable[str], mode: str, where: str) -> FoldingTable:
    """The one reader of the folding file format, the shipped table's and a user's: a rule a
    line, ``pattern<TAB>replacement``, then optionally the modes it is for (``lm`` or
    ``lm,ocr``; without it, every mode) and its source or reason; blank lines and ``#``
    comments skipped. One clear error, naming ``where``, for a line that is not a rule or a
    table that is not a normalization."""
    rules = []
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t", 3)
        if len(fields) < 2:
            raise ValueError(f"{where} line {number}: write pattern<TAB>replacement")
        if len(fields) < 3 or mode in fields[2].split(","):
            rules.append((fields[0], fields[1]))
    try:
        return FoldingTable(tuple(rules))
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None


NO_FOLDING = FoldingTable(())
