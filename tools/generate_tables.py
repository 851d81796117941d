"""Regenerate ``unicode_tables.py`` from the Unicode data in the installed ``regex`` module.

Run ``python tools/generate_tables.py`` after upgrading ``regex``. The output is
committed, so classification never depends on the ``regex`` version a user happens to have.

Rules (each a property lookup, never a hand-typed range, except Vietnamese's eight marks):

* ZWJ → JOINER, ZWNJ → NON_JOINER.
* A combining mark (General_Category M) with an Indic_Syllabic_Category (InSC):
  Vowel_Dependent/Vowel → DEPENDENT_VOWEL; Virama/Invisible_Stacker/Pure_Killer → VIRAMA;
  Nukta → NUKTA; Consonant_* → MEDIAL; every other InSC (Bindu, Visarga, Cantillation_Mark,
  Tone_Mark, Syllable_Modifier, …) → VOWEL_SUFFIX.
* In a Brahmic script (one with InSC data): a non-mark with InSC Consonant* → CONSONANT; any
  other letter → INDEPENDENT_VOWEL (avagraha, ॐ, Thai's spacing vowels: they stand alone, so
  they may start a token).
* Vietnamese (the paper, §3.5): U+0302 U+0306 U+031B → DIACRITIC; U+0300 U+0301 U+0303 U+0309
  U+0323 → TONE.
* A mark without InSC in a Brahmic script → VOWEL_SUFFIX (so every Brahmic-script character has
  a Brahmic class); any other mark → MARK; any other letter → BASE; everything else → OTHER.

Scripts: ``SCRIPT_RANGES`` holds the Brahmic scripts (those with InSC data), ``OTHER_SCRIPT_RANGES``
every other real script (all but Common, Inherited and Unknown, which carry no script of their
own), each by its long name in lower case, e.g. ``latin``, ``han``, ``meeteimayek``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import regex
import regex._regex_core as regex_core

from brahmic_pua.orthography.charclass import CharClass

#: Total assigned characters (all categories but Cn, Co, Cs) per Unicode version; the generator
#: reads the version off the installed ``regex`` data this way because ``regex`` does not export it.
ASSIGNED_PER_VERSION = {
    144_762: "14.0.0",
    149_251: "15.0.0",
    149_878: "15.1.0",
    155_063: "16.0.0",
    159_866: "17.0.0",
    172_873: "18.0.0",
}

VIETNAMESE_DIACRITICS = (0x0302, 0x0306, 0x031B)
VIETNAMESE_TONES = (0x0300, 0x0301, 0x0303, 0x0309, 0x0323)
SURROGATES = range(0xD800, 0xE000)
#: Script values that are no script of their own: shared characters, marks, unassigned.
NEUTRAL_SCRIPTS = frozenset({"COMMON", "INHERITED", "UNKNOWN"})

MARK_CLASSES = {
    "VOWELDEPENDENT": CharClass.DEPENDENT_VOWEL,
    "VOWEL": CharClass.DEPENDENT_VOWEL,
    "VIRAMA": CharClass.VIRAMA,
    "INVISIBLESTACKER": CharClass.VIRAMA,
    "PUREKILLER": CharClass.VIRAMA,
    "REORDERINGKILLER": CharClass.VIRAMA,
    "CONSONANTKILLER": CharClass.VIRAMA,
    "NUKTA": CharClass.NUKTA,
}

ALL_CHARS = "".join(chr(cp) for cp in range(0x110000) if cp not in SURROGATES)

#: The generated module, inside the installed package; this generator stays outside it.
TARGET = (
    Path(__file__).resolve().parent.parent / "brahmic_pua" / "orthography" / "unicode_tables.py"
)


def _cp(index: int) -> int:
    return index if index < 0xD800 else index + 0x800


def code_points(pattern: str) -> Iterator[int]:
    """Every code point matching a one-character ``regex`` pattern."""
    for match in regex.finditer(f"(?V1)(?:{pattern.removeprefix('(?V1)')})+", ALL_CHARS):
        yield from (_cp(i) for i in range(match.start(), match.end()))


def property_values(name: str) -> list[str]:
    """The long value names of an enumerated property, e.g. every Script."""
    _, values = regex_core.PROPERTIES[name]  # type: ignore[attr-defined]
    by_id: dict[int, str] = {}
    for value_name, value_id in values.items():  # the long name comes first
        by_id.setdefault(value_id, value_name)
    return sorted(by_id.values())


def unicode_version() -> str:
    assigned = sum(1 for _ in code_points(r"(?V1)[\p{Assigned}--\p{Co}]"))
    try:
        return ASSIGNED_PER_VERSION[assigned]
    except KeyError:
        sys.exit(
            f"unknown Unicode data ({assigned} assigned code points): add it to "
            "ASSIGNED_PER_VERSION with the version regex's changelog names"
        )


def indic_categories() -> dict[int, str]:
    """The InSC value of every code point whose InSC is not Other."""
    insc: dict[int, str] = {}
    for value in property_values("INDICSYLLABICCATEGORY"):
        if value != "OTHER":
            insc.update((cp, value) for cp in code_points(rf"\p{{InSC={value}}}"))
    return insc


def classify_all(insc: dict[int, str], scripts: dict[int, str]) -> dict[int, CharClass]:
    """Class of every code point that is not OTHER.

    InSC decides for marks everywhere (Vedic signs are Inherited) but for other characters only
    inside a Brahmic script: InSC also lists hyphen, NBSP and ◌ as consonant placeholders.
    """
    marks = set(code_points(r"\p{M}"))
    letters = set(code_points(r"\p{L}"))
    classes: dict[int, CharClass] = {cp: CharClass.BASE for cp in letters}
    classes.update((cp, CharClass.INDEPENDENT_VOWEL) for cp in letters if cp in scripts)
    classes.update((cp, CharClass.MARK) for cp in marks)
    classes.update((cp, CharClass.VOWEL_SUFFIX) for cp in marks if cp in scripts)
    for cp, value in insc.items():
        if cp in marks:
            default = CharClass.MEDIAL if value.startswith("CONSONANT") else CharClass.VOWEL_SUFFIX
            classes[cp] = MARK_CLASSES.get(value, default)
        elif cp not in scripts:
            continue
        elif value.startswith("CONSONANT"):
            classes[cp] = CharClass.CONSONANT
        elif cp in letters:
            classes[cp] = CharClass.INDEPENDENT_VOWEL
    classes.update((cp, CharClass.DIACRITIC) for cp in VIETNAMESE_DIACRITICS)
    classes.update((cp, CharClass.TONE) for cp in VIETNAMESE_TONES)
    classes[0x200D] = CharClass.JOINER
    classes[0x200C] = CharClass.NON_JOINER
    return classes


def real_scripts() -> dict[str, list[int]]:
    """Code points of every real script (long name, lower case), in script name order.

    Common, Inherited and Unknown are left out: they are shared or unassigned, no script's own.
    """
    return {
        script.lower(): list(code_points(rf"\p{{sc={script}}}"))
        for script in property_values("SCRIPT")
        if script not in NEUTRAL_SCRIPTS
    }


def split_scripts(
    insc: dict[int, str], members: dict[str, list[int]]
) -> tuple[dict[int, str], dict[int, str]]:
    """Script of every code point: of the scripts with InSC data (Brahmic), and of the others.

    Kept apart because ``SCRIPT_RANGES`` and ``SCRIPT_NAMES`` mean the Brahmic scripts (the
    classes, the codec's blocks and ``script_charset`` rest on them); the others only name a
    script, for the filters.
    """
    brahmic: dict[int, str] = {}
    other: dict[int, str] = {}
    for script, cps in members.items():
        target = brahmic if any(cp in insc for cp in cps) else other
        target.update((cp, script) for cp in cps)
    return brahmic, other


def ranges(mapping: dict[int, str]) -> list[tuple[int, int, str]]:
    """Collapse a code point → value mapping into inclusive (start, end, value) runs."""
    runs: list[tuple[int, int, str]] = []
    for cp in sorted(mapping):
        value = mapping[cp]
        if runs and runs[-1][1] == cp - 1 and runs[-1][2] == value:
            runs[-1] = (runs[-1][0], cp, value)
        else:
            runs.append((cp, cp, value))
    return runs


def render(version: str) -> str:
    insc = indic_categories()
    scripts, other_scripts = split_scripts(insc, real_scripts())
    classes = classify_all(insc, scripts)
    script_names = sorted(set(scripts.values()))
    insc_names = sorted(set(insc.values()))
    lines = [
        '"""Generated by ``python tools/generate_tables.py``; do not edit."""',
        "",
        f'UNICODE_VERSION = "{version}"',
        f'REGEX_VERSION = "{regex.__version__}"',
        "",
        "# (first, last, CharClass name) for every code point whose class is not OTHER",
        "CLASS_RANGES: tuple[tuple[int, int, str], ...] = (",
        *(
            f"    (0x{a:04X}, 0x{b:04X}, {v!r}),"
            for a, b, v in ranges({cp: c.name for cp, c in classes.items()})
        ),
        ")",
        "",
        f"SCRIPT_NAMES: tuple[str, ...] = {tuple(script_names)!r}",
        "",
        "# (first, last, script) for every code point of a script with InSC data",
        "SCRIPT_RANGES: tuple[tuple[int, int, str], ...] = (",
        *(f"    (0x{a:04X}, 0x{b:04X}, {v!r})," for a, b, v in ranges(scripts)),
        ")",
        "",
        f"INSC_NAMES: tuple[str, ...] = {tuple(insc_names)!r}",
        "",
        "# (first, last, Indic_Syllabic_Category) for every code point whose InSC is not Other",
        "INSC_RANGES: tuple[tuple[int, int, str], ...] = (",
        *(f"    (0x{a:04X}, 0x{b:04X}, {v!r})," for a, b, v in ranges(insc)),
        ")",
        "",
        "# (first, last, script) for every code point of any other script but Common, Inherited",
        "# and Unknown",
        "OTHER_SCRIPT_RANGES: tuple[tuple[int, int, str], ...] = (",
        *(f"    (0x{a:04X}, 0x{b:04X}, {v!r})," for a, b, v in ranges(other_scripts)),
        ")",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    target = TARGET
    target.write_text(render(unicode_version()), encoding="utf-8")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
