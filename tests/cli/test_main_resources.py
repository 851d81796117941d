"""When the machine's resources fail a training, the CLI says so in one line, exits 1 and leaves
nothing behind: a counting process killed (the out-of-memory killer's SIGKILL, a SIGTERM sent
to it alone), on both paths that count in other processes (line-range workers, the count
apart), forced on a small corpus by lowering the sizes they start at."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import sample

PATIENCE = 120  # seconds, for a loaded machine
LINES = [*sample("te")[:300], *sample("hi")[:100]]
#: A CLI run (argv: the file the first counting process makes, then the CLI's arguments) whose
#: first counting process stops itself (SIGSTOP) as it starts counting, so that the test can
#: kill it by its pid; any other waits (the pool ends it as it breaks).
STOPPED_COUNT = """import os, signal, sys, time
from brahmic_pua.trainer import count_apart, range_count
def stopped(*args, **kwargs):
    try:
        os.close(os.open(sys.argv[1], os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        time.sleep(60)
    else:
        os.kill(os.getpid(), signal.SIGSTOP)
    raise AssertionError("a counting process was not killed")
range_count.PARALLEL_MIN_BYTES = 0
range_count._usable_cpus = lambda: 2
range_count.count_batches = stopped
count_apart.ARROW_MIN_BYTES = 0
count_apart.count_here = stopped
from brahmic_pua.cli.main import main
main(sys.argv[2:], prog_name="brahmic-pua")
"""
#: The two ways of counting in other processes: the options that choose each, and the name
#: the error gives the process.
PATHS = {
    "range-workers": (["--num_threads=2"], "a counting worker"),
    "count-apart": (["--num_threads=1", "--model_type=bpe"], "the counting process"),
}


def _stopped_children(pid: int) -> list[int]:
    """The stopped child processes of ``pid`` (Linux: /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, parent = stat.read_text().rsplit(")", 1)[1].split()[:2]
        except (OSError, IndexError):
            continue
        if int(parent) == pid and state == "T":
            found.append(int(stat.parent.name))
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads child processes from /proc")
@pytest.mark.parametrize("sent", [signal.SIGKILL, signal.SIGTERM])
@pytest.mark.parametrize("path", PATHS)
def test_a_killed_counting_process_is_one_line(
    tmp_path: Path, sent: signal.Signals, path: str
) -> None:
    options, named = PATHS[path]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    temp = tmp_path / "temp"
    temp.mkdir()
    train = ["train", "--input", str(corpus), "--model_prefix", str(tmp_path / "m"), *options]
    run = subprocess.Popen(
        [
            sys.executable,
            "-c",
            STOPPED_COUNT,
            str(tmp_path / "first"),
            *train,
            "--vocab_size=1200",
            "--progress=false",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(temp)},
    )
    try:
        deadline = time.monotonic() + PATIENCE
        while not (stopped := _stopped_children(run.pid)):
            assert run.poll() is None, run.communicate()[1]
            assert time.monotonic() < deadline, "no counting process stopped"
            time.sleep(0.02)
        os.kill(stopped[0], sent)
        os.kill(stopped[0], signal.SIGCONT)  # (a stopped process takes SIGTERM once resumed)
        _, stderr = run.communicate(timeout=PATIENCE)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    lines = stderr.decode().splitlines()
    assert run.returncode == 1, stderr
    assert len(lines) == 1 and lines[0].startswith(f"Error: {named} "), stderr
    assert f"was killed by {sent.name}" in lines[0]
    if sent == signal.SIGKILL:  # (SIGTERM: the pool sends it to the other workers too)
        assert f"(pid {stopped[0]}) was killed by SIGKILL (out of memory?): " in lines[0]
    assert os.listdir(temp) == [] and not list(tmp_path.glob("m.*"))
