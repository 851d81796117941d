"""examples/perplexity's tools: the Kneser–Ney n-gram comparator (by hand), the
token-class attribution (by hand), the trend statistics, the preset files (their values, and a
file that is not a preset refused in one line), resuming an interrupted run (the result equals
an uninterrupted one) and the paper preset's model shapes end to end on a CPU.

The n-gram model, the resume test and the paper run need torch (the optional `experiment`
extra); where it is missing they skip visibly, and fail under CI (see conftest.require_extra).
"""

from __future__ import annotations

import fcntl
import json
import math
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import corpora, require_extra, slow

from examples.perplexity.attribution import NotAttributable, attribute
from examples.perplexity.config import Config
from examples.perplexity.data import Arm
from examples.perplexity.options import parse_args, settings
from examples.perplexity.preset import PRESET_DIR, PresetError, load_preset, preset_names
from examples.perplexity.report import verdict
from examples.perplexity.stats import bootstrap_slope, linear_fit
from examples.perplexity.trend import checkpoint_steps, fit

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "perplexity"


def need_torch() -> None:
    require_extra("torch", "experiment", "the perplexity experiment's tools")


# --- Kneser–Ney ----------------------------------------------------------------------------

# a b a b c a, with a, b, c = 0, 1, 2
ABABCA = [0, 1, 0, 1, 2, 0]


@slow  # starts the experiment, torch with it
def test_kneser_ney_bigram_by_hand() -> None:
    """Unigram level (continuation counts: a follows b and c, b follows a, c follows b, so
    N1+(•a) = 2, N1+(•b) = N1+(•c) = 1, total 4; D = 0.5 for every count): γ = 0.5·3/4 = 0.375,
    p1(a) = 1.5/4 + 0.375/3 = 0.5, p1(b) = p1(c) = 0.5/4 + 0.125 = 0.25.
    Bigram level (raw counts ab 2, ba 1, bc 1, ca 1; D1 0.5, D2 1.0, D3+ 1.5):
    after a: c(a•) = 2, one word with count 2, γ = 1.0·1/2 = 0.5: p(b|a) = (2 − 1)/2 + 0.5·0.25
    = 0.625, p(a|a) = 0.5·0.5 = 0.25, p(c|a) = 0.5·0.25 = 0.125;
    after b: c(b•) = 2, two words with count 1, γ = 0.5·2/2 = 0.5: p(a|b) = 0.5/2 + 0.5·0.5 =
    0.5, p(b|b) = 0.125, p(c|b) = 0.25 + 0.125 = 0.375;
    after c: c(c•) = 1, γ = 0.5: p(a|c) = 0.5 + 0.25 = 0.75, p(b|c) = p(c|c) = 0.125."""
    need_torch()
    from examples.perplexity.ngram import KneserNey

    model = KneserNey(ABABCA, 3, 2, discounts=[(0.5, 0.5, 0.5), (0.5, 1.0, 1.5)])
    assert model.distribution([0]) == pytest.approx([0.25, 0.625, 0.125], abs=1e-15)
    assert model.distribution([1]) == pytest.approx([0.5, 0.125, 0.375], abs=1e-15)
    assert model.distribution([2]) == pytest.approx([0.75, 0.125, 0.125], abs=1e-15)
    # the scorer gives the same numbers: stream c a b, predicting a after c and b after a
    assert model.log2_probabilities([2, 0, 1]) == pytest.approx([math.log2(0.75), math.log2(0.625)])


def test_kneser_ney_unseen_context_and_token() -> None:
    """Vocabulary of 4 (token 3 never seen): after the unseen context 3 the bigram level has
    nothing and passes the unigram level through, p1(w) = kept/4 + γ/4 with γ = 0.375:
    p1(a) = 0.375 + 0.09375, p1(b) = p1(c) = 0.125 + 0.09375, p1(3) = 0.09375."""
    need_torch()
    from examples.perplexity.ngram import KneserNey

    model = KneserNey(ABABCA, 4, 2, discounts=[(0.5, 0.5, 0.5), (0.5, 1.0, 1.5)])
    assert model.distribution([3]) == pytest.approx([0.46875, 0.21875, 0.21875, 0.09375], abs=1e-15)
    assert sum(model.distribution([0])) == pytest.approx(1.0, abs=1e-12)


