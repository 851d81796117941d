"""The one progress display for long work: the corpus scan, the line count before sampling, the
worker processes' and Ray's counts, ``encode-corpus``'s shards (:class:`Progress`, a bar over a
known total) and the trainer's steps of unknown length: starting Ray, SentencePiece's training,
compiling rules, filters, writing the model (:class:`Phases`, a line with the elapsed time).

Drawn here, by :class:`Line`, not by ``click.progressbar``: a bar that is redrawn from another
thread, moved to another stream and ended whole needs more of click's bar than its public API
gives (its ``update`` and iteration), so the small renderer is ours and only ``click.echo`` is
click's. Every long job shows the same thing:

- On a terminal: one line redrawn in place, ``LABEL  [#####     ]   42%  00:00:12  DETAIL``,
  where DETAIL is the caller's own count ("12.3 MB, 40,000 lines") and the time is the
  estimate of what remains; the bar is full when the work is done (a bar drawn from the last
  update alone can end at 29 of 30 marks at 100%, so the finish draws it whole). Without a
  known total (a ``sentence_iterator``) the bar shows a moving mark and no percentage. A phase
  is ``LABEL: 12 s, DETAIL`` ("training SentencePiece (unigram): 12 s, EM iteration 3, 5,000
  pieces"), redrawn at most ten times a second, and left as ``LABEL: done in 21 s`` when it
  ends. The cursor stays visible, so a line cut short by Ctrl-C leaves nothing to restore.
- In a log (stderr is not a terminal): no carriage-return redraws to clutter it; plain lines.
  The label when the work starts, ``LABEL: 10 s, DETAIL`` every :data:`LOG_INTERVAL` seconds
  while it runs, and one line when it ends: ``LABEL: DETAIL`` for a bar, ``LABEL: done in 21 s``
  for a phase.
- Disabled: nothing at all.

Bar redraws are limited to five a second: a scan updates after every batch of lines.
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import TextIO

import click


def is_terminal(file: TextIO) -> bool:
    """Whether ``file`` is a terminal, where a line is redrawn in place; a stream without
    ``isatty``, or closed, is not."""
    try:
        return bool(file.isatty())
    except (AttributeError, ValueError, OSError):
        return False


#: Seconds between two redraws of a bar at the most.
INTERVAL = 0.2
#: Seconds between two redraws of a phase's line on a terminal (at most ten a second).
TICK = 0.1
#: Seconds between two plain lines in a log (stderr is not a terminal).
LOG_INTERVAL = 10.0
#: Marks in a bar.
BAR_WIDTH = 30


def elapsed(seconds: float, tenths: bool = False) -> str:
    """``7 s``, ``2 min 05 s``, ``1 h 02 min`` (whole seconds gone by); with ``tenths`` (a
    time taken) ``0.4 s`` under 10 s, and rounded."""
    if tenths and seconds < 9.95:
        return f"{seconds:.1f} s"
    whole = round(seconds) if tenths else int(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02} s"
    return f"{whole // 3600} h {whole // 60 % 60:02} min"


def remaining(seconds: float) -> str:
    """The estimate of the time left, as a clock: ``00:00:12``, ``1d 02:00:00``."""
    minutes, second = divmod(int(seconds), 60)
    hours, minute = divmod(minutes, 60)
    days, hour = divmod(hours, 24)
    clock = f"{hour:02}:{minute:02}:{second:02}"
    return f"{days}d {clock}" if days else clock


class Line:
    """One line of a terminal, redrawn in place: a carriage return, the text, and spaces over
    whatever the previous text left; a text equal to the one on the screen is not written."""

    def __init__(self, file: TextIO) -> None:
        self.file = file
        self.text: str | None = None

    def draw(self, text: str) -> None:
        if text == self.text:
            return
        cover = " " * max(0, len(self.text or "") - len(text))
        click.echo(f"\r{text}{cover}", file=self.file, nl=False)
        self.text = text

    def end(self) -> None:
        """The line stays as drawn; what follows starts on a new line."""
        click.echo("", file=self.file)


def bar_line(
    label: str, done: int, total: int | None, info: list[str], step: int, finished: bool
) -> str:
    """``LABEL  [#####     ]  INFO``; without a total a single mark that moves with ``step``,
    and a full bar once the work is ``finished``."""
    if total:
        filled = BAR_WIDTH * min(done, total) // total
        marks = "#" * filled + " " * (BAR_WIDTH - filled)
    elif finished:
        marks = "#" * BAR_WIDTH
    else:
        at = step % (2 * BAR_WIDTH - 2)
        at = at if at < BAR_WIDTH else 2 * BAR_WIDTH - 2 - at
        marks = " " * at + "#" + " " * (BAR_WIDTH - at - 1)
    return f"{label}  [{marks}]  {'  '.join(part for part in info if part)}".rstrip()


class Progress:
    """Progress of one job towards ``total`` units (bytes, shards), or of unknown length."""

    def __init__(
        self,
        enabled: bool,
        label: str,
        total: int | None = None,
        file: TextIO | None = None,
        interval: float | None = None,
    ) -> None:
        self.enabled = enabled
        self.label = label
        self.total = total
        self.file = file if file is not None else sys.stderr
        self.interval = interval if interval is not None else LOG_INTERVAL
        self.detail = ""
        self.last = 0.0
        self.done = 0
        self.started = self.logged = time.monotonic()
        self._draws = 0
        self._line: Line | None = None
        self._running = enabled
        if not enabled:
            return
        if is_terminal(self.file):
            self._line = Line(self.file)
            self._draw()
        else:
            click.echo(label, file=self.file)  # in a log: the label, once

    @property
    def interactive(self) -> bool:
        """Whether the bar is redrawn in place (a terminal), not logged."""
        return self._running and self._line is not None

    def note(self, message: str) -> None:
        """A line of its own, before the bar starts (for example "resuming: …")."""
        if self.enabled:
            click.echo(message, file=self.file)

    def update(self, done: int, detail: str) -> None:
        """``done`` units so far (not a step: the position), and the count to show."""
        self.detail = detail
        if not self._running:
            return
        now = time.monotonic()
        self.done = done
        if not self.interactive:
            if now - self.logged >= self.interval:
                self.logged = now
                share = f"{min(100, 100 * done // self.total)}%, " if self.total else ""
                line = f"{self.label}: {elapsed(now - self.started)}, {share}{detail}"
                click.echo(line, file=self.file)
            return
        if now - self.last < INTERVAL:
            return
        self.last = now
        self._draw()

    def finish(self, detail: str) -> None:
        """The work is done: a full bar and a line end on a terminal, ``LABEL: DETAIL`` in a
        log."""
        self.detail = detail
        if not self._running:
            return
        self._running = False
        if self._line is not None:
            self._draw(finished=True)
            self._line.end()
        else:
            click.echo(f"{self.label}: {detail}", file=self.file)

    def _draw(self, finished: bool = False) -> None:
        assert self._line is not None
        done, info = self.done, [self.detail]
        if self.total:
            done = self.total if finished else min(self.done, self.total)
            spent = time.monotonic() - self.started
            left = remaining(spent / done * (self.total - done)) if done and not finished else ""
            info = [f"{100 * done // self.total:3}%", left, self.detail]
        self._draws += 1
        self._line.draw(bar_line(self.label, done, self.total, info, self._draws, finished))


class Phases:
    """Steps of unknown length, one after another, each ending on a line of its own: a phase
    starts with :meth:`start`, shows what :meth:`show` last said beside its elapsed time, and
    ends at the next :meth:`start`, at :meth:`end` or when the block ends. Use it as a context
    manager: a thread redraws the line (a terminal) or logs it every ``interval`` seconds (a
    log) while a phase runs, and stops with the block.

    :meth:`start` and :meth:`show` may be called from any thread (spm's log is read on one).
    ``file`` is where the lines go (stderr by default, at each phase's start);
    :meth:`writing_to` changes it for a while (spm's log capture takes fd 2).
    """

    def __init__(
        self, enabled: bool, file: TextIO | None = None, interval: float | None = None
    ) -> None:
        self.enabled = enabled
        self.file = file
        self.interval = interval if interval is not None else LOG_INTERVAL
        self.label: str | None = None
        self.detail = ""
        self._started = self._logged = 0.0
        self._live = False
        self._line: Line | None = None  # on a terminal, while a live phase runs
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def __enter__(self) -> Phases:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close(error)

    def start(self, label: str, live: bool = True) -> None:
        """A new phase (the current one, if any, ends). ``live=False``: no redraws and no
        interim lines, only the label and the last line (where something else writes to
        stderr meanwhile, such as spm's own log)."""
        if not self.enabled:
            return
        with self._lock:
            self._end()
            now = time.monotonic()
            self.label, self.detail, self._live = label, "", live
            self._started = self._logged = now
            file = self._file()
            if live and is_terminal(file):
                self._line = Line(file)
                self._line.draw(f"{label}: {self._info()}")
            else:
                self._line = None
                click.echo(label, file=file)
            if live and self._ticker is None:
                ticker = threading.Thread(
                    target=self._tick, name="brahmic_pua-progress", daemon=True
                )
                # held once started: a signal (or no memory for a thread) inside start()
                # leaves no thread that close() would join ("cannot join thread before it
                # is started", in place of the signal's own line)
                ticker.start()
                self._ticker = ticker

    def show(self, detail: str, phase: str | None = None) -> None:
        """What the running phase is at ("EM iteration 3, 5,000 pieces"); with ``phase``, only
        while that phase runs (a log read on another thread may lag behind)."""
        if phase is None or phase == self.label:
            self.detail = detail

    def end(self) -> None:
        """The running phase is done: its last line."""
        with self._lock:
            self._end()

    def close(self, error: BaseException | None = None) -> None:
        """No more phases: the running one ends and the redrawing thread stops. After an
        ``error`` the error says the rest: a terminal's line is only ended (not even that
        after Ctrl-C, whose ``^C`` the shell's own line end follows)."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None
        with self._lock:
            if error is not None and self.label is not None:
                self.label = None
                if self._line is not None and not isinstance(error, KeyboardInterrupt):
                    self._line.end()
                self._line = None
            self._end()
        self._stop.clear()

    def writing_to(self, file: TextIO | None) -> _Redirected:
        """A block in which phases are written to ``file`` (None: no change), the running
        one too."""
        return _Redirected(self, file)

    def _info(self) -> str:
        spent = elapsed(time.monotonic() - self._started)
        return f"{spent}, {self.detail}" if self.detail else spent

    def _end(self) -> None:
        if self.label is None:
            return
        spent = elapsed(time.monotonic() - self._started, tenths=True)
        if self._line is not None:
            self._line.draw(f"{self.label}: done in {spent}")
            self._line.end()
        else:
            click.echo(f"{self.label}: done in {spent}", file=self._file())
        self._line, self.label = None, None

    def _file(self) -> TextIO:
        return self.file if self.file is not None else sys.stderr

    def _tick(self) -> None:
        while not self._stop.wait(TICK):
            with self._lock:
                if self.label is None or not self._live:
                    continue
                if self._line is not None:
                    self._line.draw(f"{self.label}: {self._info()}")  # drawn only if it changed
                    continue
                now = time.monotonic()
                if now - self._logged >= self.interval:
                    self._logged = now
                    click.echo(f"{self.label}: {self._info()}", file=self._file())


class _Redirected:
    def __init__(self, phases: Phases, file: TextIO | None) -> None:
        self.phases, self.file = phases, file
        self.before: TextIO | None = None

    def __enter__(self) -> None:
        if self.file is None:
            return
        with self.phases._lock:
            self.before = self.phases.file
            self._move(self.file)

    def __exit__(self, *exc: object) -> None:
        if self.file is None:
            return
        with self.phases._lock:
            self._move(self.before if self.before is not None else sys.stderr)
            self.phases.file = self.before

    def _move(self, file: TextIO) -> None:
        self.phases.file = file
        if self.phases._line is not None:
            self.phases._line.file = file
