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
from conftest import child_states, sample

PATIENCE = 120  # seconds, for a loaded machine
#: Seconds a run that cannot start a thread is given to say so (it hung for good before).
HANG = 60
CLI = [sys.executable, "-m", "brahmic_pua.cli.main"]
LINES = [*sample("te")[:300], *sample("hi")[:100]]
#: A CLI run (argv: the file the first counting process makes, then the CLI's arguments) whose
#: first counting process stops itself (SIGSTOP) as it starts counting, so that the test can
#: kill it by its pid; any other waits (the pool ends it as it breaks).
STOPPED_COUNT = """import os, signal, sys, time
from brahmic_pua.trainer import count_apart, count_plan, range_count
def stopped(*args, **kwargs):
    try:
        os.close(os.open(sys.argv[1], os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        time.sleep(60)
    else:
        os.kill(os.getpid(), signal.SIGSTOP)
    raise AssertionError("a counting process was not killed")
count_plan.PARALLEL_MIN_BYTES = 0
count_plan.usable_cpus = lambda: 2
range_count.count_batches = stopped
count_plan.APART_MIN_BYTES = 0
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
        while not (stopped := [c for c, state in child_states(run.pid).items() if state == "T"]):
            assert run.poll() is None, run.communicate()[1]
            assert time.monotonic() < deadline, "no counting process stopped"
            time.sleep(0.02)
        os.kill(stopped[0], sent)
        if sent != signal.SIGKILL:  # (a killed one may be gone already: no SIGCONT for it)
            os.kill(stopped[0], signal.SIGCONT)  # a stopped process takes SIGTERM once resumed
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


#: A CLI run (argv: the thread that cannot start, then the CLI's arguments) in which that thread
#: cannot start, as under ``ulimit -v``: CPython's RuntimeError from ``Thread.start``.
NO_THREAD = """import sys, threading
from brahmic_pua.trainer import count_apart, count_plan, range_count
count_plan.PARALLEL_MIN_BYTES = 0
count_plan.usable_cpus = lambda: 2
count_plan.APART_MIN_BYTES = 0
original = threading.Thread.start
def start(self):
    if sys.argv[1] in (self.name, type(self).__name__):
        raise RuntimeError("can't start new thread")
    return original(self)
threading.Thread.start = start
from brahmic_pua.cli.main import main
main(sys.argv[2:], prog_name="brahmic-pua")
"""
#: The threads: the pool's feeder of its workers' queue (the manager thread then dies, and the
#: run hung for good), the pool's manager, spm's training thread.
THREADS = ["QueueFeederThread", "_ExecutorManagerThread", "brahmic_pua-spm-train"]


@pytest.mark.parametrize("thread", THREADS)
@pytest.mark.parametrize("path", PATHS)
def test_a_thread_that_cannot_start_is_one_line_not_a_hang(
    tmp_path: Path, thread: str, path: str
) -> None:
    options, _ = PATHS[path]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    temp = tmp_path / "temp"
    temp.mkdir()
    train = ["train", "--input", str(corpus), "--model_prefix", str(tmp_path / "m"), *options]
    run = subprocess.Popen(
        [sys.executable, "-c", NO_THREAD, thread, *train, "--vocab_size=1200", "--progress=false"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(temp)},
    )
    try:
        _, stderr = run.communicate(timeout=HANG)
    except subprocess.TimeoutExpired:
        run.kill()
        run.wait()
        pytest.fail(f"the run hung when {thread} could not start")
    lines = stderr.decode().splitlines()
    assert run.returncode == 1, stderr
    assert len(lines) == 1 and lines[0].startswith("Error: "), stderr
    assert "can't start new thread" in lines[0] and "more memory" in lines[0], stderr
    assert os.listdir(temp) == [] and not list(tmp_path.glob("m.*"))


#: A CLI run whose spm training aborts natively (as spm's C++ threads do under ``ulimit -v``).
SPM_ABORTS = """import os, sys
import sentencepiece
sentencepiece.SentencePieceTrainer.train = lambda **options: os.abort()
from brahmic_pua.cli.main import main
main(sys.argv[1:], prog_name="brahmic-pua")
"""


@pytest.mark.parametrize("model_type", ["bpe", "unigram"])  # a word file, a line file
def test_what_a_native_abort_leaves_the_next_run_removes(tmp_path: Path, model_type: str) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    temp = tmp_path / "temp"
    temp.mkdir()
    train = ["train", "--input", str(corpus), "--model_type", model_type, "--vocab_size=1200"]
    env = {**os.environ, "TMPDIR": str(temp)}
    aborted = subprocess.run(
        [sys.executable, "-c", SPM_ABORTS, *train, "--model_prefix", str(tmp_path / "a")],
        capture_output=True,
        env=env,
        timeout=PATIENCE,
        check=False,
    )
    assert aborted.returncode == -signal.SIGABRT, aborted.stderr
    left = os.listdir(temp)
    assert any("_spm_" in name for name in left) and any("_train_" in name for name in left)
    assert all(name.startswith("brahmic_pua_") for name in left), left
    again = subprocess.run(
        [*CLI, *train, "--model_prefix", str(tmp_path / "m"), "--progress=false"],
        capture_output=True,
        env=env,
        timeout=PATIENCE,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert os.listdir(temp) == []


#: A CLI run whose count runs out of memory, as pyarrow's does (ArrowMemoryError is a
#: MemoryError) in whichever process counts: here, a range worker, the count apart.
COUNT_RUNS_OUT = """import sys
from brahmic_pua.trainer import count_apart, count_plan, range_count
def count(*args, **kwargs):
    raise MemoryError("malloc of size 1220992 failed")
count_plan.PARALLEL_MIN_BYTES = 0
count_plan.usable_cpus = lambda: 2
range_count.count_batches = count
count_plan.APART_MIN_BYTES = 0
count_apart.count_batches = count
from brahmic_pua.cli.main import main
main(sys.argv[1:], prog_name="brahmic-pua")
"""


@pytest.mark.parametrize(
    "options", [*(options for options, _ in PATHS.values()), ["--num_threads=1"]]
)
def test_memory_that_runs_out_is_one_line(tmp_path: Path, options: list[str]) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    temp = tmp_path / "temp"
    temp.mkdir()
    train = ["train", "--input", str(corpus), "--model_prefix", str(tmp_path / "m"), *options]
    run = subprocess.run(
        [sys.executable, "-c", COUNT_RUNS_OUT, *train, "--vocab_size=1200", "--progress=false"],
        capture_output=True,
        env={**os.environ, "TMPDIR": str(temp)},
        timeout=PATIENCE,
        check=False,
    )
    assert run.returncode == 1, run.stderr
    assert run.stderr.decode().splitlines() == [
        "Error: out of memory (malloc of size 1220992 failed): the run needs more than it may use "
        "(the machine's memory, or the limit of ulimit -v): give it more, or a sample "
        "(--input_sentence_size=N lines), or one counting process (--num_threads=1, where more "
        "were used)"
    ]
    assert os.listdir(temp) == [] and not list(tmp_path.glob("m.*"))
