"""The one progress display for long work: the corpus scan, the line count before sampling, the
worker processes' and Ray's counts, ``encode-corpus``'s shards (:class:`Progress`, a bar over a
known total) and the trainer's steps of unknown length: starting Ray, SentencePiece's training,
compiling rules, filters, writing the model (:class:`Phases`, a line with the elapsed time).

Built on ``click.progressbar`` (click is already a dependency) instead of hand-drawn bars, so
that every long job shows the same thing and the terminal details are click's:

- On a terminal: one line redrawn in place, ``LABEL [#####     ]  42%  00:00:12  DETAIL``,
  where DETAIL is the caller's own count ("12.3 MB, 40,000 lines"); the bar is full when the
  work is done (a bar drawn from the last update alone can end at 29 of 30 marks at 100%,
  so the finish draws it whole). Without a known total (a
  ``sentence_iterator``) the bar shows a moving mark and no percentage. A phase is
  ``LABEL: 12 s, DETAIL`` ("training SentencePiece (unigram): 12 s, EM iteration 3, 5,000
  pieces"), redrawn at most ten times a second, and left as ``LABEL: done in 21 s`` when it ends.
- In a log (stderr is not a terminal): no carriage-return redraws to clutter it; plain lines.
  The label when the work starts, ``LABEL: 10 s, DETAIL`` every :data:`LOG_INTERVAL` seconds
  while it runs, and one line when it ends: ``LABEL: DETAIL`` for a bar, ``LABEL: done in 21 s``
  for a phase.
- Disabled: nothing at all.

Bar redraws are limited to five a second: a scan updates after every batch of lines.
"""

from __future__ import annotations

import itertools
import sys
import threading
import time
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

import click

if TYPE_CHECKING:
    from click._termui_impl import ProgressBar

#: The escape code that shows the cursor again: click's bar hides it while it redraws, and a
#: bar cut short (Ctrl-C) must give it back.
SHOW_CURSOR = "\x1b[?25h"


def is_terminal(file: TextIO) -> bool:
    """Whether ``file`` is a terminal, where a bar is redrawn in place (click decides the same
    way, from ``isatty``); a stream without one, or closed, is not."""
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
        self._bar: ProgressBar[int] | None = None
        self._tty = is_terminal(self.file)
        if not enabled:
            return
        self._bar = click.progressbar(
            length=total if total else None,
            iterable=None if total else itertools.count(),  # no length: a moving mark
            label=label,
            file=self.file,
            show_percent=bool(total),
            show_eta=bool(total),
            item_show_func=lambda _: self.detail,
            width=30,
        )
        self._bar.render_progress()  # in a log: the label, once

    @property
    def interactive(self) -> bool:
        """Whether the bar is redrawn in place (a terminal), not logged."""
        return self._bar is not None and self._tty

    def note(self, message: str) -> None:
        """A line of its own, before the bar starts (for example "resuming: …")."""
        if self.enabled:
            click.echo(message, file=self.file)

    def update(self, done: int, detail: str) -> None:
        """``done`` units so far (not a step: the position), and the count to show."""
        self.detail = detail
        if self._bar is None:
            return
        now = time.monotonic()
        if not self.interactive:
            self.done = done
            if now - self.logged >= self.interval:
                self.logged = now
                share = f"{min(100, 100 * done // self.total)}%, " if self.total else ""
                line = f"{self.label}: {elapsed(now - self.started)}, {share}{detail}"
                click.echo(line, file=self.file)
            return
        if now - self.last < INTERVAL:
            self.done = done
            return
        self.last = now
        self._advance(done)

    def finish(self, detail: str) -> None:
        """The work is done: a full bar and a line end on a terminal, ``LABEL: DETAIL`` in a
        log."""
        self.detail = detail
        if self._bar is None:
            return
        if self.interactive:
            self._advance(self._bar.length or self.done)
            self._bar.finished = True  # a full bar: click draws a finished bar whole
            self._bar.render_progress()
            self._bar.render_finish()
        else:
            click.echo(f"{self.label}: {detail}", file=self.file)
        self._bar = None

    def _advance(self, done: int) -> None:
        assert self._bar is not None
        self.done = done
        self._bar.update(max(0, done - self._bar.pos))


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
        self._bar: ProgressBar[int] | None = None
        self._tty = False  # whether the running phase's file is a terminal
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
            file = self.file if self.file is not None else sys.stderr
            self._tty = is_terminal(file)
            self._bar = click.progressbar(
                length=None,
                iterable=itertools.count(),
                label=label,
                file=file,
                bar_template="%(label)s: %(info)s",
                item_show_func=lambda _: self._info(),
                show_percent=False,
                show_eta=False,
                width=1,
            )
            if not self._tty or not live:
                click.echo(label, file=file)
            else:
                self._bar.render_progress()
            if live and self._ticker is None:
                self._ticker = threading.Thread(
                    target=self._tick, name="brahmic_pua-progress", daemon=True
                )
                self._ticker.start()

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
        after Ctrl-C, whose ``^C`` the shell's own line end follows), its cursor shown again."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None
        with self._lock:
            bar = self._bar
            if error is not None and bar is not None:
                self._bar = self.label = None
                if self._tty and self._live:
                    end = SHOW_CURSOR if isinstance(error, KeyboardInterrupt) else None
                    click.echo(end if end is not None else "", file=bar.file, nl=end is None)
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
        if self._bar is None or self.label is None:
            return
        bar, spent = self._bar, elapsed(time.monotonic() - self._started, tenths=True)
        self._bar = None
        line = f"{self.label}: done in {spent}"
        if self._tty and self._live:
            bar.item_show_func = lambda _: f"done in {spent}"
            bar.render_progress()
            bar.render_finish()
        else:
            click.echo(line, file=bar.file)
        self.label = None

    def _tick(self) -> None:
        while not self._stop.wait(TICK):
            with self._lock:
                bar = self._bar
                if bar is None or not self._live:
                    continue
                if self._tty:
                    bar.render_progress()  # click writes only a line that changed
                    continue
                now = time.monotonic()
                if now - self._logged >= self.interval:
                    self._logged = now
                    click.echo(f"{self.label}: {self._info()}", file=bar.file)


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
        if self.phases._bar is not None:
            self.phases._bar.file = file
