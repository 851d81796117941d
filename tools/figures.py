"""Every figure the documentation shows, drawn again from the measured data in the repository.

    python tools/figures.py            # write every figure where the pages show it
    python tools/figures.py --check    # draw them into a temporary folder; exit 1 if a committed
                                       # figure differs (it is stale: run without --check)
    python tools/figures.py --only cost demo

Each figure is plain SVG written here, no plotting library: matplotlib is no dependency of the
project, a chart of a few dozen marks is short in SVG, and its text stays sharp at any size. The
same data give the same bytes (no dates, no generated ids, numbers at fixed precision), which is
what lets --check compare a fresh drawing with the committed one byte for byte.

The data: the experiment's reports (examples/perplexity/results/*/results.md, so_far.md: the
tables run.py wrote; the runs' results.json files were not kept), the cost table of
docs/measured.md (bench/bench_cost.py prints it; the page records the run) and the demo itself
(``brahmic-pua demo``'s code, run here: it trains two small models on the bundled sample in a few
seconds). A figure of text (the demo) leaves the glyphs to the reader's browser and its fonts
(no font with Telugu is a dependency, and SVG text is what a reader can copy): the dotted circle
before a piece that starts with a mark is written out (U+25CC), as a renderer draws it, so that
it shows where a browser's shaper would not add one, in a font of the mark's script
(SCRIPT_FONTS) so that where the shaper would, it does not add a second.
"""

from __future__ import annotations

import argparse
import inspect
import math
import re
import shutil
import sys
import tempfile
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = "examples/perplexity/results"

BLUE = "#1f77b4"  # plain spm (the tab10 palette, as plot.py's PNGs)
ORANGE = "#d95f02"  # brahmic_pua
GREEN = "#2ca02c"
RED = "#d62728"
GREY = "#7f7f7f"
LIGHT = "#e6e6e6"
INK = "#222222"
DOTTED_CIRCLE = "\u25cc"
#: Fonts for a line of Telugu or Devanagari, that script's first: the dotted circle written
#: before a mark must come from the mark's font, or the browser draws the mark in another font
#: and its shaper adds a second circle. Noto (Linux, Android), Nirmala UI (Windows), Kohinoor and
#: Sangam MN (macOS, iOS), Lohit (older Linux).
SCRIPT_FONTS = {
    "telugu": "'Noto Sans Telugu','Nirmala UI','Kohinoor Telugu','Telugu Sangam MN',"
    "'Lohit Telugu',sans-serif",
    "devanagari": "'Noto Sans Devanagari','Nirmala UI','Kohinoor Devanagari',"
    "'Devanagari Sangam MN','Lohit Devanagari',sans-serif",
}


class DataError(Exception):
    """A data file is missing or does not hold the table a figure is drawn from."""


# -- SVG ---------------------------------------------------------------------------------------


