"""Endless and oversized inputs: every command reads a bounded amount and says so in one line.

A command's text has a bound per line (``brahmic_pua.io.lines.MAX_LINE_BYTES``); a small file
read whole (a vocabulary, a codec, a seed list, a folding table) a bound on the whole file. Each
of ``encode /dev/zero``, ``--vocabulary /dev/zero``, ``codec decode --codec /dev/zero``,
``filter --seeds_strict /dev/zero`` and a 300 MB one-line ``--vocabulary`` ended in a
MemoryError traceback near 2.9 GB. Here the bounds are made small and the endless source is a
FIFO whose writer counts what the command took (and stops after a few MB, so that a command
without a bound fails its assertion rather than the machine); the real bounds and /dev/zero
run in a process whose memory is limited.
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner, Result
from conftest import sample

from brahmic_pua.cli import spm_flags
from brahmic_pua.cli.main import main
from brahmic_pua.codec import codec as codec_file
from brahmic_pua.io import lines
from brahmic_pua.nepbpe import seeds
from brahmic_pua.normalize import folding
from brahmic_pua.trainer import train_model

#: The line bound in these tests: as small as it may be (never below the reader's block).
LINE_BOUND = lines.BLOCK
#: The file bound in these tests.
FILE_BOUND = 4096
#: What the endless writer gives at most.
CAP = 8 << 20


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> str:
    prefix = tmp_path_factory.mktemp("bounded") / "te"
    train_model(
        sentence_iterator=iter(sample("te")[:500]), model_prefix=str(prefix), vocab_size=1000
    )
    return f"{prefix}.model"


@pytest.fixture(scope="module")
def codec(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("codec") / "te.codec.json"
    source = path.with_suffix(".txt")
    source.write_text("\n".join(sample("te")[:200]) + "\n", encoding="utf-8")
    args = ["codec", "build", "--input", str(source), "--output", str(path)]
    built = CliRunner().invoke(main, args)
    assert built.exit_code == 0, built.output
    return str(path)


class Endless:
    """A FIFO fed zero bytes without a line end by a thread that counts what was taken; the
    writer stops at :data:`CAP` (then the reader sees the end)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "endless"
        os.mkfifo(self.path)
        self.written = 0
        self.thread = threading.Thread(target=self._feed, daemon=True)
        self.thread.start()

    def _feed(self) -> None:
        try:
            with open(self.path, "wb", buffering=0) as sink:
                while self.written < CAP:
                    self.written += sink.write(b"\0" * min(65536, CAP - self.written))
        except BrokenPipeError:  # the reader stopped: what it should do
            pass

    def close(self) -> None:
        """Let a writer that no reader ever came for end (a FIFO's open waits for both)."""
        if self.thread.is_alive():
            with contextlib.suppress(OSError):
                os.close(os.open(self.path, os.O_RDONLY | os.O_NONBLOCK))
        self.thread.join(timeout=10)


@pytest.fixture
def endless(tmp_path: Path) -> Iterator[Endless]:
    source = Endless(tmp_path)
    yield source
    source.close()


def _one_line(result: Result, says: str) -> None:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and result.output.count("\n") == 1
    assert result.output.startswith("Error: ") and says in result.output, result.output


# -- the text a command reads: a bound per line -------------------------------------------------

TEXT_COMMANDS: dict[str, Callable[[str, str, str], list[str]]] = {
    "encode FILE": lambda m, c, p: ["encode", "--model", m, p],
    "encode --input": lambda m, c, p: ["encode", "--model", m, "--input", p],
    "encode --generate_vocabulary": lambda m, c, p: [
        "encode",
        "--model",
        m,
        "--input",
        p,
        "--generate_vocabulary",
    ],
    "decode FILE": lambda m, c, p: ["decode", "--model", m, p],
    "segment": lambda m, c, p: ["segment", "--input", p],
    "normalize": lambda m, c, p: ["normalize", "--input", p],
    "codec encode": lambda m, c, p: ["codec", "encode", "--codec", c, "--input", p],
    "codec build": lambda m, c, p: ["codec", "build", "--input", p, "--output", f"{p}.json"],
    "llama-text": lambda m, c, p: ["llama-text", "--model", m, "--to", "llama", "--input", p],
}


