"""The examples in examples/ keep working."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import CORPORA, corpora, slow

#: The full run only: the examples train models.
pytestmark = slow

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_spm_workflow_example() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "spm_workflow.py")],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    assert "stock sentencepiece agrees: " in done.stdout
    assert "క్" in done.stdout.splitlines()[0]


@corpora
def test_nepali_example_quick() -> None:
    """examples/nepali/run.py --quick: three tokenizers, every metric, each filter's cost."""
    corpus = str(CORPORA / "ne.train.txt")
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "nepali" / "run.py"), "--quick", "--corpus", corpus],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    out = done.stdout
    assert "plain spm  brahmic_pua  + NepBPE layer" in out
    orphans = next(line for line in out.splitlines() if line.startswith("orphan-mark tokens"))
    assert orphans.split()[-2:] == ["0.0000", "0.0000"] and float(orphans.split()[-3]) > 10
    assert "| seed-absorb |" in out and "seed-absorb: " in out
    assert "काठमाडौं" in out.splitlines()[-1]
