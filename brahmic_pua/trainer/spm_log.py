"""spm's own log of a training, read for the progress display: what it is at ("EM iteration 3,
5,000 pieces", "1,200 merges") instead of a line that only counts seconds.

spm logs from C++ straight to file descriptor 2, at ``minloglevel=0`` (brahmic_pua's default is
2: quiet). While its training runs, :func:`captured` points fd 2 at a pipe read by a thread: spm's
INFO and WARNING lines go to :class:`SpmLog`, which keeps them off the screen, and everything else
(spm's errors, which ``minloglevel=2`` shows too, anything Python or another library writes to
fd 2 meanwhile) is passed on to the real stderr, where our own display writes too. Afterwards
fd 2 is itself again and spm's level is 2 again (an interrupted training that goes on in its
thread stays quiet). spm sets its level from its options as its training starts, so a training
interrupted just as it starts is first let reach its first line (or its end): a level of 2 set
before that would be undone, and spm's INFO lines would land on the real stderr.

Not done when the caller sets ``minloglevel`` or ``logstream``: spm's log is then theirs. Should
fd 2 not be redirectable, the display counts seconds only. One thing is lost: a line spm writes
just before it aborts the process (a fatal error, which its trainers report as exceptions
instead) may not reach the screen.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TextIO

import sentencepiece as spm

from brahmic_pua.io.wording import counted
from brahmic_pua.trainer.signals import signals_deferred

#: spm's level once its log is read no more: brahmic_pua's default (errors only).
QUIET = 2
#: How long an interrupted capture waits for a training that has just started to write its first
#: line (it takes milliseconds; the bound is for a training that hangs before it logs).
START_WAIT = 5.0
#: Held while fd 2 is captured: one capture at a time (a second training alongside counts
#: seconds only; fd 2 and spm's level are the whole process's).
_CAPTURING = threading.Lock()

# spm >= 0.2 logs through absl: "I0000 00:00:1796174749.483862   29919 trainer_interface.cc:232]
# Loading corpus: …" (severity, date, time, thread id, file:line); before, through its own
# logging: "trainer_interface.cc(329) LOG(INFO) Loading corpus: …".
_ABSL = re.compile(r"([IWEF])\d{4} \S+\s+(\d+) [^\s:]+:\d+\] ?(.*)")
_OWN = re.compile(r"\S+\(\d+\) LOG\((INFO|WARNING|ERROR|FATAL)\) ?(.*)")
_ABSL_NOTICE = "WARNING: All log messages before absl::InitializeLog() is called"
# The options spm prints when it starts, after an INFO line: "trainer_spec {", "  input: …", "}"
_CONTINUED = re.compile(r"\s|\w+ \{\}?$|\}$|$")

_STAGES: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (re.compile(r"Loading corpus"), lambda m: "reading the lines"),
    (re.compile(r"Normalizing sentences"), lambda m: "normalizing"),
    (re.compile(r"Alphabet size=(\d+)"), lambda m: f"alphabet of {counted(int(m[1]), 'symbol')}"),
    (
        re.compile(r"Making suffix array|Extracting (seed|frequent)"),
        lambda m: "finding seed pieces",
    ),
    (re.compile(r"Initialized (\d+) seed"), lambda m: counted(int(m[1]), "seed piece")),
    (re.compile(r"Completed (\d+) merge steps"), lambda m: counted(int(m[1]), "merge")),
    (re.compile(r"Saving model"), lambda m: "saving"),
]
_LOADED = re.compile(r"Loaded all (\d+) sentences")
_SPLITTING = re.compile(r"Tokenizing input sentences")
_EM = re.compile(r"EM sub_iter=\d+ size=(\d+)")
_MERGED = re.compile(r"Merged: freq=\d+ merges=(\d+)")  # spm's BPE, every 100 merges
_ADDED = re.compile(r"Added: freq=\d+ size=(\d+)")  # older spm's BPE, every 20 pieces


class SpmLog:
    """Reads spm's log a line at a time: what the training is at goes to ``show``; spm's INFO
    and WARNING lines (``minloglevel=2`` would not print them) are kept back, the rest passed
    on. ``thread``, once set, is the native id of the thread that trains: another training's
    lines (rules compiled alongside) change nothing shown."""

    def __init__(
        self, show: Callable[[str], None], thread: int | None = None, words: bool = False
    ) -> None:
        self.show = show
        self.thread = thread
        #: spm's "sentences" are rows of the corpus's words with their counts (else lines)
        self.words = words
        self.unit = ("row of words", "rows of words") if words else ("line", "lines")
        self.iterations = 0  # EM iterations so far (Unigram)
        self._quiet = False  # the last record was INFO or WARNING: its next lines too
        #: Set by the training thread as it calls spm, and :attr:`started` once spm has set its
        #: level (its first line) or the call has returned: see :func:`captured`.
        self.running = False
        self.started = threading.Event()

    def line(self, text: str) -> bool:
        """Read one line (without its line end); False: pass it on to stderr."""
        if (absl := _ABSL.match(text)) is not None:
            severity, thread, message = absl[1], int(absl[2]), absl[3]
            if thread == self.thread:
                self.started.set()
            self._quiet = severity in "IW"
            if self._quiet and (self.thread is None or thread == self.thread):
                self._read(message)
            return self._quiet
        if (own := _OWN.match(text)) is not None:
            self.started.set()
            self._quiet = own[1] in ("INFO", "WARNING")
            if self._quiet:
                self._read(own[2])
            return self._quiet
        if text.startswith(_ABSL_NOTICE):
            return True
        return self._quiet and bool(_CONTINUED.match(text))

    def _read(self, message: str) -> None:
        if (loaded := _LOADED.match(message)) is not None:
            self.show(f"{counted(int(loaded[1]), *self.unit)} read")
        elif _SPLITTING.match(message) is not None:
            self.show("summing equal words" if self.words else "splitting the lines into words")
        elif (em := _EM.match(message)) is not None:
            self.iterations += 1
            self.show(f"EM iteration {self.iterations}, {counted(int(em[1]), 'piece')}")
        elif (merged := _MERGED.match(message)) is not None:
            self.show(counted(int(merged[1]), "merge"))
        elif (added := _ADDED.match(message)) is not None:
            self.show(counted(int(added[1]), "piece"))
        else:
            for pattern, say in _STAGES:
                if (found := pattern.match(message)) is not None:
                    self.show(say(found))
                    return


@dataclass
class Capture:
    """A capture of fd 2: whether it is on, and a stream on the real stderr for our own
    display while it is (None where Python's stderr is not fd 2: keep writing there)."""

    active: bool
    stderr: TextIO | None = None


@contextlib.contextmanager
def captured(log: SpmLog | None) -> Iterator[Capture]:
    """The block with fd 2 read by ``log`` (nothing done for None, where fd 2 cannot be
    redirected or while another training's is: then ``active`` is false, and spm should stay
    quiet)."""
    if log is None:
        yield Capture(False)
        return
    fds: tuple[int, int, int] | None = None
    reader: threading.Thread | None = None
    display: TextIO | None = None
    alone = False
    try:
        alone = _CAPTURING.acquire(blocking=False)
        with signals_deferred():  # not half set up (a held signal is raised as it ends)
            fds = _redirect() if alone else None
            if fds is not None:
                reader = threading.Thread(
                    target=_forward,
                    args=(fds[0], fds[2], log),
                    name="brahmic_pua-spm-log",
                    daemon=True,
                )
                reader.start()
                display = _display(fds[2])
        yield Capture(fds is not None, display)
    finally:
        if fds is not None:
            if log.running and not log.started.is_set():  # interrupted as spm starts
                log.started.wait(START_WAIT)
            _restore(*fds, reader, display)
        if alone:
            _CAPTURING.release()


def _restore(
    read: int, write: int, saved: int, reader: threading.Thread | None, display: TextIO | None
) -> None:
    """fd 2 itself again; the pipe read to its end."""
    with signals_deferred():  # not half undone
        spm.SetMinLogLevel(QUIET)  # spm's thread, if left running, says nothing more
        _flush()
        os.dup2(saved, 2)
        os.close(write)  # the reader reads what is left, then the pipe's end
    if reader is not None:
        reader.join(timeout=5)
    else:  # (the reader closes its end)
        os.close(read)
    if display is not None:
        with contextlib.suppress(OSError, ValueError):
            display.close()
    if reader is None or not reader.is_alive():
        os.close(saved)


def _redirect() -> tuple[int, int, int] | None:
    """fd 2 pointed at a new pipe: (its read end, its write end, a copy of the old fd 2)."""
    try:
        read, write = os.pipe()
    except OSError:
        return None
    try:
        saved = os.dup(2)
    except OSError:  # no fd 2 at all
        os.close(read)
        os.close(write)
        return None
    _flush()
    os.dup2(write, 2)
    return read, write, saved


def _display(saved: int) -> TextIO | None:
    """Our own lines' way to the real stderr while fd 2 is the pipe."""
    try:
        if sys.stderr is None or sys.stderr.fileno() != 2:
            return None
    except (AttributeError, OSError, ValueError):  # a stream without a descriptor
        return None
    encoding = getattr(sys.stderr, "encoding", None) or "utf-8"
    return open(os.dup(saved), "w", encoding=encoding, errors="replace", buffering=1)


def _forward(read: int, saved: int, log: SpmLog) -> None:
    """The pipe's lines, to ``log`` or on to the real stderr, until the pipe ends. Whatever
    happens the pipe is drained: a full pipe would stop spm's thread."""
    with open(read, "rb") as pipe:
        for raw in pipe:
            try:
                kept = log.line(raw.decode("utf-8", "replace").rstrip("\r\n"))
            except Exception:  # a display that fails must not stop the reading
                kept = False
            if not kept:
                with contextlib.suppress(OSError):
                    _write_all(saved, raw)


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data) :]


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            stream.flush()
