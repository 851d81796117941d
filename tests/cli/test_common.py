"""One boolean grammar on every command (cli/common.py: bool_option, Command): ``--flag``,
``--flag=true|false`` and ``--flag false`` everywhere, and a bare flag before an argument is
true rather than the argument read as its value."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from brahmic_pua.cli.common import Command, bool_option, spelled_booleans
from brahmic_pua.cli.main import main


def _commands(group: click.Group = main) -> list[click.Command]:
    """Every command, those of subgroups (codec build, …) included."""
    found: list[click.Command] = []
    for command in group.commands.values():
        if isinstance(command, click.Group):
            found += _commands(command)
        else:
            found.append(command)
    return found


def test_no_command_has_a_flag_of_another_spelling() -> None:
    """Every boolean option is a bool_option (none of click's is_flag options), and every
    command parses through the grammar's class."""
    commands = _commands()
    assert len(commands) >= 15
    for command in commands:
        flags = [p.name for p in command.params if isinstance(p, click.Option) and p.is_flag]
        assert flags == [], (command.name, flags)
        assert isinstance(command, Command), command.name


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--json"], [["క్", "రాం"]]),
        (["--json=true"], [["క్", "రాం"]]),
        (["--json", "yes"], [["క్", "రాం"]]),
        (["--json=false"], None),
        (["--json", "false"], None),
        ([], None),
    ],
)
def test_segment_json_in_every_spelling_before_a_file(
    tmp_path: Path, args: list[str], expected: list[list[str]] | None
) -> None:
    text = tmp_path / "t.txt"
    text.write_text("క్రాం\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["segment", *args, "--input", str(text)])
    assert result.exit_code == 0, result.output
    if expected is None:
        assert result.output == "క్|రాం\n"
    else:
        assert [json.loads(line) for line in result.output.splitlines()] == expected


def test_a_bare_flag_before_a_positional_argument_is_true() -> None:
    def run(as_json: bool | None, files: tuple[str, ...]) -> None:
        click.echo(f"{as_json} {list(files)}")

    command = Command("c", callback=run)
    bool_option("--json", "help", "as_json")(command)  # click's decorators take a Command too
    click.argument("files", nargs=-1)(command)

    runner = CliRunner()
    assert runner.invoke(command, ["--json", "a.txt"]).output == "True ['a.txt']\n"
    assert runner.invoke(command, ["--json", "no", "a.txt"]).output == "False ['a.txt']\n"
    assert runner.invoke(command, ["a.txt", "--json"]).output == "True ['a.txt']\n"
    assert runner.invoke(command, ["--", "--json"]).output == "None ['--json']\n"
    bad = runner.invoke(command, ["--json=ture"])
    assert bad.exit_code == 2 and "is not true or false" in bad.output


def test_spelling_leaves_values_and_the_rest_alone() -> None:
    command = click.Command("c", params=[click.Option(["--n"])])
    assert spelled_booleans(command, ["--n", "x"]) == ["--n", "x"]
