"""examples/perplexity: the smoke run end to end, the statistics, the training text that must not
contain the held-out text, the PNG writer and the bits-per-byte identity.

Only the smoke run and the sampler need torch (the optional `experiment` extra). Where torch is
missing they skip, with the reason shown as a warning too, except under CI (the CI variable
set), where a perplexity experiment that was never run must fail the build.
"""

from __future__ import annotations

import json
import math
import struct
import subprocess
import sys
import unicodedata
import zlib
from pathlib import Path

import pytest
from conftest import corpora, installed, require_extra, slow

from brahmic_pua.evaluation.malformed import KINDS, count_malformed
from brahmic_pua.evaluation.metrics import bits_per_byte, per_token_perplexity
from examples.perplexity.data import (
    NEWS,
    TRAIN,
    Arm,
    heldout_texts,
    per_line,
    read_lines,
    training_text,
)
from examples.perplexity.options import parse_args, settings
from examples.perplexity.plot import COLOURS, bar_chart, line_chart
from examples.perplexity.stats import (
    bootstrap_ratio,
    excludes_zero,
    mean_ci,
    paired_difference,
    percentile,
    t_quantile,
)

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "perplexity"


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
    for name, arm in arms.items():
        assert math.isfinite(arm["bits_per_byte"]["mean"]) and arm["bits_per_byte"]["mean"] > 0
        for seed in arm["seeds"]:
            assert math.isclose(seed["bits_per_byte"], seed["identity_rhs"], rel_tol=1e-9)
        assert arm["samples"]["tokens"] > 0 and arm["samples"]["snippet"]
        generated = [seed["samples"] for seed in arm["seeds"]]  # pooled over the seeds
        assert arm["samples"]["tokens"] == sum(g["tokens"] for g in generated)
        assert arm["samples"]["orphan_marks_per_1000"] == pytest.approx(
            sum(g["orphan_marks_per_1000"] * g["tokens"] for g in generated)
            / arm["samples"]["tokens"]
        )
        if name.startswith("brahmic_pua"):  # guarantee 2 on the held-out text's encoding
            assert arm["tokenizer"]["orphan_marks_per_1000"] == 0
        pooled = arm["samples"]["malformed"]  # unattached signs, pooled over the seeds' texts
        texts = [t for seed in arm["seeds"] for t in seed["samples"]["text"].split("\n")]
        count = count_malformed(texts)
        assert [pooled[k] for k in KINDS] == [getattr(count, k) for k in KINDS]
        assert pooled["characters"] == count.characters
        assert pooled["per_1000_characters"] == pytest.approx(count.per_1000())
        has_o200k = installed("bpe_openai")
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


