"""``brahmic-pua encode`` and ``decode``: spm_encode and spm_decode, every flag with the tool's
meaning (cli.spm_flags), on brahmic_pua and plain models alike.

Input is ``--input FILE`` or files given as arguments, in order (stdin when neither), read by
the one line reader: lines end at "\\n" only, a "\\r" before it dropped (as encode-corpus and
train read them). A flag value that is wrong whatever the model is a usage error (exit 2); what
this model cannot do (n-best on BPE, ``bos`` without a ``<s>`` piece) is one line and exit 1,
before any output.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO, TypeVar

import click

from brahmic_pua import SentencePieceProcessor, set_min_log_level

from . import spm_flags as spm
from .common import (
    FILE,
    MODEL,
    OUTPUT,
    SETTINGS,
    Choice,
    Command,
    bool_option,
    input_lines,
    load_model,
    output_stream,
    parse_ids,
)

_T = TypeVar("_T")

SPM_INPUT = click.option(
    "--input",
    "input_",
    type=click.File("rb"),
    default=None,
    help="UTF-8 text file, one line per line (default: the FILE arguments, else stdin).",
)
FILES = click.argument("files", nargs=-1, type=click.File("rb"))
EXTRA = click.option(
    "--extra_options",
    default="",
    metavar="OPTIONS",
    help="Colon-separated, applied in order: bos, eos, reverse, unk (e.g. bos:eos).",
)
MINLOGLEVEL = click.option(
    "--minloglevel",
    type=int,
    default=None,
    help="spm's log level: messages below it are not shown.",
)


def _sources(input_: BinaryIO | None, files: tuple[BinaryIO, ...]) -> tuple[BinaryIO, ...]:
    """spm's inputs: ``--input``, else the arguments, else stdin (one of them, not both)."""
    if input_ is not None and files:
        raise click.UsageError("give the input as --input FILE or as FILE arguments, not both")
    if input_ is not None:
        return (input_,)
    return files or (sys.stdin.buffer,)


def _lines(sources: tuple[BinaryIO, ...]) -> Iterator[str]:
    for source in sources:
        yield from input_lines(source)


def _usage(call: Callable[..., _T], *args: Any) -> _T:
    """``call(*args)``, a flag value wrong whatever the model as a usage error (exit 2)."""
    try:
        return call(*args)
    except spm.UsageProblem as error:
        raise click.UsageError(str(error)) from None


def _start(
    model_path: str,
    input_: BinaryIO | None,
    files: tuple[BinaryIO, ...],
    extra_options: str,
    minloglevel: int | None,
) -> tuple[tuple[BinaryIO, ...], tuple[str, ...], SentencePieceProcessor]:
    """What both commands do first, in spm's order: the inputs, the extra options (a usage
    error before the model loads), the log level, the model, and whether it has what the
    extra options ask for."""
    sources = _sources(input_, files)
    steps = _usage(spm.extra_options, extra_options)
    if minloglevel is not None:
        set_min_log_level(minloglevel)
    sp = load_model(model_path)
    spm.check_extra_options(sp, steps)
    return sources, steps, sp


@click.command("encode", cls=Command, context_settings=SETTINGS)
@MODEL
@click.option(
    "--output_format",
    type=Choice(spm.ENCODE_FORMATS),
    default="piece",
    show_default=True,
    help="piece, id or proto; sample_* (--nbest_size, --alpha) or nbest_* (--nbest_size) of each.",
)
@SPM_INPUT
@FILES
@OUTPUT
@EXTRA
@click.option(
    "--nbest_size",
    type=int,
    default=10,
    show_default=True,
    help="nbest_*: candidates per line; sample_*: sample among this many (<0: all; 0, 1: none).",
)
@click.option(
    "--alpha",
    type=float,
    default=0.5,
    show_default=True,
    help="sample_*: smoothing of a Unigram model's sampling; a BPE model's dropout probability.",
)
@click.option(
    "--random_seed",
    type=click.IntRange(0, 2**32 - 1),
    default=None,
    help="Seed spm's sampling with this (SetRandomGeneratorSeed) [default: random].",
)
@click.option(
    "--vocabulary",
    type=FILE,
    default=None,
    help="Emit only these pieces (piece or piece<TAB>count lines) and single characters.",
)
@click.option(
    "--vocabulary_threshold",
    type=int,
    default=0,
    show_default=True,
    help="With --vocabulary: leave out pieces counted fewer times than this.",
)
@bool_option(
    "--generate_vocabulary",
    "Print piece<TAB>count of the pieces the input uses instead of encoding it [default: false].",
)
@MINLOGLEVEL
def encode_command(
    model_path: str,
    output_format: str,
    input_: BinaryIO | None,
    files: tuple[BinaryIO, ...],
    output: str | None,
    extra_options: str,
    nbest_size: int,
    alpha: float,
    random_seed: int | None,
    vocabulary: str | None,
    vocabulary_threshold: int,
    generate_vocabulary: bool | None,
    minloglevel: int | None,
) -> None:
    """Like spm_encode: each line's pieces or ids, space-separated (spm_encode's flags)."""
    sources, steps, sp = _start(model_path, input_, files, extra_options, minloglevel)
    if vocabulary is not None:
        sp = spm.restricted(sp, spm.read_vocabulary(vocabulary, vocabulary_threshold))
    if generate_vocabulary:
        counted = spm.vocabulary_counts(sp, _lines(sources))
        with output_stream(output) as sink:
            sink.write("".join(f"{line}\n" for line in counted).encode("utf-8"))
        return
    encode = _usage(spm.encoder, sp, output_format, steps, nbest_size, alpha)
    spm.seed(random_seed)
    with output_stream(output) as sink:
        for line in _lines(sources):
            sink.write("".join(f"{out}\n" for out in encode(line)).encode("utf-8"))


@click.command("decode", cls=Command, context_settings=SETTINGS)
@MODEL
@click.option(
    "--input_format",
    type=Choice(spm.DECODE_INPUTS),
    default="piece",
    show_default=True,
    help="Read pieces or ids, space-separated.",
)
@click.option(
    "--output_format",
    type=Choice(spm.DECODE_FORMATS),
    default="string",
    show_default=True,
    help="The text, or spm's proto of it (protobuf text format).",
)
@SPM_INPUT
@FILES
@OUTPUT
@EXTRA
@MINLOGLEVEL
def decode_command(
    model_path: str,
    input_format: str,
    output_format: str,
    input_: BinaryIO | None,
    files: tuple[BinaryIO, ...],
    output: str | None,
    extra_options: str,
    minloglevel: int | None,
) -> None:
    """Like spm_decode: space-separated pieces or ids in, text out (spm_decode's flags)."""
    sources, steps, sp = _start(model_path, input_, files, extra_options, minloglevel)
    decode = spm.decoder(sp, input_format, output_format, steps, parse_ids)
    with output_stream(output) as sink:
        for line in _lines(sources):
            sink.write(decode(line).encode("utf-8") + b"\n")
