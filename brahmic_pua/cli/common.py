"""What several ``brahmic-pua`` commands share: their options and the one way to spell them
(:data:`SETTINGS`; ``train``'s flags passed through to spm, :class:`PassThrough`), reading
texts, loading a model or a codec with a one-line error for the wrong file, writing a model
with its ``.vocab``, and turning expected errors into one line.

Commands import these from here, never from each other, so that each command module is only
its own parsing and printing. Two error forms are kept apart on purpose, as the commands have
always printed them: the group's (:func:`expected`: a message's lines joined, its own spacing
kept, an OSError as ``file: reason``), and a command's own (:func:`one_line`: all whitespace
collapsed), for the commands that are also run on their own (``eval``, ``vocab``, ``filter``).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import click
from click.decorators import FC

import brahmic_pua
from brahmic_pua import CodecFileError, ModelFileError, PUACodec
from brahmic_pua.io.atomic import atomic_output, check_writable, write_atomic_many
from brahmic_pua.io.lines import file_lines, stream_lines
from brahmic_pua.io.parquet import check_text_column, corpus_lines
from brahmic_pua.io.wording import one_line
from brahmic_pua.model.display import vocab_text as render_vocab
from brahmic_pua.model.manifest import extract, has_manifest
from brahmic_pua.model.model_file import read_model_file
from brahmic_pua.model.model_proto import parse_model
from brahmic_pua.trainer.options import (
    closest_option,
    flag_name,
    known_options,
    parse_flag_args,
    read_bool,
)

#: An existing file (not a folder), as every file option and argument takes it.
FILE = click.Path(exists=True, dir_okay=False)


class OutputFile(click.Path):
    """A file to write (``--output``): click's ``Path(dir_okay=False)``, and an empty name a
    usage error too (exit 2), as a folder's name is. It names no file either, but click lets
    it through (it cannot stat it, so takes it for a new file) and the write then failed with
    exit 1, as a file that cannot be written does."""

    def __init__(self, writable: bool = False) -> None:
        super().__init__(dir_okay=False, writable=writable)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value == "":
            self.fail("an empty name is no file: give the file to write", param, ctx)
        return super().convert(value, param, ctx)


#: Every command's context: the one option spelling, spm's underscores with a dash accepted
#: for each (``--model-prefix`` is ``--model_prefix``, ``--script-ids`` is ``--script_ids``:
#: click matches option names through :func:`~brahmic_pua.trainer.options.flag_name`), and
#: ``-h`` for ``--help``. Set on the group and on each command, which also runs on its own.
SETTINGS: dict[str, Any] = {
    "token_normalize_func": flag_name,
    "help_option_names": ["-h", "--help"],
}

if TYPE_CHECKING:
    from brahmic_pua import SentencePieceProcessor

    _Choice = click.Choice[str]
    _ParamType = click.ParamType[bool]
else:  # click < 8.2's types are not generic
    _Choice, _ParamType = click.Choice, click.ParamType


class Choice(_Choice):
    """click's Choice, its values matched and shown as written: the spelling rule is for option
    names (click >= 8.2 would apply it to values too, and list ``nepali_lm`` in the help)."""

    def normalize_choice(self, choice: object, ctx: click.Context | None) -> str:
        return super().normalize_choice(choice, None)


class _BoolWord(_ParamType):
    """true or false as the trainer reads them (:func:`~brahmic_pua.trainer.options.read_bool`:
    true/false, 1/0, yes/no, on/off); a bad word is a usage error."""

    name = "boolean"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return read_bool(param.name if param is not None and param.name else "value", value)
        except ValueError as error:
            self.fail(str(error), param, ctx)


def bool_option(flag: str, help: str, name: str | None = None) -> Callable[[FC], FC]:
    """The one boolean option of every command: ``--flag``, ``--flag=true|false`` or ``--flag
    false``, as spm_train takes a boolean; None when not given, so that the default (the
    trainer's, or the command's) holds. ``name``: the parameter's, where not the flag's.
    A bare ``--flag`` before an argument (``--json FILE``) is true, not a value: see
    :class:`Command`."""
    decls = (flag, name) if name else (flag,)
    return click.option(
        *decls,
        type=_BoolWord(),
        is_flag=False,
        flag_value="true",
        default=None,
        metavar="[true|false]",
        help=help,
    )


class Command(click.Command):
    """Every command's class: click reads the word after an option with an optional value as
    its value, so ``--json FILE`` would read FILE as the boolean. Before parsing, a boolean
    option (:func:`bool_option`) followed by anything but a boolean word is spelled
    ``--flag=true`` (through the public ``parse_args`` hook).

    It is also the one place that says a model is plain (:func:`plain_models`): a run given a
    plain SentencePiece model where a brahmic_pua one is meant ends with one line on stderr,
    printed after the command has succeeded, so that stdout, the exit status and a failed
    run's one error line are what they are without it."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, spelled_booleans(self, args))

    def invoke(self, ctx: click.Context) -> Any:
        plain = plain_models(self, ctx)  # before the run, which may write over its --model
        result = super().invoke(ctx)
        for path in plain:
            click.echo(PLAIN_MODEL_NOTICE.format(path=path), err=True)
        return result


