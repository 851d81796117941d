"""Temporary files named after their owner: a dead owner's files are removed by the next owner,
a live owner's never (whatever its pid), nor a file of any other name; a clean owner leaves
nothing, not even its lock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brahmic_pua.io.leftovers import owned_prefix, owner, remove_orphans

PATIENCE = 60
#: A process that owns files in argv[1] (a file and a folder with a file in it), says their
#: names on stdout, then ends as argv[2] says: "kill" (SIGKILL), "abort" (SIGABRT, as a native
#: abort does), or "wait" (alive until its stdin closes).
OWNER = """import os, signal, sys, tempfile
tempfile.tempdir = sys.argv[1]
from brahmic_pua.io.leftovers import owned_prefix, owner
with owner():
    handle, name = tempfile.mkstemp(prefix=owned_prefix("spm_words"), suffix=".tsv")
    os.write(handle, b"x" * 1000)
    folder = tempfile.mkdtemp(prefix=owned_prefix("train"))
    open(os.path.join(folder, "model.model"), "wb").close()
    print(os.path.basename(name), os.path.basename(folder), flush=True)
    if sys.argv[2] == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if sys.argv[2] == "abort":
        os.abort()
    sys.stdin.read()
"""


def _owner(folder: Path, end: str) -> tuple[subprocess.Popen[str], list[str]]:
    process = subprocess.Popen(
        [sys.executable, "-c", OWNER, str(folder), end],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    names = process.stdout.readline().split()
    assert len(names) == 2, names
    if end != "wait":
        process.wait(timeout=PATIENCE)
    return process, names


@pytest.mark.parametrize("end", ["kill", "abort"])
def test_a_dead_owners_files_are_removed_by_the_next_owner(tmp_path: Path, end: str) -> None:
    process, names = _owner(tmp_path, end)
    assert process.returncode in (-signal.SIGKILL, -signal.SIGABRT)
    left = sorted(os.listdir(tmp_path))
    assert all(f"_{process.pid}_" in name for name in left) and len(left) == 3, left
    assert set(names) < set(left)  # and the owner's lock
    strangers = ["brahmic_pua_spm_words_1_x.tsv", "mine.txt", "brahmic_pua_owner_1_abc.lock"]
    for name in strangers:
        (tmp_path / name).write_text("not an owner's")
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(tempfile, "tempdir", str(tmp_path))
        with owner():
            pass
    assert sorted(os.listdir(tmp_path)) == sorted(strangers)


def test_a_live_owners_files_are_kept(tmp_path: Path) -> None:
    process, names = _owner(tmp_path, "wait")
    try:
        before = sorted(os.listdir(tmp_path))
        assert remove_orphans(str(tmp_path)) == []
        assert sorted(os.listdir(tmp_path)) == before
    finally:
        process.communicate("", timeout=PATIENCE)
    assert process.returncode == 0
    assert sorted(os.listdir(tmp_path)) == sorted(
        names
    )  # its own cleanup is its own: the lock went with it
    assert sorted(remove_orphans(str(tmp_path))) == []  # no lock: not an owner's to remove


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 3), st.sampled_from(["spm_words", "spm_lines", "train", "corpus"]))
def test_an_owner_leaves_nothing_and_names_its_files(depth: int, kind: str) -> None:
    """Blocks nested in one process share one lock; the last to end removes it."""
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patched:
        patched.setattr(tempfile, "tempdir", folder)
        assert owned_prefix(kind) == f"brahmic_pua_{kind}_"  # no owner: the plain name
        with owner():
            prefix = owned_prefix(kind)
            assert prefix.startswith(f"brahmic_pua_{kind}_{os.getpid()}_")
            for _ in range(depth - 1):
                with owner():
                    assert owned_prefix(kind) == prefix
            (lock,) = os.listdir(folder)
            assert (
                lock == f"brahmic_pua_owner_{prefix.removeprefix(f'brahmic_pua_{kind}_')[:-1]}.lock"
            )
            assert remove_orphans(folder) == []  # held by this process
        assert os.listdir(folder) == []