def _n(value: float) -> str:
    """A coordinate at fixed precision, so the same data give the same bytes."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


class Svg:
    """An SVG document built element by element (in order: later elements draw on top)."""

    def __init__(self, width: float, height: float, title: str, description: str) -> None:
        self.width, self.height = width, height
        self.parts = [
            f"<title>{escape(title)}</title>",
            f"<desc>{escape(description)}</desc>",
            f'<rect width="{_n(width)}" height="{_n(height)}" fill="#ffffff"/>',
        ]

    def add(self, element: str) -> None:
        self.parts.append(element)

    def text(
        self,
        x: float,
        y: float,
        text: str,
        size: float = 12,
        anchor: str = "start",
        fill: str = INK,
        bold: bool = False,
        tooltip: str | None = None,
        family: str | None = None,
        halo: bool = False,
    ) -> None:
        weight = ' font-weight="bold"' if bold else ""
        weight += f' font-family="{family}"' if family else ""
        # A white outline under the letters: readable where a line crosses them.
        weight += ' stroke="#ffffff" stroke-width="3" paint-order="stroke"' if halo else ""
        inner = escape(text) + (f"<title>{escape(tooltip)}</title>" if tooltip else "")
        self.add(
            f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" text-anchor="{anchor}" '
            f'fill="{fill}"{weight}>{inner}</text>'
        )

    def line(
        self,
        x1: float,
        y1: float,
        x2: float,
        y2: float,
        stroke: str = INK,
        width: float = 1,
        dash: str | None = None,
    ) -> None:
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(
            f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{stroke}" '
            f'stroke-width="{_n(width)}"{dashes}/>'
        )

    def rect(
        self, x: float, y: float, w: float, h: float, fill: str, tooltip: str | None = None
    ) -> None:
        inner = f"<title>{escape(tooltip)}</title>" if tooltip else ""
        self.add(
            f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" fill="{fill}">'
            f"{inner}</rect>"
        )

    def marker(self, x: float, y: float, shape: str, fill: str, tooltip: str) -> None:
        """A data point: a circle or a square, with its exact values as a tooltip."""
        inner = f"<title>{escape(tooltip)}</title>"
        if shape == "circle":
            self.add(f'<circle cx="{_n(x)}" cy="{_n(y)}" r="4.5" fill="{fill}">{inner}</circle>')
        else:
            self.add(
                f'<rect x="{_n(x - 4)}" y="{_n(y - 4)}" width="8" height="8" fill="{fill}">'
                f"{inner}</rect>"
            )

    def polyline(self, points: Sequence[tuple[float, float]], stroke: str) -> None:
        spelled = " ".join(f"{_n(x)},{_n(y)}" for x, y in points)
        self.add(f'<polyline points="{spelled}" fill="none" stroke="{stroke}" stroke-width="1.5"/>')

    def document(self) -> str:
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(self.width)}" '
            f'height="{_n(self.height)}" viewBox="0 0 {_n(self.width)} {_n(self.height)}" '
            'font-family="sans-serif">'
        )
        return "\n".join([head, *self.parts, "</svg>"]) + "\n"


def ticks(low: float, high: float, count: int = 6) -> list[float]:
    """Round axis values (steps of 1, 2 or 5 × 10^k) from at or below ``low`` to at or above
    ``high``, about ``count`` of them."""
    raw = (high - low) / count if high > low else abs(high) or 1.0
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step + 1e-9)
    last = math.ceil(high / step - 1e-9)
    return [round(k * step, 10) for k in range(first, max(last, first + 1) + 1)]


def _label(value: float, axis: Sequence[float]) -> str:
    decimals = max(0, -math.floor(math.log10(axis[1] - axis[0]) + 1e-9))
    return f"{value:.{decimals}f}"


class Scale:
    """Data to pixels along one axis."""

    def __init__(self, low: float, high: float, start: float, end: float) -> None:
        self.low, self.high, self.start, self.end = low, high, start, end

    def __call__(self, value: float) -> float:
        return self.start + (value - self.low) / (self.high - self.low) * (self.end - self.start)


# -- reading the data --------------------------------------------------------------------------


def read(root: Path, relative: str) -> str:
    path = root / relative
    if not path.is_file():
        raise DataError(f"{relative} not found: the figure is drawn from it")
    return path.read_text(encoding="utf-8")


def table_after(text: str, header: str, source: str) -> list[dict[str, str]]:
    """The rows of the first markdown table whose header row starts with ``header``, each a
    dict by column name (the header's cells, bold marks removed)."""
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if line.startswith(header):
            names = [c.replace("**", "").strip() for c in line.strip().strip("|").split("|")]
            rows = []
            for row in lines[n + 2 :]:
                if not row.startswith("|"):
                    break
                cells = [c.strip() for c in row.strip().strip("|").split("|")]
                if len(cells) != len(names):
                    raise DataError(f"{source}: a row of {len(cells)} cells under {header!r}")
                rows.append(dict(zip(names, cells, strict=True)))
            return rows
    raise DataError(f"{source}: no table starting {header!r}")


def number(cell: str) -> float:
    """A table cell's number: bold marks, thousands commas, a leading + and the minus sign
    (U+2212) read as what they mean."""
    return float(cell.replace("**", "").replace(",", "").replace("\u2212", "-").strip())


_INTERVAL = re.compile(r"([-+\u2212]?[\d.]+)\s*\[([-+\u2212]?[\d.]+),\s*([-+\u2212]?[\d.]+)\]")


def with_interval(cell: str) -> tuple[float, float | None, float | None]:
    """'**0.9958 [0.9923, 0.9993]**' -> (0.9958, 0.9923, 0.9993); '**0.9636**' (one seed, no
    interval) -> (0.9636, None, None)."""
    bare = cell.replace("**", "").strip()
    found = _INTERVAL.fullmatch(bare)
    if found:
        mean, low, high = (number(g) for g in found.groups())
        return mean, low, high
    return number(bare), None, None


# -- the figures -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Figure:
    name: str  # for --only
    path: str  # where it is committed, relative to the repository; the pages show it from there
    sources: str  # what it is drawn from, as the captions say
    draw: Callable[[Path], str]  # the repository (its data) -> the SVG


# The demo ------------------------------------------------------------------------------------


def _em(text: str) -> float:
    """A generous estimate of ``text``'s width in ems in a sans-serif font: SVG has no text
    measurement, so the figure's width is sized from this (too wide leaves a margin)."""
    width = 0.0
    for ch in text:
        category = unicodedata.category(ch)
        if category in ("Mn", "Me", "Cf"):
            continue  # drawn on the letter before it
        if category == "Mc":
            width += 0.45  # a spacing mark: a vowel sign beside its consonant
        elif "\u0900" <= ch <= "\u0dff" or ch == DOTTED_CIRCLE:
            width += 0.85
        elif ch == "\u2002":
            width += 0.5
        else:
            width += 0.62
    return width


def draw_demo(root: Path) -> str:
    """``brahmic-pua demo``'s sentences, each as written and as each tokenizer cuts it: pieces
    side by side, plain spm's pieces that start with a dependent mark in red on a dotted circle,
    byte-fallback pieces in grey, the demo's summary below. ``root`` is not read: the demo
    trains on the samples the package ships (brahmic_pua/data/)."""
    from brahmic_pua.cli import demo
    from brahmic_pua.model.display import starts_with_mark

    defaults = inspect.signature(demo.run).parameters
    vocab_size, model_type = defaults["vocab_size"].default, defaults["model_type"].default
    examples, summary = demo.run()
    size, row, label_width, left = 15.0, 24.0, 100.0, 16.0
    rows: list[tuple[str, list[str] | None]] = []
    for example in examples:
        rows += [(example.text, None), ("brahmic_pua", example.ours), ("plain spm", example.plain)]

    def fonts(text: str) -> str:
        scripts = {unicodedata.name(c, "unnamed").split()[0].lower() for c in text}
        return next((f for script, f in SCRIPT_FONTS.items() if script in scripts), "sans-serif")

    def shown(piece: str) -> str:
        return DOTTED_CIRCLE + piece if starts_with_mark(piece) else piece

    widest = max(
        _em("\u2002".join(shown(p) for p in pieces) if pieces is not None else text)
        for text, pieces in rows
    )
    notes = summary.split("; ")
    width = round(left + label_width + widest * size + 24)
    top = 58.0
    height = top + len(examples) * (3 * row + 12) + 22 * 2 + 16
    svg = Svg(
        width,
        height,
        "brahmic-pua demo: held-out sentences as brahmic_pua and plain SentencePiece cut them",
        f"Tokenizers of {vocab_size} pieces ({model_type}) trained on the bundled sample; plain "
        "spm's pieces that start with a dependent mark are drawn on a dotted circle.",
    )
    svg.text(
        left,
        22,
        f"brahmic-pua demo: {vocab_size:,} pieces, {model_type}, trained on the "
        "bundled Telugu and Hindi sample; held-out sentences",
        size=14,
        bold=True,
    )
    svg.text(
        left,
        42,
        f"red {DOTTED_CIRCLE}: a piece that starts with a dependent mark "
        "(renders on a dotted circle); grey: a byte-fallback piece",
        size=12,
        fill=GREY,
    )
    y = top
    for example in examples:
        svg.line(left, y - 4, width - left, y - 4, LIGHT)
        y += row - 6
        family = fonts(example.text)
        svg.text(left + label_width, y, example.text, size=size, family=family)
        for name, pieces in (("brahmic_pua", example.ours), ("plain spm", example.plain)):
            y += row
            svg.text(left, y, name, size=12, fill=ORANGE if name == "brahmic_pua" else BLUE)
            spans = []
            for piece in pieces:
                if starts_with_mark(piece):
                    spans.append(f'<tspan fill="{RED}">{escape(shown(piece))}</tspan>')
                elif re.fullmatch(r"<0x[0-9A-F]{2}>", piece):
                    spans.append(f'<tspan fill="{GREY}" font-size="11">{escape(piece)}</tspan>')
                else:
                    spans.append(f"<tspan>{escape(piece)}</tspan>")
            svg.add(
                f'<text x="{_n(left + label_width)}" y="{_n(y)}" font-size="{_n(size)}" '
                f'font-family="{family}" fill="{INK}">{chr(0x2002).join(spans)}</text>'
            )
        y += 18
    y += 4
    svg.text(left, y, "; ".join(notes[:2]), size=12, fill=GREY)
    svg.text(left, y + 18, "; ".join(notes[2:]), size=12, fill=GREY)
    return svg.document()


# The experiment: bits per byte ----------------------------------------------------------------

LEVERS = f"{RESULTS}/levers-2026-12-05"
#: (language, [(report folder, tokenizer type, composed embeddings)]) in the order shown.
BPB_RUNS = (
    (
        "Telugu",
        (
            ("te-base", "Unigram", False),
            ("te-composed", "Unigram", True),
            ("te-bpe-base", "BPE", False),
            ("te-bpe-composed", "BPE", True),
        ),
    ),
    (
        "Hindi",
        (
            ("hi-base", "Unigram", False),
            ("hi-composed", "Unigram", True),
            ("hi-bpe-base", "BPE", False),
            ("hi-bpe-composed", "BPE", True),
        ),
    ),
    ("Marathi", (("mr-base", "Unigram", False), ("mr-composed", "Unigram", True))),
    ("Nepali", (("ne-base", "Unigram", False), ("ne-composed", "Unigram", True))),
)
_SEEDS = re.compile(r"(\d+) seed\(s\)")
_SETTINGS = re.compile(
    r"Vocabulary (\d+) for every arm; model (\d+) layers, \d+ heads, width (\d+)"
)
_DIFFERENCE = re.compile(
    r"^- brahmic_pua-\w+ − plain-\w+: ([-+][\d.]+) \(([-+][\d.]+)% of plain\);"
    r".*: (a difference|no difference claimed|no claim)$",
    re.M,
)


@dataclass(frozen=True)
class Pair:
    """One run of the levers: plain spm's and brahmic_pua's held-out bits per byte."""

    plain: tuple[float, float | None, float | None]
    ours: tuple[float, float | None, float | None]
    gap_percent: float
    claimed: bool
    seeds: int
    settings: tuple[str, ...]  # vocabulary, layers, width, steps, tokens seen: alike in all


def read_pair(root: Path, folder: str) -> Pair:
    source = f"{LEVERS}/{folder}/results.md"
    text = read(root, source)
    arms = {r["tokenizer"]: r for r in table_after(text, "| tokenizer |", source)}
    plain, ours = (
        next(r for n, r in arms.items() if n.startswith(k)) for k in ("plain", "brahmic")
    )
    runs = table_after(text, "| arm | steps |", source)
    settings, seeds, difference = (
        _SETTINGS.search(text),
        _SEEDS.search(text),
        _DIFFERENCE.search(text),
    )
    if not (settings and seeds and difference):
        raise DataError(f"{source}: no settings line or no difference line")
    return Pair(
        with_interval(plain["bits per byte (95% CI)"]),
        with_interval(ours["bits per byte (95% CI)"]),
        float(difference.group(2)),
        difference.group(3) == "a difference",
        int(seeds.group(1)),
        (*settings.groups(), runs[0]["steps"], runs[0]["tokens seen"]),
    )


def draw_bits_per_byte(root: Path) -> str:
    """Each lever run's two arms as points with their 95% t-intervals over seeds, one row per
    run, grouped by language; the gap in % of plain at the right, grey where it is not
    claimed (an interval includes zero)."""
    pairs = {folder: read_pair(root, folder) for _, runs in BPB_RUNS for folder, _, _ in runs}
    settings = {p.settings for p in pairs.values()}
    if len(settings) != 1:
        raise DataError(f"{LEVERS}: the runs differ in vocabulary, model or steps: {settings}")
    vocab, layers, model_width, steps, tokens = settings.pop()
    values = [v for p in pairs.values() for arm in (p.plain, p.ours) for v in arm if v is not None]
    xs = ticks(min(values), max(values), 6)
    left, plot_left, plot_right, width = 16.0, 270.0, 690.0, 850.0
    x = Scale(xs[0], xs[-1], plot_left, plot_right)
    row, group = 24.0, 26.0
    top = 84.0
    height = top + group * len(BPB_RUNS) + row * len(pairs) + 64
    svg = Svg(
        width,
        height,
        "Held-out bits per byte: plain spm against brahmic_pua, with and without composed "
        "embeddings",
        "Per language and tokenizer type, each arm's mean over seeds with its 95% t-interval; "
        "the gap of brahmic_pua to plain spm in % of plain at the right.",
    )
    svg.text(
        left,
        22,
        "Held-out bits per byte (lower is better): plain spm against brahmic_pua",
        size=14,
        bold=True,
    )
    svg.text(
        left,
        42,
        f"a GPT of {layers} layers, width {model_width}, {steps} steps ({tokens} "
        f"tokens), {number(vocab):,.0f} pieces; mean over seeds, whiskers the 95% "
        "t-interval",
        size=12,
        fill=GREY,
    )
    svg.text(width - 16, 66, "gap, % of plain", size=12, anchor="end", fill=GREY)
    bottom = height - 64
    for value in xs:
        svg.line(x(value), top - 8, x(value), bottom, LIGHT)
        svg.text(x(value), bottom + 16, _label(value, xs), size=11, anchor="middle")
    svg.line(plot_left, bottom, plot_right, bottom, INK)
    svg.text((plot_left + plot_right) / 2, bottom + 34, "bits per byte", size=12, anchor="middle")
    y = top
    for language, runs in BPB_RUNS:
        y += group
        svg.text(left, y - 6, language, size=13, bold=True)
        for folder, kind, composed in runs:
            pair = pairs[folder]
            name = f"{kind}{' + composed embeddings' if composed else ''}"
            svg.text(left + 12, y + 10, f"{name} ({pair.seeds} seeds)", size=12)
            centre = y + 6
            svg.line(x(pair.plain[0]), centre, x(pair.ours[0]), centre, LIGHT, 3)
            for arm, (mean, low, high), shape, colour, dy in (
                ("plain spm", pair.plain, "circle", BLUE, -4.0),
                ("brahmic_pua", pair.ours, "square", ORANGE, 4.0),
            ):
                if low is not None and high is not None:
                    svg.line(x(low), centre + dy, x(high), centre + dy, colour, 1.5)
                interval = f" [{low:.4f}, {high:.4f}]" if low is not None else ""
                svg.marker(
                    x(mean),
                    centre + dy,
                    shape,
                    colour,
                    f"{language}, {name}, {arm}: {mean:.4f}{interval} bits per byte",
                )
            gap = f"{pair.gap_percent:+.1f}%".replace("-", "\u2212")
            svg.text(
                width - 16,
                y + 10,
                gap if pair.claimed else f"{gap} (not claimed)",
                size=12,
                anchor="end",
                bold=pair.claimed,
                fill=INK if pair.claimed else GREY,
            )
            y += row
    legend = height - 18
    svg.marker(left + 6, legend - 4, "circle", BLUE, "plain spm")
    svg.text(left + 16, legend, "plain spm", size=12)
    svg.marker(left + 96, legend - 4, "square", ORANGE, "brahmic_pua")
    svg.text(left + 106, legend, "brahmic_pua", size=12)
    svg.text(
        left + 200,
        legend,
        "gap not claimed: the seed or the line interval includes zero",
        size=12,
        fill=GREY,
    )
    return svg.document()


# The experiment: the gap with compute ----------------------------------------------------------

TREND_REPORTS = (
    ("seed 0", f"{RESULTS}/cpu-long-seed0-2026-12-02/results.md", BLUE),
    ("seed 1", f"{RESULTS}/cpu-long-seed1-2026-12-02/so_far.md", ORANGE),
)
NGRAM_REPORT = f"{LEVERS}/te-base/results.md"  # the same tokenizers and held-out text


def draw_gap_trend(root: Path) -> str:
    """The long run's gap (brahmic_pua − plain, % of plain) at each checkpoint against tokens
    seen (log scale), one line per seed, whiskers the line bootstrap's 95%; dashed, the gap of
    converged 5-gram models on the same tokenizers."""
    series: dict[str, list[tuple[float, float, float, float, str]]] = {}
    for seed, source, _ in TREND_REPORTS:
        rows = table_after(read(root, source), "| step |", source)
        points = []
        for r in rows:
            tokens, plain, gap = number(r["tokens seen"]), number(r["plain bits/byte"]), r["gap"]
            found = re.fullmatch(r"\[(.+), (.+)\]", r["lines 95%"])
            if not found:
                raise DataError(f"{source}: step {r['step']} has no line interval")
            low, high = (number(g) / plain * 100 for g in found.groups())
            tip = (
                f"{seed}, {r['tokens seen']} tokens: plain {r['plain bits/byte']}, brahmic_pua "
                f"{r['arm bits/byte']} bits per byte, gap {gap} {r['lines 95%']} "
                f"({r['gap % of plain']})"
            )
            points.append((math.log10(tokens), number(gap) / plain * 100, low, high, tip))
        series[seed] = points
    first = read(root, TREND_REPORTS[0][1])
    parameters = {
        r["parameters"] for r in table_after(first, "| arm | steps |", TREND_REPORTS[0][1])
    }
    ngram = table_after(read(root, NGRAM_REPORT), "| arm | training tokens |", NGRAM_REPORT)
    ngram_plain = number(ngram[0]["5-gram"])
    ngram_gap = number(ngram[-1]["5-gram"].split()[0]) / ngram_plain * 100
    every = [p for points in series.values() for p in points]
    ys = ticks(min(0.0, *(p[2] for p in every)), max(p[3] for p in every), 6)
    low_x, high_x = min(p[0] for p in every) - 0.1, max(p[0] for p in every) + 0.1
    width, height, left, right, top, bottom = 780.0, 420.0, 70.0, 640.0, 66.0, 350.0
    x = Scale(low_x, high_x, left, right)
    y = Scale(ys[0], ys[-1], bottom, top)
    svg = Svg(
        width,
        height,
        "The gap with compute: brahmic_pua against plain spm over 20 million training tokens",
        "The gap in bits per byte, % of plain, at each checkpoint of two seeds, against tokens "
        "seen on a log scale; the converged 5-gram gap dashed.",
    )
    svg.text(
        16,
        22,
        "The gap with compute: brahmic_pua − plain spm, Unigram, Telugu, the long run",
        size=14,
        bold=True,
    )
    svg.text(
        16,
        42,
        "bits per byte of the gap, % of plain, at each checkpoint (1,000 held-out "
        "lines); whiskers: the line bootstrap's 95%",
        size=12,
        fill=GREY,
    )
    for value in ys:
        svg.line(left, y(value), right, y(value), LIGHT)
        svg.text(left - 8, y(value) + 4, f"{_label(value, ys)}%", size=11, anchor="end")
    names = {3: "1k", 4: "10k", 5: "100k", 6: "1M", 7: "10M", 8: "100M", 9: "1G"}
    for decade in range(math.floor(low_x), math.ceil(high_x)):
        for minor in range(1, 10):
            at = decade + math.log10(minor)
            if low_x <= at <= high_x:
                svg.line(x(at), bottom, x(at), bottom + (6 if minor == 1 else 3), INK)
        if low_x <= decade:
            svg.text(
                x(decade), bottom + 20, names.get(decade, f"1e{decade}"), size=11, anchor="middle"
            )
    svg.line(left, y(0.0), right, y(0.0), INK)
    svg.line(left, bottom, right, bottom, INK)
    svg.line(left, top, left, bottom, INK)
    if len(parameters) != 1:
        raise DataError(f"{TREND_REPORTS[0][1]}: the arms differ in parameters: {parameters}")
    svg.text(
        (left + right) / 2,
        bottom + 40,
        f"tokens seen (log scale); FLOPs ≈ 6 × {parameters.pop()} parameters × tokens",
        size=12,
        anchor="middle",
    )
    svg.line(left, y(ngram_gap), right, y(ngram_gap), GREEN, 1.5, "6 4")
    svg.text(
        right - 4,
        y(ngram_gap) - 6,
        f"converged 5-gram models: {ngram_gap:+.1f}%",
        size=11,
        anchor="end",
        fill=GREEN,
    )
    for n, (seed, _, colour) in enumerate(TREND_REPORTS):
        shift = (n - (len(TREND_REPORTS) - 1) / 2) * 5  # side by side, whiskers apart
        points = series[seed]
        svg.polyline([(x(p[0]) + shift, y(p[1])) for p in points], colour)
        for lx, mid, low, high, tip in points:
            svg.line(x(lx) + shift, y(low), x(lx) + shift, y(high), colour, 1.5)
            svg.marker(x(lx) + shift, y(mid), "circle" if n == 0 else "square", colour, tip)
        legend = top + 20 * n
        svg.marker(right + 22, legend - 4, "circle" if n == 0 else "square", colour, seed)
        svg.text(right + 32, legend, seed, size=12)
    return svg.document()


# The cost table -----------------------------------------------------------------------------------

COST_PAGE = "docs/measured.md"
COST_HEADING = "## Cost against raw SentencePiece"


def cost_rows(root: Path) -> list[dict[str, str]]:
    text = read(root, COST_PAGE)
    at = text.find("\n" + COST_HEADING)
    if at < 0:
        raise DataError(f"{COST_PAGE}: no section {COST_HEADING!r}")
    return table_after(text[at:], "| row |", COST_PAGE)


def draw_cost(root: Path) -> str:
    """Each row of the cost table as a bar of ours ÷ raw, 1 (raw) marked, the row's target as
    a black tick; green where the target is met, red where not, grey where the row has no
    number for a target."""
    rows = cost_rows(root)
    names = [r["row"].replace("`", "") for r in rows]
    sides = [f"{r['corpus']}: {r['raw']} → {r['ours']}" for r in rows]
    left = 16.0
    plot_left = left + max(map(_em, names)) * 12 + 12
    plot_right = plot_left + 320
    width = round(plot_right + 40 + max(map(_em, sides)) * 11 * 0.9)
    ratios = [number(r["ours ÷ raw"]) for r in rows]
    xs = ticks(0.0, max(2.0, *ratios), 4)
    x = Scale(xs[0], xs[-1], plot_left, plot_right)
    row, top = 26.0, 76.0
    bottom = top + row * len(rows) + 4
    height = bottom + 62
    svg = Svg(
        width,
        height,
        "What brahmic_pua costs against raw SentencePiece, ours ÷ raw, per row of the table",
        "Bars of ours ÷ raw (time, or peak memory where the row says so); 1 is raw's cost; "
        "a black tick marks each row's target.",
    )
    svg.text(
        left,
        22,
        "brahmic_pua against raw SentencePiece: ours ÷ raw (below 1: cheaper than raw)",
        size=14,
        bold=True,
    )
    svg.text(
        left,
        42,
        "wall time, or peak memory where the row says so; the table in "
        "docs/measured.md, made by bench/bench_cost.py",
        size=12,
        fill=GREY,
    )
    for value in xs:
        svg.line(x(value), top - 6, x(value), bottom, LIGHT)
        svg.text(x(value), bottom + 16, _label(value, xs), size=11, anchor="middle")
    svg.text((plot_left + plot_right) / 2, bottom + 34, "ours ÷ raw", size=12, anchor="middle")
    svg.line(x(1.0), top - 10, x(1.0), bottom, INK, 1.5, "4 3")  # under the bars and labels
    svg.text(x(1.0), top - 14, "raw", size=11, anchor="middle")
    y = top
    for r, name, side, ratio in zip(rows, names, sides, ratios, strict=True):
        target = re.fullmatch(r"≤\s*([\d.]+)", r["target"])
        goal = float(target.group(1)) if target else None
        colour = GREY if goal is None else GREEN if ratio <= goal else RED
        svg.text(left, y + 14, name, size=12)
        svg.rect(
            x(0.0),
            y + 3,
            x(ratio) - x(0.0),
            row - 8,
            colour,
            f"{name}: raw {r['raw']}, ours {r['ours']}, ours ÷ raw {ratio:.2f}, "
            f"target {r['target']}",
        )
        if goal is not None:
            svg.line(x(goal), y, x(goal), y + row - 2, INK, 2.5)
        beside = x(ratio) + 6
        if goal is not None and x(ratio) - 4 <= x(goal) <= beside + 30:
            beside = x(goal) + 8  # clear of the target's tick
        svg.text(beside, y + 14, f"{ratio:.2f}", size=11, halo=True)
        svg.text(width - 16, y + 14, side, size=11, anchor="end", fill=GREY)
        y += row
    svg.text(width - 16, top - 14, "data: raw → ours", size=11, anchor="end", fill=GREY)
    legend = height - 14
    for n, (colour, what) in enumerate(
        ((GREEN, "target met"), (RED, "target not met"), (GREY, "no number for a target"))
    ):
        svg.rect(left + 150 * n, legend - 10, 12, 12, colour)
        svg.text(left + 150 * n + 18, legend, what, size=12)
    svg.line(left + 470, legend - 12, left + 470, legend + 2, INK, 2.5)
    svg.text(left + 478, legend, "the row's target", size=12)
    return svg.document()


FIGURES = (
    Figure("demo", "docs/figures/demo_pieces.svg", "a run of brahmic_pua/cli/demo.py", draw_demo),
    Figure(
        "bits-per-byte",
        f"{RESULTS}/figures/bits_per_byte.svg",
        f"{LEVERS}/*/results.md",
        draw_bits_per_byte,
    ),
    Figure(
        "gap-trend",
        f"{RESULTS}/figures/gap_trend.svg",
        " and ".join(source for _, source, _ in TREND_REPORTS) + f", {NGRAM_REPORT}",
        draw_gap_trend,
    ),
    Figure("cost", "docs/figures/cost.svg", f"{COST_PAGE}: {COST_HEADING}", draw_cost),
)


def draw(figures: Sequence[Figure], root: Path, out: Path) -> None:
    """Each figure drawn from ``root``'s data into ``out``, at its path there."""
    for figure in figures:
        target = out / figure.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(figure.draw(root), encoding="utf-8", newline="\n")


def stale(figures: Sequence[Figure], root: Path, fresh: Path) -> list[str]:
    """The figures whose committed file under ``root`` is missing or differs from the one
    drawn into ``fresh``."""
    return [
        f.path
        for f in figures
        if not (root / f.path).is_file()
        or (root / f.path).read_bytes() != (fresh / f.path).read_bytes()
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/figures.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="draw into a temporary folder and exit 1 if a committed figure differs",
    )
    names = [f.name for f in FIGURES]
    parser.add_argument(
        "--only",
        nargs="+",
        choices=names,
        metavar="NAME",
        help=f"these figures only, of: {', '.join(names)}",
    )
    args = parser.parse_args(argv)
    chosen = [f for f in FIGURES if not args.only or f.name in args.only]
    try:
        if not args.check:
            draw(chosen, REPO, REPO)
            for f in chosen:
                print(f"{f.path}: {(REPO / f.path).stat().st_size:,} bytes, from {f.sources}")
            return 0
        fresh = Path(tempfile.mkdtemp(prefix="figures_"))
        draw(chosen, REPO, fresh)
    except DataError as error:
        print(f"figures: {error}", file=sys.stderr)
        return 1
    old = stale(chosen, REPO, fresh)
    if old:
        print(
            f"stale: {', '.join(old)} (fresh copies in {fresh}); run python tools/figures.py",
            file=sys.stderr,
        )
        return 1
    shutil.rmtree(fresh)
    print(f"{len(chosen)} figures up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
