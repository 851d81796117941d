"""The count's plan: where the corpus is counted, which count, what spm trains on, and why, for
each situation; and every way of counting gives the pure count's counts and statistics."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import FrozenInstanceError
from pathlib import Path
from typing import Any

import pytest
from conftest import examples, installed, sample
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import nasty_texts

from brahmic_pua.normalize import normalizer
from brahmic_pua.segment.arrow_count import pyarrow_importable
from brahmic_pua.trainer import count_plan, range_count
from brahmic_pua.trainer.corpus import Corpus
from brahmic_pua.trainer.count_plan import COUNT_ENV, INPUT_ENV, CountPlan, plan_count
from brahmic_pua.trainer.engine import count_clusters
from brahmic_pua.trainer.options import build_options

LINES = [*sample("te")[:300], *sample("hi")[:100], "", "  a  b ", "x\u2585y"]
ARROW = pyarrow_importable()


@pytest.fixture(autouse=True)
def no_switches(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plans as a run without the test switches makes them."""
    for name in (COUNT_ENV, INPUT_ENV):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def corpus_file(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return path


def only_thread() -> None:
    """Skip where another thread runs in this test process (a pool's manager finishing): the
    plans that fork are made only with none."""
    deadline = time.monotonic() + 10
    while threading.active_count() > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    if threading.active_count() > 1:
        pytest.skip("other threads run in this test process: it may not fork")


@contextmanager
def another_thread() -> Iterator[None]:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        yield
    finally:
        stop.set()
        other.join()


def planned(inputs: list[str] | None = None, iterator: Any = None, **options: Any) -> CountPlan:
    """The plan for a training with ``options`` (a bpe model on one process by default)."""
    given_options = {"model_type": "bpe", "num_threads": 1, "model_prefix": "m", **options}
    if inputs is not None:
        given_options["input"] = inputs
    else:
        given_options["sentence_iterator"] = iterator
    built = build_options(None, given_options, progress=False)
    sample_size = built.spm.integer("input_sentence_size")
    first = sample_size > 0 and not built.spm.flag("shuffle_input_sentence")
    corpus = Corpus(built.inputs, built.sentence_iterator, normalizer("nfc"), sample_size, first)
    try:
        return plan_count(corpus, built)
    finally:
        corpus.close()


def test_a_small_file_is_counted_here_in_python(corpus_file: Path) -> None:
    plan = planned([str(corpus_file)])
    assert (plan.where, plan.arrow, plan.spm_input, plan.workers) == ("here", False, "words", 1)
    assert plan.reason == (
        "one process (under 4 MiB); under 16 MiB, the pure count; "
        "spm's options make the same model from the words"
    )
    assert plan.choice == "pure count in this process, spm on words"
    assert plan.label == "scanning corpus (pure count in this process, spm on words)"
    with pytest.raises(FrozenInstanceError):
        plan.where = "ray"  # type: ignore[misc]


def test_a_big_file_whose_words_go_to_spm_is_counted_apart(
    corpus_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    only_thread()
    monkeypatch.setattr(count_plan, "APART_MIN_BYTES", 0)
    plan = planned([str(corpus_file)])
    assert (plan.where, plan.spm_input) == ("apart", "words")
    assert plan.reason.startswith("one process (under 4 MiB), apart (0 MiB or more); ")
    assert planned([str(corpus_file)], model_type="unigram").where == "here"  # lines: here
    with another_thread():  # forking beside a thread is unsafe
        plan = planned([str(corpus_file)])
    assert plan.where == "here" and "(this process cannot fork)" in plan.reason


def test_num_threads_count_in_worker_processes(
    corpus_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    only_thread()
    monkeypatch.setattr(count_plan, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(count_plan, "usable_cpus", lambda: 2)
    plan = planned([str(corpus_file)], num_threads=4)
    assert (plan.where, plan.workers) == ("workers", 2)
    assert plan.reason.startswith("2 processes (num_threads=4, 2 CPUs); ")
    assert plan.choice == "pure count in 2 processes, spm on words"
    plan = planned([str(corpus_file)], num_threads=1)
    assert (plan.where, plan.workers) == ("here", 1)
    assert plan.reason.startswith("one process (num_threads=1, 2 CPUs); ")
    with another_thread():
        plan = planned([str(corpus_file)], num_threads=4)
    assert (plan.where, plan.workers) == ("here", 1)


def test_a_sample_is_counted_in_one_process(
    corpus_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(count_plan, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(count_plan, "usable_cpus", lambda: 2)
    options = {"num_threads": 2, "input_sentence_size": 200}
    for shuffled in (True, False):
        plan = planned([str(corpus_file)], shuffle_input_sentence=shuffled, **options)
        assert plan.where == "here"
        assert plan.reason.startswith("a sample, counted as it is read; ")


def test_the_switches_choose_the_count_and_spm_s_input(
    corpus_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(COUNT_ENV, "python")
    assert not planned([str(corpus_file)]).arrow
    assert "; BRAHMIC_PUA_COUNT=python; " in planned([str(corpus_file)]).reason
    monkeypatch.setenv(COUNT_ENV, "arrow")  # at any size, where pyarrow imports
    plan = planned([str(corpus_file)])
    assert plan.arrow is ARROW
    assert "; BRAHMIC_PUA_COUNT=arrow" in plan.reason
    monkeypatch.setenv(INPUT_ENV, "lines")
    plan = planned([str(corpus_file)])
    assert plan.spm_input == "lines" and plan.reason.endswith("; BRAHMIC_PUA_SPM_INPUT=lines")


def test_spm_trains_on_lines_where_words_cannot_say_the_same(corpus_file: Path) -> None:
    grapheme = planned([str(corpus_file)], policy="grapheme")
    assert (grapheme.spm_input, grapheme.arrow) == ("lines", False)
    assert grapheme.reason.endswith(
        "; grapheme is counted in Python; "
        "grapheme clusters may hold a space (no words to hand over)"
    )
    unigram = planned([str(corpus_file)], model_type="unigram")
    assert unigram.reason.endswith("; spm's options need its lines")
    pretokenized = planned([str(corpus_file)], pretokenizer=str.split)
    assert pretokenized.reason.endswith("; a pretokenizer cuts the lines")


def test_an_iterator_is_counted_here_in_arrow() -> None:
    plan = planned(iterator=iter(LINES))
    assert plan.where == "here" and plan.arrow is ARROW
    assert "; the Arrow count" in plan.reason


def test_ray_counts_text_files_and_refuses_parquet(corpus_file: Path, tmp_path: Path) -> None:
    plan = planned([str(corpus_file)], engine="ray")
    assert (plan.where, plan.arrow) == ("ray", False)
    assert plan.reason.startswith("engine=ray; ") and plan.choice.startswith("pure count on Ray")
    if not installed("pyarrow"):
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = tmp_path / "t.parquet"
    pq.write_table(pa.table({"text": LINES}), table)
    plan = planned([str(table)])
    assert plan.where == "here" and plan.reason.startswith("Parquet is read here; ")
    with pytest.raises(ValueError, match="engine=ray reads input= text files by byte ranges"):
        planned([str(table)], engine="ray")


#: The ways to count (where, Arrow, workers), each forced on a small corpus.
WAYS: list[tuple[Any, bool, int]] = [
    ("here", True, 1),
    ("apart", False, 1),
    ("apart", True, 1),
    ("workers", False, 2),
    ("workers", True, 2),
]


def counted(path: Path, plan: CountPlan, policy: str) -> tuple[Any, ...]:
    corpus = Corpus([str(path)], None, normalizer("nfc"))
    try:
        found = count_clusters(corpus, plan, policy)
        return found.counts.clusters, found.counts.characters, found.stats
    finally:
        corpus.close()


@settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    lines=st.lists(nasty_texts, max_size=25),
    policy=st.sampled_from(["fixtoken", "akshara"]),
    spm_input=st.sampled_from(["words", "lines"]),
)
def test_every_way_counts_what_the_pure_count_counts(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], policy: str, spm_input: str
) -> None:
    """Oracle: the pure count in this process, on the same file. The workers count ranges of
    at most 64 bytes (many ranges, cut at line ends); a count apart writes words only."""
    only_thread()
    path = tmp_path_factory.mktemp("corpus") / "c.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", newline="")
    words: Any = spm_input
    pure = counted(path, CountPlan("here", False, words, "oracle"), policy)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(range_count, "MIN_RANGE_BYTES", 1)
        patched.setattr(range_count, "MAX_RANGE_BYTES", 64)
        for where, arrow, workers in WAYS:
            if (arrow and not ARROW) or (where == "apart" and spm_input == "lines"):
                continue
            way = CountPlan(where, arrow, words, "forced", workers)
            assert counted(path, way, policy) == pure, way
