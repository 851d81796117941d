"""``encode-corpus`` runs as processes: two runs in one output directory (the second is refused
at once and harms nothing), worker processes that die with a killed run (and the run resumes
byte for byte), and a failed run that removes the empty directory it made."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
from conftest import default_sigint, slow

import brahmic_pua
from brahmic_pua.integrations.shards import LOCK, encode_corpus

#: The full run only: runs of worker processes, signalled.
pytestmark = slow

SAMPLE = Path(brahmic_pua.__file__).parent / "data" / "te.sample.txt"
#: Copies of the sample in the corpus: enough text that a run is still going when it is disturbed.
REPEAT = 60
LINES = 2000  # lines per shard
SCRIPT = shutil.which("brahmic-pua", path=os.path.dirname(sys.executable))
MAIN = "from brahmic_pua.cli.main import main; main()"
COMMAND = [SCRIPT] if SCRIPT else [sys.executable, "-c", MAIN]


def train(folder: Path, vocab_size: int) -> Path:
    prefix = folder / f"m{vocab_size}"
    brahmic_pua.SentencePieceTrainer.train(
        input=str(SAMPLE), model_prefix=str(prefix), vocab_size=vocab_size, progress=False
    )
    return Path(f"{prefix}.model")


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("runs")


@pytest.fixture(scope="module")
def run_model(work: Path) -> Path:
    return train(work, 1000)


@pytest.fixture(scope="module")
def repeated_corpus(work: Path) -> Path:
    path = work / "corpus.txt"
    path.write_bytes(SAMPLE.read_bytes() * REPEAT)
    return path


@pytest.fixture(scope="module")
def reference(work: Path, run_model: Path, repeated_corpus: Path) -> dict[str, bytes]:
    """What one undisturbed run writes."""
    encode_corpus(run_model, [str(repeated_corpus)], work / "reference", shard_lines=LINES)
    return files_of(work / "reference")


def files_of(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


@contextmanager
def started(
    run_model: Path, repeated_corpus: Path, out: Path, *extra: str
) -> Iterator[subprocess.Popen[str]]:
    """``brahmic-pua encode-corpus`` in its own process group, killed whole at the end (workers
    that outlived their run included)."""
    args = ["encode-corpus", "--model", str(run_model), "--output", str(out), "--progress=false"]
    run = subprocess.Popen(
        [*COMMAND, *args, "--shard-lines", str(LINES), *extra, str(repeated_corpus)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=default_sigint,
    )
    try:
        yield run
    finally:
        with suppress(ProcessLookupError):
            os.killpg(run.pid, signal.SIGKILL)
        run.communicate()


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout} s for {what}")
        time.sleep(0.01)


def running(run: subprocess.Popen[str], out: Path, first: str | None = None) -> None:
    """Wait until the run writes in ``out`` (its first file, or ``first``); fail if it ended."""
    wait_for(
        lambda: (
            run.poll() is not None
            or (out.is_dir() and (any(out.iterdir()) if first is None else (out / first).exists()))
        ),
        "the run to start writing",
    )
    assert run.poll() is None, "the run ended before it was disturbed: give it more input"


@contextmanager
def paused(run: subprocess.Popen[str]) -> Iterator[None]:
    """The run (its whole process group) stopped while a second run tries the directory, so
    the first cannot finish first however fast the machine is; continued afterwards."""
    os.killpg(run.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.killpg(run.pid, signal.SIGCONT)


def finished(run: subprocess.Popen[str]) -> tuple[int, str]:
    """The run's exit status and what it wrote on stderr."""
    _, errors = run.communicate(timeout=120)
    return run.returncode, errors


def in_use(out: Path, pid: int) -> str:
    """The refusal of a second run, which names the first one's pid."""
    return rf"output {re.escape(str(out))} is in use by another encode-corpus run \(pid {pid}: "


# -- one run per directory -------------------------------------------------------------------


