"""PNG figures without matplotlib: an RGB canvas, a 5×7 bitmap font and a PNG writer (zlib and
struct from the standard library), for the experiment's two plots.

matplotlib is not one of the project's dependencies, and a figure that appears only on machines
that happen to have it is a figure the reader cannot count on: this writes one on every run.
"""

from __future__ import annotations

import itertools
import math
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path

Colour = tuple[int, int, int]

# One colour per arm, in arm order (the tab10 palette: distinct, and readable on white).
COLOURS: tuple[Colour, ...] = (
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
)
INK: Colour = (0, 0, 0)
GRID: Colour = (225, 225, 225)
WHISKER: Colour = (40, 40, 40)
WHITE: Colour = (255, 255, 255)

# 5×7 glyphs, one string of seven 5-pixel rows each; text is drawn upper-cased.
_GLYPHS = {
    "0": ".###. #...# #..## #.#.# ##..# #...# .###.",
    "1": "..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###.",
    "2": ".###. #...# ....# ...#. ..#.. .#... #####",
    "3": "##### ...#. ..#.. ...#. ....# #...# .###.",
    "4": "...#. ..##. .#.#. #..#. ##### ...#. ...#.",
    "5": "##### #.... ####. ....# ....# #...# .###.",
    "6": "..##. .#... #.... ####. #...# #...# .###.",
    "7": "##### ....# ...#. ..#.. .#... .#... .#...",
    "8": ".###. #...# #...# .###. #...# #...# .###.",
    "9": ".###. #...# #...# .#### ....# ...#. .##..",
    "A": ".###. #...# #...# ##### #...# #...# #...#",
    "B": "####. #...# #...# ####. #...# #...# ####.",
    "C": ".###. #...# #.... #.... #.... #...# .###.",
    "D": "###.. #..#. #...# #...# #...# #..#. ###..",
    "E": "##### #.... #.... ####. #.... #.... #####",
    "F": "##### #.... #.... ####. #.... #.... #....",
    "G": ".###. #...# #.... #.### #...# #...# .####",
    "H": "#...# #...# #...# ##### #...# #...# #...#",
    "I": ".###. ..#.. ..#.. ..#.. ..#.. ..#.. .###.",
    "J": "..### ...#. ...#. ...#. ...#. #..#. .##..",
    "K": "#...# #..#. #.#.. ##... #.#.. #..#. #...#",
    "L": "#.... #.... #.... #.... #.... #.... #####",
    "M": "#...# ##.## #.#.# #.#.# #...# #...# #...#",
    "N": "#...# #...# ##..# #.#.# #..## #...# #...#",
    "O": ".###. #...# #...# #...# #...# #...# .###.",
    "P": "####. #...# #...# ####. #.... #.... #....",
    "Q": ".###. #...# #...# #...# #.#.# #..#. .##.#",
    "R": "####. #...# #...# ####. #.#.. #..#. #...#",
    "S": ".#### #.... #.... .###. ....# ....# ####.",
    "T": "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
    "U": "#...# #...# #...# #...# #...# #...# .###.",
    "V": "#...# #...# #...# #...# #...# .#.#. ..#..",
    "W": "#...# #...# #...# #.#.# #.#.# #.#.# .#.#.",
    "X": "#...# #...# .#.#. ..#.. .#.#. #...# #...#",
    "Y": "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#..",
    "Z": "##### ....# ...#. ..#.. .#... #.... #####",
    " ": "..... ..... ..... ..... ..... ..... .....",
    "-": "..... ..... ..... .###. ..... ..... .....",
    "_": "..... ..... ..... ..... ..... ..... #####",
    ".": "..... ..... ..... ..... ..... .##.. .##..",
    ",": "..... ..... ..... ..... .##.. ..#.. .#...",
    ":": "..... .##.. .##.. ..... .##.. .##.. .....",
    "(": "...#. ..#.. .#... .#... .#... ..#.. ...#.",
    ")": ".#... ..#.. ...#. ...#. ...#. ..#.. .#...",
    "[": ".###. .#... .#... .#... .#... .#... .###.",
    "]": ".###. ...#. ...#. ...#. ...#. ...#. .###.",
    "%": "##... ##..# ...#. ..#.. .#... #..## ...##",
    "/": "..... ....# ...#. ..#.. .#... #.... .....",
    "+": "..... ..#.. ..#.. ##### ..#.. ..#.. .....",
    "=": "..... ..... ##### ..... ##### ..... .....",
    "?": ".###. #...# ....# ...#. ..#.. ..... ..#..",
}
FONT = {ch: [row for row in rows.split()] for ch, rows in _GLYPHS.items()}


