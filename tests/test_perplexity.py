"""examples/perplexity: the smoke run end to end, the statistics, the training text that must not
contain the held-out text, the PNG writer and the bits-per-byte identity.

Only the smoke run and the sampler need torch (the optional `experiment` extra). Where torch is
missing they skip, with the reason shown as a warning too, except under CI (the CI variable
set), where a perplexity experiment that was never run must fail the build.
"""

from __future__ import annotations

import importlib.util
import json
import math
import struct
import subprocess
import sys
import unicodedata
import zlib
from pathlib import Path

import pytest
from conftest import corpora, require_extra, slow

from brahmic_pua.evaluation.malformed import KINDS, count_malformed
from brahmic_pua.evaluation.metrics import bits_per_byte, per_token_perplexity

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "perplexity"
sys.path.insert(0, str(EXAMPLE))

from data import NEWS, TRAIN, heldout_lines, per_line, read_lines, training_text  # noqa: E402
from plot import COLOURS, bar_chart, line_chart  # noqa: E402
from stats import (  # noqa: E402
    bootstrap_ratio,
    excludes_zero,
    mean_ci,
    paired_difference,
    percentile,
    t_quantile,
)


def need_torch() -> None:
    """Fail under CI, skip (visibly) elsewhere, when torch is not importable."""
    require_extra("torch", "experiment", "the perplexity experiment")


