"""Which files are Parquet, and the one line for a Parquet file given where text is read.

``train``, ``eval`` and ``encode-corpus`` read Parquet (:mod:`brahmic_pua.io.parquet`); every
other reader of text (``encode``'s input, ``audit``, ``repair``, ``filter --corpus``, a seed
file, a vocabulary) reads a file as UTF-8 lines. Such a reader given a Parquet file used to
say it is "not UTF-8 ... convert it with iconv", advice that cannot work. The one line reader
(:mod:`brahmic_pua.io.lines`) asks here instead, before it decodes a line, and says what reads
Parquet and how to write the column as text.

A file is Parquet by its name (``*.parquet``, any case: the rule ``train`` reads it by) or by
its first bytes: the magic ``PAR1`` and then the byte 0x15 with which every Parquet file goes
on (the compact-thrift field header of a page header, or of the footer of a file without
rows). No text file starts so: 0x15 is a control character (NAK) no text holds.
"""

from __future__ import annotations

import os
import shlex

SUFFIX = ".parquet"
#: The first bytes of every Parquet file (see above).
MAGIC = b"PAR1\x15"


def is_parquet(name: str) -> bool:
    """Whether ``name`` is read as Parquet: by its suffix, as a text file is any other name."""
    return name.lower().endswith(SUFFIX)


def parquet_not_text(name: str, head: bytes) -> str | None:
    """The one error line for a Parquet file read as text (``head``: its first bytes, at least
    :data:`MAGIC`'s length where the file has them; ``name``: the file, or "input stdin"), or
    None for a file that is not Parquet."""
    if not (is_parquet(name) or head.startswith(MAGIC)):
        return None
    given, written = (
        (name, _text_name(name)) if os.path.isfile(name) else ("FILE.parquet", "FILE.txt")
    )
    return (
        f"{name} is Parquet, and this reads text: train, eval and encode-corpus read Parquet "
        "files named *.parquet (--text_column names the column); for anything else write "
        f"the column as text first: brahmic-pua parquet-text {shlex.quote(given)} --output "
        f"{shlex.quote(written)}"
    )


def _text_name(name: str) -> str:
    """Where the advice writes the text: beside the file, its suffix made .txt."""
    if is_parquet(name):
        return name[: -len(SUFFIX)] + ".txt"
    return name + ".txt"
