"""``brahmic-pua``: segment text and build or apply PUA codecs from the shell.

Every command reads lines (a file or stdin) and writes one line per input line. Errors are one
line on stderr and a non-zero exit; output files are written whole or not at all.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import TextIO

import click

from brahmic_pua import POLICIES, SCRIPT_NAMES, CodecFileError, PUACodec, segment

from .atomic import atomic_output

POLICY = click.Choice(POLICIES)


def _lines(stream: TextIO) -> Iterator[str]:
    for line in stream:
        yield line[:-1] if line.endswith("\n") else line


def _output(path: str | None) -> AbstractContextManager[TextIO]:
    return atomic_output(path) if path else nullcontext(sys.stdout)


def _run(source: TextIO, output: str | None, transform: Callable[[str], str]) -> None:
    try:
        with _output(output) as sink:
            for line in _lines(source):
                sink.write(transform(line) + "\n")
    except (ValueError, OSError) as error:
        raise click.ClickException(str(error)) from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="brahmic-pua")
def main() -> None:
    """Tokenization for Brahmic scripts that never splits a cluster."""


@main.command("segment")
@click.option("--policy", type=POLICY, default="fixtoken", show_default=True)
@click.option(
    "--input",
    "input_",
    type=click.File("r", encoding="utf-8"),
    default="-",
    help="Text file, one line per line (default: stdin).",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    help="Write here instead of stdout (atomically).",
)
@click.option("--separator", default="|", show_default=True, help="Printed between clusters.")
@click.option("--json", "as_json", is_flag=True, help="Print each line's clusters as a JSON list.")
def segment_command(
    policy: str, input_: TextIO, output: str | None, separator: str, as_json: bool
) -> None:
    """Split each line into orthographic clusters."""

    def show(line: str) -> str:
        clusters = segment(line, policy)
        return json.dumps(clusters, ensure_ascii=False) if as_json else separator.join(clusters)

    _run(input_, output, show)


@main.group("codec")
def codec_group() -> None:
    """Build a cluster ↔ Private Use Area table and apply it."""


@codec_group.command("build")
@click.option(
    "--input",
    "inputs",
    multiple=True,
    required=True,
    type=click.File("r", encoding="utf-8"),
    help="Corpus file (repeatable).",
)
@click.option(
    "--output",
    required=True,
    type=click.Path(dir_okay=False, writable=True),
    help="Codec JSON file to write.",
)
@click.option("--policy", type=POLICY, default="fixtoken", show_default=True)
@click.option(
    "--scripts",
    default=None,
    help="Comma-separated Brahmic scripts, e.g. telugu,devanagari (default: as seen).",
)
def codec_build(inputs: tuple[TextIO, ...], output: str, policy: str, scripts: str | None) -> None:
    """Build a codec from corpus files."""
    chosen = [s.strip() for s in scripts.split(",") if s.strip()] if scripts else None
    try:
        codec = PUACodec.build(
            (line for stream in inputs for line in _lines(stream)), policy, chosen
        )
        with atomic_output(output) as sink:
            sink.write(codec.to_json())
    except (ValueError, OSError) as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"{codec!r} -> {output}", err=True)


def _load(path: str) -> PUACodec:
    try:
        return PUACodec.load(path)
    except (CodecFileError, OSError) as error:
        raise click.ClickException(str(error)) from None


CODEC = click.option(
    "--codec",
    "codec_path",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Codec JSON file.",
)
INPUT = click.option(
    "--input",
    "input_",
    type=click.File("r", encoding="utf-8"),
    default="-",
    help="Text file (default: stdin).",
)
OUTPUT = click.option(
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    help="Write here instead of stdout (atomically).",
)


@codec_group.command("encode")
@CODEC
@INPUT
@OUTPUT
def codec_encode(codec_path: str, input_: TextIO, output: str | None) -> None:
    """Map each line's clusters to PUA code points."""
    _run(input_, output, _load(codec_path).encode)


@codec_group.command("decode")
@CODEC
@INPUT
@OUTPUT
def codec_decode(codec_path: str, input_: TextIO, output: str | None) -> None:
    """Map PUA code points back to clusters."""
    _run(input_, output, _load(codec_path).decode)


@main.command("scripts")
def scripts_command() -> None:
    """List the Brahmic scripts the tables cover."""
    click.echo("\n".join(SCRIPT_NAMES))
