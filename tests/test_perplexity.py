"""examples/perplexity: the smoke run end to end, the statistics and the bits-per-byte identity."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="torch is the optional `experiment` extra")

from brahmic_pua.metrics import bits_per_byte, per_token_perplexity

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "perplexity"
sys.path.insert(0, str(EXAMPLE))

from stats import excludes_zero, mean_ci, paired_difference, t_quantile  # noqa: E402


def test_smoke_run(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(EXAMPLE / "run.py"), "--preset", "smoke", "--out", str(tmp_path)],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    arms = results["arms"]
    assert set(arms) == {"plain-unigram", "plain-bpe", "brahmic_pua-unigram", "brahmic_pua-bpe"}
    for arm in arms.values():
        assert math.isfinite(arm["bits_per_byte"]["mean"]) and arm["bits_per_byte"]["mean"] > 0
        for seed in arm["seeds"]:
            assert math.isclose(seed["bits_per_byte"], seed["identity_rhs"], rel_tol=1e-9)
    assert results["identity_check"] is True
    assert arms["brahmic_pua-unigram"]["tokenizer"]["orphan_marks_per_1000"] == 0
    assert "bits per byte" in (tmp_path / "results.md").read_text(encoding="utf-8")


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


def test_bits_per_byte_identity_by_hand() -> None:
    nll = [2.0, 1.5, 3.25, 0.75]  # nats, one per token
    total, tokens, n_bytes = sum(nll), len(nll), 10
    bpb = bits_per_byte(total, n_bytes)
    assert bpb == pytest.approx(7.5 / math.log(2) / 10)
    assert bpb == pytest.approx(tokens / n_bytes * math.log2(per_token_perplexity(total, tokens)))
