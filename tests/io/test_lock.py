"""brahmic_pua/io/lock.py: one holder at a time, the refused one told who holds it, and a
killed holder leaves no stale lock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from brahmic_pua.io.lock import Held, exclusive

HOLD = """
import sys, time
from pathlib import Path
from brahmic_pua.io.lock import exclusive
with exclusive(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(60)
"""


def holder(path: Path) -> subprocess.Popen[str]:
    """A process that takes the lock, says so, and sleeps holding it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path), "marker-arg"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_holder_is_refused_with_the_first_ones_pid_until_it_is_killed(
    tmp_path: Path,
) -> None:
    path = tmp_path / "lock"
    first = holder(path)
    try:
        with pytest.raises(Held) as refused, exclusive(path):
            pytest.fail("the lock was taken twice")
        assert refused.value.holder.startswith(f"pid {first.pid}: ")
        assert "marker-arg" in refused.value.holder
        assert str(path) in str(refused.value)
    finally:
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
    assert path.exists()  # a killed holder cannot remove it, but its lock is gone with it
    with exclusive(path):
        assert path.read_text().startswith(f"pid {os.getpid()}: ")
    assert not path.exists()


def test_a_lock_in_a_missing_directory_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError), exclusive(tmp_path / "gone" / "lock"):
        pytest.fail("locked a file in a missing directory")


def test_an_error_in_the_block_passes_through_and_releases_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    with pytest.raises(KeyError), exclusive(path):
        raise KeyError("inside")
    assert not path.exists()
    with exclusive(path):  # free again
        pass