def test_kneser_ney_sums_to_one() -> None:
    """Every order, estimated discounts, seen and unseen contexts: Σ_w p(w | h) = 1."""
    need_torch()
    import random

    from examples.perplexity.ngram import KneserNey

    draw = random.Random(3)
    ids = [draw.choice([0, 1, 1, 2, 3, 3, 3, 4, 5, 6, 7]) for _ in range(2000)]
    for order in (1, 2, 3, 4, 5):
        model = KneserNey(ids, 9, order)  # 8 never occurs
        for context in ([], [3], [2, 3], [1, 2, 3], [8, 8, 8, 8], [3, 3, 3, 3], [0, 7, 1, 8]):
            p = model.distribution(context)
            assert math.fsum(p) == pytest.approx(1.0, abs=1e-12), (order, context)
            assert min(p) > 0


def test_kneser_ney_scorer_matches_distribution() -> None:
    need_torch()
    import random

    from examples.perplexity.ngram import KneserNey, bits_per_byte

    draw = random.Random(5)
    ids = [draw.choice([0, 1, 1, 2, 3, 3, 4]) for _ in range(500)]
    held = [draw.randrange(6) for _ in range(40)]
    model = KneserNey(ids, 6, 3)
    scored = model.log2_probabilities(held)
    for i in range(1, len(held)):
        expected = math.log2(model.distribution(held[max(0, i - 2) : i])[held[i]])
        assert scored[i - 1] == pytest.approx(expected, abs=1e-12)
    assert bits_per_byte(model, held, 100) == pytest.approx(-math.fsum(scored) / 100)


def test_order_one_is_the_unigram() -> None:
    """Undiscounted, order 1 is the maximum-likelihood unigram c(w)/N; discounted, it is
    (c(w) − D(c(w)))/N + γ/V with γ = Σ D/N: a 3, b 2, c 1 of N = 6, V = 4, D = (0.5, 1, 1.5):
    γ = 3/6, p = (1.5, 1, 0.5, 0)/6 + 0.125."""
    need_torch()
    from examples.perplexity.ngram import KneserNey

    ids = [0, 0, 0, 1, 1, 2]
    ml = KneserNey(ids, 4, 1, unigram_discount=False)
    assert ml.distribution([]) == pytest.approx([3 / 6, 2 / 6, 1 / 6, 0.0], abs=1e-15)
    assert ml.distribution([2, 1]) == ml.distribution([])  # no context at order 1
    kn = KneserNey(ids, 4, 1, discounts=[(0.5, 1.0, 1.5)])
    assert kn.distribution([]) == pytest.approx(
        [1.5 / 6 + 0.125, 1 / 6 + 0.125, 0.5 / 6 + 0.125, 0.125], abs=1e-15
    )


def test_discounts_from_counts_of_counts() -> None:
    """n1..n4 = 10, 5, 3, 2: Y = 10/20 = 0.5, D1 = 1 − 2·0.5·5/10 = 0.5,
    D2 = 2 − 3·0.5·3/5 = 1.1, D3+ = 3 − 4·0.5·2/3 = 1.6667 (Chen and Goodman's estimates)."""
    need_torch()
    import torch

    from examples.perplexity.ngram import estimate_discounts

    counts = torch.tensor(
        [1.0] * 10 + [2.0] * 5 + [3.0] * 3 + [4.0] * 2 + [9.0], dtype=torch.float64
    )
    assert estimate_discounts(counts) == pytest.approx((0.5, 1.1, 3 - 4 / 3))
    # a count of counts that is 0 (tiny corpus): every discount Y, kept positive
    assert estimate_discounts(torch.tensor([1.0, 1.0, 5.0], dtype=torch.float64)) == (
        0.5,
        0.5,
        0.5,
    )


# --- attribution ---------------------------------------------------------------------------


class FakeProcessor:
    """The processor methods attribution.py calls, over a fixed piece list and encoding."""

    def __init__(self, pieces: list[str], rows: dict[str, list[int]]) -> None:
        self.pieces, self.rows = pieces, rows

    def id_to_piece(self, token: int) -> str:
        return self.pieces[token]

    def is_byte(self, token: int) -> bool:
        return self.pieces[token].startswith("<0x")

    def is_unknown(self, token: int) -> bool:
        return self.pieces[token] == "<unk>"

    def is_control(self, token: int) -> bool:
        return self.pieces[token] in ("<s>", "</s>")

    def encode(self, lines: list[str]) -> list[list[int]]:
        return [self.rows[line] for line in lines]

    def eos_id(self) -> int:
        return 2


PIECES = ["<unk>", "<s>", "</s>", "▁ర", "క్ష", "▁", "a", "b", "<0x31>"]
LINE = "రక్ష ab 1"  # ర క్ ష (fixtoken), 3 + 9 + 1 + 2 + 1 + 1 = 17 bytes