def test_the_same_command_twice_the_second_is_refused_at_once(
    run_model: Path, repeated_corpus: Path, reference: dict[str, bytes], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    with started(run_model, repeated_corpus, out) as first:
        running(first, out, "shard_00000.npy.COMPLETE")  # its lock is taken and written
        with paused(first), started(run_model, repeated_corpus, out) as second:
            code, errors = finished(second)
        message = errors.strip().splitlines()
        assert code == 1 and len(message) == 1, errors
        assert re.search(in_use(out, first.pid), message[0]), message
        assert "encode-corpus --model" in message[0]  # the holder's command
        assert finished(first)[0] == 0
    assert files_of(out) == reference  # the lock file is gone with the run


def test_a_refused_run_does_not_harm_the_running_one(
    run_model: Path, repeated_corpus: Path, reference: dict[str, bytes], tmp_path: Path
) -> None:
    """The second run differs (shard size): it used to delete the first run's shard in progress,
    and only then refuse the directory as another run's, killing the first."""
    out = tmp_path / "out"
    with started(run_model, repeated_corpus, out) as first:
        running(first, out, "shard_00000.npy.COMPLETE")
        with paused(first):
            with pytest.raises(ValueError, match=in_use(out, first.pid)):
                encode_corpus(run_model, [str(repeated_corpus)], out, shard_lines=LINES + 1)
            assert (out / LOCK).exists()
        assert finished(first)[0] == 0
    assert files_of(out) == reference


def test_two_models_in_one_directory_one_is_refused(
    run_model: Path, repeated_corpus: Path, reference: dict[str, bytes], work: Path, tmp_path: Path
) -> None:
    """They used to both succeed, the index and shards of one overwritten by the other's."""
    other = train(work, 900)
    out = tmp_path / "out"
    with started(run_model, repeated_corpus, out) as first:
        running(first, out, "shard_00000.npy.COMPLETE")  # its lock is taken and written
        with paused(first), pytest.raises(ValueError, match=in_use(out, first.pid)):
            encode_corpus(other, [str(repeated_corpus)], out, shard_lines=LINES)
        assert finished(first)[0] == 0
    assert files_of(out) == reference


# -- workers end with their run --------------------------------------------------------------


def children_of(pid: int) -> dict[int, str]:
    """The processes whose parent is ``pid``: their command lines."""
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found[int(entry.name)] = command
    return found


def alive(pid: int) -> bool:
    """Running (a zombie is dead: in a container nobody may reap an orphan)."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_die_with_a_killed_run_and_it_resumes(
    run_model: Path, repeated_corpus: Path, reference: dict[str, bytes], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    with started(run_model, repeated_corpus, out, "--workers", "2") as run:
        running(run, out, "shard_00000.npy.COMPLETE")  # workers are encoding
        children = children_of(run.pid)
        assert any("spawn_main" in command for command in children.values()), children
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
        deadline = time.monotonic() + 5
        while any(map(alive, children)) and time.monotonic() < deadline:
            time.sleep(0.05)
        survivors = {pid: command for pid, command in children.items() if alive(pid)}
        assert not survivors, f"outlived their killed run: {survivors}"
    assert (out / LOCK).exists()  # left by the killed run, no longer locked
    encode_corpus(run_model, [str(repeated_corpus)], out, shard_lines=LINES)
    assert files_of(out) == reference


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("when", ["workers starting", "workers encoding"])
@pytest.mark.parametrize(
    ("signum", "group", "status", "said"),
    [(signal.SIGINT, True, 130, ["Error: interrupted"]), (signal.SIGTERM, False, 143, [])],
    ids=["ctrl-c", "sigterm"],
)
def test_a_signal_to_a_run_with_workers_prints_only_the_run_line(
    run_model: Path,
    repeated_corpus: Path,
    tmp_path: Path,
    when: str,
    signum: int,
    group: bool,
    status: int,
    said: list[str],
) -> None:
    """Ctrl-C reaches the whole process group, workers included; SIGTERM the run alone. Either
    way stderr holds the run's line only: no worker's KeyboardInterrupt, no unpickling or
    semaphore error of a worker still starting, no leaked-semaphore warning."""
    out = tmp_path / "out"
    with started(run_model, repeated_corpus, out, "--workers", "3") as run:
        if when == "workers starting":
            wait_for(
                lambda: (
                    run.poll() is not None
                    or any("spawn_main" in c for c in children_of(run.pid).values())
                ),
                "a worker to start",
            )
        else:
            running(run, out, "shard_00000.npy.COMPLETE")
        assert run.poll() is None, "the run ended before it was signalled"
        children = children_of(run.pid)
        (os.killpg if group else os.kill)(run.pid, signum)
        code, errors = finished(run)
        assert (code, [line for line in errors.splitlines() if line.strip()]) == (status, said)
        deadline = time.monotonic() + 5  # the resource tracker ends as the run's pipe closes
        while any(map(alive, children)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not {pid: command for pid, command in children.items() if alive(pid)}


# -- a failed run leaves no directory it made --------------------------------------------------


def test_a_failed_run_removes_the_empty_directory_it_made(run_model: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n\xffno\n")
    with pytest.raises(ValueError, match="not UTF-8"):
        encode_corpus(run_model, [str(bad)], tmp_path / "new")
    assert not (tmp_path / "new").exists()
    mine = tmp_path / "mine"  # made by the user: kept
    mine.mkdir()
    with pytest.raises(ValueError, match="not UTF-8"):
        encode_corpus(run_model, [str(bad)], mine)
    assert mine.is_dir() and not any(mine.iterdir())