@slow  # trains GPTs
@corpora
def test_a_run_of_plain_arms_alone_reports(tmp_path: Path) -> None:
    """`--arms plain-unigram` (e.g. to bracket plain's best learning rate) has no difference
    to report; the report says what it has instead of failing after the training."""
    need_torch()
    subprocess.run(
        [
            sys.executable,
            str(EXAMPLE / "run.py"),
            "--preset",
            "smoke",
            "--arms",
            "plain-unigram",
            "--lr",
            "0.006",
            "--warmup",
            "3",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert set(results["arms"]) == {"plain-unigram"}
    assert results["differences"] == {}
    assert "lr 0.006 cosine to 0.0006, warmup 3" in results["settings"]["model"]
    table = (tmp_path / "results.md").read_text(encoding="utf-8")
    assert "| plain-unigram |" in table and "Difference in bits per byte" not in table


@slow  # trains GPTs
@corpora  # examples/perplexity reads ../shared/corpora
def test_smoke_run(tmp_path: Path) -> None:
    """The smoke preset with the stock arms, end to end; results.json records the command line
    exactly as given, so that a reader can rerun what made the numbers."""
    need_torch()
    argv = [
        str(EXAMPLE / "run.py"),
        "--preset",
        "smoke",
        "--stock-baseline",
        "--out",
        str(tmp_path),
    ]
    subprocess.run(
        [sys.executable, *argv],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert results["command"] == argv
    arms = results["arms"]
    assert set(arms) == {
        "plain-unigram",
        "plain-bpe",
        "brahmic_pua-unigram",
        "brahmic_pua-bpe",
        "stock-unigram",
        "stock-bpe",
    }
    for arm in arms.values():
        assert math.isfinite(arm["bits_per_byte"]["mean"]) and arm["bits_per_byte"]["mean"] > 0
        for seed in arm["seeds"]:
            assert math.isclose(seed["bits_per_byte"], seed["identity_rhs"], rel_tol=1e-9)
        assert arm["samples"]["tokens"] > 0 and arm["samples"]["snippet"]
        assert arm["samples"]["orphan_marks_per_1000"] >= 0
        pooled = arm["samples"]["malformed"]  # unattached signs, pooled over the seeds' texts
        texts = [t for seed in arm["seeds"] for t in seed["samples"]["text"].split("\n")]
        count = count_malformed(texts)
        assert [pooled[k] for k in KINDS] == [getattr(count, k) for k in KINDS]
        assert pooled["characters"] == count.characters
        assert pooled["per_1000_characters"] == pytest.approx(count.per_1000())
        has_o200k = importlib.util.find_spec("bpe_openai") is not None
        assert ("nsl_vs_o200k" in arm["tokenizer"]) == has_o200k
    assert results["identity_check"] is True
    assert arms["brahmic_pua-unigram"]["tokenizer"]["orphan_marks_per_1000"] == 0
    own = results["settings"]["heldout"]["malformed"]  # the held-out text's own
    heldout = results["settings"]["heldout"]  # whose characters count the line ends too
    assert own["characters"] + heldout["lines"] == heldout["characters"]
    # nmt_nfkc turns the news' ZWNJ into spaces: the stock arms do not round-trip
    assert arms["stock-unigram"]["tokenizer"]["round_trip_rate"] < 1
    differences = results["differences"]
    assert set(differences) == set(arms) - {"plain-unigram", "plain-bpe"}
    for d in differences.values():
        boot = d["bootstrap"]
        assert boot["low"] <= d["mean"] <= boot["high"]
        assert math.isclose(boot["mean"], d["mean"], rel_tol=1e-9, abs_tol=1e-12)
    for arm in arms.values():  # NSL vs spm with its default options, for every arm
        assert arm["tokenizer"]["nsl_vs_stock"] > 0
    # the bits by token class add up, in every dimension, to the arm's bits per byte
    for name, pair in results["attribution"].items():
        for side, arm_name in (("arm", name), ("plain", pair["baseline"])):
            table = pair[side]
            for classes in table["classes"].values():
                assert sum(c["bytes"] for c in classes.values()) == table["bytes"]
                bits = math.fsum(c["bits"] for c in classes.values()) / table["bytes"]
                assert bits == pytest.approx(arms[arm_name]["bits_per_byte"]["mean"], rel=1e-9)
    assert set(results["attribution"]) == {"brahmic_pua-unigram", "brahmic_pua-bpe"}
    assert (tmp_path / "state" / "plain-unigram" / "seed0" / "done.json").is_file()
    md = (tmp_path / "results.md").read_text(encoding="utf-8")
    assert "bits per byte" in md and "stock-unigram − plain-unigram" in md
    assert "Where the bits go" in md
    assert "| the held-out text itself |" in md and "Unattached Brahmic signs" in md
    assert "not claimed: it round-trips" in md
    assert ("NSL vs o200k |" in md) == has_o200k
    for name in ("bits_per_byte.png", "training_curves.png"):
        width, height, _ = read_png((tmp_path / name).read_bytes())
        assert width > 0 and height > 0


def test_sampler_is_seeded_and_in_vocabulary() -> None:
    need_torch()
    import torch
    from gpt import GPT, GPTConfig, sample

    torch.manual_seed(0)
    model = GPT(GPTConfig(vocab_size=50, layers=1, heads=2, width=16, context=8, dropout=0.0))
    rows = sample(model, start=3, tokens=40, seed=7, device="cpu", rows=4)
    assert [len(row) for row in rows] == [10] * 4  # longer than the context: it slides
    assert all(0 <= i < 50 for row in rows for i in row)
    assert sample(model, 3, 40, 7, "cpu", rows=4) == rows
    assert sample(model, 3, 40, 8, "cpu", rows=4) != rows


@corpora
def test_training_text_never_contains_a_heldout_line() -> None:
    heldout = heldout_lines(None, 1000)
    train, sources = training_text(None, ["extra", "wikisource"], heldout, news_tail=1000)
    news = read_lines(NEWS)
    assert sources["te.extra.txt"]["lines"] == len(news) - 1000  # all of te.extra but its tail
    assert news[-1001] in train and news[-1000] not in train
    held = set(heldout)
    assert not any(line in held or unicodedata.normalize("NFC", line) in held for line in train)


@corpora
def test_training_text_drops_lines_equal_to_a_heldout_file(tmp_path: Path) -> None:
    first = read_lines(TRAIN, 3)
    heldout_file = tmp_path / "heldout.txt"
    heldout_file.write_text("\n".join(first) + "\n", encoding="utf-8")
    heldout = heldout_lines([heldout_file], 10)
    train, sources = training_text(5, [], heldout, news_tail=0)
    assert sources["te.train.txt"] == {"lines": 2, "dropped_as_heldout": 3}
    assert not set(train) & set(heldout)


def test_per_line_sums_tokens_and_line_end() -> None:
    # stream: eos a b eos c eos -> values for a b eos | c eos
    assert per_line([1.0, 2.0, 3.0, 4.0, 5.0], [[7, 8], [9]]) == [6.0, 9.0]
    with pytest.raises(ValueError):
        per_line([1.0, 2.0], [[7, 8]])


def test_t_interval_on_known_numbers() -> None:
    # 1, 2, 3: mean 2, sd 1, half-width t_{0.975,2} / sqrt(3) = 4.303 / 1.7320...
    mean, low, high = mean_ci([1.0, 2.0, 3.0])
    assert mean == 2.0
    assert low == pytest.approx(2 - 4.303 / math.sqrt(3)) and high == pytest.approx(
        2 + 4.303 / math.sqrt(3)
    )
    assert mean_ci([5.0]) == (5.0, None, None)
    assert t_quantile(35) == 2.042 and t_quantile(1000) == 1.96


def test_paired_difference_claims_only_outside_zero() -> None:
    mean, low, high = paired_difference([1.1, 1.2, 1.3], [1.0, 1.1, 1.2])
    assert mean == pytest.approx(0.1) and excludes_zero(low, high)
    _, low, high = paired_difference([1.0, 1.3, 0.9], [1.1, 1.0, 1.05])
    assert not excludes_zero(low, high)


def test_percentile_interpolates_like_numpy() -> None:
    assert percentile([0.0, 10.0], 0.25) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.0) == 1.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 1.0) == 4.0


def test_bootstrap_on_known_numbers() -> None:
    # every line 2 bits per byte: every resample gives exactly 2
    assert bootstrap_ratio([2.0, 4.0, 6.0], [1.0, 2.0, 3.0], 100, seed=0) == (2.0, 2.0, 2.0)
    # a ratio of sums, not a mean of per-line ratios (which would be 0.5)
    point, _, _ = bootstrap_ratio([1.0, 0.0], [1.0, 9.0], 10, seed=0)
    assert point == pytest.approx(0.1)
    # two equal-weight lines 0 and 1: resamples give 0, 0.5, 1 with p = 1/4, 1/2, 1/4, so the
    # 2.5% and 97.5% points of 1000 resamples are 0 and 1 (each side has ~250 >> 25 draws)
    point, low, high = bootstrap_ratio([0.0, 1.0], [1.0, 1.0], 1000, seed=1)
    assert (point, low, high) == (0.5, 0.0, 1.0)
    # seeded: the same seed gives the same interval
    values, sizes = [0.3, -0.1, 0.2, 0.05, -0.4, 0.6], [3.0, 1.0, 2.0, 5.0, 1.0, 4.0]
    assert bootstrap_ratio(values, sizes, 300, 5) == bootstrap_ratio(values, sizes, 300, 5)
    _, low, high = bootstrap_ratio(values, sizes, 300, 5)
    assert low < sum(values) / sum(sizes) < high


def read_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB rows of an 8-bit RGB PNG with filter 0 on every row (what plot.py
    writes), checking signature, IHDR, chunk CRCs and the decompressed IDAT length."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, chunks = 8, dict[bytes, bytes]()
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : at + 12 + length])
        assert zlib.crc32(kind + body) == crc
        chunks[kind] = chunks.get(kind, b"") + body
        at += 12 + length
    width, height, depth, colour, _, _, _ = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert (depth, colour) == (8, 2) and b"IEND" in chunks
    raw = zlib.decompress(chunks[b"IDAT"])
    assert len(raw) == height * (1 + 3 * width)
    rows = [raw[y * (1 + 3 * width) : (y + 1) * (1 + 3 * width)] for y in range(height)]
    assert all(row[0] == 0 for row in rows)
    return width, height, [row[1:] for row in rows]