def test_attribution_by_hand() -> None:
    """Tokens ▁ర | క్ష | ▁ | a | b | ▁ | <0x31> and the line end, 1 … 8 bits each.
    Bytes: 3 (the line's leading ▁ is no byte), 9, 1, 1, 1, 1, 1, and 1 for the newline."""
    arm = Arm(
        "fake", "brahmic_pua", "unigram", FakeProcessor(PIECES, {LINE: [3, 4, 5, 6, 7, 5, 8]})
    )
    clusters = Counter({"ర": 50, "క్": 50, "ష": 5, "a": 20, "b": 20, "1": 20})
    nll = [bits * math.log(2) for bits in range(1, 9)]
    table = attribute(arm, [LINE], nll, clusters)
    assert (table["bytes"], table["tokens"]) == (18, 8)

    def cells(dim: str) -> dict[str, tuple[int, int, float]]:
        return {
            name: (c["tokens"], c["bytes"], c["bits"])
            for name, c in table["classes"][dim].items()
            if c["tokens"]
        }

    assert cells("position") == {
        "word start": (3, 5, 12.0),
        "word rest": (2, 10, 7.0),
        "space alone": (2, 2, 9.0),
        "line end": (1, 1, 8.0),
    }
    assert cells("conjunct") == {
        "holds a conjunct": (1, 9, 2.0),
        "no conjunct": (6, 8, 26.0),
        "line end": (1, 1, 8.0),
    }
    assert cells("byte fallback") == {
        "byte-fallback piece": (1, 1, 7.0),
        "vocabulary piece": (6, 16, 21.0),
        "line end": (1, 1, 8.0),
    }
    assert cells("cluster frequency") == {
        "rare cluster": (1, 9, 2.0),
        "frequent clusters only": (4, 6, 17.0),
        "space alone": (2, 2, 9.0),
        "line end": (1, 1, 8.0),
    }
    assert cells("script") == {
        "Brahmic": (2, 12, 3.0),
        "Latin": (2, 2, 9.0),
        "number": (1, 1, 7.0),
        "space alone": (2, 2, 9.0),
        "line end": (1, 1, 8.0),
    }
    assert cells("cluster cut") == {
        "starts a cluster": (5, 15, 19.0),
        "space alone": (2, 2, 9.0),
        "line end": (1, 1, 8.0),
    }
    for dim in table["classes"]:  # every dimension holds every byte and every bit
        assert sum(c["bytes"] for c in table["classes"][dim].values()) == 18
        assert math.fsum(c["bits"] for c in table["classes"][dim].values()) == pytest.approx(36)


def test_a_piece_that_begins_with_a_vowel_sign_starts_inside_a_cluster() -> None:
    """కాలానికి as plain spm cuts it, కాల | ానికి: the suffix starts inside the cluster లా."""
    pieces = ["<unk>", "<s>", "</s>", "▁కాల", "ానికి"]
    arm = Arm("fake", "plain", "unigram", FakeProcessor(pieces, {"కాలానికి": [3, 4]}))
    table = attribute(arm, ["కాలానికి"], [math.log(2)] * 3, Counter())
    cut = {name: (c["tokens"], c["bytes"]) for name, c in table["classes"]["cluster cut"].items()}
    assert cut == {
        "starts inside a cluster": (1, 15),
        "starts a cluster": (1, 9),
        "space alone": (0, 0),
        "line end": (1, 1),
    }


def test_attribution_refuses_pieces_that_do_not_spell_the_text() -> None:
    arm = Arm("fake", "stock", "unigram", FakeProcessor(PIECES, {"రక్ష ab": [3, 4, 5, 6]}))
    with pytest.raises(NotAttributable):
        attribute(arm, ["రక్ష ab"], [0.0] * 5, Counter())


# --- trend ---------------------------------------------------------------------------------


def test_checkpoint_steps() -> None:
    assert checkpoint_steps(1000, 50, None) == [50, 100, 200, 400, 800, 1000]
    assert checkpoint_steps(10000, 50, None)[-3:] == [3200, 6400, 10000]
    assert checkpoint_steps(12, None, None) == [12]
    assert checkpoint_steps(12, 50, [4, 8, 30]) == [4, 8, 12]