@slow  # trains GPTs
@corpora
def test_smoke_run_scores_each_heldout_file_on_its_own(tmp_path: Path) -> None:
    """Two --heldout files: the models are trained once, without any line of either file (one
    of the second's is te.train's first line), and each file has its section in results.md and
    its numbers in results.json; the first file's equal the main tables'."""
    need_torch()
    news = read_lines(NEWS)
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    out = str(tmp_path / "out")
    first.write_text("\n".join(news[-30:]) + "\n", encoding="utf-8")
    trained = read_lines(TRAIN, 800)
    second.write_text("\n".join([trained[0], *news[-300:-280]]) + "\n", encoding="utf-8")
    argv = ["--preset", "smoke", "--heldout", str(first), "--heldout", str(second), "--ngram"]
    subprocess.run(
        [sys.executable, str(EXAMPLE / "run.py"), *argv, "--ngram-orders", "2", "--out", out],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    held = {unicodedata.normalize("NFC", x) for x in [*news[-30:], trained[0], *news[-300:-280]]}
    dropped = sum(unicodedata.normalize("NFC", x) in held for x in trained)  # brute force
    assert dropped >= 1
    assert results["settings"]["train"]["sources"]["te.train.txt"]["dropped_as_heldout"] == dropped
    files = results["heldout_files"]
    assert [f["source"] for f in files] == [str(first), str(second)]
    assert [f["lines"] for f in files] == [30, 21]
    assert results["settings"]["heldout"]["source"] == str(first)
    for name, arm in results["arms"].items():  # the first file is the main tables' text
        assert files[0]["arms"][name]["bits_per_byte"] == arm["bits_per_byte"]
        assert files[0]["tokenizers"][name] == arm["tokenizer"]
        assert files[0]["ngram"][name] == results["ngram"][name]
    assert files[0]["differences"].keys() == results["differences"].keys()
    for name, d in results["differences"].items():
        assert files[0]["differences"][name]["bootstrap"] == d["bootstrap"]
    bpb = [f["arms"]["plain-bpe"]["bits_per_byte"]["mean"] for f in files]
    assert bpb[0] != bpb[1] and all(math.isfinite(x) and x > 0 for x in bpb)
    assert files[1]["differences"]["brahmic_pua-bpe"]["mean"] != pytest.approx(
        files[0]["differences"]["brahmic_pua-bpe"]["mean"]
    )
    md = (tmp_path / "out" / "results.md").read_text(encoding="utf-8")
    at = [md.index(f"### {k}. `{f}`: ") for k, f in enumerate((first, second), start=1)]
    for part, f in ((md[at[0] : at[1]], files[0]), (md[at[1] :], files[1])):
        assert f"**{f['arms']['plain-bpe']['bits_per_byte']['mean']:.4f}**" in part
        assert f"{f['differences']['brahmic_pua-bpe']['mean']:+.4f}" in part
        assert f"{f['ngram']['plain-bpe']['orders']['2']['bits_per_byte']:.4f}" in part


def test_sampler_is_seeded_and_in_vocabulary() -> None:
    need_torch()
    import torch

    from examples.perplexity.gpt import GPT, GPTConfig, sample

    torch.manual_seed(0)
    model = GPT(GPTConfig(vocab_size=50, layers=1, heads=2, width=16, context=8, dropout=0.0))
    rows = sample(model, start=3, tokens=40, seed=7, device="cpu", rows=4)
    assert [len(row) for row in rows] == [10] * 4  # longer than the context: it slides
    assert all(0 <= i < 50 for row in rows for i in row)
    assert sample(model, 3, 40, 7, "cpu", rows=4) == rows
    assert sample(model, 3, 40, 8, "cpu", rows=4) != rows


@corpora
def test_training_text_never_contains_a_heldout_line() -> None:
    heldout = heldout_texts(None, 1000)[0]
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
    heldout = heldout_texts([heldout_file], 10)[0]
    train, sources = training_text(5, [], heldout, news_tail=0)
    assert sources["te.train.txt"] == {"lines": 2, "dropped_as_heldout": 3}
    assert not set(train) & set(heldout)


def test_each_heldout_file_keeps_its_own_lines_and_training_drops_them_all(
    tmp_path: Path,
) -> None:
    """Several --heldout files: each is its own held-out text (its first lines, NFC'd), and a
    training line equal to a held-out line of any file is dropped."""
    a, b, train = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "train.txt"
    a.write_text("అ ఒకటి\nఅ రెండు\nఅ మూడు\n", encoding="utf-8")
    b.write_text("\nబ ఒకటి\nక\u0c4d\u200cష\n", encoding="utf-8")  # a blank line, ZWNJ
    decomposed = unicodedata.normalize("NFD", "బ ఒకటి")  # equal to b's line after NFC
    train.write_text(f"ట ఒకటి\nఅ ఒకటి\n{decomposed}\nఅ మూడు\nట రెండు\n", encoding="utf-8")
    texts = heldout_texts([a, b], 2)
    assert texts == [["అ ఒకటి", "అ రెండు"], ["బ ఒకటి", "క\u0c4d\u200cష"]]
    kept, sources = training_text(None, [], [x for t in texts for x in t], 0, train)
    # "అ మూడు" is a's third line, beyond the 2 scored: not held out, so trained on
    assert kept == ["ట ఒకటి", "అ మూడు", "ట రెండు"]
    assert sources["train.txt"] == {"lines": 3, "dropped_as_heldout": 2}
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"empty\.txt has no non-empty line"):
        heldout_texts([a, empty], 2)
    with pytest.raises(SystemExit, match=r"missing\.txt is not a file"):
        heldout_texts([tmp_path / "missing.txt"], 2)
    # one file under two names would be scored twice, as two held-out texts
    (tmp_path / "link.txt").symlink_to(a)
    (tmp_path / "hard.txt").hardlink_to(a)
    for again in (tmp_path / "." / "a.txt", tmp_path / "link.txt", tmp_path / "hard.txt"):
        with pytest.raises(SystemExit, match=r"are the same file: give it once"):
            heldout_texts([a, b, again], 2)