class Canvas:
    """An RGB raster, white to start, with the few primitives the plots need."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.pixels = bytearray(WHITE * (width * height))

    def rect(self, x0: int, y0: int, x1: int, y1: int, colour: Colour) -> None:
        """Fill [x0, x1) × [y0, y1), clipped to the canvas."""
        x0, x1 = max(min(x0, x1), 0), min(max(x0, x1), self.width)
        y0, y1 = max(min(y0, y1), 0), min(max(y0, y1), self.height)
        if x0 >= x1:
            return
        span = bytes(colour) * (x1 - x0)
        for y in range(y0, y1):
            start = 3 * (y * self.width + x0)
            self.pixels[start : start + len(span)] = span

    def line(self, x0: int, y0: int, x1: int, y1: int, colour: Colour, width: int = 1) -> None:
        """Bresenham's line, ``width`` pixels thick (a square pen)."""
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
        err = dx + dy
        while True:
            self.rect(x0, y0, x0 + width, y0 + width, colour)
            if x0 == x1 and y0 == y1:
                return
            twice = 2 * err
            if twice >= dy:
                err, x0 = err + dy, x0 + sx
            if twice <= dx:
                err, y0 = err + dx, y0 + sy

    def text(self, x: int, y: int, text: str, colour: Colour = INK, scale: int = 2) -> None:
        """``text`` with its top-left corner at (x, y); unknown characters draw as '?'."""
        for n, ch in enumerate(text.upper()):
            glyph = FONT.get(ch, FONT["?"])
            left = x + n * 6 * scale
            for row, bits in enumerate(glyph):
                for col, bit in enumerate(bits):
                    if bit == "#":
                        top = y + row * scale
                        self.rect(
                            left + col * scale, top, left + (col + 1) * scale, top + scale, colour
                        )

    def png(self) -> bytes:
        return png_bytes(self.width, self.height, bytes(self.pixels))


def text_width(text: str, scale: int = 2) -> int:
    return max(len(text) * 6 * scale - scale, 0)


def png_bytes(width: int, height: int, rgb: bytes) -> bytes:
    """An 8-bit RGB PNG: signature, IHDR, one IDAT of zlib-compressed scanlines (filter 0 each),
    IEND, each chunk with its CRC-32."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    stride = 3 * width
    raw = b"".join(b"\x00" + rgb[y * stride : (y + 1) * stride] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round axis values (steps of 1, 2 or 5 × 10^k) from at or below ``low`` to at or above
    ``high``, about ``count`` of them."""
    span = high - low if high > low else abs(high) or 1.0
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step + 1e-9)
    last = math.ceil(high / step - 1e-9)
    return [round(k * step, 12) for k in range(first, max(last, first + 1) + 1)]


def tick_label(value: float, axis: Sequence[float]) -> str:
    step = axis[1] - axis[0]
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    return f"{value:.{decimals}f}"


