"""A big corpus is counted in a forked process (its memory gone before spm trains): the same
counts, statistics, word file and model as counted here, its errors as the same one line, and
nothing left behind. Forced here on small corpora by lowering the size it starts at."""

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
from brahmic_pua.normalize import normalizer
from brahmic_pua.trainer import count_apart as apart
from brahmic_pua.trainer import count_plan, engine, train_model
from brahmic_pua.trainer.corpus import Corpus
from brahmic_pua.trainer.options import build_options

LINES = [*sample("te")[:300], *sample("hi")[:100], "", "  a  b ", "x\u2585y", "\ufeffz"]
OPTIONS: dict[str, Any] = {"model_type": "bpe", "vocab_size": 1200, "num_threads": 1}


@pytest.fixture(autouse=True)
def alone() -> None:
    only_thread()


@pytest.fixture
def corpus_file(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return path


def counted(path: Path, forked: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    """Counts, statistics and word-file rows of ``path``, counted apart or here."""
    with monkeypatch.context() as patched:
        patched.setattr(count_plan, "APART_MIN_BYTES", 0 if forked else 1 << 62)
        corpus = Corpus([str(path)], None, normalizer("nfc"))
        try:
            options = build_options(
                None, {"input": str(path), "model_prefix": "m", **OPTIONS}, progress=False
            )
            plan = count_plan.plan_count(corpus, options)
            assert plan.where == ("apart" if forked else "here"), plan
            found = engine.count_clusters(corpus, plan, "fixtoken")
            rows = Path(str(corpus.spm_words())).read_bytes()
            return found.counts.clusters, found.counts.characters, found.stats, rows
        finally:
            corpus.close()


def test_apart_counts_what_here_counts(corpus_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = counted(corpus_file, False, monkeypatch)
    assert here[0] and here[3]
    assert counted(corpus_file, True, monkeypatch) == here


def test_apart_trains_the_same_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("c.txt").write_text("\n".join(LINES) + "\n", encoding="utf-8")
    made = []
    children = []
    original = apart.count_apart

    def watched(*args: Any) -> Any:
        children.append(os.getpid())
        return original(*args)

    monkeypatch.setattr(engine, "count_apart", watched)
    for threshold in (1 << 62, 0):
        monkeypatch.setattr(count_plan, "APART_MIN_BYTES", threshold)
        train_model(input="c.txt", model_prefix="m", **OPTIONS)
        made.append((Path("m.model").read_bytes(), Path("m.vocab").read_bytes()))
    assert len(children) == 1  # the second training counted apart
    assert made[0] == made[1]


def test_an_error_in_the_child_is_the_same_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes("\n".join(LINES).encode() + b"\n\xff\xfe bad\n")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    (tmp_path / "temp").mkdir()
    messages = []
    for threshold in (1 << 62, 0):
        monkeypatch.setattr(count_plan, "APART_MIN_BYTES", threshold)
        with pytest.raises(ValueError, match="is not UTF-8 at line") as error:
            train_model(input=str(bad), model_prefix=str(tmp_path / "m"), **OPTIONS)
        messages.append(str(error.value))
    assert messages[0] == messages[1]
    assert "\n" not in messages[1]
    assert os.listdir(tmp_path / "temp") == []
    assert not multiprocessing.active_children()
    assert not list(tmp_path.glob("m.*"))


@pytest.mark.parametrize("sent", [signal.SIGKILL, signal.SIGTERM])
def test_a_child_that_dies_is_one_error_and_leaves_nothing(
    corpus_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sent: signal.Signals
) -> None:
    """The out-of-memory killer's SIGKILL, or a SIGTERM sent to the child alone: one line that
    names it (and the pid: the one process), no word file, no model, no process."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    (tmp_path / "temp").mkdir()
    monkeypatch.setattr(count_plan, "APART_MIN_BYTES", 0)
    monkeypatch.setattr(apart, "count_here", ended_by(sent))
    with pytest.raises(WorkerDied) as died:
        train_model(input=str(corpus_file), model_prefix=str(tmp_path / "m"), **OPTIONS)
    message = str(died.value)
    assert message.startswith("the counting process (pid ") and "\n" not in message
    assert f"was killed by {sent.name}" in message
    if sent == signal.SIGKILL:
        assert "(out of memory?)" in message and "--input_sentence_size" in message
    assert os.listdir(tmp_path / "temp") == []
    assert not list(tmp_path.glob("m.*"))
    assert not multiprocessing.active_children()
