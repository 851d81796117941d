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

from brahmic_pua import (
    POLICIES,
    SCRIPT_NAMES,
    CodecFileError,
    ModelFileError,
    PUACodec,
    SentencePieceProcessor,
    segment,
)
from brahmic_pua.atomic import atomic_output
from brahmic_pua.trainer import train_model

POLICY = click.Choice(POLICIES)


def _lines(stream: TextIO) -> Iterator[str]:
    for line in stream:
        yield line[:-1] if line.endswith("\n") else line


def _output(path: str | None) -> AbstractContextManager[TextIO]:
    return atomic_output(path) if path else nullcontext(sys.stdout)


def _run(source: TextIO, output: str | None, transform: Callable[[str], str]) -> None:
    number = 0
    try:
        with _output(output) as sink:
            for line in _lines(source):
                sink.write(transform(line) + "\n")
                number += 1
    except UnicodeDecodeError as error:
        raise click.ClickException(
            f"input is not UTF-8 ({error.reason} after line {number}); "
            "convert it first, e.g. iconv -f LATIN1 -t UTF-8"
        ) from None
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


def _spm_flags(args: list[str]) -> dict[str, str]:
    """Extra spm_train flags, as --name=value or --name value."""
    flags: dict[str, str] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--"):
            raise click.UsageError(
                f"unexpected argument {arg!r}: spm options look like --name=value"
            )
        if "=" in arg:
            name, value = arg[2:].split("=", 1)
        elif i + 1 < len(args) and not args[i + 1].startswith("--"):
            name, value = arg[2:], args[i + 1]
            i += 1
        else:
            name, value = arg[2:], "true"
        flags[name] = value
        i += 1
    return flags


@main.command("train", context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.option("--input", "input_", required=True, help="Corpus file(s), comma-separated.")
@click.option("--model_prefix", required=True, help="Writes <prefix>.model and <prefix>.vocab.")
@click.option("--vocab_size", type=int, default=8000, show_default=True)
@click.option(
    "--model_type",
    type=click.Choice(["unigram", "bpe", "char", "word"]),
    default="unigram",
    show_default=True,
)
@click.option("--policy", type=POLICY, default="fixtoken", show_default=True)
@click.option("--scripts", default=None, help="Comma-separated Brahmic scripts (default: as seen).")
@click.option(
    "--normalization", type=click.Choice(["nfc", "none"]), default="nfc", show_default=True
)
@click.pass_context
def train_command(
    ctx: click.Context, input_: str, model_prefix: str, vocab_size: int, model_type: str,
    policy: str, scripts: str | None, normalization: str,
) -> None:  # fmt: skip
    """Train a SentencePiece model on clusters (spm_train's flags; others pass through)."""
    extra = _spm_flags(list(ctx.args))
    try:
        train_model(
            input=input_, model_prefix=model_prefix, vocab_size=vocab_size,
            model_type=model_type, policy=policy, scripts=scripts, normalization=normalization,
            progress=True, **extra,
        )  # fmt: skip
    except (ValueError, OSError) as error:
        raise click.ClickException(str(error)) from None


def _processor(path: str) -> SentencePieceProcessor:
    try:
        return SentencePieceProcessor(model_file=path)
    except (ModelFileError, CodecFileError, OSError) as error:
        raise click.ClickException(str(error)) from None


MODEL = click.option(
    "--model",
    "model_path",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="A .model file.",
)


@main.command("encode")
@MODEL
@click.option(
    "--output_format", type=click.Choice(["piece", "id"]), default="piece", show_default=True
)
@INPUT
@OUTPUT
def encode_command(model_path: str, output_format: str, input_: TextIO, output: str | None) -> None:
    """Like spm_encode: one line in, its pieces or ids out, space-separated."""
    sp = _processor(model_path)
    if output_format == "id":
        _run(input_, output, lambda line: " ".join(map(str, sp.encode(line))))
    else:
        _run(input_, output, lambda line: " ".join(sp.encode(line, out_type=str)))


@main.command("decode")
@MODEL
@click.option(
    "--input_format", type=click.Choice(["piece", "id"]), default="piece", show_default=True
)
@INPUT
@OUTPUT
def decode_command(model_path: str, input_format: str, input_: TextIO, output: str | None) -> None:
    """Like spm_decode: space-separated pieces or ids in, text out."""
    sp = _processor(model_path)

    def decode(line: str) -> str:
        if input_format == "id":
            try:
                return str(sp.decode([int(x) for x in line.split()]))
            except ValueError:
                raise ValueError(f"not a list of ids: {line[:40]!r}") from None
        return str(sp.decode(line.split(" ") if line else []))

    _run(input_, output, decode)


@main.command("demo")
@click.option("--vocab_size", type=int, default=2000, show_default=True)
@click.option(
    "--model_type", type=click.Choice(["unigram", "bpe"]), default="unigram", show_default=True
)
def demo_command(vocab_size: int, model_type: str) -> None:
    """Train on the bundled Telugu/Hindi sample; compare with plain spm."""
    from brahmic_pua import demo

    click.echo(f"training brahmic_pua and plain spm ({model_type}, vocab {vocab_size}) ...")
    try:
        shown, summary = demo.run(vocab_size, model_type)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    for row in shown:
        click.echo(f"\n{row.text}")
        click.echo(f"  brahmic_pua: {demo.mark(row.ours)}")
        click.echo(f"  plain spm:   {demo.mark(row.plain)}")
    click.echo(f"\n«piece» = starts with a dependent mark (renders on a dotted circle)\n{summary}")


@main.command("scripts")
def scripts_command() -> None:
    """List the Brahmic scripts the tables cover."""
    click.echo("\n".join(SCRIPT_NAMES))
