"""Signals leave nothing behind: a training stopped by SIGINT or SIGTERM,
in the CLI or in a plain Python program, removes every temporary file and folder (spm's line
file, an iterator's spill, the rule files, a local Ray cluster's session) and exits as a shell
tool should: Ctrl-C 130 with one line, SIGTERM 143 (a program with Python's default SIGTERM
still dies by it). SIGKILL cannot be cleaned up after; the worker processes die with the run.

Each run has a TMPDIR of its own, so that what is left in it is what the run left. Signals are
sent once the phase is under way (a file of it appears), not after a fixed sleep.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import CORPORA, child_states, corpora, default_sigint, require_extra, slow

from brahmic_pua.trainer import train_model
from brahmic_pua.trainer.signals import signals_deferred

MODULE = [sys.executable, "-m", "brahmic_pua.cli.main"]
TE = str(CORPORA / "te.train.txt")  # 5 MB: spm trains for seconds, 2 worker processes count it
SAMPLE = str(Path(__file__).resolve().parents[2] / "brahmic_pua" / "data" / "te.sample.txt")
PATIENCE = 120  # seconds, for a loaded machine
INTERRUPTED = b"Error: interrupted"
LIBRARY = """import sys
import brahmic_pua
source, prefix, iterator = sys.argv[1:]
given = {"sentence_iterator": open(source, encoding="utf-8")} if iterator else {"input": source}
brahmic_pua.SentencePieceTrainer.train(**given, model_prefix=prefix, vocab_size=3000)
"""


def _left(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


def _wait_for(what: str, ready: Callable[[], bool], process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + PATIENCE
    while not ready():
        if process.poll() is not None:
            _, stderr = process.communicate()
            pytest.fail(f"the run ended before {what}: {process.returncode} {stderr[-500:]!r}")
        assert time.monotonic() < deadline, f"no {what} after {PATIENCE} s"
        time.sleep(0.01)


def _training(tmp: Path) -> Callable[[], bool]:
    """spm is training: its rule files are written."""
    return lambda: any(tmp.glob("brahmic_pua_train_*/normalize.tsv"))


def _run(command: list[str], tmp: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(tmp)},
        preexec_fn=default_sigint,
    )


def _stopped(process: subprocess.Popen[bytes], sent: signal.Signals) -> bytes:
    """The run's stderr once it has ended, and every process holding its stderr with it."""
    process.send_signal(sent)
    try:
        _, stderr = process.communicate(timeout=PATIENCE)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=PATIENCE)  # (not communicate: a stray process holds stderr)
        pytest.fail(f"the run, or a process holding its stderr, outlived the signal {sent!r}")
    return stderr


def _said(stderr: bytes, sent: signal.Signals) -> None:
    """Ctrl-C: one line, the last; SIGTERM: nothing of its own. Never a traceback."""
    assert b"Traceback" not in stderr and b"terminate called" not in stderr, stderr
    lines = stderr.strip().splitlines()
    if sent == signal.SIGINT:
        assert lines[-1] == INTERRUPTED and lines.count(INTERRUPTED) == 1, stderr
    else:
        assert not any(line.startswith(b"Error") for line in lines), stderr


@pytest.fixture
def tmp(tmp_path: Path) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    return folder


@pytest.fixture
def out(tmp_path: Path) -> Path:
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


# -- the CLI --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("sent", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize(
    "source", [pytest.param(TE, marks=corpora, id="long"), pytest.param(SAMPLE, id="short")]
)
def test_a_signal_during_spm_training_leaves_nothing(
    tmp: Path, out: Path, sent: signal.Signals, status: int, source: str
) -> None:
    """spm trains on a thread of its own, so the signal is taken at once; and a thread left
    running when the process exits would abort it ("terminate called without an active
    exception", exit 134), so the exit must not wait for Python's finalization."""
    process = _run(
        [
            *MODULE,
            "train",
            "--input",
            source,
            "--model_prefix",
            str(out / "m"),
            "--vocab_size",
            "3000" if source == TE else "800",
        ],
        tmp,
    )
    _wait_for("spm's training", _training(tmp), process)
    stderr = _stopped(process, sent)
    assert process.returncode == status, stderr
    _said(stderr, sent)
    assert _left(tmp) == [] and _left(out) == []


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _children_started(process: subprocess.Popen[bytes], what: str) -> list[int]:
    """The child processes of ``process``, once it has any (``what`` they are, for the error)."""
    found: list[int] = []

    def started() -> bool:
        found[:] = [c for c, state in child_states(process.pid).items() if state != "Z"]
        return bool(found)

    _wait_for(what, started, process)
    return found


