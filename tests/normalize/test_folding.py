"""Folding tables are untrusted input: a model's manifest carries one, and every load checks it.

- The check must hold for compositions that take several steps across the end of a
  replacement: x → e with ệ → y (e + U+0323 + U+0302 is ẹ, then ệ), x → 가 with 각 → y
  (가 + ᆨ), and a replacement starting with a jamo that composes with the syllable before it.
- The check and the fold must be bounded by the table's size: a table of 128 rules that all
  overlap took 139 s to refuse (every one of half a million problems was folded twice), and a
  pattern of 8,000 characters made a 10,000-character line take a minute to fold.

The oracles here are written from the definitions (NFC from ``unicodedata``, the longest match
spelled out position by position), not taken from the code they check.
"""

from __future__ import annotations

import unicodedata
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from brahmic_pua.cli.main import main
from brahmic_pua.normalize.folding import (
    MAX_FOLDING_RULES,
    FoldingTable,
    LongestMatch,
    fold,
    validate_folding_rules,
)

HI = str(resources.files("brahmic_pua.data").joinpath("hi.sample.txt"))


def longest_match(text: str, rules: dict[str, str]) -> str:
    """The definition: at each position the longest source that matches, else one character."""
    out, i = [], 0
    while i < len(text):
        for k in range(len(text) - i, 0, -1):
            if text[i : i + k] in rules:
                out.append(rules[text[i : i + k]])
                i += k
                break
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def n(text: str, rules: dict[str, str]) -> str:
    """N of the folding modes: NFC, one longest-match pass, NFC."""
    nfc = unicodedata.normalize("NFC", text)
    return unicodedata.normalize("NFC", longest_match(nfc, rules))


# -- several steps of composition ---------------------------------------------------------------

MULTI_STEP = [
    ((("x", "e"), ("ệ", "y")), "x\u0323\u0302"),  # e + ̣ → ẹ, ẹ + ̂ → ệ
    ((("x", "e"), ("ệ", "y")), "x\u0302\u0323"),  # the same marks typed in the other order
    ((("x", "가"), ("각", "y")), "x\u11a8"),  # 가 + ᆨ → 각
    ((("y", "\u11a8"), ("각", "z")), "가y"),  # the jamo composes with the syllable before it
    ((("ộ", "ô"),), "ộ\u0323"),  # ô + ̣ is ộ: the tail's mark sorts before ô's own
    ((("x", "ô"), ("ộ", "y")), "x\u0323"),
]


@pytest.mark.parametrize(("rules", "witness"), MULTI_STEP)
def test_multi_step_compositions_are_refused(
    rules: tuple[tuple[str, str], ...], witness: str
) -> None:
    once = n(witness, dict(rules))
    assert n(once, dict(rules)) != once  # the oracle: two passes differ
    assert validate_folding_rules(dict(rules))
    with pytest.raises(ValueError, match="not a normalization"):
        FoldingTable(rules)


