"""``brahmic-pua repair``: fixToken for a plain SentencePiece model people already have.

A thin shell over :mod:`brahmic_pua.evaluation.repair`: with ``--output`` alone it writes a copy of
the
model whose mark-start pieces are UNUSED (and its .vocab); with ``--ids`` it repairs id lines
(spm_encode --output_format=id's) so every token starts at a cluster boundary. Bad input
(ValueError, OSError) becomes one error line in the ``brahmic-pua`` group.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

import click

from brahmic_pua.evaluation.repair import IdRepair, Measure, load_plain, measure, repair_vocabulary
from brahmic_pua.io.wording import counted
from brahmic_pua.model.model_file import read_model_file

from .common import (
    SETTINGS,
    Command,
    OutputFile,
    bool_option,
    check_model_output,
    input_lines,
    inputs_option,
    model_option,
    output_stream,
    parse_ids,
    read_texts,
    write_model,
)


def _name(stream: BinaryIO) -> str:
    name = getattr(stream, "name", "<stdin>")
    return "stdin" if name == "<stdin>" else str(name)


def _id_lines(stream: BinaryIO) -> Iterator[list[int]]:
    """Each line's whitespace-separated ids (lines read as every command reads them);
    anything else is one error naming the line."""
    for number, line in enumerate(input_lines(stream), 1):
        try:
            yield parse_ids(line)
        except ValueError:
            excerpt = line.strip()[:40]
            raise click.ClickException(
                f"{_name(stream)} line {number}: not a list of ids: {excerpt!r}"
            ) from None


def _repair_ids(model_path: str, stream: BinaryIO, output: str | None, use_bytes: bool) -> None:
    repair = IdRepair.from_file(model_path, use_bytes=use_bytes)
    tokens = [0, 0]
    orphans = [0, 0]
    lines = 0
    with output_stream(output) as sink:
        for lines, ids in enumerate(_id_lines(stream), 1):
            try:
                fixed = repair.repair(ids)
            except IndexError as error:
                raise click.ClickException(f"{_name(stream)} line {lines}: {error}") from None
            sink.write(" ".join(map(str, fixed)).encode("ascii") + b"\n")
            for n, row in enumerate((ids, fixed)):
                tokens[n] += len(row)
                orphans[n] += sum(i in repair.orphans for i in row)
    click.echo(
        f"{counted(lines, 'line')}: {tokens[0]:,} → {counted(tokens[1], 'token')}, "
        f"orphan-mark tokens {orphans[0]:,} → {orphans[1]:,}",
        err=True,
    )


def _table(before: Measure, after: Measure) -> list[str]:
    rows = [f"{'':8}{'tokens':>10}{'fertility':>11}{'orphan marks/1000':>19}"]
    for name, m in (("before", before), ("after", after)):
        rows.append(f"{name:8}{m.tokens:>10,}{m.fertility:>11.3f}{m.orphans_per_1000:>19.1f}")
    return rows


def _repair_vocabulary(
    model_path: str, output: str, keep_lone_marks: bool, inputs: tuple[str, ...]
) -> None:
    check_model_output(output)
    data = read_model_file(model_path)
    fixed, report = repair_vocabulary(data, keep_lone_marks=keep_lone_marks, source=model_path)
    texts = read_texts(inputs) if inputs else []
    write_model(output, fixed)
    for line in report.lines():
        click.echo(line)
    if texts:
        results = []
        for model in (data, fixed):
            processor = load_plain(model, model_path)
            results.append(measure(processor, processor.encode(texts), texts))
        for line in _table(*results):
            click.echo(line)


@click.command("repair", cls=Command, context_settings=SETTINGS)
# No notice for a plain model: a plain model is the only input repair takes (a brahmic_pua
# one is refused in one line, brahmic_pua.evaluation.repair.load_plain).
@model_option("A plain spm .model.", plain_expected=True)
@click.option(
    "--output",
    type=OutputFile(),
    help="The repaired .model (its .vocab is written beside); with --ids, the repaired ids "
    "(default: stdout).",
)
@click.option(
    "--ids",
    "ids",
    type=click.File("rb"),
    help="Repair ids instead: lines of space-separated ids made with --model ('-': stdin).",
)
@bool_option(
    "--no_bytes",
    "With --ids: keep a span's ids when a cluster has no piece, instead of byte pieces "
    "[default: false].",
)
@bool_option(
    "--keep_lone_marks",
    "Keep one-mark pieces in the vocabulary even with byte fallback (fewer tokens, some orphan "
    "marks) [default: false].",
)
@inputs_option("Held-out text: print tokens, fertility and orphan marks before/after (repeatable).")
def repair_command(
    model_path: str,
    output: str | None,
    ids: BinaryIO | None,
    no_bytes: bool | None,
    keep_lone_marks: bool | None,
    inputs: tuple[str, ...],
) -> None:
    """Repair a plain model so that no token starts with a dependent mark: set its mark-start
    pieces UNUSED (--output), or move the boundaries of its ids to cluster boundaries (--ids)."""
    if ids is not None and (keep_lone_marks or inputs):
        raise click.UsageError("--keep_lone_marks and --input repair a vocabulary, not --ids")
    if ids is None and no_bytes:
        raise click.UsageError("--no_bytes applies to --ids")
    if ids is not None:
        _repair_ids(model_path, ids, output, not no_bytes)
    elif output:
        _repair_vocabulary(model_path, output, bool(keep_lone_marks), inputs)
    else:
        raise click.UsageError("give --output for the repaired model, or --ids to repair ids")
