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
#: What CPython writes when a Ctrl-C lands while it computes ``sys.path[0]``, before any code
#: of the script runs (Modules/main.c: pymain_run_python).
PYTHON_STARTUP = "Failed checking if argv[0] is an import path entry"


@pytest.mark.skipif(SCRIPT is None, reason="the brahmic-pua console script is not installed")
@pytest.mark.parametrize("delay", [0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0])
def test_a_ctrl_c_at_any_moment_of_the_start_is_one_line(delay: float) -> None:
    """``segment`` waits on stdin once loaded, so a Ctrl-C lands in the imports (early delays)
    or in the command (late ones); either way the same line. A signal before Python runs any
    code of ours ends the process by SIGINT, silently, as for any program, or with CPython's
    own report of where its start was cut (no frame of ours in it)."""
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
    if errors.startswith(PYTHON_STARTUP):
        # CPython's own start, before it runs a line of ours (on a loaded machine the earliest
        # delay can land there): its report names only the interpreter's frozen frames.
        assert "brahmic_pua" not in errors and 'File "<frozen' in errors, errors
        return
    assert "Traceback" not in errors, errors
    assert (run.returncode, errors) in {(130, "Error: interrupted\n"), (-signal.SIGINT, "")}