def test_train_refuses_the_vietnamese_table(tmp_path: Path) -> None:
    table = tmp_path / "vi.tsv"
    table.write_text("x\te\nệ\ty\n", encoding="utf-8")
    (tmp_path / "out").mkdir()
    prefix = tmp_path / "out" / "m"
    args = [
        "train",
        "--input",
        HI,
        "--model_prefix",
        str(prefix),
        "--vocab_size",
        "1000",
        "--normalization",
        "nepali-lm",
        f"--folding_rules={table}",
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert "not a normalization" in result.output and str(table) in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not list(tmp_path.glob("out/*"))


#: Characters that compose in one or two steps (Latin with two marks, Hangul syllables and
#: jamo), and what can follow them.
CHAIN = "xyeẹêệoọôộ가각각a"
TAILS = ["\u0323", "\u0302", "\u0323\u0302", "\u0302\u0323", "\u11a8", "\u1161"]
#: A composed character and the characters it composes from with marks or jamo after them.
COMPOSED = [("ệ", "eẹê"), ("ộ", "oọô"), ("각", "가"), ("ẹ", "e"), ("ô", "o")]
random_tables = st.dictionaries(
    st.text(CHAIN, min_size=1, max_size=2), st.text(CHAIN, max_size=2), min_size=1, max_size=3
)


@st.composite
def chained_tables(draw: st.DrawFn) -> dict[str, str]:
    """A rule whose replacement ends where a composition starts, one whose pattern holds what
    it composes to, and random rules beside them."""
    made, starts = draw(st.sampled_from(COMPOSED))
    rules = draw(
        st.dictionaries(
            st.text(CHAIN, min_size=1, max_size=2), st.text(CHAIN, max_size=2), max_size=2
        )
    )
    piece = st.text(CHAIN, max_size=1)
    rules[draw(st.text(CHAIN, min_size=1, max_size=2))] = draw(piece) + draw(
        st.sampled_from(starts)
    )
    rules[draw(piece) + made + draw(piece)] = draw(st.text(CHAIN, max_size=2))
    return rules


tables = st.one_of(random_tables, chained_tables())
chain_texts = st.lists(st.one_of(st.sampled_from(CHAIN), st.sampled_from(TAILS)), max_size=8)


@settings(max_examples=examples(600))
@given(rules=tables, pieces=chain_texts, data=st.data())
def test_a_table_that_loads_is_a_normalization(
    rules: dict[str, str], pieces: list[str], data: st.DataObject
) -> None:
    """Soundness over tables built from composition chains: a table the check passes gives
    N(N(s)) == N(s) on every text, texts made of its own patterns and tails included."""
    try:
        FoldingTable(tuple(rules.items()))
    except ValueError:
        return
    own = data.draw(st.lists(st.sampled_from([*rules, *TAILS]), max_size=6))
    for text in ("".join(pieces), "".join(own)):
        once = n(text, rules)
        assert n(once, rules) == once, (rules, text)
        assert unicodedata.is_normalized("NFC", once)


# -- bounded work ------------------------------------------------------------------------------


@pytest.mark.parametrize("alternation", [True, False])
@given(
    rules=st.dictionaries(st.text("ab\\]^-|.", max_size=4), st.text("abc", max_size=3), max_size=6),
    text=st.text("ab\\]^-|.x", max_size=20),
)
def test_the_fold_is_the_longest_match(rules: dict[str, str], text: str, alternation: bool) -> None:
    """Both ways of matching (an ``re`` alternation for few rules, a trie for many) are the
    definition; an empty source matches nothing."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LongestMatch, "ALTERNATION", len(rules) if alternation else -1)
        expected = longest_match(text, {k: v for k, v in rules.items() if k})
        assert LongestMatch(rules)(text) == expected == fold(text, rules)


def test_a_hostile_table_is_refused_at_its_first_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    """128 rules that all overlap each other at every offset: half a million problems, of which
    the check folds one witness, not all of them twice."""
    rules = tuple((f"{'a' * 31}{chr(0x100 + i)}", "a" * 32) for i in range(MAX_FOLDING_RULES))
    folds = 0
    call = LongestMatch.__call__

    def counted(self: LongestMatch, text: str) -> str:
        nonlocal folds
        folds += 1
        return call(self, text)

    monkeypatch.setattr(LongestMatch, "__call__", counted)
    with pytest.raises(ValueError, match="not a normalization"):
        FoldingTable(rules)
    assert folds <= 4
    assert len(validate_folding_rules(dict(rules), limit=3)) == 3


def test_the_largest_valid_table_loads_and_folds() -> None:
    patterns = [chr(0x915 + i % 36) + chr(0x915 + i // 36) + "ख" * 30 for i in range(128)]
    rules = tuple((p, chr(0x0C15 + i % 36) * 32) for i, p in enumerate(patterns))
    table = FoldingTable(rules)
    assert len(table) == MAX_FOLDING_RULES
    text = "क" + "ख" * 40 + patterns[5] + "ख"
    assert table.apply(text) == longest_match(text, dict(rules))
