"""``brahmic-pua``: segment text and build or apply PUA codecs from the shell.

Every command reads lines (a file or stdin) by the one line rule (brahmic_pua.io.lines: split at
"\\n" only, a "\\r" ending a line and a leading BOM dropped, a "\\r" inside a line kept), and
writes exactly one "\\n"-terminated line per input line. Expected errors are
one line on stderr and exit 1 (usage errors exit 2); output files are written whole or not at
all, and temporary files removed, also when the run is interrupted (Ctrl-C: "Error: interrupted"
and exit 130; SIGTERM: exit 143) or stdout is closed early (``| head``: exit 141, like a tool
killed by SIGPIPE, and nothing printed).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import sys
from types import FrameType
from typing import Any, BinaryIO, NoReturn

import click

from brahmic_pua import POLICIES, SCRIPT_NAMES, PUACodec, segment
from brahmic_pua.io.lists import comma_list
from brahmic_pua.io.progress import is_terminal
from brahmic_pua.model.model_proto import MODEL_TYPES
from brahmic_pua.nepbpe.filters import DEFAULT_THETA, FILTERS
from brahmic_pua.normalize import MODES, normalizer
from brahmic_pua.trainer import train_model
from brahmic_pua.trainer.engine import ENGINES
from brahmic_pua.trainer.fit import spm_running
from brahmic_pua.trainer.options import OptionError, check_model_prefix
from brahmic_pua.trainer.train import DEFAULT_VOCAB_SIZE

from .common import (
    CODEC,
    FILE,
    INPUT,
    OUTPUT,
    SETTINGS,
    TEXT_COLUMN,
    Choice,
    Command,
    OutputFile,
    PassThrough,
    bool_option,
    check_passed_flags,
    expected,
    input_lines,
    join_lines,
    json_option,
    load_codec,
    transform_lines,
)

POLICY = Choice(POLICIES)
POLICY_HELP = (
    "Which clusters no token cuts: fixtoken, a consonant with its signs and marks (a conjunct "
    "may be cut at its virama: క్|రాం); akshara, conjuncts too (Telugu: conjunct splits 0.24 -> "
    "0.008, 5% more tokens, see the README); syllable (Ghimire et al.); grapheme (Unicode's)."
)
#: The commands defined in modules of their own: name -> (module of brahmic_pua.cli, its
#: attribute). Each is imported when it runs or the commands are listed (``--help``), so that
#: a command does not import every other command's library (``train`` would import the
#: processor, the evaluation and the integrations: 0.02 s of its start-up).
LAZY_COMMANDS = {
    "encode": ("spm_command", "encode_command"),
    "decode": ("spm_command", "decode_command"),
    "audit": ("audit_command", "audit_command"),
    "encode-corpus": ("encode_corpus_command", "encode_corpus_command"),
    "eval": ("eval_command", "eval_command"),
    "filter": ("filter_command", "filter_command"),
    "vocab": ("eval_command", "vocab_command"),
    "repair": ("repair_command", "repair_command"),
    "patch-table": ("patch_command", "patch_command"),
    "export": ("export_command", "export_command"),
    "parquet-text": ("parquet_text_command", "parquet_text_command"),
    "llama-text": ("export_command", "llama_text_command"),
}
INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a Ctrl-C
PIPE_CLOSED = 141  # 128 + SIGPIPE, as `cat big | head` reports it


def _terminate(signum: int, frame: FrameType | None) -> NoReturn:
    """SIGTERM as an exception, so that every ``with`` block (temporary files) cleans up."""
    raise SystemExit(128 + signum)


def _interrupted() -> click.exceptions.Exit:
    """Ctrl-C's one line (on a terminal after a line end, as the ``^C`` echo needs one), and
    the exit to raise after it: status 130, which click's standalone mode exits with."""
    line_end = "\n" if is_terminal(sys.stderr) else ""
    click.echo(f"{line_end}Error: interrupted", err=True)
    return click.exceptions.Exit(INTERRUPTED)


def _exit_now(code: object) -> NoReturn:
    """Exit without finalizing the interpreter, which an spm training left running by an
    interrupt would abort (brahmic_pua.trainer.fit.spm_running); the cleanup has run."""
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe, a closed stream
            stream.flush()
    os._exit(code if isinstance(code, int) else 0 if code is None else 1)


class _Group(click.Group):
    """A group whose commands are :class:`~brahmic_pua.cli.common.Command` (one boolean
    grammar), and whose subgroups (codec) are such groups too."""

    command_class = Command


_Group.group_class = _Group


