"""``brahmic-pua patch-table``: write (or check) the C++ header of the SentencePiece patch."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from brahmic_pua.evaluation.patch_table import (
    REGENERATE,
    header_is_current,
    render_header,
    write_header,
)

from .common import SETTINGS, Command, OutputFile


@click.command("patch-table", cls=Command, context_settings=SETTINGS)
@click.option(
    "--output",
    type=OutputFile(),
    help="Write the header here, atomically (default: stdout).",
)
@click.option(
    "--check",
    "check_path",
    type=click.Path(dir_okay=False),
    help="Exit 1 if this header differs from a fresh one, instead of writing.",
)
def patch_command(output: str | None, check_path: str | None) -> None:
    """Generate patches/brahmic_dependents.h from brahmic_pua's character classes."""
    if output and check_path:
        raise click.UsageError("give --output or --check, not both")
    if check_path:
        if not header_is_current(check_path):
            state = "is out of date" if Path(check_path).exists() else "does not exist"
            raise click.ClickException(f"{check_path} {state}; run `{REGENERATE}`")
        click.echo(f"{check_path} is current", err=True)
    elif output:
        write_header(output)
        click.echo(f"wrote {output}", err=True)
    else:
        sys.stdout.write(render_header())
