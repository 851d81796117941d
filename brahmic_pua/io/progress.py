"""The one progress display for long work: the corpus scan, the line count before sampling, the
worker processes' and Ray's counts, and ``encode-corpus``'s shards.

Built on ``click.progressbar`` (click is already a dependency) instead of hand-drawn bars, so
that every long job shows the same thing and the terminal details are click's:

- On a terminal: one line redrawn in place, ``LABEL [#####     ]  42%  00:00:12  DETAIL``,
  where DETAIL is the caller's own count ("12.3 MB, 40,000 lines"); the bar is full when the
  work is done (the old bar could end at 29 of 30 marks at 100%). Without a known total (a
  ``sentence_iterator``) the bar shows a moving mark and no percentage.
- In a log (stderr is not a terminal): no carriage-return redraws to clutter it; the label once
  when the work starts and one line ``LABEL: DETAIL`` when it ends.
- Disabled: nothing at all.

Redraws are limited to five a second: a scan updates after every batch of lines.
"""

from __future__ import annotations

import itertools
import sys
import time
from typing import TYPE_CHECKING, TextIO

import click

if TYPE_CHECKING:
    from click._termui_impl import ProgressBar

#: Seconds between two redraws at the most.
INTERVAL = 0.2


class Progress:
    """Progress of one job towards ``total`` units (bytes, shards), or of unknown length."""

    def __init__(
        self, enabled: bool, label: str, total: int | None = None, file: TextIO | None = None
    ) -> None:
        self.enabled = enabled
        self.label = label
        self.file = file if file is not None else sys.stderr
        self.detail = ""
        self.last = 0.0
        self.done = 0
        self._bar: ProgressBar[int] | None = None
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
        self._bar.render_progress()

    @property
    def interactive(self) -> bool:
        """Whether the bar is redrawn in place (a terminal), not logged."""
        return self._bar is not None and bool(self._bar._is_atty)

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
            self._bar.finished = True
            self._bar.render_progress()
            self._bar.render_finish()
        else:
            click.echo(f"{self.label}: {detail}", file=self.file)
        self._bar = None

    def _advance(self, done: int) -> None:
        assert self._bar is not None
        self.done = done
        self._bar.update(max(0, done - self._bar.pos))