def spelled_booleans(command: click.Command, args: list[str]) -> list[str]:
    """``args`` with each bare boolean flag not followed by a boolean word written
    ``--flag=true``; nothing after ``--`` is touched."""
    flags = {
        opt
        for param in command.params
        if isinstance(param, click.Option) and isinstance(param.type, _BoolWord)
        for opt in param.opts
    }
    out = list(args)
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg in flags and (i + 1 == len(args) or not _is_bool_word(args[i + 1])):
            out[i] = f"{arg}=true"
    return out


def _is_bool_word(word: str) -> bool:
    try:
        read_bool("value", word)
    except ValueError:
        return False
    return True


class PassThrough(Command):
    """A command that also takes the SentencePiece trainer flags it does not declare (``train``):
    an undeclared ``--name=value`` (``--name value``, a bare ``--name``) stays in ``ctx.args``
    when the trainer knows the name (:func:`~brahmic_pua.trainer.options.known_options`), and
    is a usage error naming the option it most likely means when not, before click would
    report a required option it was meant to be."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        settings = {**SETTINGS, **(kwargs.pop("context_settings", None) or {})}
        settings.update(ignore_unknown_options=True, allow_extra_args=True)
        kwargs["context_settings"] = settings
        super().__init__(*args, **kwargs)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        args = spelled_booleans(self, args)
        if not ctx.resilient_parsing:
            _, extra, _ = self.make_parser(ctx).parse_args(args=list(args))
            check_passed_flags(extra, ctx)
        return super().parse_args(ctx, args)


def check_passed_flags(extra: Sequence[str], ctx: click.Context | None = None) -> dict[str, str]:
    """The flags a :class:`PassThrough` command passes on, by name; a usage error for words
    that are not flags and for a name the trainer does not know."""
    try:
        flags = parse_flag_args(extra)
    except ValueError as error:
        raise click.UsageError(str(error), ctx) from None
    known = known_options()
    for name in flags:
        if name not in known:
            close = closest_option(name)
            raise click.NoSuchOption(
                f"--{name}", possibilities=[f"--{close}"] if close else None, ctx=ctx
            )
    return flags


def required_file(flag: str, dest: str, help: str, **attrs: Any) -> Callable[[FC], FC]:
    """A required option naming an existing file: ``--model``, ``--codec``."""
    return click.option(flag, dest, required=True, type=FILE, help=help, **attrs)


#: What a run given a plain model prints on stderr, once, after it succeeded (:class:`Command`).
#: Plain models are supported on purpose, so this is a notice and not an error: the model is
#: used as stock uses it, and nothing in its pieces keeps a cluster whole.
PLAIN_MODEL_NOTICE = (
    "brahmic_pua: {path} is a plain SentencePiece model (no brahmic_pua manifest): it is used "
    "as stock would use it, with no cluster guarantee; train one with `brahmic-pua train` for "
    "clusters kept whole"
)


class ModelOption(click.Option):
    """``--model``. A run given a plain model says so (:data:`PLAIN_MODEL_NOTICE`) unless the
    command declares ``plain_expected``: a plain model is what it exists to inspect or fix."""

    def __init__(self, *args: Any, plain_expected: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.plain_expected = plain_expected


def model_option(
    help: str = "A .model file.", *, plain_expected: bool = False
) -> Callable[[FC], FC]:
    """``--model`` (parameter ``model_path``), with the help its command gives it; see
    :class:`ModelOption` for ``plain_expected``."""
    return required_file(
        "--model", "model_path", help, cls=ModelOption, plain_expected=plain_expected
    )


def plain_models(command: click.Command, ctx: click.Context) -> list[str]:
    """The files given to ``command``'s ``--model`` (unless plain is what it expects) that are
    plain SentencePiece models, each once."""
    found: list[str] = []
    for param in command.params:
        if isinstance(param, ModelOption) and not param.plain_expected and param.name:
            path = ctx.params.get(param.name)
            if isinstance(path, str) and path not in found and is_plain_model(path):
                found.append(path)
    return found


def is_plain_model(path: str) -> bool:
    """Whether ``path`` is a regular file holding a plain SentencePiece model (no manifest),
    read by the one model reader. Anything else is False, and quietly: a file that is no model
    is the command's own error to report, and a pipe or a device is not read here, as that
    would take the model away from the command (``--model <(...)``)."""
    if not Path(path).is_file():
        return False
    try:
        return not has_manifest(read_model_file(path), path)
    except (ModelFileError, OSError):
        return False


def inputs_option(help: str) -> Callable[[FC], FC]:
    """``--input`` repeatable (parameter ``inputs``): text files read by :func:`read_texts`."""
    return click.option("--input", "inputs", multiple=True, type=FILE, help=help)


#: ``--text_column`` (parameter ``text_column``), the one definition for every command that
#: reads Parquet (``train``, ``eval``, ``encode-corpus``, ``parquet-text``): the column whose
#: rows are the lines (brahmic_pua.io.parquet), checked by :func:`checked_text_column`.
TEXT_COLUMN = click.option(
    "--text_column",
    default=None,
    help="Parquet input: the column of strings whose rows are the lines [default: text].",
)


def checked_text_column(column: str | None, inputs: Sequence[str]) -> str | None:
    """``--text_column`` checked by the rule of every command that reads Parquet
    (:func:`~brahmic_pua.io.parquet.check_text_column`): given without a Parquet input, a usage
    error (exit 2), as ``train`` has it."""
    try:
        return check_text_column(column, inputs)
    except ValueError as error:
        raise click.UsageError(str(error)) from None


def json_option(help: str) -> Callable[[FC], FC]:
    """``--json`` (parameter ``as_json``): print the command's result as JSON instead."""
    return bool_option("--json", f"{help} [default: false]", "as_json")


