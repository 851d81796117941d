"""Flat id arrays in NumPy's ``.npy`` format (version 1.0), written and read without NumPy.

LM training loaders (nanoGPT's ``np.memmap(path, dtype=np.uint16, mode="r", offset=...)``,
``np.load(path, mmap_mode="r")``) read ``.npy`` directly, so shards need no converter; writing
the format by hand keeps NumPy out of brahmic_pua's dependencies. The header has a fixed size
(:data:`HEADER_BYTES`), so a shard is streamed to disk and its length filled in at the end, and
a loader that skips the header with ``offset=HEADER_BYTES`` needs no parsing.
"""

from __future__ import annotations

import ast
import struct
import sys
from array import array
from pathlib import Path
from typing import BinaryIO

from brahmic_pua.io.wording import counted

MAGIC = b"\x93NUMPY\x01\x00"
#: Header size, magic included: a multiple of 64 as NumPy writes it, room for any 1-D shape.
HEADER_BYTES = 128
#: NumPy's little-endian descr of each dtype, and the array typecode of the same item size.
DTYPES = {"uint16": ("<u2", "H"), "uint32": ("<u4", "I" if array("I").itemsize == 4 else "L")}


def dtype_for(vocab_size: int) -> str:
    """The smallest unsigned dtype that holds every id of a vocabulary."""
    return "uint16" if vocab_size <= 1 << 16 else "uint32"


def header(dtype: str, count: int) -> bytes:
    """The 128-byte header of a 1-D C-order array of ``count`` items."""
    descr = DTYPES[dtype][0]
    text = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({count},), }}"
    room = HEADER_BYTES - len(MAGIC) - 2 - 1
    return MAGIC + struct.pack("<H", room + 1) + text.ljust(room).encode("latin-1") + b"\n"


def id_array(dtype: str) -> array[int]:
    """An empty array of ``dtype``'s item size, for :func:`write_ids`."""
    return array(DTYPES[dtype][1])


def write_ids(stream: BinaryIO, ids: array[int]) -> None:
    """Append ids little-endian, as the header's descr says, whatever this machine's order."""
    if sys.byteorder == "big":
        ids = array(ids.typecode, ids)
        ids.byteswap()
    stream.write(ids.tobytes())


def read_ids(path: str | Path) -> tuple[str, array[int]]:
    """The dtype and items of a 1-D ``.npy`` of uint16 or uint32 (any header size, format 1.0
    to 3.0), for machines without NumPy and for checking shards."""
    with open(path, "rb") as stream:
        data = stream.read()
    if data[:6] != MAGIC[:6] or len(data) < 10:
        raise ValueError(f"{path} is not a .npy file")
    major = data[6]
    size_format, start = ("<H", 10) if major == 1 else ("<I", 12)
    (length,) = struct.unpack(size_format, data[8:start])
    fields = ast.literal_eval(data[start : start + length].decode("latin-1"))
    names = {descr: name for name, (descr, _) in DTYPES.items()}
    if fields.get("descr") not in names or fields.get("fortran_order") or len(fields["shape"]) != 1:
        raise ValueError(f"{path} is not a 1-D array of uint16 or uint32: {fields}")
    dtype = names[fields["descr"]]
    ids = id_array(dtype)
    ids.frombytes(data[start + length :])
    if sys.byteorder == "big":
        ids.byteswap()
    if len(ids) != fields["shape"][0]:
        raise ValueError(
            f"{path} holds {counted(len(ids), 'item')}, its header says {fields['shape'][0]}"
        )
    return dtype, ids
