"""The console script's entry (brahmic_pua_launch.py): a Ctrl-C while the library is still
loading ends like any other Ctrl-C, one line and exit 130, never a KeyboardInterrupt traceback."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
from conftest import default_sigint

SCRIPT = shutil.which("brahmic-pua", path=os.path.dirname(sys.executable))


@pytest.mark.skipif(SCRIPT is None, reason="the brahmic-pua console script is not installed")
@pytest.mark.parametrize("delay", [0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0])
def test_a_ctrl_c_at_any_moment_of_the_start_is_one_line(delay: float) -> None:
    """``segment`` waits on stdin once loaded, so a Ctrl-C lands in the imports (early delays)
    or in the command (late ones); either way the same line. A signal before Python runs any
    code of ours ends the process by SIGINT, silently, as for any program."""
    assert SCRIPT is not None
    run = subprocess.Popen(
        [SCRIPT, "segment"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    time.sleep(delay)
    run.send_signal(signal.SIGINT)
    _, errors = run.communicate(timeout=60)
    assert "Traceback" not in errors, errors
    assert (run.returncode, errors) in {(130, "Error: interrupted\n"), (-signal.SIGINT, "")}