MODEL = model_option()
CODEC = required_file("--codec", "codec_path", "Codec JSON file.")
INPUT = click.option(
    "--input",
    "input_",
    type=click.File("rb"),
    default="-",
    help="UTF-8 text file, one line per line (default: stdin).",
)
OUTPUT = click.option(
    "--output",
    type=OutputFile(writable=True),
    help="Write here instead of stdout (atomically).",
)


def join_lines(message: str) -> str:
    """A message's non-blank lines, each stripped, joined by one space; spacing inside a line
    is kept (it may be quoted input)."""
    return " ".join(part.strip() for part in message.splitlines() if part.strip())


def expected(error: ValueError | OSError) -> str:
    """The group's one line for an error the user can fix (a bad file, a bad value)."""
    if isinstance(error, OSError) and error.strerror and error.filename:
        return f"{error.filename}: {error.strerror}"
    return join_lines(str(error)) or type(error).__name__


@contextmanager
def one_line_errors() -> Iterator[None]:
    """Expected errors (ValueError, OSError) inside the block as a one-line
    :class:`click.ClickException`, also when the command runs outside the group."""
    try:
        yield
    except (ValueError, OSError) as error:
        raise click.ClickException(one_line(error)) from None


def load_model(path: str) -> SentencePieceProcessor:
    """The model, or one line naming the file and what is wrong with it."""
    try:  # (the processor is imported by the commands that load a model, not by every one)
        return brahmic_pua.SentencePieceProcessor(model_file=path)
    except ModelFileError as error:  # each names the file (brahmic_pua.model.loader)
        raise click.ClickException(one_line(error)) from None


def is_model(path: str) -> bool:
    """Whether ``path`` is a SentencePiece model (plain or brahmic_pua)."""
    try:
        brahmic_pua.SentencePieceProcessor(model_file=path)
    except ModelFileError:
        return False
    return True