def test_linear_fit_by_hand() -> None:
    # y = 1 + 2x exactly: slope 2, a zero-width interval
    slope, intercept, low, high = linear_fit([0.0, 1.0, 2.0], [1.0, 3.0, 5.0])
    assert (slope, intercept) == pytest.approx((2.0, 1.0)) and low == pytest.approx(2.0)
    # (0, 0), (1, 1), (2, 1): slope 0.5, residuals −1/6, 1/3, −1/6: s² = (1/6)/1, sxx = 2,
    # half-width t_{0.975,1} · sqrt(1/12) = 12.706 · 0.288675
    slope, _, low, high = linear_fit([0.0, 1.0, 2.0], [0.0, 1.0, 1.0])
    assert slope == pytest.approx(0.5)
    assert high is not None and high - slope == pytest.approx(12.706 * math.sqrt(1 / 12))
    assert linear_fit([0.0, 1.0], [0.0, 1.0])[2:] == (None, None)


def test_bootstrap_slope_when_every_line_agrees() -> None:
    """Every line has the same bits per byte at each x, so every resample gives the slope."""
    xs = [0.0, 1.0, 2.0]
    sizes = [2.0, 3.0, 5.0]
    rows = [[0.3 * s for s in sizes], [0.2 * s for s in sizes], [0.1 * s for s in sizes]]
    assert bootstrap_slope(xs, rows, sizes, 50, seed=0) == pytest.approx((-0.1, -0.1, -0.1))


def _rows(gaps: list[float]) -> tuple[list[dict[str, Any]], dict[int, list[float]]]:
    rows, lines = [], {}
    for k, gap in enumerate(gaps):
        step = 50 * 2**k
        rows.append(
            {"step": step, "tokens_seen": step * 1000, "gap": gap, "plain_bits_per_byte": 1.0}
        )
        lines[step] = [gap * 10 + 0.01 * (i % 3 - 1) for i in range(30)]  # 30 lines of 10 bytes
    return rows, lines


def test_trend_verdicts() -> None:
    shrinking = fit(*_rows([0.08, 0.06, 0.04, 0.02]), [10] * 30, 200)
    assert shrinking["verdict"].startswith("shrinks") and shrinking["slope"] < 0
    assert shrinking["zero_crossing_tokens"] > 400_000  # beyond the last checkpoint
    growing = fit(*_rows([0.02, 0.04, 0.06, 0.08]), [10] * 30, 200)
    assert growing["verdict"].startswith("grows")
    negative = fit(*_rows([-0.08, -0.06, -0.04, -0.02]), [10] * 30, 200)
    assert negative["verdict"].startswith("shrinks")  # toward zero from below
    holding = fit(*_rows([0.05, 0.06, 0.04, 0.05]), [10] * 30, 200)
    assert holding["verdict"].startswith("holds")
    assert fit(*_rows([0.05, 0.04]), [10] * 30, 200)["verdict"].startswith("too few")


# --- presets ----------------------------------------------------------------------------

ARMS = ("plain-unigram", "plain-bpe", "brahmic_pua-unigram", "brahmic_pua-bpe")
MODEL = {"layers": 2, "heads": 4, "width": 128, "context": 128, "dropout": 0.1, "batch": 16}
# The values run.py held as positional tuples before the presets became files; 30 is an int.
RECORDED: dict[str, dict[str, Any]] = {
    "smoke": {
        **{"vocab_size": 1000, "layers": 1, "heads": 2, "width": 32, "context": 32},
        **{"dropout": 0.0, "batch": 8, "lr": 3e-3, "min_lr": 3e-4, "warmup": 2, "steps": 12},
        **{"seeds": 1, "train_lines": 800, "heldout_lines": 40, "budget_minutes": None},
        **{"calibrate": False, "sample_tokens": 64, "bootstrap": 200, "arms": ARMS},
        **{"checkpoint_from": None, "estimate": False},
    },
    "cpu": {
        **{"vocab_size": 8000, **MODEL, "lr": 2e-3, "min_lr": 2e-4, "warmup": 50},
        **{"steps": 3000, "seeds": 3, "train_lines": None, "heldout_lines": 1000},
        **{"budget_minutes": 30, "calibrate": True, "sample_tokens": 1024, "bootstrap": 1000},
        **{"arms": ARMS, "checkpoint_from": None, "estimate": False},
    },
    "cpu-long": {
        **{"vocab_size": 8000, **MODEL, "lr": 2e-3, "min_lr": 2e-4, "warmup": 100},
        **{"steps": 10000, "seeds": 3, "train_lines": None, "heldout_lines": 1000},
        **{"budget_minutes": None, "calibrate": False, "sample_tokens": 1024, "bootstrap": 1000},
        **{"arms": ("plain-unigram", "brahmic_pua-unigram"), "checkpoint_from": 50},
        "estimate": True,
    },
    "paper": {
        **{"vocab_size": 8000, "layers": 6, "heads": 6, "width": 384, "context": 256},
        **{"dropout": 0.2, "batch": 64, "lr": 1e-3, "min_lr": 1e-4, "warmup": 100},
        **{"steps": 5000, "seeds": 3, "train_lines": None, "heldout_lines": 3000},
        **{"budget_minutes": None, "calibrate": False, "sample_tokens": 2048, "bootstrap": 1000},
        **{"arms": ARMS, "checkpoint_from": 50, "estimate": True},
    },
}


