"""The Unicode answers recorded in brahmic_pua/normalize/unicode_ranges.py (so that a training
does not ask every code point again) are the answers Unicode gives, and the file is what its
generator writes for this Python."""

from __future__ import annotations

import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from brahmic_pua.model import rules
from brahmic_pua.normalize import spellings, unicode_ranges

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(
    unicodedata.unidata_version != unicode_ranges.UNIDATA_VERSION,
    reason=f"the file holds Unicode {unicode_ranges.UNIDATA_VERSION}, this Python "
    f"{unicodedata.unidata_version} (its answers are computed: the tests below check them)",
)
def test_the_file_is_what_the_generator_writes() -> None:
    """Regenerated from this Python's unicodedata and brahmic_pua.model.rules: a stale file
    (another Unicode, or rules code that follows letters by marks differently) fails."""
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "generate_unicode_ranges.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    assert unicodedata.unidata_version == unicode_ranges.UNIDATA_VERSION


def test_recorded_answers_are_unicodes() -> None:
    """Each answer against asking unicodedata about every code point, here and now."""
    every = [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    assert spellings.combining_characters() == "".join(
        ch for ch in every if unicodedata.combining(ch)
    )
    decomposing = [ch for ch in every if unicodedata.normalize("NFD", ch) != ch]
    assert sorted(spellings.decomposing_characters()) == decomposing
    assert spellings.computed_decomposing() == decomposing
    assert rules.unicode_texts() == rules.compute_unicode_texts(decomposing)


def test_another_unicode_is_computed_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the file holds another version, nothing is read from it."""

    monkeypatch.setattr(unicode_ranges, "UNIDATA_VERSION", "0.0.0")
    monkeypatch.setattr(unicode_ranges, "COMBINING", ((0x41, 0x41),))
    monkeypatch.setattr(unicode_ranges, "DECOMPOSING", ((0x41, 0x41),))
    monkeypatch.setattr(unicode_ranges, "LETTERS_FOLLOWED", ("A",))
    for cached in (spellings.combining_characters, spellings.composites, rules.unicode_texts):
        cached.cache_clear()
    try:
        assert "A" not in spellings.combining_characters()
        assert "\u0301" in spellings.combining_characters()
        assert "A" not in spellings.decomposing_characters()
        assert "A" not in rules.unicode_texts()[2]
    finally:
        for cached in (spellings.combining_characters, spellings.composites, rules.unicode_texts):
            cached.cache_clear()