class OneLineError(click.ClickException):
    """An error that click's own standalone mode shows as one line, ``Error: MESSAGE``, and
    exits on with status 1."""

    def __init__(self, message: str) -> None:
        super().__init__(join_lines(message))


class OneLineUsageError(OneLineError):
    """A usage error as one line, with the ``--help`` to read, exit status 2 (click's own shows
    its usage text, a hint and then the error: three lines)."""

    exit_code = 2

    def __init__(self, error: click.UsageError) -> None:
        message = error.format_message()
        if error.ctx is not None:
            message += f" (see '{error.ctx.command_path} --help')"
        super().__init__(message)


#: What to do when memory ran out, per command (the others: the general advice alone).
LESS_AT_ONCE = {
    "train": "a sample (--input_sentence_size=N lines), or one counting process "
    "(--num_threads=1, where more were used)",
    "encode-corpus": "fewer worker processes (--workers), or smaller shards (--shard_bytes)",
}


def out_of_memory(error: MemoryError, command: str | None) -> str:
    """A MemoryError's line: what ran out (the allocation, where it says), what to do."""
    detail = f" ({join_lines(str(error))})" if str(error) else ""
    less = LESS_AT_ONCE.get(command or "", "less input at once")
    return (
        f"out of memory{detail}: the run needs more than it may use (the machine's memory, or "
        f"the limit of ulimit -v): give it more, or {less}"
    )


def thread_not_started(error: RuntimeError) -> bool:
    """Whether ``error`` is CPython's for a thread that could not start (no memory for its
    stack under ``ulimit -v``, or the limit of processes)."""
    return str(error).startswith("can't start new thread")


def out_of_threads(command: str | None) -> str:
    """The line for a thread that could not start, and what to do."""
    fewer = " (--num_threads=1)" if command == "train" else ""
    return (
        "a thread could not start (can't start new thread: no memory for its stack, or the "
        f"limit of processes, ulimit -v / -u): give the run more memory, or fewer threads{fewer}"
    )