@pytest.mark.parametrize("command", TEXT_COMMANDS)
def test_an_endless_line_is_refused_after_the_bound(
    model: str,
    codec: str,
    endless: Endless,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    monkeypatch.setattr(lines, "MAX_LINE_BYTES", LINE_BOUND)
    result = CliRunner().invoke(main, TEXT_COMMANDS[command](model, codec, str(endless.path)))
    _one_line(result, f"input {endless.path}: line 1 is longer than {LINE_BOUND:,} bytes")
    endless.close()
    assert endless.written <= 2 * LINE_BOUND  # the bound, a buffer and the pipe's: not CAP


def test_repair_ids_reads_lines_by_the_bound(
    plain_hindi_model: str, endless: Endless, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lines, "MAX_LINE_BYTES", LINE_BOUND)
    result = CliRunner().invoke(
        main, ["repair", "--model", plain_hindi_model, "--ids", str(endless.path)]
    )
    _one_line(result, f"line 1 is longer than {LINE_BOUND:,} bytes")
    endless.close()
    assert endless.written <= 2 * LINE_BOUND


class _Zeros(io.RawIOBase):
    """stdin of zero bytes without a line end, counting what was read; ends at :data:`CAP`."""

    def __init__(self) -> None:
        self.served = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        size = min(len(buffer), CAP - self.served)
        buffer[:size] = b"\0" * size
        self.served += size
        return size


@pytest.mark.parametrize("command", ["encode", "segment"])
def test_an_endless_line_on_stdin_is_refused_after_the_bound(
    model: str, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    monkeypatch.setattr(lines, "MAX_LINE_BYTES", LINE_BOUND)
    args = ["encode", "--model", model] if command == "encode" else ["segment"]
    zeros = _Zeros()
    result = CliRunner().invoke(main, args, input=io.BufferedReader(zeros))
    _one_line(result, f"input stdin: line 1 is longer than {LINE_BOUND:,} bytes")
    assert zeros.served <= 2 * LINE_BOUND


FILE_COMMANDS: dict[str, Callable[[str, str, str], list[str]]] = {
    "eval": lambda m, p, t: ["eval", "--model", m, p],
    "audit": lambda m, p, t: ["audit", "--model", m, "--input", p],
    "filter --corpus": lambda m, p, t: [
        "filter",
        "--model",
        m,
        "--output",
        f"{t}/f.model",
        "--filters",
        "theta",
        "--nepali_seeds",
        "--corpus",
        p,
    ],
    "train": lambda m, p, t: [
        "train",
        "--input",
        p,
        "--model_prefix",
        f"{t}/m",
        "--vocab_size",
        "1000",
        "--progress=false",
    ],
    "encode-corpus": lambda m, p, t: [
        *("encode-corpus", "--model", m, "--output", f"{t}/shards", p, "--progress=false")
    ],
}


@pytest.mark.parametrize("command", FILE_COMMANDS)
def test_a_file_with_a_line_over_the_bound_is_refused(
    model: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """The readers of whole files (corpora) hold a line in parts until it ends: refused at
    the bound, and the line named."""
    monkeypatch.setattr(lines, "MAX_LINE_BYTES", LINE_BOUND)
    text = tmp_path / "one line.txt"
    text.write_bytes("కి\n".encode() + b"x" * (3 * LINE_BOUND) + b"\n")
    result = CliRunner().invoke(main, FILE_COMMANDS[command](model, str(text), str(tmp_path)))
    _one_line(result, f"line 2 is longer than {LINE_BOUND:,} bytes")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one line.txt"]


# -- small files read whole: a bound per file ----------------------------------------------------

SideCommand = Callable[[str, str, str, str], list[str]]
#: Each side file's option: the module that holds its bound, the bound's name, what the error
#: calls the file, and the command (model, a corpus, the file, a folder for outputs).
SIDE_FILES: dict[str, tuple[ModuleType, str, str, SideCommand]] = {
    "encode --vocabulary": (
        spm_flags,
        "MAX_VOCABULARY_BYTES",
        "--vocabulary file",
        lambda m, c, p, t: ["encode", "--model", m, "--vocabulary", p],
    ),
    "codec encode --codec": (
        codec_file,
        "MAX_CODEC_BYTES",
        "codec file",
        lambda m, c, p, t: ["codec", "encode", "--codec", p],
    ),
    "codec decode --codec": (
        codec_file,
        "MAX_CODEC_BYTES",
        "codec file",
        lambda m, c, p, t: ["codec", "decode", "--codec", p],
    ),
    "filter --seeds_strict": (
        seeds,
        "MAX_SEED_FILE_BYTES",
        "seed file",
        lambda m, c, p, t: [
            "filter",
            "--model",
            m,
            "--output",
            f"{t}/f.model",
            "--filters",
            "seed-absorb",
            "--seeds_strict",
            p,
        ],
    ),
    "filter --seeds_ambiguous": (
        seeds,
        "MAX_SEED_FILE_BYTES",
        "seed file",
        lambda m, c, p, t: [
            "filter",
            "--model",
            m,
            "--output",
            f"{t}/f.model",
            "--filters",
            "theta",
            "--corpus",
            c,
            "--seeds_ambiguous",
            p,
        ],
    ),
    "train --seeds_strict": (
        seeds,
        "MAX_SEED_FILE_BYTES",
        "seed file",
        lambda m, c, p, t: [
            "train",
            "--input",
            c,
            "--model_prefix",
            f"{t}/m",
            "--vocab_size",
            "1000",
            "--filters",
            "seed-absorb",
            "--seeds_strict",
            p,
        ],
    ),
    "train --folding_rules": (
        folding,
        "MAX_FOLDING_FILE_BYTES",
        "folding table",
        lambda m, c, p, t: [
            "train",
            "--input",
            c,
            "--model_prefix",
            f"{t}/m",
            "--vocab_size",
            "1000",
            "--normalization",
            "nepali-lm",
            "--folding_rules",
            p,
        ],
    ),
}


@pytest.mark.parametrize("source", ["endless", "/dev/zero", "large"])
@pytest.mark.parametrize("option", SIDE_FILES)
def test_a_side_file_over_its_bound_is_refused(
    model: str,
    codec: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    option: str,
    source: str,
) -> None:
    """A regular file over the bound is refused by its size, unread; a pipe or a device is
    read one byte past the bound and refused there."""
    module, bound, what, command = SIDE_FILES[option]
    monkeypatch.setattr(module, bound, FILE_BOUND)
    work = tmp_path / "work"
    work.mkdir()
    text = str(Path(codec).with_suffix(".txt"))  # a corpus where a command needs one
    feeder = None
    if source == "large":
        path = str(tmp_path / "one line.txt")
        Path(path).write_bytes(b"x" * (FILE_BOUND + 1))
        says = f"{FILE_BOUND + 1:,} bytes, more than the {FILE_BOUND:,} a {what} may have"
    else:
        if source == "endless":
            feeder = Endless(tmp_path)
            path = str(feeder.path)
        else:
            path = source
            if not Path(path).exists():
                pytest.skip("no /dev/zero")
        says = f"over {FILE_BOUND:,} bytes and not at its end, more than a {what} may have"
    result = CliRunner().invoke(main, command(model, text, path, str(work)))
    _one_line(result, f"{path}: {says}")
    assert list(work.iterdir()) == []
    if feeder is not None:
        feeder.close()
        assert feeder.written <= FILE_BOUND + (1 << 20)  # the bound and a pipe's buffer


# -- the real bounds, in a process of limited memory --------------------------------------------

MEMORY_LIMIT = 1_200_000_000


def _limited(*args: str) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    return subprocess.run(
        [sys.executable, "-m", "brahmic_pua.cli.main", *args],
        input="x\n",
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=limit,
    )


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["encode", "--model", "M", "/dev/zero"], "input /dev/zero: line 1 is longer than"),
        (["encode", "--model", "M", "--vocabulary", "/dev/zero"], "a --vocabulary file"),
        (["codec", "decode", "--codec", "/dev/zero"], "a codec file"),
        (
            [
                "filter",
                "--model",
                "M",
                "--output",
                "OUT",
                "--filters",
                "seed-absorb",
                "--seeds_strict",
                "/dev/zero",
            ],
            "a seed file",
        ),
        (["repair", "--model", "/dev/zero", "--ids", "-"], "not a SentencePiece model"),
        (["patch-table", "--check", "/dev/zero"], "/dev/zero is out of date"),
    ],
    ids=["encode", "--vocabulary", "--codec", "--seeds_strict", "repair --model", "patch-table"],
)
def test_dev_zero_is_one_line_within_limited_memory(
    model: str, tmp_path: Path, args: list[str], says: str
) -> None:
    """Each ended in a MemoryError traceback near 2.9 GB (2.6 GB for --codec and the seeds);
    under 1.2 GB of address space each is one line now."""
    given = [model if a == "M" else str(tmp_path / "f.model") if a == "OUT" else a for a in args]
    result = _limited(*given)
    assert result.returncode == 1, result.stderr[-2000:]
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1
    assert result.stderr.startswith("Error: ") and says in result.stderr, result.stderr
