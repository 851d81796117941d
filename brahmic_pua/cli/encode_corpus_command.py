"""``brahmic-pua encode-corpus``: text and Parquet files in, token-id shards out (see
brahmic_pua.integrations.shards)."""

from __future__ import annotations

import click

from brahmic_pua.integrations.shards import DEFAULT_SHARD_BYTES, encode_corpus
from brahmic_pua.io.lines import expand_inputs
from brahmic_pua.io.wording import counted
from brahmic_pua.trainer.engine import ENGINES
from brahmic_pua.trainer.ray_count import import_ray

from .common import (
    MODEL,
    SETTINGS,
    TEXT_COLUMN,
    Choice,
    Command,
    bool_option,
    checked_text_column,
)


@click.command("encode-corpus", cls=Command, context_settings=SETTINGS)
@MODEL
@click.option(
    "--output",
    required=True,
    type=click.Path(file_okay=False),
    help="Directory for the shards and index.json (created; rerun to resume; one run at a time).",
)
@click.argument("inputs", nargs=-1, required=True)
@click.option(
    "--shard_bytes",
    type=click.IntRange(min=1),
    default=None,
    help=f"Input text per shard, cut at a line end [default: {DEFAULT_SHARD_BYTES}].",
)
@click.option("--shard_lines", type=click.IntRange(min=1), default=None, help="Lines per shard.")
@click.option(
    "--engine",
    type=Choice(ENGINES),
    default="local",
    show_default=True,
    help="Encode here (processes) or on Ray (actors); the same shards.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Processes (local) or Ray actors (ray), each encoding one shard at a time.",
)
@click.option(
    "--ray_address",
    default=None,
    help="A running Ray cluster (e.g. ray://head:10001); default: a local one.",
)
@TEXT_COLUMN
@bool_option("--progress", "Progress on stderr; false for none [default: true].")
def encode_corpus_command(
    model_path: str,
    output: str,
    inputs: tuple[str, ...],
    shard_bytes: int | None,
    shard_lines: int | None,
    engine: str,
    workers: int,
    ray_address: str | None,
    text_column: str | None,
    progress: bool | None,
) -> None:
    """Encode FILE… (text files, Parquet files named *.parquet whose --text_column rows are the
    lines as train reads them, or quoted globs) into .npy id shards: each line's ids, then
    eos."""
    if shard_bytes is not None and shard_lines is not None:
        raise click.UsageError("give --shard_bytes or --shard_lines, not both")
    try:  # the files the globs name, as the run expands them
        names = expand_inputs(inputs)
    except ValueError:  # (the run says what is wrong with them)
        names = list(inputs)
    checked_text_column(text_column, names)
    if engine == "ray":  # before anything is created: no empty output directory without Ray
        import_ray()
    index = encode_corpus(
        model_path,
        inputs,
        output,
        shard_bytes=shard_bytes,
        shard_lines=shard_lines,
        engine=engine,
        workers=workers,
        ray_address=ray_address,
        progress=progress is not False,
        text_column=text_column,
    )
    click.echo(
        f"wrote {counted(len(index['shards']), 'shard')}, {counted(index['tokens'], 'token')} "
        f"({index['dtype']}) of {counted(index['lines'], 'line')} to {output}",
        err=True,
    )
