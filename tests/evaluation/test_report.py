"""One metric bundle, one label table, one table layout for ``eval`` and ``audit``, and one home
(``brahmic_pua/cli/common.py``) for what the commands share.

Two reports that computed and labelled their common metrics each in its own code could drift
apart; these tests hold them to :func:`brahmic_pua.evaluation.evaluate.text_metrics` and
:mod:`brahmic_pua.evaluation.report`, so the same number cannot come out, or be called,
differently in the two tables."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import sentencepiece
from conftest import slow

from brahmic_pua.cli.common import expected, join_lines, vocab_path
from brahmic_pua.evaluation import evaluate as evaluation
from brahmic_pua.evaluation.audit import SUMMARY, audit, audit_text, format_report
from brahmic_pua.evaluation.evaluate import METRICS, evaluate, format_table, text_metrics
from brahmic_pua.evaluation.report import LABELS, cell, grid, labels_of, table
from brahmic_pua.io.lines import split_text
from brahmic_pua.io.wording import one_line
from brahmic_pua.runtime.processor import SentencePieceProcessor
from brahmic_pua.trainer import train_model

CLI = Path(__file__).resolve().parents[2] / "brahmic_pua" / "cli"
PER_LANGUAGE = 150  # held-out lines of each packaged sample: enough text, a fast test


def _sample(name: str) -> list[str]:
    text = resources.files("brahmic_pua.data").joinpath(name).read_text(encoding="utf-8")
    return [line for line in split_text(text) if line.strip()]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    """The last lines of the packaged Telugu and Hindi samples (not trained on below)."""
    return [
        line
        for name in ("te.sample.txt", "hi.sample.txt")
        for line in _sample(name)[-PER_LANGUAGE:]
    ]


@pytest.fixture(scope="module")
def tokenizers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, SentencePieceProcessor]:
    """A brahmic_pua model and a stock spm model (byte fallback) on the rest of the samples."""
    work = tmp_path_factory.mktemp("report")
    train = [
        line
        for name in ("te.sample.txt", "hi.sample.txt")
        for line in _sample(name)[:-PER_LANGUAGE]
    ]
    options: dict[str, Any] = {"vocab_size": 1200, "byte_fallback": True, "minloglevel": 2}
    train_model(sentence_iterator=iter(train), model_prefix=str(work / "ours"), **options)
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(train), model_prefix=str(work / "plain"), **options
    )
    return {
        name: SentencePieceProcessor(model_file=str(work / f"{name}.model"))
        for name in ("ours", "plain")
    }


def test_one_label_table_for_both_reports() -> None:
    """Every metric of the bundle has its one label; eval's and audit's tables are selections
    of it, worded alike."""
    assert set(METRICS) == {*LABELS, "vocab_share"}
    assert evaluation.LABELS.items() <= LABELS.items() and SUMMARY.items() <= LABELS.items()
    assert list(evaluation.LABELS) == [key for key in LABELS if key in evaluation.LABELS]
    assert labels_of(["unk_rate", "lines"]) == {"unk_rate": "UNK rate", "lines": "lines"}


@slow  # evaluates through both commands
def test_eval_and_audit_report_the_same_numbers(
    tokenizers: dict[str, SentencePieceProcessor], texts: list[str]
) -> None:
    for tokenizer in tokenizers.values():
        evaluated = evaluate(tokenizer, texts)
        audited = audit_text(tokenizer, texts)
        shared = set(evaluated) & set(audited)
        assert shared >= {"tokens", "fertility", "orphan_marks_per_1000", "cluster_split_rate"}
        assert {k: evaluated[k] for k in shared} == {k: audited[k] for k in shared}
        assert list(evaluated) == list(text_metrics(tokenizer, texts, evaluated))
        assert text_metrics(tokenizer, texts, SUMMARY) == {k: audited[k] for k in SUMMARY}
    plain = tokenizers["plain"]
    assert evaluate(plain, texts)["orphan_marks_per_1000"] > 0  # the numbers say something
    assert evaluate(tokenizers["ours"], texts)["orphan_marks_per_1000"] == 0


def test_text_metrics_computes_what_is_asked_in_that_order(
    tokenizers: dict[str, SentencePieceProcessor], texts: list[str]
) -> None:
    ours, plain = tokenizers["ours"], tokenizers["plain"]
    got = text_metrics(ours, texts, ["unk_rate", "lines", "nsl"], baseline=plain)
    assert list(got) == ["unk_rate", "lines", "nsl"] and got["lines"] == len(texts)
    assert got["nsl"] == evaluate(ours, texts, plain)["nsl"]
    rows = [[1, 2, 3], [4]]  # given rows are measured as they are, not encoded again
    assert text_metrics(ours, ["a", "b"], ["tokens"], rows=rows) == {"tokens": 4}
    with pytest.raises(ValueError, match="no metric named speed"):
        text_metrics(ours, texts, ["tokens", "speed"])
    with pytest.raises(TypeError, match="baseline"):
        text_metrics(ours, texts, ["nsl"])


class _Aligned:
    """An encoder without a vocabulary that says where its tokens start, like a Hugging Face
    tokenizer's offsets: one token per character, or one per text."""

    def __init__(self, whole: bool) -> None:
        self.whole = whole

    def encode(self, input: list[str]) -> list[list[int]]:
        return [[0] if self.whole else [0] * len(text) for text in input]

    def decode(self, input: Sequence[Sequence[int]]) -> list[str]:
        return ["" for _ in input]

    def token_starts(self, texts: Sequence[str]) -> list[list[int]]:
        return [[0] if self.whole else list(range(len(text))) for text in texts]