def _ended(pids: list[int], what: str) -> None:
    """The processes ``pids`` end within 30 s of their run (``what``: who outlived it)."""
    deadline = time.monotonic() + 30
    while any(map(_alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(_alive, pids)), f"{what} outlived its run"


def _killed(pids: list[int]) -> None:
    """Any of ``pids`` still alive killed (a failed test leaves no process)."""
    for pid in pids:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


@corpora
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads child processes from /proc")
def test_sigkill_leaves_only_temporary_files_and_no_process(tmp: Path, out: Path) -> None:
    """SIGKILL cannot be cleaned up after: the worker processes counting the corpus die with
    the run (orphaned, they would wait forever for work, holding its stderr), what is left is the
    temporary files the README names, named after the run, and the next run removes them and is
    not affected by them."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("the count uses worker processes only with 2 CPUs or more")
    process = _run(
        [*MODULE, "train", "--input", TE, "--model_prefix", str(out / "m"), "--num_threads=2"],
        tmp,
    )
    workers: list[int] = []
    try:
        workers += _children_started(process, "worker processes")
        stderr = _stopped(process, signal.SIGKILL)  # returns once the workers let stderr go
        assert process.returncode == -signal.SIGKILL, stderr
        _ended(workers, "a worker")
    finally:
        _killed(workers)
    left = _left(tmp)
    owned = f"_{process.pid}_"
    assert left and all(name.startswith("brahmic_pua_") and owned in name for name in left), left
    # The next run, in the same TMPDIR and to the same prefix, is not affected.
    again = _run(
        [
            *MODULE,
            "train",
            "--input",
            SAMPLE,
            "--model_prefix",
            str(out / "m"),
            "--vocab_size",
            "800",
        ],
        tmp,
    )
    _, stderr = again.communicate(timeout=PATIENCE)
    assert again.returncode == 0, stderr
    assert _left(tmp) == [] and _left(out) == ["m.model", "m.vocab"]


@corpora
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads child processes from /proc")
@pytest.mark.parametrize(("sent", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_during_the_count_apart_leaves_nothing(
    tmp: Path, out: Path, sent: signal.Signals, status: int
) -> None:
    """A corpus of 16 MB or more is counted in a forked process (trainer/count_apart.py): a
    signal then ends the run and that process, removes the word file, and says one line."""
    big = out.parent / "big.txt"
    with open(big, "wb") as target:
        for _ in range(4):  # te.train four times: 21 MB
            target.write(Path(TE).read_bytes())
    options = ["--model_prefix", str(out / "m"), "--model_type", "bpe", "--vocab_size", "3000"]
    process = _run([*MODULE, "train", "--input", str(big), *options], tmp)
    children: list[int] = []
    try:
        children += _children_started(process, "the counting process")
        stderr = _stopped(process, sent)
        assert process.returncode == status, stderr
        _said(stderr, sent)
        _ended(children, "the counting process")
    finally:
        _killed(children)
    assert _left(tmp) == [] and _left(out) == []


# -- a plain Python program ------------------------------------------------------------------------


@corpora
@pytest.mark.parametrize("iterator", [False, True], ids=["input", "sentence_iterator"])
def test_the_library_cleans_up_under_pythons_default_sigterm(
    tmp: Path, out: Path, iterator: bool
) -> None:
    """Python's default SIGTERM kills at once, leaving spm's line file (and with a
    sentence_iterator its spill) and the rule folder; the trainer makes it an exception while
    it trains, removes its files, and then dies by SIGTERM all the same."""
    process = _run(
        [sys.executable, "-c", LIBRARY, TE, str(out / "m"), "yes" if iterator else ""], tmp
    )
    _wait_for("spm's training", _training(tmp), process)
    stderr = _stopped(process, signal.SIGTERM)
    assert process.returncode == -signal.SIGTERM, stderr  # as without brahmic_pua's handler
    assert not stderr.strip(), stderr
    assert _left(tmp) == [] and _left(out) == []


def test_training_changes_no_signal_handler(tmp_path: Path) -> None:
    """The library's SIGTERM handler is in force while it trains (seen from a
    sentence_iterator, read on the main thread), where the handler was Python's default only,
    and the handler is as it was afterwards."""
    seen: list[object] = []

    def lines() -> Iterator[str]:
        seen.append(signal.getsignal(signal.SIGTERM))
        yield from Path(SAMPLE).read_text(encoding="utf-8").splitlines()

    def own(signum: int, frame: object) -> None:
        raise AssertionError("not sent")

    before = signal.getsignal(signal.SIGTERM)
    try:
        for handler in (signal.SIG_DFL, own):
            signal.signal(signal.SIGTERM, handler)
            prefix = tmp_path / str(len(seen)) / "m"
            prefix.parent.mkdir()
            train_model(sentence_iterator=lines(), model_prefix=str(prefix), vocab_size=800)
            assert signal.getsignal(signal.SIGTERM) is handler
    finally:
        signal.signal(signal.SIGTERM, before)
    assert callable(seen[0]) and seen[0] is not own and seen[1] is own


def test_signals_are_held_while_processes_start() -> None:
    """Starting Ray or a worker pool holds Ctrl-C back to the end of the start (a start cut
    halfway leaves processes nothing tracks; Python drops a handler's exception raised in its
    at-fork hooks); a second Ctrl-C is not held back."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        after = False
        with pytest.raises(KeyboardInterrupt), signals_deferred():
            signal.raise_signal(signal.SIGINT)
            after = True
        assert after and signal.getsignal(signal.SIGINT) is signal.default_int_handler
        after = False
        with pytest.raises(KeyboardInterrupt), signals_deferred():
            signal.raise_signal(signal.SIGINT)
            signal.raise_signal(signal.SIGINT)
            after = True
        assert not after and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)


