"""What several ``brahmic-pua`` commands share: their options, reading texts, loading a model or
a codec with a one-line error for the wrong file, writing a model with its ``.vocab``, and
turning expected errors into one line.

Commands import these from here, never from each other, so that each command module is only
its own parsing and printing. Two error forms are kept apart on purpose, as the commands have
always printed them: the group's (:func:`expected`: a message's lines joined, its own spacing
kept, an OSError as ``file: reason``), and a command's own (:func:`one_line`: all whitespace
collapsed), for the commands that are also run on their own (``eval``, ``vocab``, ``filter``).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

import click
from click.decorators import FC

from brahmic_pua import CodecFileError, ModelFileError, PUACodec, SentencePieceProcessor
from brahmic_pua.io.atomic import atomic_output, check_writable, write_atomic_many
from brahmic_pua.io.lines import file_lines
from brahmic_pua.model.manifest import extract
from brahmic_pua.model.pieces import vocab_text as render_vocab
from brahmic_pua.model.proto import parse_model

#: An existing file (not a folder), as every file option and argument takes it.
FILE = click.Path(exists=True, dir_okay=False)


def required_file(flag: str, dest: str, help: str) -> Callable[[FC], FC]:
    """A required option naming an existing file: ``--model``, ``--codec``."""
    return click.option(flag, dest, required=True, type=FILE, help=help)


def model_option(help: str = "A .model file.") -> Callable[[FC], FC]:
    """``--model`` (parameter ``model_path``), with the help its command gives it."""
    return required_file("--model", "model_path", help)


def inputs_option(help: str) -> Callable[[FC], FC]:
    """``--input`` repeatable (parameter ``inputs``): text files read by :func:`read_texts`."""
    return click.option("--input", "inputs", multiple=True, type=FILE, help=help)


def json_option(help: str) -> Callable[[FC], FC]:
    """``--json`` (parameter ``as_json``): print the command's result as JSON instead."""
    return click.option("--json", "as_json", is_flag=True, help=help)


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
    type=click.Path(dir_okay=False, writable=True),
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


def one_line(error: Exception) -> str:
    """A command's own one line for an error: all whitespace collapsed, the type's name when
    the message is empty."""
    return " ".join(str(error).split()) or type(error).__name__


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
    try:
        return SentencePieceProcessor(model_file=path)
    except (ValueError, OSError, RuntimeError) as error:
        message = one_line(error)
        raise click.ClickException(message if path in message else f"{path}: {message}") from None


def is_model(path: str) -> bool:
    """Whether ``path`` is a SentencePiece model (plain or brahmic_pua)."""
    try:
        SentencePieceProcessor(model_file=path)
    except ModelFileError:
        return False
    return True


def load_codec(path: str) -> PUACodec:
    """The codec, or one line saying what the file is instead (a .model is a common mix-up)."""
    try:
        return PUACodec.load(path)
    except (CodecFileError, UnicodeDecodeError) as error:
        if is_model(path):
            raise click.ClickException(
                f"{path} is a SentencePiece model, not a codec JSON; use "
                f"`brahmic-pua encode --model {path}` (or `decode`) to apply a model"
            ) from None
        if isinstance(error, UnicodeDecodeError):
            raise click.ClickException(
                f"{path} is not a codec JSON file (not UTF-8 text)"
            ) from None
        raise


def read_texts(paths: tuple[str, ...]) -> list[str]:
    """The non-blank lines of UTF-8 files, read by the one line rule (brahmic_pua.io.lines:
    line ends and a leading BOM dropped, as spm reads a corpus)."""
    try:
        texts = [line for path in paths for line in file_lines(path, skip_blank=True)]
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
    """The ``.vocab`` of a serialized model (brahmic_pua.model.pieces.vocab_text)."""
    manifest = extract(data, "model")
    return render_vocab(parse_model(data), manifest.codec if manifest else None)


def check_model_output(output: str) -> None:
    """Fail before any work when the model or its ``.vocab`` could not be written."""
    for path in (output, vocab_path(output)):
        check_writable(path)


def write_model(output: str, data: bytes) -> None:
    """A serialized model and its ``.vocab`` beside it, both written or neither."""
    write_atomic_many({output: data, vocab_path(output): vocab_text(data)})