def test_an_encoder_is_measured_by_what_it_offers() -> None:
    """Split rates come from the tokenizer's own token starts; a metric that needs a
    vocabulary it lacks is a TypeError, not a wrong number."""
    texts = ["కా కి"]  # two clusters of two characters each
    assert text_metrics(_Aligned(False), texts, ["cluster_split_rate"]) == {
        "cluster_split_rate": 1.0
    }
    assert text_metrics(_Aligned(True), texts, ["cluster_split_rate", "tokens"]) == {
        "cluster_split_rate": 0.0,
        "tokens": 1,
    }
    with pytest.raises(TypeError, match="no vocabulary"):
        text_metrics(_Aligned(True), texts, ["unk_rate"])
    assert set(evaluate(_Aligned(True), texts)) == set(evaluation.BASIC)


def test_one_table_layout() -> None:
    columns: dict[str, dict[str, Any]] = {
        "a": {"tokens": 10, "unk_rate": 0.5, "nsl": 1.25},
        "long name": {"tokens": 7},
    }
    assert table(columns, reference="b") == [
        "metric                   a  long name",
        "tokens                  10          7",
        "UNK rate            0.5000          -",
        "NSL (tokens ÷ b's)  1.2500          -",
    ]
    assert table({"x": {"lines": 3, "round_trip_rate": 1.0}}, header=False) == [
        "lines                 3",
        "round-trip rate  1.0000",
    ]
    assert format_table(columns, "b") == "\n".join(table(columns, evaluation.LABELS, "b"))
    assert [cell(None), cell(3), cell(0.12345)] == ["-", "3", "0.1235"]
    assert grid([["a", "1"], ["bbb", "22"]]) == ["a     1", "bbb  22"]
    shares = {"a": {"vocab_share": {"telugu": 0.75, "latin": 0.25}}, "b": {}}
    assert table(shares)[1:] == [
        "vocabulary share: latin   0.2500  -",
        "vocabulary share: telugu  0.7500  -",
    ]


def test_the_audit_summary_is_the_shared_table(
    tokenizers: dict[str, SentencePieceProcessor], texts: list[str]
) -> None:
    report = audit(tokenizers["plain"], texts, files=["held-out"], model="plain.model")
    summary = table({"text": report["text"]}, SUMMARY, header=False)
    assert "\n".join(summary) in format_report(report)
    assert summary[3].startswith(LABELS["orphan_marks_per_1000"])


def _relative_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            found |= {node.module} if node.module else {a.name for a in node.names}
    return found


def _defines_a_command(path: Path) -> bool:
    return "click.command(" in path.read_text(encoding="utf-8")


def test_commands_share_helpers_through_common_only() -> None:
    """A command module imports what it shares from brahmic_pua/cli/common.py, and may have
    helper modules of its own (no command in them: spm_flags.py), never another command; only
    the group (main.py) gathers the commands."""
    modules = sorted(p for p in CLI.glob("*.py") if p.stem not in {"__init__", "main", "common"})
    commands = [p for p in modules if _defines_a_command(p)]
    helpers = {p.stem for p in modules if not _defines_a_command(p)}
    assert commands and len(commands) < len(modules)
    for path in commands:
        assert _relative_imports(path) <= {"common"} | helpers, path.name
    for name in ["common", *helpers]:
        assert _relative_imports(CLI / f"{name}.py") <= {"common"}, name
    assert _relative_imports(CLI / "common.py") == set()


def test_the_one_line_forms() -> None:
    """The group keeps a message's own spacing (it may quote input) and names a file an
    OSError is about; a command's own form collapses all whitespace."""
    assert join_lines(" a  b \n\n c ") == "a  b c"
    assert expected(ValueError("x\n  y")) == "x y"
    assert expected(FileNotFoundError(2, "No such file or directory", "f.txt")) == (
        "f.txt: No such file or directory"
    )
    assert one_line(ValueError("a  b\n c")) == "a b c" and one_line(ValueError()) == "ValueError"
    assert vocab_path("out.model") == "out.vocab" and vocab_path("out.bin") == "out.bin.vocab"