def _same_values_and_types(loaded: dict[str, Any], values: dict[str, Any]) -> None:
    assert loaded == values
    assert {k: type(v) for k, v in loaded.items()} == {k: type(v) for k, v in values.items()}


def test_every_preset_file_holds_the_recorded_values() -> None:
    """Each presets/NAME.toml over Config's defaults gives exactly the values (and types: an int
    stays an int, so results.json is unchanged) that the preset had as a tuple in run.py; by
    name or by path; Config's defaults are the paper's."""
    assert preset_names() == sorted(RECORDED)
    for name, values in RECORDED.items():
        for given in (name, PRESET_DIR / f"{name}.toml"):
            loaded = load_preset(given)
            _same_values_and_types(loaded.preset_settings(), values)
            assert loaded.preset == str(given)  # recorded as given (results.json's "preset")
    _same_values_and_types(Config().preset_settings(), RECORDED["paper"])


def test_a_preset_sets_only_what_differs_from_the_papers(tmp_path: Path) -> None:
    """A key a preset file leaves out keeps the paper's value (Config's default)."""
    path = tmp_path / "short.toml"
    path.write_text("steps = 7\nbudget_minutes = 2.5\n", encoding="utf-8")
    loaded = load_preset(path).preset_settings()
    _same_values_and_types(loaded, RECORDED["paper"] | {"steps": 7, "budget_minutes": 2.5})