class _Shell(_Group):
    """The command group as a shell tool: one-line errors, quiet broken pipes, clean signals.

    Expected errors (ValueError, OSError) become one line, and so does memory that ran out
    (MemoryError, a thread that could not start), with what to do; anything else is a bug in
    brahmic_pua and keeps its traceback. Only click's public hooks are used: the errors are
    reworded where parsing (``make_context``) and running (``invoke``) raise them, and click's
    standalone mode shows them and exits."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        signal.signal(signal.SIGTERM, _terminate)
        try:
            return self.main(*args, **kwargs)
        except SystemExit as stop:
            if spm_running():
                _exit_now(stop.code)
            raise

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY_COMMANDS and cmd_name not in self.commands:
            module, attribute = LAZY_COMMANDS[cmd_name]
            found = importlib.import_module(f"brahmic_pua.cli.{module}")
            self.add_command(getattr(found, attribute), cmd_name)
        return super().get_command(ctx, cmd_name)

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise  # a group called bare: click shows its help, which is the answer
        except click.UsageError as error:
            raise OneLineUsageError(error) from None
        except KeyboardInterrupt:
            raise _interrupted() from None

    def invoke(self, ctx: click.Context) -> Any:
        # click itself turns a broken pipe into exit 1, so it is caught before click sees it.
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # Python's documented recipe: later flushes of stdout go nowhere instead of failing.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise click.exceptions.Exit(PIPE_CLOSED) from None
        except (OneLineError, click.exceptions.NoArgsIsHelpError):
            raise
        except click.UsageError as error:  # a subcommand's arguments, or no such command
            raise OneLineUsageError(error) from None
        except click.ClickException as error:
            if error.exit_code != OneLineError.exit_code:
                raise
            raise OneLineError(error.format_message()) from None
        except (ValueError, OSError) as error:
            raise OneLineError(expected(error)) from None
        except MemoryError as error:  # pyarrow's ArrowMemoryError too
            raise OneLineError(out_of_memory(error, ctx.invoked_subcommand)) from None
        except RuntimeError as error:
            if not thread_not_started(error):
                raise
            raise OneLineError(out_of_threads(ctx.invoked_subcommand)) from None
        except (KeyboardInterrupt, click.Abort):  # here, or click adds a blank line of its own
            raise _interrupted() from None


@click.group(cls=_Shell, context_settings=SETTINGS)
@click.version_option(package_name="brahmic-pua")
def main() -> None:
    """Tokenization for Brahmic scripts that never splits a cluster.

    Options are spelled with underscores, as SentencePiece spells its flags (--model_prefix,
    --vocab_size), and the dash form is the same option everywhere (--model-prefix)."""


@main.command("segment")
@click.option("--policy", type=POLICY, default="fixtoken", show_default=True, help=POLICY_HELP)
@INPUT
@OUTPUT
@click.option("--separator", default="|", show_default=True, help="Printed between clusters.")
@json_option("Print each line's clusters as a JSON list.")
def segment_command(
    policy: str, input_: BinaryIO, output: str | None, separator: str, as_json: bool
) -> None:
    """Split each line into orthographic clusters."""

    def show(line: str) -> str:
        clusters = segment(line, policy)
        return json.dumps(clusters, ensure_ascii=False) if as_json else separator.join(clusters)

    transform_lines(input_, output, show)


@main.command("normalize")
@click.option(
    "--mode",
    type=Choice(MODES),
    default="nfc",
    show_default=True,
    help="N: nfc, none, or nepali-lm / nepali-ocr (Nepali spelling variants folded).",
)
@INPUT
@OUTPUT
def normalize_command(mode: str, input_: BinaryIO, output: str | None) -> None:
    """Apply N to each line, e.g. before training another tool."""
    transform_lines(input_, output, normalizer(mode))


@main.group("codec")
def codec_group() -> None:
    """Build a cluster ↔ Private Use Area table and apply it."""


@codec_group.command("build")
@click.option(
    "--input",
    "inputs",
    multiple=True,
    required=True,
    type=click.File("rb"),
    help="UTF-8 corpus file (repeatable).",
)
@click.option(
    "--output",
    required=True,
    type=OutputFile(writable=True),
    help="Codec JSON file to write.",
)
@click.option("--policy", type=POLICY, default="fixtoken", show_default=True, help=POLICY_HELP)
@click.option(
    "--scripts",
    default=None,
    help="Comma-separated Brahmic scripts, e.g. telugu,devanagari (default: as seen).",
)
def codec_build(
    inputs: tuple[BinaryIO, ...], output: str, policy: str, scripts: str | None
) -> None:
    """Build a codec from corpus files."""
    chosen = comma_list(scripts) if scripts else None
    codec = PUACodec.build(
        (line for stream in inputs for line in input_lines(stream)), policy, chosen
    )
    codec.save(output)
    click.echo(f"{codec!r} -> {output}", err=True)


@codec_group.command("encode")
@CODEC
@INPUT
@OUTPUT
def codec_encode(codec_path: str, input_: BinaryIO, output: str | None) -> None:
    """Map each line's clusters to PUA code points."""
    transform_lines(input_, output, load_codec(codec_path).encode)


@codec_group.command("decode")
@CODEC
@INPUT
@OUTPUT
def codec_decode(codec_path: str, input_: BinaryIO, output: str | None) -> None:
    """Map PUA code points back to clusters."""
    transform_lines(input_, output, load_codec(codec_path).decode)


