"""The one reader of a ``.model`` file: its size and first bytes checked before it is read whole.

A model file is untrusted input, and so is its path: ``--model /dev/zero`` once grew to 16.5
GB before it was killed, and a 540 MB corpus given by mistake was read whole just to be called
"a text file". So :func:`read_model_file` looks before it reads, through the one bounded reader
(:func:`~brahmic_pua.io.bounded.read_bounded`):

* the size, from ``fstat``: a regular file larger than :data:`MAX_MODEL_BYTES` is refused
  without reading a byte;
* the first :data:`~brahmic_pua.io.bounded.HEAD_BYTES` (64 KiB): text (a corpus, a
  ``.vocab``, JSON: the usual mix-ups) is named as such, and bytes whose top-level fields are
  not protobuf's wire format (a field number 0, a wire type protobuf has not, a field running
  past the file's end) are refused there;
* the rest is read in chunks, and a file that is not regular (a FIFO, a device, ``/proc``)
  stops at :data:`MAX_MODEL_BYTES` too, whatever it claims.

Every refusal is one line of :class:`~brahmic_pua.model.manifest.ModelFileError` naming the
file, what is wrong and what to give instead. Everything that loads a model from a path reads
it here (the processor, the normalizer, ``filter``, ``repair``, sharded encoding).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from brahmic_pua.io.bounded import TooLarge, read_bounded
from brahmic_pua.io.wording import counted
from brahmic_pua.model.manifest import ModelReadError, NotAModelError, _not_a_model, _text_head

#: The largest model file read: protobuf parses no message of 2 GiB or more (its sizes are
#: 32-bit signed), so a larger file could never load; the biggest real models are far smaller
#: (a 256,000-piece model is about 5 MB).
MAX_MODEL_BYTES: Final[int] = (2 << 30) - 1
_FIX = "give the .model file that training wrote"
#: Protobuf's wire types: varint, 64-bit, length-delimited, group start, 32-bit.
_WIRE_TYPES = frozenset({0, 1, 2, 3, 5})


def read_model_file(path: str | Path) -> bytes:
    """The bytes of the model file ``path``; one-line :class:`ModelFileError` for a file that
    cannot be read, is too large, or does not start as a ModelProto."""
    name = str(path)
    try:
        return read_bounded(
            path, MAX_MODEL_BYTES, "model", head=lambda head, size: _check_head(head, name, size)
        )
    except TooLarge as error:
        raise _too_large(name, error.size) from None
    except OSError as error:
        raise ModelReadError(f"cannot read model {name}: {error.strerror}") from None


def _too_large(name: str, size: str) -> NotAModelError:
    return NotAModelError(
        f"{name}: not a SentencePiece model: {size}, more than the {MAX_MODEL_BYTES:,} bytes "
        f"protobuf parses at most; {_FIX}"
    )


def _check_head(head: bytes, name: str, size: int | None) -> None:
    """Refuse a file whose first bytes are no ModelProto: text (named as such, with the
    ``.model`` beside it when there is one; a serialized model has control bytes in its first
    few), or a top-level field protobuf would refuse."""
    reason = _wire_error(head, size)
    if reason is not None or _text_head(head).strip():
        raise _not_a_model(head, name, reason or "text")


def _wire_error(head: bytes, size: int | None) -> str | None:
    """Why the top-level fields in ``head`` cannot start a protobuf message ``size`` bytes
    long (None: unknown), or None. Only what protobuf itself refuses is refused; the walk
    stops at a group (ModelProto has none, but protobuf skips an unknown one) and at the end
    of ``head``."""
    at = 0
    while at < len(head):
        start = at
        tag, at = _varint(head, at)
        if tag is None:
            return _cut(head, start, at)
        field, wire = tag >> 3, tag & 7
        if field == 0 or wire not in _WIRE_TYPES:
            return f"byte {start} is {head[start]:#04x}: no protobuf field starts so"
        if wire == 3:
            return None
        if wire in (0, 2):
            value, after = _varint(head, at)
            if value is None:
                return _cut(head, start, after)
            at = after + (value if wire == 2 else 0)
        else:
            at += 8 if wire == 1 else 4
        if size is not None and at > size:
            end = counted(size, "byte")
            return f"field {field} at byte {start} runs past the end of the file ({end})"
    return None


def _cut(head: bytes, start: int, at: int) -> str | None:
    """A varint longer than protobuf's 10 bytes is an error; one cut by the end of ``head``
    is not known to be one."""
    return None if at >= len(head) else f"byte {start}: a varint longer than 10 bytes"


def _varint(data: bytes, at: int) -> tuple[int | None, int]:
    """The varint at ``at`` and the offset after it; None when it is cut by the end of
    ``data`` (offset: the end) or longer than protobuf's 10 bytes (offset: before the end)."""
    value = 0
    for n in range(10):
        if at + n >= len(data):
            return None, len(data)
        byte = data[at + n]
        value |= (byte & 0x7F) << (7 * n)
        if byte < 0x80:
            return value, at + n + 1
    return None, at