def test_the_command_line_overrides_the_preset() -> None:
    """An option overrides its setting and leaves the others the preset's; --lr keeps the
    preset's ratio of floor to peak, --steps turns the calibration off; the run's options
    (not a preset's) take their documented defaults."""
    smoke = settings(parse_args(["--preset", "smoke"], None))
    assert smoke.preset_settings() == RECORDED["smoke"]
    assert (smoke.regime, smoke.threads, smoke.save_every, smoke.ngram_orders) == (
        "tokens",
        1,
        500,
        (2, 3, 4, 5),
    )
    given = ["--preset", "cpu", "--lr", "0.004", "--warmup", "7", "--steps", "40"]
    cfg = settings(parse_args([*given, "--checkpoints", "4", "8", "--heldout-lines", "9"], None))
    changed = {"lr": 0.004, "min_lr": 0.0004, "warmup": 7, "steps": 40, "heldout_lines": 9}
    expected = RECORDED["cpu"] | changed | {"calibrate": False}
    assert cfg.preset_settings().keys() == expected.keys()
    for key, value in expected.items():
        assert cfg.preset_settings()[key] == pytest.approx(value), key
    assert cfg.checkpoints == (4, 8) and cfg.preset == "cpu"


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--lr", "0"], "--lr must be above 0, not 0.0"),
        (["--lr", "nan"], "--lr must be above 0, not nan"),
        (["--warmup", "-1"], "--warmup must be 0 or more, not -1"),
        (["--only-seeds", "1"], "--only-seeds: each seed must be from 0 to 0 (--seeds is 1)"),
    ],
)
def test_an_option_out_of_range_is_refused_in_one_line(option: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as refused:
        settings(parse_args(["--preset", "smoke", *option], None))
    assert refused.value.code == message


#: Every option of run.py, as the command line had them before Config declared them.
OPTIONS = [
    "--preset",
    "--arms",
    "--regime",
    "--heldout",
    "--heldout-lines",
    "--train",
    "--train-lines",
    "--train-extra",
    "--stock-baseline",
    "--vocab-size",
    "--steps",
    "--lr",
    "--warmup",
    "--sampling",
    "--composed",
    "--seeds",
    "--sample-tokens",
    "--bootstrap",
    "--threads",
    "--device",
    "--batch",
    "--checkpoints",
    "--checkpoint-lines",
    "--save-every",
    "--stop-after-steps",
    "--only-seeds",
    "--so-far",
    "--ngram",
    "--ngram-only",
    "--ngram-orders",
    "--budget-minutes",
    "--out",
]


def test_every_option_keeps_its_name(capsys: pytest.CaptureFixture[str]) -> None:
    """run.py --help lists exactly the options it had, each once."""
    with pytest.raises(SystemExit):
        parse_args(["--help"], None)
    out = capsys.readouterr().out.split("\n")
    listed = [line.split()[0] for line in out if line.startswith("  --")]  # not a wrapped line
    assert sorted(listed) == sorted(OPTIONS)


def _smoke_with(tmp_path: Path, old: str, new: str) -> Path:
    """presets/smoke.toml with one line's start ``old`` replaced by ``new``, as a new file."""
    text = (PRESET_DIR / "smoke.toml").read_text(encoding="utf-8")
    lines = [new if line.startswith(old) else line for line in text.split("\n")]
    assert lines != text.split("\n"), old
    path = tmp_path / "preset.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


BROKEN = {  # what is changed in smoke.toml, and what the one-line error must say
    "unknown key": ("steps =", "stepz = 12", "unknown key 'stepz'"),
    "wrong type": ("steps =", 'steps = "12"', "key 'steps' must be an integer, not '12'"),
    "bool for an int": ("layers =", "layers = true", "key 'layers' must be an integer"),
    "none word": ("train_lines =", 'train_lines = "none"', 'an integer or "all"'),
    "unknown arm": ("seeds =", 'arms = ["plain-unigram", "x"]', "names unknown arms ['x']"),
    "not TOML": ("steps =", "steps = =", "not a readable TOML file"),
}


@pytest.mark.parametrize("case", BROKEN, ids=list(BROKEN))
def test_a_file_that_is_not_a_preset_is_named_with_its_key(tmp_path: Path, case: str) -> None:
    old, new, message = BROKEN[case]
    path = _smoke_with(tmp_path, old, new)
    with pytest.raises(PresetError) as error:
        load_preset(path)
    assert str(error.value).startswith(f"{path}: ") and message in str(error.value)
    assert "\n" not in str(error.value)


@slow  # starts the experiment, torch with it
@pytest.mark.parametrize("case", ["unknown key", "wrong type", "bool for an int"])
def test_run_refuses_a_broken_preset_in_one_line(tmp_path: Path, case: str) -> None:
    """run.py stops before anything is made: one line on stderr naming the file and the key,
    argparse's exit status for a bad option (2), no traceback."""
    need_torch()  # run.py imports torch first
    old, new, message = BROKEN[case]
    path = _smoke_with(tmp_path, old, new)
    out = tmp_path / "out"
    refused = subprocess.run(
        [sys.executable, str(EXAMPLE / "run.py"), "--preset", str(path), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"run.py: error: {path}: ") and message in refused.stderr
    assert refused.stderr.count("\n") == 1
    assert "Traceback" not in refused.stderr and not out.exists()


# --- run.py end to end ---------------------------------------------------------------------


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLE / "run.py"), *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )


@corpora  # the experiment trains on te.train.txt and scores te.extra.txt
@pytest.mark.parametrize(
    "levers", [[], ["--sampling", "0.1", "--composed", "char"]], ids=["plain", "levers"]
)
@slow  # trains GPTs
def test_an_interrupted_run_resumes_to_the_same_result(tmp_path: Path, levers: list[str]) -> None:
    """Stopped after 6 of 12 steps of the first model and run again, the result equals that of
    a run never stopped: the same losses at every step, checkpoints and bits per byte, to the
    last bit (same machine, threads and torch). Finished models are read back, not redone.
    With issue 30's levers too, given the same sampled passes (a resumed run reads back what it
    drew before it stopped; sentencepiece draws otherwise in another process)."""
    need_torch()
    options = [
        *levers,
        "--preset",
        "smoke",
        "--arms",
        "brahmic_pua-unigram",
        "--checkpoints",
        "4",
        "8",
        "--save-every",
        "5",
    ]
    stopped, whole = tmp_path / "stopped", tmp_path / "whole"
    first = run(*options, "--out", str(stopped), "--stop-after-steps", "6")
    assert "stopped after --stop-after-steps 6" in first.stderr
    assert not (stopped / "results.json").exists()
    progress = json.loads((stopped / "state/plain-unigram/seed0/progress.json").read_text())
    assert progress == {"step": 6, "steps": 12}
    second = run(*options, "--out", str(stopped))
    assert "plain-unigram seed 0: resumed at step 6" in second.stderr
    shutil.copytree(stopped / "tokenizers", whole / "tokenizers")  # the very same tokenizers
    for drawn in stopped.glob("state/*/seed0/pass*.pt"):  # and sampled passes (regularize.py)
        kept = whole / drawn.relative_to(stopped)
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(drawn, kept)
    run(*options, "--out", str(whole))
    a = json.loads((stopped / "results.json").read_text(encoding="utf-8"))
    b = json.loads((whole / "results.json").read_text(encoding="utf-8"))
    assert set(a["arms"]) == {"plain-unigram", "brahmic_pua-unigram"}
    for name in a["arms"]:
        x, y = a["arms"][name], b["arms"][name]
        assert len(x["seeds"][0]["loss_curve"]) == 12
        assert x["seeds"][0]["loss_curve"] == y["seeds"][0]["loss_curve"]
        assert x["checkpoints"] == y["checkpoints"]
        assert [c["step"] for c in x["checkpoints"]] == [4, 8, 12]
        assert x["bits_per_byte"] == y["bits_per_byte"]
    assert a["trend"] == b["trend"]
    assert len(a["trend"]["brahmic_pua-unigram"]["checkpoints"]) == 3
    again = run(*options, "--out", str(stopped))
    assert again.stderr.count("finished earlier, read back") == 2
    with pytest.raises(subprocess.CalledProcessError) as refused:
        run(*options, "--out", str(stopped), "--steps", "13")
    assert "holds a run with other options (steps" in refused.value.stderr
    if levers:
        assert a["settings"]["sampling"] == 0.1 and a["settings"]["composed"] == "char"
        with pytest.raises(subprocess.CalledProcessError) as refused:
            run(*options[len(levers) :], "--out", str(stopped))  # without the levers
        assert "holds a run with other options (composed, sampling" in refused.value.stderr


@slow  # trains GPTs
@corpora
def test_seeds_trained_by_separate_processes_report_as_one_run(tmp_path: Path) -> None:
    """--only-seeds trains the named seeds and stops without a report; a run without it reads
    them back and reports exactly what a single run of every seed reports. A model another
    process is training (its lock held) is skipped under --only-seeds, and refused in one line
    by a run that must report it; never trained twice. --so-far
    reports the steps the saved models reached, and once all have finished, the trend the
    full report computes from its in-memory records."""
    need_torch()
    options = [
        "--preset",
        "smoke",
        "--arms",
        "brahmic_pua-unigram",
        "--seeds",
        "2",
        "--checkpoints",
        "4",
    ]
    split, whole = tmp_path / "split", tmp_path / "whole"
    first = run(*options, "--out", str(split), "--only-seeds", "1")
    assert "seeds 1 finished" in first.stderr
    assert not (split / "results.json").exists()
    assert (split / "state/brahmic_pua-unigram/seed1/done.json").is_file()
    assert not (split / "state/plain-unigram/seed0").exists()
    run(*options, "--out", str(split), "--so-far")  # seed 1 only, so far
    so_far = json.loads((split / "so_far.json").read_text(encoding="utf-8"))
    assert so_far["command"] == [str(EXAMPLE / "run.py"), *options, "--out", str(split), "--so-far"]
    rows = so_far["trend"]["brahmic_pua-unigram"]["checkpoints"]
    assert [(r["step"], r["seeds"]) for r in rows] == [(4, 1), (12, 1)]
    folder = split / "state/plain-unigram/seed0"
    folder.mkdir(parents=True)
    with open(folder / "lock", "w") as held:  # as if another process were training it
        held.write("pid 1234")
        held.flush()
        fcntl.flock(held, fcntl.LOCK_EX)
        side = run(*options, "--out", str(split), "--only-seeds", "0")
        assert "skipped: " in side.stderr and "is being trained by pid 1234" in side.stderr
        assert "except plain-unigram seed 0, which other runs are training" in side.stderr
        assert (split / "state/brahmic_pua-unigram/seed0/done.json").is_file()
        assert not (folder / "done.json").exists()
        with pytest.raises(subprocess.CalledProcessError) as refused:
            run(*options, "--out", str(split))  # a report needs every model
    assert "is being trained by pid 1234: wait for that run to end" in refused.value.stderr
    assert "Traceback" not in refused.value.stderr
    assert not (split / "results.json").exists()
    with pytest.raises(subprocess.CalledProcessError) as out_of_range:
        run(*options, "--out", str(split), "--only-seeds", "2")
    assert "--only-seeds: each seed must be from 0 to 1" in out_of_range.value.stderr
    run(*options, "--out", str(split), "--only-seeds", "0")
    report = run(*options, "--out", str(split))
    assert report.stderr.count("finished earlier, read back") == 4
    shutil.copytree(split / "tokenizers", whole / "tokenizers")
    run(*options, "--out", str(whole))
    a = json.loads((split / "results.json").read_text(encoding="utf-8"))
    b = json.loads((whole / "results.json").read_text(encoding="utf-8"))
    for name in ("plain-unigram", "brahmic_pua-unigram"):
        assert [s["seed"] for s in a["arms"][name]["seeds"]] == [0, 1]
        for x, y in zip(a["arms"][name]["seeds"], b["arms"][name]["seeds"], strict=True):
            assert x["loss_curve"] == y["loss_curve"]
            assert x["bits_per_byte"] == y["bits_per_byte"]
    assert a["trend"] == b["trend"]
    run(*options, "--out", str(split), "--so-far")  # read from the saved states, the same
    so_far = json.loads((split / "so_far.json").read_text(encoding="utf-8"))
    assert so_far["trend"] == a["trend"]
    assert [r["seeds"] for r in so_far["trend"]["brahmic_pua-unigram"]["checkpoints"]] == [2, 2]


