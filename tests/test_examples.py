"""The examples in examples/ keep working."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_spm_workflow_example() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "spm_workflow.py")],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    assert "stock sentencepiece agrees: " in done.stdout
    assert "క్" in done.stdout.splitlines()[0]