def load_codec(path: str) -> PUACodec:
    """The codec, or one line saying what the file is instead (a .model is a common mix-up:
    looked for in a regular file only, as a pipe cannot be read twice)."""
    try:
        return PUACodec.load(path)
    except (CodecFileError, UnicodeDecodeError) as error:
        if os.path.isfile(path) and is_model(path):
            raise click.ClickException(
                f"{path} is a SentencePiece model, not a codec JSON; use "
                f"`brahmic-pua encode --model {path}` (or `decode`) to apply a model"
            ) from None
        if isinstance(error, UnicodeDecodeError):
            raise click.ClickException(
                f"{path} is not a codec JSON file (not UTF-8 text)"
            ) from None
        raise


def input_lines(stream: BinaryIO) -> Iterator[str]:
    """A command's input lines (a file or stdin), read by the one line rule of every command
    (brahmic_pua.io.lines: a line ends at "\\n", its trailing "\\r" and a leading BOM dropped),
    so that each output line answers one input line, as encode-corpus and train read it."""
    return stream_lines(stream, getattr(stream, "name", "<stdin>"))


def read_texts(
    paths: tuple[str, ...], parquet: bool = False, column: str | None = None
) -> list[str]:
    """The non-blank lines of UTF-8 files, read by the one line rule (brahmic_pua.io.lines:
    line ends and a leading BOM dropped, as spm reads a corpus); with ``parquet`` (``eval``),
    a Parquet file's ``column`` as ``train`` reads it (brahmic_pua.io.parquet). A command that
    reads text alone is told so in one line by the line reader, for a Parquet file."""
    try:
        texts = [
            line
            for path in paths
            for line in (
                corpus_lines(path, column, skip_blank=True)
                if parquet
                else file_lines(path, skip_blank=True)
            )
        ]
    except ValueError as error:  # a byte that is not UTF-8: one line naming file, line, offset
        raise click.ClickException(str(error)) from None
    if not texts:
        raise click.ClickException(
            f"no text to evaluate: every line of {', '.join(paths)} is blank"
        )
    return texts


def to_json(document: Any) -> str:
    """``document`` as ``--json`` prints it: indented, non-ASCII text as itself."""
    return json.dumps(document, ensure_ascii=False, indent=2)


@contextmanager
def output_stream(path: str | None) -> Iterator[BinaryIO]:
    """The output file, written atomically (whole or not at all), or stdout, flushed here: a
    closed pipe fails inside the command, where the group reports it."""
    if path:
        with atomic_output(path) as stream:
            yield stream.buffer
    else:
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()


def transform_lines(source: BinaryIO, output: str | None, transform: Callable[[str], str]) -> None:
    """Each input line, transformed, as one output line: the commands that map text to text
    (segment, normalize, codec encode/decode, llama-text)."""
    with output_stream(output) as sink:
        for line in input_lines(source):
            sink.write(transform(line).encode("utf-8") + b"\n")


_IDS = re.compile(rb"[0-9]+(?:[ \t\r\n\f\v]+[0-9]+)*")


def parse_ids(line: bytes | str) -> list[int]:
    """The one id reader (``decode --input_format id``, ``repair --ids``): ids are ASCII
    digits separated by white space. ``int`` alone would also take ``1_000``, ``+5``, ``٣``
    and `` 7 `` as ids; a line that is not a list of ids is a ValueError."""
    data = line.encode("utf-8") if isinstance(line, str) else line
    data = data.strip()
    if data and not _IDS.fullmatch(data):
        raise ValueError("not a list of ids")
    return [int(token) for token in data.split()]


def vocab_path(output: str) -> str:
    """``out.model`` → ``out.vocab``; any other name gets ``.vocab`` appended."""
    return output.removesuffix(".model") + ".vocab"


def vocab_text(data: bytes) -> bytes:
    """The ``.vocab`` of a serialized model (brahmic_pua.model.display.vocab_text)."""
    manifest = extract(data, "model")
    return render_vocab(parse_model(data), manifest.codec if manifest else None)


def check_model_output(output: str) -> None:
    """Fail before any work when the model or its ``.vocab`` could not be written."""
    for path in (output, vocab_path(output)):
        check_writable(path)


def write_model(output: str, data: bytes) -> None:
    """A serialized model and its ``.vocab`` beside it, both written or neither."""
    write_atomic_many({output: data, vocab_path(output): vocab_text(data)})