def column_height(rows: list[bytes], colour: tuple[int, int, int]) -> int:
    """The most pixels of ``colour`` in any one column: a bar's height."""
    target = bytes(colour)
    width = len(rows[0]) // 3
    return max(sum(row[3 * x : 3 * x + 3] == target for row in rows) for x in range(0, width))


def test_bar_chart_is_a_png_whose_larger_bar_is_taller(tmp_path: Path) -> None:
    path = tmp_path / "bars.png"
    bar_chart(path, ["small-arm", "large-arm"], [1.0, 2.0], [0.9, None], [1.1, None], "test")
    width, height, rows = read_png(path.read_bytes())
    assert (width, height) == (900, 460)
    small, large = column_height(rows, COLOURS[0]), column_height(rows, COLOURS[1])
    assert 0 < small < large


def test_line_chart_is_a_png_with_every_curve(tmp_path: Path) -> None:
    path = tmp_path / "curves.png"
    line_chart(path, {"a": [3.0, 2.0, 1.5, 1.2], "b": [3.2, 2.5, 2.0, 1.9]}, "loss", "step")
    _, _, rows = read_png(path.read_bytes())
    assert column_height(rows, COLOURS[0]) > 0 and column_height(rows, COLOURS[1]) > 0


def test_bits_per_byte_identity_by_hand() -> None:
    nll = [2.0, 1.5, 3.25, 0.75]  # nats, one per token
    total, tokens, n_bytes = sum(nll), len(nll), 10
    bpb = bits_per_byte(total, n_bytes)
    assert bpb == pytest.approx(7.5 / math.log(2) / 10)
    assert bpb == pytest.approx(tokens / n_bytes * math.log2(per_token_perplexity(total, tokens)))
