"""A line-range worker that dies (the out-of-memory killer's SIGKILL, a SIGTERM sent to it
alone) ends the training in one line naming the worker and the signal, with nothing left behind:
a worker ends itself inside the count (the CLI: tests/cli/test_main_resources.py). The pool is
forced on a small corpus by lowering the size it starts at."""

from __future__ import annotations

import multiprocessing
import os
import signal
import tempfile
from pathlib import Path
from typing import Any

import pytest
from conftest import ended_by, only_thread, sample

from brahmic_pua.io.workers import WorkerDied
from brahmic_pua.trainer import count_plan, range_count, train_model

LINES = [*sample("te")[:300], *sample("hi")[:100]]
OPTIONS: dict[str, Any] = {"model_type": "bpe", "vocab_size": 1200, "num_threads": 2}


@pytest.fixture(autouse=True)
def alone() -> None:
    only_thread()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("sent", [signal.SIGKILL, signal.SIGTERM])
@pytest.mark.parametrize("words", [False, True], ids=["lines", "words"])
def test_a_worker_that_dies_is_one_error_and_leaves_nothing(
    tmp_path: Path,
    corpus: Path,
    monkeypatch: pytest.MonkeyPatch,
    sent: signal.Signals,
    words: bool,
) -> None:
    """Unigram writes spm's line file in parts, BPE its word file: both are removed."""
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setattr(count_plan, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(count_plan, "usable_cpus", lambda: 2)
    monkeypatch.setattr(range_count, "count_batches", ended_by(sent))
    options = {**OPTIONS, "model_type": "bpe" if words else "unigram"}
    with pytest.raises(WorkerDied) as died:
        train_model(input=str(corpus), model_prefix=str(tmp_path / "m"), **options)
    message = str(died.value)
    assert message.startswith("a counting worker ") and "\n" not in message
    assert f"was killed by {sent.name}" in message
    if sent == signal.SIGKILL:
        assert "(out of memory?)" in message and "--num_threads=1" in message
    assert os.listdir(temp) == []
    assert not list(tmp_path.glob("m.*"))
    assert not multiprocessing.active_children()
