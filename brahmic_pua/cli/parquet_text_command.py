"""``brahmic-pua parquet-text``: a Parquet file's text column written as a text file, the lines
``train``, ``eval`` and ``encode-corpus`` read from it (brahmic_pua.io.parquet), for the commands
that read text alone (``encode``, ``audit``, ``repair``, ``filter --corpus``, ...): their error
for a Parquet file names this command."""

from __future__ import annotations

import click

from brahmic_pua.io.lines import BOM, batched
from brahmic_pua.io.parquet import DEFAULT_COLUMN, parquet_lines

from .common import FILE, OUTPUT, SETTINGS, TEXT_COLUMN, Command, one_line_errors, output_stream


@click.command("parquet-text", cls=Command, context_settings=SETTINGS)
@click.argument("source", type=FILE)
@TEXT_COLUMN
@OUTPUT
def parquet_text_command(source: str, text_column: str | None, output: str | None) -> None:
    """Write the lines of SOURCE's --text_column (a Parquet file), one a line, UTF-8: the text
    file that every command reads as the lines train reads from SOURCE (a first line that
    starts with a byte order mark gets one more, which the reader drops)."""
    with one_line_errors(), output_stream(output) as sink:
        first = True
        for lines in batched(parquet_lines(source, text_column or DEFAULT_COLUMN)):
            text = "\n".join(lines) + "\n"
            if first and text.startswith(BOM):  # the reader drops a file's first BOM
                text = BOM + text
            first = False
            sink.write(text.encode("utf-8"))
