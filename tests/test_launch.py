"""The console script's entry (brahmic_pua_launch.py): a Ctrl-C while the library is still
loading ends like any other Ctrl-C, one line and exit 130, never a KeyboardInterrupt traceback."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import default_sigint, slow

SCRIPT = shutil.which("brahmic-pua", path=os.path.dirname(sys.executable))
#: Our source: the package and the launcher, by where they lie in this checkout. Before the
#: first line of brahmic_pua_launch.py runs, a Ctrl-C lands in code that is not ours: CPython's
#: start (computing sys.path[0], or site importing a .pth file's line, "init_import_site") or
#: the console script's own ``from brahmic_pua_launch import main`` while the import system looks
#: the module up. On a loaded machine the earliest delay can land there; the report then names
#: no file of ours, which is what the test checks instead.
ROOT = Path(__file__).resolve().parent.parent
OURS = tuple(
    str(ROOT / name) + (os.sep if is_folder else "")
    for name, is_folder in (("brahmic_pua", True), ("brahmic_pua_launch.py", False))
)


def _frames_of_ours(report: str, ours: tuple[str, ...] = OURS) -> list[str]:
    """The traceback's frames in brahmic_pua's own files (the package and the launcher)."""
    frames = [line.strip() for line in report.splitlines() if line.strip().startswith('File "')]
    return [f for f in frames if any(f'File "{place}' in f for place in ours)]


@slow  # a process per moment
@pytest.mark.skipif(SCRIPT is None, reason="the brahmic-pua console script is not installed")
@pytest.mark.parametrize("delay", [0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0])
def test_a_ctrl_c_at_any_moment_of_the_start_is_one_line(delay: float) -> None:
    """``segment`` waits on stdin once loaded, so a Ctrl-C lands in the imports (early delays)
    or in the command (late ones); either way the same line. A signal before Python runs any
    code of ours ends the process by SIGINT, silently, as for any program, or with the report
    of CPython or of the console script's import (no frame of ours in it)."""
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
    if "KeyboardInterrupt" in errors and not _frames_of_ours(errors):
        return  # cut before a line of ours ran (see OURS)
    assert "Traceback" not in errors, errors
    assert (run.returncode, errors) in {(130, "Error: interrupted\n"), (-signal.SIGINT, "")}


def test_frames_of_ours_tells_the_prelude_from_our_code() -> None:
    """The check above can fail: a frame in the package or the launcher is ours; CPython's
    start, site's .pth lines and the console script are not."""
    ours = ("/r/brahmic_pua/", "/r/brahmic_pua_launch.py")
    prelude = (
        'Traceback:\n  File "/v/bin/brahmic-pua", line 3\n  File "<frozen importlib._b>"\n'
        '  File "<frozen site>", line 186, in addpackage\n  File "<string>", line 1\n'
        '  File "/v/lib/site-packages/click/core.py", line 9\n'
    )
    assert _frames_of_ours(prelude, ours) == []
    for file in (
        "/r/brahmic_pua/__init__.py",
        "/r/brahmic_pua_launch.py",
        "/r/brahmic_pua/cli/main.py",
    ):
        assert _frames_of_ours(prelude + f'  File "{file}", line 9\n', ours)


class _Failing:
    """A meta path finder that fails the command line's import as given."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def find_spec(self, name: str, *args: object) -> None:
        if name == "brahmic_pua.cli.main":
            raise self.error


def _launched(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], error: BaseException
) -> tuple[object, str]:
    import brahmic_pua_launch

    monkeypatch.delitem(sys.modules, "brahmic_pua.cli.main", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_Failing(error), *sys.meta_path])
    with pytest.raises((SystemExit, ImportError)) as raised:
        brahmic_pua_launch.main()
    return raised.value, capsys.readouterr().err


def test_a_ctrl_c_in_a_compiled_modules_initialization_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a Ctrl-C inside sentencepiece's C module init gives Python (seen in CI): an
    ImportError caused by the KeyboardInterrupt."""
    failed = ImportError("initialization failed")
    failed.__cause__ = KeyboardInterrupt()
    raised, errors = _launched(monkeypatch, capsys, failed)
    assert isinstance(raised, SystemExit) and raised.code == 130
    assert errors == "Error: interrupted\n"


def test_an_import_error_of_another_cause_is_raised(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    failed = ImportError("no module named sentencepiece")
    raised, errors = _launched(monkeypatch, capsys, failed)
    assert raised is failed and errors == ""
