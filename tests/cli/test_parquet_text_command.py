"""Parquet given to the commands: ``eval`` reads it as ``train`` does (the lines of its
``--text_column``), every command that reads text alone says so in one line naming
``parquet-text``, and ``parquet-text`` writes the text file whose lines are the column's, so
that advice works when followed once."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import require_extra, sample
from hypothesis import HealthCheck, given, settings
from strategies import parquet_rows

from brahmic_pua.cli.main import main
from brahmic_pua.io.lines import file_lines
from brahmic_pua.io.parquet import parquet_lines

require_extra("pyarrow", "arrow", "Parquet input")

import pyarrow as pa  # noqa: E402 (after the check: a skip, not an ImportError)
import pyarrow.parquet as pq  # noqa: E402

HINDI = sample("hi")[:300]


def write_parquet(path: Path, rows: list[str | None], column: str = "text") -> None:
    table = pa.table({"id": range(len(rows)), column: pa.array(rows, pa.string())})
    pq.write_table(table, path, row_group_size=100)


rows = parquet_rows(12)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=40)
@given(rows=rows)
def test_parquet_text_writes_the_lines_of_the_column(
    tmp_path: Path, runner: CliRunner, rows: list[str | None]
) -> None:
    """The file written reads, by the one line reader, as the lines train reads from the
    Parquet file (a first row that starts with two byte order marks included)."""
    source, text = tmp_path / "c.parquet", tmp_path / "c.txt"
    write_parquet(source, rows, column="body")
    result = runner.invoke(
        main, ["parquet-text", str(source), "--text_column", "body", "--output", str(text)]
    )
    assert result.exit_code == 0, result.output
    assert list(file_lines(text)) == list(parquet_lines(str(source), "body"))


def test_eval_reads_parquet_as_the_text_file_of_its_rows(
    tmp_path: Path, runner: CliRunner, plain_hindi_model: str
) -> None:
    """eval of a Parquet file (column ``body``) is eval of the text file of its rows; the
    column named without a Parquet input is a usage error (exit 2), as for train."""
    rows: list[str | None] = [*HINDI, None, "\ufeffక\r\nख", "   "]
    source, text = tmp_path / "c.parquet", tmp_path / "c.txt"
    write_parquet(source, rows, column="body")
    text.write_text("".join(f"{row or ''}\n" for row in rows), encoding="utf-8", newline="")
    results: list[Any] = []
    for args in ([str(source), "--text_column", "body"], [str(text)]):
        result = runner.invoke(main, ["eval", "--model", plain_hindi_model, "--json", *args])
        assert result.exit_code == 0, result.output
        results.append(json.loads(result.stdout)["models"])
    assert results[0] == results[1]
    unused = runner.invoke(
        main, ["eval", "--model", plain_hindi_model, str(text), "--text_column", "x"]
    )
    assert unused.exit_code == 2 and "no input is Parquet" in unused.output


#: Each command that reads text alone, given a Parquet file where it reads text: its arguments
#: ({model}, {file}: the file, {out}: a path to write) and its stdin (None: the file itself).
TEXT_ONLY: dict[str, tuple[list[str], bool]] = {
    "encode --input": (["encode", "--model", "{model}", "--input", "{file}"], False),
    "encode stdin": (["encode", "--model", "{model}"], True),
    "segment": (["segment", "--input", "{file}"], False),
    "audit --input": (["audit", "--model", "{model}", "--input", "{file}"], False),
    "repair --input": (
        ["repair", "--model", "{model}", "--output", "{out}.model", "--input", "{file}"],
        False,
    ),
    "filter --corpus": (
        [
            "filter",
            "--model",
            "{model}",
            "--output",
            "{out}.model",
            "--filters",
            "theta",
            "--nepali_seeds",
            "--corpus",
            "{file}",
        ],
        False,
    ),
}


@pytest.mark.parametrize("named", [True, False], ids=["named .parquet", "named .bin"])
@pytest.mark.parametrize("command", list(TEXT_ONLY))
def test_a_command_that_reads_text_names_what_reads_parquet(
    tmp_path: Path, runner: CliRunner, plain_hindi_model: str, command: str, named: bool
) -> None:
    """One line, exit 1, nothing written, where it said the file was not UTF-8 and to convert
    it with iconv (or, for a Parquet file that happens to be UTF-8 so far, took its bytes for
    lines); the parquet-text command the line gives, run as given, makes the file the command
    then reads."""
    source = tmp_path / ("rows.parquet" if named else "rows.bin")
    write_parquet(source, [*HINDI[:50], None])
    args, stdin = TEXT_ONLY[command]
    out = tmp_path / "out"

    def run(given: Path) -> Any:
        words = [a.format(model=plain_hindi_model, file=given, out=out) for a in args]
        return runner.invoke(main, words, input=given.read_bytes() if stdin else None)

    refused = run(source)
    assert refused.exit_code == 1, refused.output
    error = refused.stderr.strip().splitlines()
    assert len(error) == 1 and "Traceback" not in refused.output and not refused.stdout
    assert "is Parquet, and this reads text" in error[0] and "iconv" not in error[0]
    assert not list(tmp_path.glob("out*"))
    advice = error[0].split("write the column as text first: ")[1]
    words = shlex.split(advice)
    if stdin:  # the file piped in is not named: the line names FILE.parquet
        assert words[1:] == ["parquet-text", "FILE.parquet", "--output", "FILE.txt"]
        words[2:] = [str(source), "--output", str(tmp_path / "rows.txt")]
    assert words[0] == "brahmic-pua"
    written = runner.invoke(main, words[1:])
    assert written.exit_code == 0, written.output
    accepted = run(Path(words[-1]))
    assert accepted.exit_code == 0, accepted.output
