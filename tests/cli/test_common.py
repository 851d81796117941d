"""What every command shares through brahmic_pua/cli/common.py's Command: one boolean grammar
(bool_option: ``--flag``, ``--flag=true|false`` and ``--flag false`` everywhere, and a bare flag
before an argument is true rather than the argument read as its value), and the one notice for
a plain model given to ``--model`` (ModelOption)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result
from conftest import require_extra

from brahmic_pua.cli import common
from brahmic_pua.cli.common import Command, ModelOption, bool_option, spelled_booleans
from brahmic_pua.cli.main import main


def _commands(group: click.Group = main) -> list[click.Command]:
    """Every command, those of subgroups (codec build, …) included, as click lists and finds
    them (a command of its own module is imported when asked for)."""
    found: list[click.Command] = []
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None, name
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


# -- the notice for a plain model --------------------------------------------------------------

#: Each command that takes --model, run as a user would: its arguments (``{model}``, ``{text}``:
#: a small UTF-8 file, ``{out}``: a path to write), its stdin, and whether a plain model is what
#: it exists for (audit and repair judge and fix plain models; eval measures any model).
MODEL_RUNS: dict[str, tuple[list[str], str, bool]] = {
    "encode": (["encode", "--model", "{model}"], "क्षेत्रमा ను\n", False),
    "decode": (["decode", "--model", "{model}", "--input_format", "id"], "5 6 7\n", False),
    "vocab": (["vocab", "--model", "{model}", "--script_ids"], "", False),
    "filter": (
        ["filter", "--model", "{model}", "--output", "{out}.model", "--filters", "mark-start"],
        "",
        False,
    ),
    "encode-corpus": (
        ["encode-corpus", "--model", "{model}", "--output", "{out}", "--progress=false", "{text}"],
        "",
        False,
    ),
    "export": (
        ["export", "--model", "{model}", "--to", "gguf", "--output", "{out}.gguf"],
        "",
        False,
    ),
    "llama-text": (["llama-text", "--model", "{model}", "--to", "llama"], "क्षेत्रमा\n", False),
    "audit": (["audit", "--model", "{model}", "--input", "{text}"], "", True),
    "repair": (["repair", "--model", "{model}", "--output", "{out}.model"], "", True),
    "eval": (["eval", "--model", "{model}", "--baseline", "{model}", "{text}"], "", True),
}
NOTICE_WORDS = "is a plain SentencePiece model"


def _run_with_model(command: str, model: str, folder: Path, run: int = 0) -> Result:
    if command == "export":
        require_extra("gguf", "gguf", "export --to gguf")
    args, stdin, _ = MODEL_RUNS[command]
    text = folder / "text.txt"
    text.write_text("क्षेत्रमा नेपाल\nకొత్త ఊరు\n", encoding="utf-8")
    out = folder / f"out{run}"
    words = [a.format(model=model, text=text, out=out) for a in args]
    result = CliRunner().invoke(main, words, input=stdin)
    assert result.exit_code == 0, result.output
    return result


def test_every_model_option_is_one_that_may_say_so() -> None:
    """Every command's --model goes through the one notice (a ModelOption), and the table
    above covers each of them, so that a new command is decided, not forgotten."""
    with_model = {
        command.name
        for command in _commands()
        for param in command.params
        if isinstance(param, click.Option) and "--model" in param.opts
    }
    assert with_model == set(MODEL_RUNS)
    for command in _commands():
        for param in command.params:
            if isinstance(param, click.Option) and "--model" in param.opts:
                assert isinstance(param, ModelOption), command.name
                assert param.plain_expected == MODEL_RUNS[command.name or ""][2], command.name


@pytest.mark.parametrize(
    "command", [c for c, (_, _, expected) in MODEL_RUNS.items() if not expected]
)
def test_a_plain_model_is_said_once_on_stderr(
    command: str, plain_hindi_model: str, tmp_path: Path
) -> None:
    result = _run_with_model(command, plain_hindi_model, tmp_path)
    said = [line for line in result.stderr.splitlines() if NOTICE_WORDS in line]
    assert len(said) == 1, result.stderr
    assert said[0].startswith(f"brahmic_pua: {plain_hindi_model} {NOTICE_WORDS}")
    assert "no cluster guarantee" in said[0] and "brahmic-pua train" in said[0]


@pytest.mark.parametrize("command", [c for c, (_, _, expected) in MODEL_RUNS.items() if expected])
def test_commands_for_plain_models_do_not_say_it(
    command: str, plain_hindi_model: str, tmp_path: Path
) -> None:
    result = _run_with_model(command, plain_hindi_model, tmp_path)
    assert NOTICE_WORDS not in result.stderr


@pytest.mark.parametrize("command", list(MODEL_RUNS))
def test_a_brahmic_pua_model_is_never_said_plain(
    command: str, sample_models: dict[str, Path], tmp_path: Path
) -> None:
    if command == "repair":  # refuses a brahmic_pua model: nothing to repair
        pytest.skip("repair takes plain models only")
    result = _run_with_model(command, str(sample_models["unigram"]), tmp_path)
    assert NOTICE_WORDS not in result.stderr


@pytest.mark.parametrize("command", list(MODEL_RUNS))
def test_the_notice_leaves_stdout_as_it_was(
    command: str, plain_hindi_model: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """stdout byte for byte, and the exit status, are the same as a run that says nothing:
    a pipeline reading stdout sees no difference."""
    said = _run_with_model(command, plain_hindi_model, tmp_path, 0)
    monkeypatch.setattr(common, "is_plain_model", lambda path: False)
    quiet = _run_with_model(command, plain_hindi_model, tmp_path, 1)
    assert NOTICE_WORDS not in quiet.stderr
    assert said.stdout_bytes == quiet.stdout_bytes


def test_a_failed_run_on_a_plain_model_is_its_one_error_line(
    plain_hindi_model: str, tmp_path: Path
) -> None:
    """The notice follows a run that succeeded: an error is still one line."""
    args = ["--model", plain_hindi_model, "--output_format", "sample_piece", "--nbest_size", "600"]
    result = CliRunner().invoke(main, ["encode", *args], input="x\n")
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and result.output.startswith("Error: ")


def test_a_model_in_a_pipe_is_read_by_the_command_alone(plain_hindi_model: str) -> None:
    """A model given through a pipe is not read to tell its kind: that would leave the
    command nothing to load."""
    cli = shlex.join([sys.executable, "-m", "brahmic_pua.cli.main"])
    command = f"echo x | {cli} encode --model <(cat {shlex.quote(plain_hindi_model)})"
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() and NOTICE_WORDS not in done.stderr


# -- output files -------------------------------------------------------------------------------


def _output_file_commands() -> list[click.Command]:
    """Commands whose --output names a file (not a folder: encode-corpus writes shards)."""
    return [
        command
        for command in _commands()
        for param in command.params
        if isinstance(param, click.Option)
        and "--output" in param.opts
        and isinstance(param.type, click.Path)
        and not param.type.dir_okay
    ]


def test_every_output_file_is_the_one_output_type() -> None:
    commands = _output_file_commands()
    assert {"export", "filter", "repair", "encode", "build"} <= {c.name for c in commands}
    for command in commands:
        (output,) = [p for p in command.params if "--output" in getattr(p, "opts", [])]
        assert isinstance(output.type, common.OutputFile), command.name


@pytest.mark.parametrize("name", ["", ".", "/"])
def test_an_output_that_names_no_file_is_a_usage_error(
    name: str, sample_models: dict[str, Path], tmp_path: Path
) -> None:
    """``--output ""`` is a usage error (exit 2) in one line, as ``--output .`` is, before the
    model is read; nothing is written."""
    model = str(sample_models["unigram"])
    for args in (
        ["export", "--model", model, "--to", "gguf", "--output", name],
        ["export", "--model", model, "--to", "spm", "--output", name],
        ["filter", "--model", model, "--filters", "mark-start", "--output", name],
        ["encode", "--model", model, "--output", name],
    ):
        result = CliRunner().invoke(main, args, input="క\n")
        assert result.exit_code == 2, (args, result.output)
        assert result.output.count("\n") == 1 and "Traceback" not in result.output
        assert "--output" in result.output
    assert list(tmp_path.iterdir()) == []
