"""The documentation's figures (tools/figures.py): every figure a page shows exists and is one the
tool makes, each committed figure is what the tool draws from the data in the repository today
(byte for byte: a changed table or report makes its figure stale, and that is seen), and each
figure carries the numbers of its data, read here by a reader of its own.

Drawing the demo's figure trains its two small models (a few seconds); the others read tables.
"""

from __future__ import annotations

import html
import importlib.util
import itertools
import re
import shutil
import sys
import unicodedata
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("figures", REPO / "tools" / "figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["figures"] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


figures = _load()
NAMES = [f.name for f in figures.FIGURES]
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
_INCLUDE = re.compile(r'^--8<-- "([^"]+)"$', re.M)


def shown() -> dict[Path, list[tuple[str, str]]]:
    """Each figure the site shows (resolved as mkdocs resolves it: from the page in docs/, an
    included file's text read as the page's own) -> [(page, alt text)]."""
    found: dict[Path, list[tuple[str, str]]] = {}
    for page in sorted(DOCS.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        text = _INCLUDE.sub(lambda m: (REPO / m.group(1)).read_text(encoding="utf-8"), text)
        for alt, target in _IMAGE.findall(text):
            found.setdefault((page.parent / target).resolve(), []).append((page.name, alt))
    return found


def svg_text(figure: str) -> str:
    path: str = next(f.path for f in figures.FIGURES if f.name == figure)
    return (REPO / path).read_text(encoding="utf-8")


def tooltips(svg: str) -> list[str]:
    return [t.replace("&amp;", "&") for t in re.findall(r"<title>([^<]*)</title>", svg)]


def test_every_figure_shown_exists_and_is_made_by_the_tool() -> None:
    pages = shown()
    made = {(REPO / f.path).resolve() for f in figures.FIGURES}
    assert [p for p in pages if not p.is_file()] == []
    assert set(pages) == made  # no figure drawn by hand, none drawn and not shown
    assert all(alt.strip() for where in pages.values() for _, alt in where)


@pytest.mark.parametrize("name", NAMES)
def test_committed_figure_is_what_the_data_draw(name: str, tmp_path: Path) -> None:
    """Stale otherwise: run `python tools/figures.py` and commit what it writes."""
    chosen = [f for f in figures.FIGURES if f.name == name]
    figures.draw(chosen, REPO, tmp_path)
    assert figures.stale(chosen, REPO, tmp_path) == []


def test_a_changed_number_makes_its_figure_stale(tmp_path: Path) -> None:
    """The check can fail: a copy of the repository's cost table with one ratio changed draws
    another figure than the committed one, and only that figure is stale."""
    cost = [f for f in figures.FIGURES if f.name == "cost"]
    for relative in ("docs/measured.md", cost[0].path):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / relative, tmp_path / relative)
    page = tmp_path / "docs/measured.md"
    text = page.read_text(encoding="utf-8")
    row = next(line for line in text.split("\n") if line.startswith("| BPE train 8k, te.train"))
    page.write_text(text.replace(row, row.replace("**1.80**", "**1.20**")), encoding="utf-8")
    fresh = tmp_path / "fresh"
    figures.draw(cost, tmp_path, fresh)
    assert figures.stale(cost, tmp_path, fresh) == [cost[0].path]
    assert "ours ÷ raw 1.20" in (fresh / cost[0].path).read_text(encoding="utf-8")


def test_missing_data_is_one_line_saying_which_file(tmp_path: Path) -> None:
    with pytest.raises(figures.DataError, match=r"^docs/measured.md not found"):
        figures.draw_cost(tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/measured.md").write_text("# Measured\n", encoding="utf-8")
    with pytest.raises(figures.DataError, match="no section"):
        figures.draw_cost(tmp_path)


def test_cost_figure_has_every_row_at_scale() -> None:
    """Every row of the table in docs/measured.md (read here by splitting its lines) is a bar
    whose length is its ratio times one scale."""
    text = (DOCS / "measured.md").read_text(encoding="utf-8")
    section = text.split("## Cost against raw SentencePiece")[1].split("\n## ")[0]
    rows = [line.split("|")[1:-1] for line in section.split("\n") if line.startswith("| ")]
    table = {r[0].strip().replace("`", ""): float(r[4].strip(" *")) for r in rows[1:]}
    bars = re.findall(
        r'width="([\d.]+)" height="[\d.]+" fill="#\w+"><title>([^:]+): raw ', svg_text("cost")
    )
    assert {name: None for _, name in bars} == {name: None for name in table}
    scales = [float(width) / table[name] for width, name in bars]
    assert max(scales) - min(scales) < 0.5  # pixels per unit, coordinates rounded to 0.1


def test_bits_per_byte_figure_has_both_arms_of_every_report() -> None:
    """Each report's two bold 'mean [low, high]' cells, its arms' bits per byte, are points."""
    tips = tooltips(svg_text("bits-per-byte"))
    folders = sorted({folder for _, runs in figures.BPB_RUNS for folder, _, _ in runs})
    assert len(folders) == sum(len(runs) for _, runs in figures.BPB_RUNS)
    for folder in folders:
        text = (REPO / figures.LEVERS / folder / "results.md").read_text(encoding="utf-8")
        cells = re.findall(r"\*\*(\d\.\d{4} \[\d\.\d{4}, \d\.\d{4}\])\*\*", text)
        assert len(cells) == 2, folder
        for cell in cells:
            assert sum(t.endswith(f": {cell} bits per byte") for t in tips) == 1, (folder, cell)
    assert len([t for t in tips if t.endswith("bits per byte")]) == 2 * len(folders)


def test_gap_trend_figure_has_every_checkpoint_of_both_seeds() -> None:
    tips = tooltips(svg_text("gap-trend"))
    for seed, source, _ in figures.TREND_REPORTS:
        lines = (REPO / source).read_text(encoding="utf-8").split("\n")
        at = next(n for n, line in enumerate(lines) if line.startswith("| step |"))
        names = [c.strip() for c in lines[at].split("|")]
        table = itertools.takewhile(lambda line: line.startswith("|"), lines[at + 2 :])
        rows = [
            dict(zip(names, (c.strip() for c in line.split("|")), strict=True)) for line in table
        ]
        assert len(rows) >= 5, source
        for row in rows:
            point = f"{seed}, {row['tokens seen']} tokens: "
            assert [t for t in tips if t.startswith(point) and f"gap {row['gap']} " in t], point


def test_demo_figure_puts_a_dotted_circle_before_every_mark_and_nowhere_else() -> None:
    """Read with unicodedata, not the library: a piece drawn red begins ◌ then a combining mark
    (category M); no other piece begins with a mark; brahmic_pua's rows have no red piece."""
    svg = svg_text("demo")
    rows = re.findall(r'<text [^>]*font-family="[^"]*" fill="#222222">(.*?)</text>', svg)
    assert rows and len(rows) % 2 == 0
    red = 0
    for n, row in enumerate(rows):
        for colour, spelled in re.findall(r"<tspan( fill=\"#\w+\")?[^>]*>([^<]*)</tspan>", row):
            piece = html.unescape(spelled)
            starts_with_mark = unicodedata.category(piece[0]).startswith("M")
            if colour == f' fill="{figures.RED}"':
                red += 1
                assert n % 2 == 1, f"brahmic_pua row {n // 2} has a red piece: {piece}"
                assert piece[0] == "◌" and unicodedata.category(piece[1]).startswith("M"), piece
            else:
                assert not starts_with_mark, piece
    assert red > 0
