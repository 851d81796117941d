"""Seed morphemes (NepBPE §2.2, E2): ``V_strict`` and ``V_ambiguous``.

``V_strict`` holds morphemes that must stay whole and alone: every occurrence should be exactly
one piece, never absorbed into a longer piece (NepBPE's Gate: ``a ∈ V_strict`` and
``b ∈ V_seed`` never merge). ``V_ambiguous`` holds strings that are morphemes in some words and
ordinary syllables in others (मा in रुपमा and in आमा): a longer piece that starts with one is kept
only if that continuation is frequent (``Freq(a, b) ≥ θ``; θ is a count, or a rate per million
words, see :func:`brahmic_pua.nepbpe.filters.filter_model`). E2: the strict set is hand-validated; a
frequency alone never promotes a seed to strict, so a seed listed in both sets is strict.

Seeds are matched in whole aksharas (:func:`units`), as NepBPE's DFA ``D`` cuts text:
a conjunct binds, so ले is not found in उल्लेख (उ ल्ले ख), while it is in लेख (ले ख).

Seed files: UTF-8, one seed per line, NFC-normalized on load; ``#`` starts a comment (at the
start of a line or after a space); blank lines are skipped. A seed that is empty, holds
whitespace, starts with a dependent mark or holds a Private Use character is an error naming
its line. The shipped Nepali list (``brahmic_pua/data/nepali_seeds.txt``) adds a kind and a
source to every line: ``seed<TAB>strict|ambiguous<TAB>source or reason``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from brahmic_pua.codec.layout import is_private_use
from brahmic_pua.io.lines import bounded_lines, line_text, split_text
from brahmic_pua.io.wording import counted
from brahmic_pua.model.display import SPACE, starts_with_mark
from brahmic_pua.normalize.nfc import nfc
from brahmic_pua.segment import segment

KINDS = ("strict", "ambiguous")
#: The largest seed file read: a seed is a morpheme or a piece, so even a list of every piece of a
#: 1,000,000-piece model is some 20-40 MB (the shipped Nepali list is 5 KB); a file past this is
#: no seed list (``--seeds_strict /dev/zero`` grew to a MemoryError at 2.6 GB).
MAX_SEED_FILE_BYTES = 64 << 20
NEPALI_FILE = "nepali_seeds.txt"


class SeedError(ValueError):
    """A seed list that cannot be used; the message is one line naming the file and line."""


def units(text: str) -> tuple[str, ...]:
    """``text`` in aksharas (conjuncts bound, as NepBPE's DFA cuts it), spm's ▁ a unit alone."""
    out: list[str] = []
    for i, part in enumerate(text.split(SPACE)):
        if i:
            out.append(SPACE)
        out.extend(segment(part, "akshara"))
    return tuple(out)


def check_seed(seed: str, where: str) -> str:
    """``seed`` in NFC, or a :class:`SeedError` saying what is wrong with it."""
    seed = nfc(seed)
    if not seed:
        raise SeedError(f"{where}: empty seed; write one seed per line")
    space = next((ch for ch in seed if ch.isspace() or ch == SPACE), None)
    if space is not None:
        raise SeedError(
            f"{where}: seed {seed!r} contains whitespace U+{ord(space):04X}; one seed per line, "
            "without spaces"
        )
    if starts_with_mark(seed):
        raise SeedError(
            f"{where}: seed {seed!r} starts with the dependent mark U+{ord(seed[0]):04X}; a seed "
            "is matched in whole aksharas, so write it with its base consonant"
        )
    if any(is_private_use(ch) for ch in seed):
        raise SeedError(
            f"{where}: seed {seed!r} holds a Private Use character, which brahmic_pua reserves "
            "for clusters"
        )
    return seed


def _content(line: str) -> str:
    """A line without its line ending and its comment (``#`` at the start or after a space)."""
    line = line_text(line)
    if line.startswith("#"):
        return ""
    for i in range(1, len(line)):
        if line[i] == "#" and line[i - 1].isspace():
            return line[:i].rstrip()
    return line


def parse_seeds(lines: Iterable[str], source: str) -> tuple[str, ...]:
    """Seeds from the lines of a seed file (see the module docstring), in order, once each."""
    seeds: dict[str, None] = {}
    for number, line in enumerate(lines, 1):
        content = _content(line)
        if content.strip():
            seeds.setdefault(check_seed(content, f"{source}:{number}"), None)
    return tuple(seeds)


def read_seeds(path: str | Path) -> tuple[str, ...]:
    """The seeds in a UTF-8 seed file (at most :data:`MAX_SEED_FILE_BYTES`, read by the one line
    reader); a file that cannot be read is one :class:`SeedError`."""
    try:
        lines = bounded_lines(path, MAX_SEED_FILE_BYTES, "seed file")
    except OSError as error:
        raise SeedError(f"{path}: {error.strerror or error}") from None
    except ValueError as error:  # too large, not UTF-8: the message names the file
        raise SeedError(str(error)) from None
    return parse_seeds(lines, str(path))


@dataclass(frozen=True)
class Seeds:
    """``V_strict`` and ``V_ambiguous``, each in NFC and in order; a seed is in at most one."""

    strict: tuple[str, ...] = ()
    ambiguous: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        strict = tuple(dict.fromkeys(check_seed(s, "strict seed") for s in self.strict))
        ambiguous = (check_seed(s, "ambiguous seed") for s in self.ambiguous)
        object.__setattr__(self, "strict", strict)
        object.__setattr__(
            self, "ambiguous", tuple(s for s in dict.fromkeys(ambiguous) if s not in strict)
        )

    def union(self, other: Seeds) -> Seeds:
        """Both lists together; a seed strict in either is strict (E2: strict is validated)."""
        return Seeds(self.strict + other.strict, self.ambiguous + other.ambiguous)

    def normalized(self, normalize: Callable[[str], str]) -> Seeds:
        """The seeds as a model's N writes them. Where N makes a strict and an ambiguous seed
        one string (nepali-lm folds सँग into संग, which also spells संगठन), it is ambiguous:
        strictness was validated for one spelling only."""
        ambiguous = tuple(map(normalize, self.ambiguous))
        strict = tuple(s for s in map(normalize, self.strict) if s not in ambiguous)
        return Seeds(strict, ambiguous)


@dataclass(frozen=True)
class CuratedSeed:
    """One line of a curated list: the seed, its kind, and why it is there."""

    seed: str
    kind: str
    source: str


def parse_curated(text: str, source: str) -> tuple[CuratedSeed, ...]:
    """A curated list: ``seed<TAB>strict|ambiguous<TAB>source or reason`` per line."""
    entries: list[CuratedSeed] = []
    seen: set[str] = set()
    for number, line in enumerate(split_text(text), 1):
        where = f"{source}:{number}"
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 3:
            raise SeedError(
                f"{where}: {counted(len(fields), 'tab-separated field')}, expected 3: "
                "seed<TAB>strict|ambiguous<TAB>source or reason"
            )
        seed, kind, reason = (field.strip() for field in fields)
        seed = check_seed(seed, where)
        if kind not in KINDS:
            raise SeedError(f"{where}: kind {kind!r} is not strict or ambiguous")
        if not reason:
            raise SeedError(f"{where}: seed {seed!r} gives no source or reason")
        if seed in seen:
            raise SeedError(f"{where}: seed {seed!r} is listed twice")
        seen.add(seed)
        entries.append(CuratedSeed(seed, kind, reason))
    return tuple(entries)


def nepali_entries() -> tuple[CuratedSeed, ...]:
    """The shipped Nepali list with the kind and source of every seed."""
    data = resources.files("brahmic_pua.data").joinpath(NEPALI_FILE)
    return parse_curated(data.read_text(encoding="utf-8"), f"brahmic_pua/data/{NEPALI_FILE}")


def nepali_seeds() -> Seeds:
    """The shipped Nepali postpositions, case markers and plural markers."""
    entries = nepali_entries()
    return Seeds(
        tuple(e.seed for e in entries if e.kind == "strict"),
        tuple(e.seed for e in entries if e.kind == "ambiguous"),
    )


def load_seeds(
    strict: str | Path | None = None,
    ambiguous: str | Path | None = None,
    nepali: bool = False,
) -> Seeds:
    """The seeds of the given files, plus the shipped Nepali list when ``nepali`` is set."""
    seeds = Seeds(
        read_seeds(strict) if strict is not None else (),
        read_seeds(ambiguous) if ambiguous is not None else (),
    )
    return nepali_seeds().union(seeds) if nepali else seeds