def _model_prefix(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """The trainer's own model_prefix rule, as a usage error (exit 2) before anything runs."""
    try:
        return check_model_prefix(value)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


@main.command("train", cls=PassThrough)
@click.option(
    "--input",
    "inputs",
    multiple=True,
    required=True,
    help="UTF-8 corpus file(s) or Parquet (*.parquet, with --text_column): repeat the option, "
    "separate them by commas, or give a glob.",
)
@TEXT_COLUMN
@click.option(
    "--model_prefix",
    required=True,
    callback=_model_prefix,
    help="Writes <prefix>.model and <prefix>.vocab.",
)
@click.option(
    "--vocab_size",
    type=int,
    default=DEFAULT_VOCAB_SIZE,
    show_default=True,
    help="Pieces in the model, the special and byte pieces included.",
)
@click.option(
    "--model_type",
    type=Choice(MODEL_TYPES),
    default="unigram",
    show_default=True,
    help="SentencePiece's algorithm.",
)
@click.option("--policy", type=POLICY, default="fixtoken", show_default=True, help=POLICY_HELP)
@click.option("--scripts", default=None, help="Comma-separated Brahmic scripts (default: as seen).")
@click.option(
    "--normalization",
    type=Choice(MODES),
    default="nfc",
    show_default=True,
    help="N applied before segmentation (nepali-lm folds spelling variants and drops ZWJ).",
)
@click.option(
    "--folding_rules",
    type=FILE,
    default=None,
    help="A folding table of your own for nepali-lm / nepali-ocr (pattern<TAB>replacement lines).",
)
@click.option(
    "--input_sentence_size",
    type=int,
    default=None,
    help="Train on N lines, sampled by a fixed seed (the first N with "
    "--shuffle_input_sentence=false) [default: all].",
)
@bool_option(
    "--progress",
    "Progress on stderr, phase by phase (scan, spm's training, rules, filters, writing): a live "
    "line on a terminal, a plain line every 10 s in a log; false for none [default: true].",
)
@bool_option(
    "--complete_word_starts",
    "Unigram: swap little-used pieces for the word starts (▁ + piece) that PUA training loses "
    "[default: true].",
)
@click.option(
    "--filters",
    default=None,
    help=f"Disable pieces after training, comma-separated: {','.join(FILTERS)}, or all.",
)
@click.option(
    "--seeds_strict",
    type=FILE,
    default=None,
    help="Seed file (V_strict, one seed per line) for the theta and seed-absorb filters.",
)
@click.option(
    "--seeds_ambiguous",
    type=FILE,
    default=None,
    help="Seed file (V_ambiguous, one seed per line) for the theta and seed-absorb filters.",
)
@bool_option("--nepali_seeds", "Add the shipped Nepali seeds (theta and seed-absorb filters).")
@click.option(
    "--theta",
    type=float,
    default=None,
    help=f"θ of the theta filter, as a count [default: {DEFAULT_THETA:g}].",
)
@click.option(
    "--theta_per_million",
    type=float,
    default=None,
    help="θ per million corpus words instead of a count.",
)
@click.option(
    "--engine",
    type=Choice(ENGINES),
    default="local",
    show_default=True,
    help="Count clusters here or on Ray (--ray_address=ADDR, else a local cluster); same model.",
)
@click.option(
    "--ray_address",
    default=None,
    help="With --engine ray: a running Ray cluster (e.g. ray://head:10001) [default: a local one].",
)
@click.pass_context
def train_command(
    ctx: click.Context,
    /,
    inputs: tuple[str, ...],
    model_prefix: str,
    vocab_size: int,
    model_type: str,
    policy: str,
    scripts: str | None,
    normalization: str,
    engine: str,
    **given: Any,
) -> None:
    """Train a SentencePiece model on clusters; any other spm_train flag passes through.

    The options below are brahmic_pua's own and the spm flags it reads itself. Every other
    SentencePiece trainer flag is accepted too, as --name=value (--num_threads=2,
    --character_coverage=0.9995, --user_defined_symbols=…), and passed on to spm's trainer."""
    flags = check_passed_flags(ctx.args, ctx)
    # Options not given are left out, so that the trainer's defaults hold; progress is on by
    # default in a shell (--progress=false turns it off).
    ours = {"progress": True, **{name: value for name, value in given.items() if value is not None}}
    try:
        train_model(
            input=",".join(inputs),  # each --input may itself list files by commas
            model_prefix=model_prefix,
            vocab_size=vocab_size,
            model_type=model_type,
            policy=policy,
            scripts=scripts,
            normalization=normalization,
            engine=engine,
            **ours,
            **flags,
        )
    except OptionError as error:  # a wrong option name or value: a usage error, exit 2
        raise click.UsageError(str(error), ctx) from None


@main.command("demo")
@click.option("--vocab_size", type=int, default=2000, show_default=True, help="Of both models.")
@click.option(
    "--model_type",
    type=Choice(["unigram", "bpe"]),
    default="unigram",
    show_default=True,
    help="SentencePiece's algorithm, for both models.",
)
def demo_command(vocab_size: int, model_type: str) -> None:
    """Train on the bundled Telugu/Hindi sample; compare with plain spm."""
    from . import demo

    click.echo(f"training brahmic_pua and plain spm ({model_type}, vocab {vocab_size}) ...")
    examples, summary = demo.run(vocab_size, model_type)
    for row in examples:
        click.echo(f"\n{row.text}")
        click.echo(f"  brahmic_pua: {demo.mark(row.ours)}")
        click.echo(f"  plain spm:   {demo.mark(row.plain)}")
    click.echo(f"\n«piece» = starts with a dependent mark (renders on a dotted circle)\n{summary}")
    click.echo(
        "byte fallback: a cluster the vocabulary has no piece for (rare clusters such as सॉ, many "
        "in a sample this small) is spelled in its UTF-8 bytes, never cut before a mark; plain "
        "spm cuts it instead, hence its orphan marks"
    )


@main.command("scripts")
def scripts_command() -> None:
    """List the Brahmic scripts the tables cover."""
    click.echo("\n".join(SCRIPT_NAMES))


if __name__ == "__main__":
    main()