def test_heldout_files_are_repeatable_and_each_given_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cfg = settings(parse_args(["--heldout", "a.txt", "b.txt", "--heldout", "c.txt"], None))
    assert cfg.heldout == (Path("a.txt"), Path("b.txt"), Path("c.txt"))
    assert settings(parse_args([], None)).heldout == ()  # te.extra's tail
    with pytest.raises(SystemExit) as refused:
        settings(parse_args(["--heldout", "a.txt", "b.txt", "--heldout", "a.txt"], None))
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert "--heldout: a.txt is given twice" in err and err.count("\n") == 1


class _Characters:
    """A stand-in tokenizer: one id per character (what heldout_file encodes lines with)."""

    def encode(self, lines: list[str]) -> list[list[int]]:
        return [[ord(c) % 50 for c in line] for line in lines]


def test_each_heldout_file_is_scored_and_reported_on_its_own() -> None:
    """results.heldout_file scores the models' NLL on one file by that file's bytes, pairs the
    arms on that file's lines, and report.heldout_files_section gives every file its section
    with its own numbers; a single held-out text gets no such section (results.md unchanged).
    The oracle: total NLL in bits over UTF-8 bytes with line ends, computed here."""
    from examples.perplexity.report import heldout_files_section
    from examples.perplexity.results import heldout_file

    arms = [Arm(n, n.split("-")[0], "bpe", _Characters()) for n in ("plain-bpe", "brahmic_pua-bpe")]
    files = {"a.txt": ["అమ్మ", "ab c"], "b.txt": ["కొత్త వార్త", "x", "యిది"]}
    tokenizers = {
        a.name: {
            "nsl_vs_plain": 1.0,
            "fertility": 2.0,
            "bytes_per_token": 3.0,
            "orphan_marks_per_1000": 0.0,
            "round_trip_rate": 1.0,
        }
        for a in arms
    }
    # per arm, per seed (2 seeds): one NLL (nats) per token and line end; file b costs more
    nll: dict[str, dict[str, list[list[float]]]] = {}
    for k, (name, lines) in enumerate(files.items()):
        tokens = sum(len(line) + 1 for line in lines)
        nll[name] = {
            arm.name: [[0.5 + k + 0.1 * i + 0.01 * seed] * tokens for seed in (0, 1)]
            for i, arm in enumerate(arms)
        }
    entries = [
        heldout_file(name, lines, arms, tokenizers, 50, nll[name]) for name, lines in files.items()
    ]
    for entry, (name, lines) in zip(entries, files.items(), strict=True):
        n_bytes = sum(len(line.encode("utf-8")) + 1 for line in lines)
        assert (entry["source"], entry["lines"], entry["bytes"]) == (name, len(lines), n_bytes)
        bpb = {
            arm: [sum(seed) / math.log(2) / n_bytes for seed in per_seed]
            for arm, per_seed in nll[name].items()
        }
        for arm, values in bpb.items():
            assert entry["arms"][arm]["bits_per_byte"]["values"] == pytest.approx(values)
        gap = [x - y for x, y in zip(bpb["brahmic_pua-bpe"], bpb["plain-bpe"], strict=True)]
        d = entry["differences"]["brahmic_pua-bpe"]
        assert d["mean"] == pytest.approx(sum(gap) / 2) and d["baseline"] == "plain-bpe"
        assert set(entry["differences"]) == {"brahmic_pua-bpe"}
    first, second = (e["arms"]["plain-bpe"]["bits_per_byte"]["mean"] for e in entries)
    assert first != pytest.approx(second)
    section = "\n".join(heldout_files_section({"heldout_files": entries}))
    a_at, b_at = section.index("### 1. `a.txt`: 2 lines"), section.index("### 2. `b.txt`: 3 lines")
    for entry, part in ((entries[0], section[a_at:b_at]), (entries[1], section[b_at:])):
        for arm in entry["arms"].values():
            assert f"**{arm['bits_per_byte']['mean']:.4f} [" in part
        assert f"{entry['differences']['brahmic_pua-bpe']['mean']:+.4f}" in part
    assert heldout_files_section({"heldout_files": entries[:1]}) == []
    assert heldout_files_section({}) == []
    # --ngram-only: no models, so each file's section has the tokenizers' numbers alone
    bare = [heldout_file(name, lines, arms, tokenizers, 50) for name, lines in files.items()]
    assert all("arms" not in e and "differences" not in e for e in bare)
    section = "\n".join(heldout_files_section({"heldout_files": bare}))
    assert "### 2. `b.txt`: 3 lines" in section and "bits per byte" not in section


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