class _Frame:
    """A plot area on a canvas: maps data to pixels, draws grid, axes and tick labels."""

    def __init__(self, canvas: Canvas, box: tuple[int, int, int, int], ys: list[float]) -> None:
        self.canvas, self.ys = canvas, ys
        self.left, self.top, self.right, self.bottom = box

    def y(self, value: float) -> int:
        low, high = self.ys[0], self.ys[-1]
        return round(self.bottom - (value - low) / (high - low) * (self.bottom - self.top))

    def y_axis(self) -> None:
        for value in self.ys:
            py = self.y(value)
            self.canvas.line(self.left, py, self.right, py, GRID)
            label = tick_label(value, self.ys)
            self.canvas.text(self.left - 8 - text_width(label), py - 7, label)
        self.canvas.line(self.left, self.top, self.left, self.bottom, INK, 2)
        self.canvas.line(self.left, self.bottom, self.right, self.bottom, INK, 2)


def bar_chart(
    path: Path,
    names: Sequence[str],
    means: Sequence[float],
    lows: Sequence[float | None],
    highs: Sequence[float | None],
    title: str,
) -> None:
    """One bar per arm (its colour), a whisker from low to high where there is an interval, the
    mean written above. The axis starts at a round value below the lowest whisker, not at 0
    (the title says where), so that differences of a few percent are visible."""
    values = [*means, *(v for v in lows if v is not None), *(v for v in highs if v is not None)]
    low, high = min(values), max(values)
    pad = (high - low) * 0.25 or abs(high) * 0.05 or 1.0
    ys = ticks(max(low - pad, 0), high + pad)
    title = f"{title} (axis from {tick_label(ys[0], ys)})"
    width, height = max(900, 150 * len(names) + 120, text_width(title) + 40), 460
    canvas = Canvas(width, height)
    frame = _Frame(canvas, (100, 60, width - 20, height - 70), ys)
    canvas.text(20, 16, title)
    frame.y_axis()
    slot = (frame.right - frame.left) / len(names)
    for i, (name, mean, lo, hi) in enumerate(zip(names, means, lows, highs, strict=True)):
        centre = round(frame.left + slot * (i + 0.5))
        half = round(slot * 0.28)
        colour = COLOURS[i % len(COLOURS)]
        canvas.rect(centre - half, frame.y(mean), centre + half, frame.bottom - 1, colour)
        top = frame.y(mean)
        if lo is not None and hi is not None:
            top = frame.y(hi)
            canvas.line(centre, frame.y(lo), centre, top, WHISKER, 2)
            for end in (lo, hi):
                canvas.line(centre - 10, frame.y(end), centre + 10, frame.y(end), WHISKER, 2)
        label = f"{mean:.4f}"
        canvas.text(centre - text_width(label) // 2, top - 22, label)
        for row, part in enumerate(name.split("-")):
            canvas.text(centre - text_width(part) // 2, frame.bottom + 12 + 20 * row, part)
    path.write_bytes(canvas.png())


def line_chart(path: Path, series: dict[str, list[float]], title: str, x_label: str) -> None:
    """One polyline per arm (its colour, in the order given) over steps 1..n, smoothed by a
    moving average over 2% of the steps so that the trend shows through minibatch noise."""
    legend = text_width(max(series, key=len)) + 70  # a column right of the plot
    width, height = 800 + legend, 460
    canvas = Canvas(width, height)
    smooth = {name: _moving_average(v, max(len(v) // 50, 1)) for name, v in series.items()}
    values = [v for curve in smooth.values() for v in curve]
    frame = _Frame(canvas, (100, 60, width - legend, height - 70), ticks(min(values), max(values)))
    canvas.text(20, 16, title)
    frame.y_axis()
    steps = max(map(len, smooth.values()))
    xs = ticks(0, steps)
    span = xs[-1] - xs[0]

    def px(step: float) -> int:
        return round(frame.left + (step - xs[0]) / span * (frame.right - frame.left))

    for value in xs:
        label = tick_label(value, xs)
        canvas.line(px(value), frame.bottom, px(value), frame.bottom + 6, INK, 2)
        canvas.text(px(value) - text_width(label) // 2, frame.bottom + 12, label)
    canvas.text((frame.left + frame.right - text_width(x_label)) // 2, frame.bottom + 36, x_label)
    for i, (name, curve) in enumerate(smooth.items()):
        colour = COLOURS[i % len(COLOURS)]
        points = [(px(n + 1), frame.y(v)) for n, v in enumerate(curve)]
        for (x0, y0), (x1, y1) in itertools.pairwise(points):
            canvas.line(x0, y0, x1, y1, colour, 2)
        legend_y = frame.top + 22 * i
        canvas.rect(frame.right + 20, legend_y + 2, frame.right + 38, legend_y + 12, colour)
        canvas.text(frame.right + 46, legend_y, name)
    path.write_bytes(canvas.png())


def trend_chart(
    path: Path,
    series: dict[str, list[tuple[float, float, float, float]]],
    fits: dict[str, tuple[float, float]],
    title: str,
    x_label: str,
) -> None:
    """Points (x, y) with whiskers from low to high, joined per series (its colour, in the
    order given), a grey line at y = 0 and, per series in ``fits`` (intercept, slope), the
    fitted line dashed over the series' x range: the gap against log tokens."""
    legend = text_width(max(series, key=len)) + 70
    width, height = 800 + legend, 460
    canvas = Canvas(width, height)
    points = [pt for pts in series.values() for pt in pts]
    ys = ticks(min(0.0, *(p[2] for p in points)), max(0.0, *(p[3] for p in points)))
    frame = _Frame(canvas, (100, 60, width - legend, height - 70), ys)
    canvas.text(20, 16, title)
    frame.y_axis()
    xs = ticks(min(p[0] for p in points), max(p[0] for p in points))
    span = (xs[-1] - xs[0]) or 1.0

    def px(x: float) -> int:
        return round(frame.left + (x - xs[0]) / span * (frame.right - frame.left))

    canvas.line(frame.left, frame.y(0.0), frame.right, frame.y(0.0), WHISKER, 1)
    for value in xs:
        label = tick_label(value, xs) if len(xs) > 1 else f"{value:g}"
        canvas.line(px(value), frame.bottom, px(value), frame.bottom + 6, INK, 2)
        canvas.text(px(value) - text_width(label) // 2, frame.bottom + 12, label)
    canvas.text((frame.left + frame.right - text_width(x_label)) // 2, frame.bottom + 36, x_label)
    for i, (name, pts) in enumerate(series.items()):
        colour = COLOURS[i % len(COLOURS)]
        for (x0, y0, _, _), (x1, y1, _, _) in itertools.pairwise(pts):
            canvas.line(px(x0), frame.y(y0), px(x1), frame.y(y1), colour, 2)
        for x, y, low, high in pts:
            canvas.line(px(x), frame.y(low), px(x), frame.y(high), colour, 1)
            canvas.rect(px(x) - 4, frame.y(y) - 4, px(x) + 5, frame.y(y) + 5, colour)
        if name in fits:
            a, b = fits[name]
            first, last = pts[0][0], pts[-1][0]
            dashes = 24
            for k in range(0, dashes, 2):
                xa = first + (last - first) * k / dashes
                xb = first + (last - first) * (k + 1) / dashes
                canvas.line(px(xa), frame.y(a + b * xa), px(xb), frame.y(a + b * xb), colour, 1)
        legend_y = frame.top + 22 * i
        canvas.rect(frame.right + 20, legend_y + 2, frame.right + 38, legend_y + 12, colour)
        canvas.text(frame.right + 46, legend_y, name)
    path.write_bytes(canvas.png())


def _moving_average(values: list[float], window: int) -> list[float]:
    """Mean of each value and the ``window - 1`` before it (fewer at the start)."""
    out, total = [], 0.0
    for n, value in enumerate(values):
        total += value - (values[n - window] if n >= window else 0.0)
        out.append(total / min(n + 1, window))
    return out