# -- Ray -----------------------------------------------------------------------------------------


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A TMPDIR with a short path: Ray's socket paths in the session folder inside it must fit
    in 107 bytes (else the session goes to /tmp, where this test would not see it)."""
    folder = Path(tempfile.mkdtemp(prefix="bps", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _processes_naming(text: str) -> list[str]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = cmdline.read_bytes()
        except OSError:
            continue
        if text.encode() in words:
            found.append(words.replace(b"\0", b" ")[:100].decode(errors="replace"))
    return found


@slow  # starts Ray
@corpora
@pytest.mark.parametrize(("sent", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_ray_engine_signal_during_spm_training_leaves_nothing(
    short_tmp: Path, out: Path, sent: signal.Signals, status: int
) -> None:
    """With --engine ray, three things can leave files behind: Ray's shutdown resets the SIGTERM
    handler behind Python's back (the process would die at once, leaving the rule folder); a
    Ctrl-C taken by the iterator spm reads would look like a failed training (exit 1,
    "SentencePiece could not train"); and Ray keeps its session folder under $TMPDIR/ray. The
    session is in a folder of ours, removed with it, and Ray's processes are gone."""
    require_extra("ray", "distributed", "the Ray engine's signals")
    process = _run(
        [
            *MODULE,
            "train",
            "--input",
            TE,
            "--model_prefix",
            str(out / "m"),
            "--vocab_size",
            "3000",
            "--engine",
            "ray",
        ],
        short_tmp,
    )
    session = lambda: any(short_tmp.glob("brahmic_pua_ray_*/session_*"))  # noqa: E731
    _wait_for("Ray's session folder in TMPDIR", session, process)
    _wait_for("spm's training", _training(short_tmp), process)
    stderr = _stopped(process, sent)
    assert process.returncode == status, stderr
    _said(stderr, sent)
    assert _left(short_tmp) == [] and _left(out) == []
    deadline = time.monotonic() + 30  # Ray's processes end as its shutdown waits for them
    while _processes_naming(str(short_tmp)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_naming(str(short_tmp)) == []
