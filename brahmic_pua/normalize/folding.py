"""Orthographic folding (seed 000 Phase 1): spelling variants rewritten to one form.

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
NFC: replacements are NFC, start with a character that nothing before can combine with, and
end with one that nothing after can combine with (``nfc``). With none of these, a second pass
finds nothing: the fixpoint is reached after one pass.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources

from brahmic_pua.io.digest import fingerprint
from brahmic_pua.io.lines import file_lines, split_text
from brahmic_pua.normalize.spellings import composites

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
        shown = f" (e.g. {self.witness!r})" if self.witness is not None else ""
        return f"{self.kind}: {self.pattern!r} vs {self.other!r}{shown}"


def fold(text: str, rules: Mapping[str, str], longest: int | None = None) -> str:
    """One longest-match pass, as spm's normalizer does it: at each position the longest
    matching source is replaced; where none matches, one character passes unchanged. (The
    model's compiled rules are computed with it too.)"""
    if not rules:
        return text
    size = longest if longest is not None else max(map(len, rules))
    out: list[str] = []
    i = 0
    while i < len(text):
        for k in range(min(size, len(text) - i), 0, -1):
            replacement = rules.get(text[i : i + k])
            if replacement is not None:
                out.append(replacement)
                i += k
                break
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def validate_folding_rules(rules: Mapping[str, str]) -> list[Violation]:
    """Every reason one pass of ``rules`` over NFC text might not be idempotent or might not
    give NFC text; an empty list means N(N(s)) == N(s) for every s (see the module's proof)."""
    found: list[Violation] = []
    for pattern, replacement in rules.items():
        found += _alone(pattern, replacement, rules)
    for pattern, replacement in rules.items():
        for other in rules:
            found += _interactions(pattern, replacement, other, rules)
    return found


def _normalized(text: str, rules: Mapping[str, str]) -> str:
    nfc = unicodedata.normalize("NFC", text)
    return unicodedata.normalize("NFC", fold(nfc, rules))


def _violation(
    kind: str, pattern: str, other: str, witness: str, rules: Mapping[str, str]
) -> Violation:
    """A violation, with ``witness`` kept only if two passes of N really differ on it."""
    once = _normalized(witness, rules)
    return Violation(kind, pattern, other, witness if _normalized(once, rules) != once else None)


def _alone(pattern: str, replacement: str, rules: Mapping[str, str]) -> list[Violation]:
    """A rule on its own: non-empty NFC strings that begin where a cluster can begin (so stock
    spm can apply it), and a replacement whose ends cannot combine with the text around it
    into a character some pattern holds."""
    problems = []
    if not pattern:
        problems.append(Violation("empty", pattern, replacement, None))
    for text in (pattern, replacement):
        if text and _attaches_left(text[0]):
            problems.append(Violation("starts-with-mark", pattern, replacement, None))
        if not unicodedata.is_normalized("NFC", text):
            problems.append(Violation("not-nfc", pattern, replacement, None))
    held = "".join(rules)
    if replacement:
        for key, chars in composites().items():
            made = unicodedata.normalize("NFC", key)
            if len(key) != 2 or made not in chars or made not in held:
                continue
            if key[0] == replacement[-1]:
                witness = pattern + key[1]
            elif key[1] == replacement[0]:
                witness = key[0] + pattern
            else:
                continue
            problems.append(_violation("nfc", pattern, made, witness, rules))
        if unicodedata.combining(replacement[-1]) and any(map(unicodedata.combining, held)):
            problems.append(Violation("nfc", pattern, replacement, None))
    return problems


def _interactions(
    pattern: str, replacement: str, other: str, rules: Mapping[str, str]
) -> list[Violation]:
    """Can ``other`` match in the output where ``pattern`` was replaced? It can if it overlaps
    the replacement at any alignment (inside it, across one end, around it) with the shared
    characters equal, or, for a deletion, if it spans the point where text closes up."""
    candidates: list[tuple[str, str]] = []
    size = len(replacement)
    for start in range(1 - len(other), size):  # where ``other`` starts, relative to it
        end = start + len(other)
        low, high = max(0, start), min(size, end)
        if low >= high or replacement[low:high] != other[low - start : high - start]:
            continue
        if start >= 0 and end <= size:
            candidates.append(("contains", pattern))
        else:
            before, after = other[: max(0, -start)], other[len(other) - max(0, end - size) :]
            candidates.append(("overlaps", before + pattern + after))
    if not replacement:
        candidates += [("deletes", other[:k] + pattern + other[k:]) for k in range(len(other) + 1)]
    return [
        _violation(kind, pattern, other, witness, rules)
        for kind, witness in dict.fromkeys(candidates)
    ]


@cache
def _composing_starts() -> frozenset[str]:
    """Characters that compose with a character before them (the second of a pair)."""
    return frozenset(key[1] for key in composites() if len(key) == 2)


def _attaches_left(ch: str) -> bool:
    """A character that belongs to the cluster before it: a mark, a joiner, or the second half
    of a composition (Bengali ৗ)."""
    category = unicodedata.category(ch)
    return category in ("Mn", "Mc", "Me") or ch in _composing_starts() or ch in "\u200c\u200d"


#: The bounds of a folding table, wherever it comes from (``train --folding_rules``, a model's
#: manifest): :func:`validate_folding_rules` compares every rule with every other, so the number
#: and length of the rules bound the work of every load of a model that records them; 128 rules of
#: 32 code points take about 1.3 s here, 256 take 4.7 s. A folding table is a few rules written
#: by hand (the shipped one has 6, of at most 6 code points), so these are far above any.
MAX_FOLDING_RULES = 128
MAX_FOLDING_TEXT = 32


def check_table_size(rules: Sequence[tuple[str, str]]) -> None:
    """A one-line ValueError for a table over the bounds, before the quadratic check runs."""
    if len(rules) > MAX_FOLDING_RULES:
        raise ValueError(
            f"{len(rules)} folding rules: at most {MAX_FOLDING_RULES} (each is checked against "
            "every other when a model loads)"
        )
    for pattern, replacement in rules:
        if max(len(pattern), len(replacement)) > MAX_FOLDING_TEXT:
            raise ValueError(
                f"a folding rule of {max(len(pattern), len(replacement))} code points: at most "
                f"{MAX_FOLDING_TEXT} in a pattern or a replacement"
            )


@dataclass(frozen=True)
class FoldingTable:
    """Validated folding rules, with the fingerprint a model's manifest records."""

    rules: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        check_table_size(self.rules)
        problems = validate_folding_rules(dict(self.rules))
        if problems:
            raise ValueError(
                f"folding rules are not a normalization ({len(problems)} problem(s)), first: "
                f"{problems[0]}"
            )

    @property
    def fingerprint(self) -> str:
        return fingerprint("\n".join(f"{p}\t{r}" for p, r in self.rules).encode("utf-8"))

    @cached_property
    def mapping(self) -> dict[str, str]:
        return dict(self.rules)

    @cached_property
    def longest(self) -> int:
        return max(map(len, self.mapping), default=0)

    def apply(self, text: str) -> str:
        return fold(text, self.mapping, self.longest)

    def __len__(self) -> int:
        return len(self.rules)


def read_table(path: str, mode: str) -> FoldingTable:
    """A user's folding file: ``pattern<TAB>replacement`` lines (a third column of modes,
    ``lm`` / ``lm,ocr``, and a fourth of sources, as in the shipped table, are optional);
    one clear error for a line that is not a rule or a table that is not a normalization."""
    rules = []
    for number, line in enumerate(file_lines(path), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 2:
            raise ValueError(f"{path} line {number}: write pattern<TAB>replacement")
        if len(fields) < 3 or mode in fields[2].split(","):
            rules.append((fields[0], fields[1]))
    try:
        return FoldingTable(tuple(rules))
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None


@cache
def nepali_table(mode: str) -> FoldingTable:
    """The shipped Nepali table for ``"lm"`` (full) or ``"ocr"`` (minimal); sources inside."""
    text = resources.files("brahmic_pua.data").joinpath("nepali_folding.txt").read_text("utf-8")
    return FoldingTable(tuple(_rules_for(split_text(text), mode)))


def _rules_for(lines: Iterable[str], mode: str) -> list[tuple[str, str]]:
    rules = []
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        pattern, replacement, modes, _source = line.split("\t", 3)
        if mode in modes.split(","):
            rules.append((pattern, replacement))
    return rules


NO_FOLDING = FoldingTable(())