@slow  # trains GPTs
@corpora
def test_paper_preset_runs_on_a_cpu_with_ngrams(tmp_path: Path) -> None:
    """The paper's model shapes (6 layers, 6 heads, width 384, context 256, dropout 0.2) for 3
    steps of batch 2 on a small vocabulary, with checkpoints, the attribution and the n-gram
    table wired in: the code path `--preset paper --device cuda` takes, on a CPU."""
    need_torch()
    run(
        "--preset",
        "paper",
        "--device",
        "cpu",
        "--steps",
        "3",
        "--batch",
        "2",
        "--vocab-size",
        "1000",
        "--train-lines",
        "800",
        "--heldout-lines",
        "10",
        "--seeds",
        "1",
        "--arms",
        "brahmic_pua-unigram",
        "--sample-tokens",
        "8",
        "--bootstrap",
        "20",
        "--checkpoints",
        "1",
        "2",
        "--ngram",
        "--ngram-orders",
        "2",
        "3",
        "--out",
        str(tmp_path),
    )
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    s = results["settings"]
    assert (s["layers"], s["heads"], s["width"], s["context"], s["dropout"]) == (
        6,
        6,
        384,
        256,
        0.2,
    )
    assert results["arms"]["plain-unigram"]["compute"]["steps"] == 3
    assert [c["step"] for c in results["arms"]["plain-unigram"]["checkpoints"]] == [1, 2, 3]
    for name in ("plain-unigram", "brahmic_pua-unigram"):
        orders = results["ngram"][name]["orders"]
        assert set(orders) == {"2", "3"}
        assert all(0 < o["bits_per_byte"] < 20 for o in orders.values())
        assert "nsl_vs_stock" in results["arms"][name]["tokenizer"]
    pair = results["attribution"]["brahmic_pua-unigram"]
    bpb = results["arms"]["brahmic_pua-unigram"]["bits_per_byte"]["mean"]
    for classes in pair["arm"]["classes"].values():
        total = math.fsum(c["bits"] for c in classes.values()) / pair["arm"]["bytes"]
        assert total == pytest.approx(bpb, rel=1e-9)
    md = (tmp_path / "results.md").read_text(encoding="utf-8")
    assert "Kneser–Ney" in md and "Where the bits go" in md and "The gap with compute" in md
    assert (tmp_path / "gap_trend.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("seeds", "lines", "said"),
    [
        ((0.001, 0.003), (0.002, 0.004), "both intervals exclude zero: a difference"),
        ((-0.001, 0.003), (-0.002, 0.004), "both intervals include zero: no difference claimed"),
        ((0.001, 0.003), (-0.002, 0.004), "the bootstrap includes zero: no difference claimed"),
        ((-0.001, 0.003), (0.002, 0.004), "the seed interval includes zero: no difference claimed"),
        ((-0.003, -0.001), (-0.004, -0.002), "both intervals exclude zero: a difference"),
    ],
)
def test_the_verdict_says_which_interval_holds_zero(
    seeds: tuple[float, float], lines: tuple[float, float], said: str
) -> None:
    """Each case by hand: which interval (seeds, lines) holds zero is read off the numbers."""
    difference = {
        "round_trip_rate": 1.0,
        "low": seeds[0],
        "high": seeds[1],
        "bootstrap": {"low": lines[0], "high": lines[1]},
    }
    assert verdict(difference) == said
