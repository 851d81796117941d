"""Every name sentencepiece 0.2.3's processor answers to, from one table of (family, out type).

Stock's wrapper spells one call many ways: ``EncodeAsIds`` is ``Encode(out_type=int)``,
``SampleEncodeAsPieces`` is ``Encode(out_type=str, enable_sampling=True)``, ``DecodeIds`` is
``Decode``, and each CamelCase name has a snake_case twin (``encode_as_ids``). brahmic_pua's
processor answers to the same names: :data:`SPELLINGS` lists them once, :class:`Spelled` writes
the calls as stock writes them (plain methods, one per family row), and :func:`install` gives
each its names. The types callers see for each name are generated from the same table by
``tools/processor_stub.py`` into ``processor.pyi`` (its docstring says how that is checked).

A row ``(family, out_type): names`` is one of two things:

* ``family`` a method of the processor and ``out_type`` None: that method under other names
  (``("encode", None): ("Encode", "Tokenize")``);
* ``family`` in :data:`FAMILIES`: a method of :class:`Spelled` calling the family's method with
  that out type and the family's fixed keywords (None: the caller's ``return_type``, for
  ``DecodeIds``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from brahmic_pua.runtime.signatures import OutType


@dataclass(frozen=True)
class Family:
    """Spellings that call one method: ``method`` (looked up on the instance, so that a
    subclass's override is called, as in stock), the keywords they name before ``**options``
    (positional too, default None, passed on by name), and the keywords they fix."""

    method: str
    takes: tuple[str, ...] = ()
    fixes: Mapping[str, object] = field(default_factory=dict)


FAMILIES: Mapping[str, Family] = {
    "encode": Family("Encode"),
    "sample_encode": Family("Encode", ("nbest_size", "alpha"), {"enable_sampling": True}),
    "nbest_encode": Family("nbest_encode", ("nbest_size",)),
    "parallel_encode": Family("parallel_encode"),
    # One call in stock; two families here, as the types of what they take differ.
    "decode_ids": Family("Decode"),
    "decode_pieces": Family("Decode"),
}

#: (family, out_type) -> its names, CamelCase as stock's wrapper spells them; each also gets
#: stock's snake_case name (:func:`snake`). The core methods (``encode``, ``nbest_encode``,
#: ``parallel_encode``, ``decode``) are written out in processor.py.
SPELLINGS: Mapping[tuple[str, OutType], tuple[str, ...]] = {
    ("encode", None): ("Encode", "Tokenize"),
    ("encode", int): ("EncodeAsIds",),
    ("encode", str): ("EncodeAsPieces",),
    ("encode", "numpy"): ("EncodeAsNumpy",),
    ("encode", "proto"): ("EncodeAsProto",),
    ("encode", "offset_mapping"): ("EncodeAsOffsetMapping",),
    ("sample_encode", int): ("SampleEncodeAsIds",),
    ("sample_encode", str): ("SampleEncodeAsPieces",),
    ("sample_encode", "numpy"): ("SampleEncodeAsNumpy",),
    ("sample_encode", "proto"): ("SampleEncodeAsProto",),
    ("nbest_encode", None): ("NBestEncode",),
    ("nbest_encode", int): ("NBestEncodeAsIds",),
    ("nbest_encode", str): ("NBestEncodeAsPieces",),
    ("nbest_encode", "numpy"): ("NBestEncodeAsNumpy",),
    ("nbest_encode", "proto"): ("NBestEncodeAsProto",),
    ("parallel_encode", None): ("ParallelEncode",),
    ("parallel_encode", int): ("ParallelEncodeAsIds",),
    ("parallel_encode", str): ("ParallelEncodeAsPieces",),
    ("parallel_encode", "numpy"): ("ParallelEncodeAsNumpy",),
    ("parallel_encode", "proto"): ("ParallelEncodeAsProto",),
    ("decode", None): ("Decode", "Detokenize"),
    ("decode_ids", None): ("DecodeIds",),
    ("decode_ids", "proto"): ("DecodeIdsAsProto",),
    ("decode_pieces", None): ("DecodePieces",),
    ("decode_pieces", "proto"): ("DecodePiecesAsProto",),
    ("normalize", None): ("Normalize",),
    ("calculate_entropy", None): ("CalculateEntropy",),
    ("load", None): ("Load",),
    ("load_from_file", None): ("LoadFromFile",),
    ("load_from_serialized_proto", None): ("LoadFromSerializedProto",),
    ("id_to_piece", None): ("IdToPiece",),
    ("piece_to_id", None): ("PieceToId",),
    ("get_piece_size", None): ("GetPieceSize", "piece_size", "vocab_size"),
    ("get_score", None): ("GetScore",),
    ("is_unknown", None): ("IsUnknown",),
    ("is_control", None): ("IsControl",),
    ("is_unused", None): ("IsUnused",),
    ("is_byte", None): ("IsByte",),
    ("script_ids", None): ("ScriptIds",),
}


def snake(name: str) -> str:
    """Stock's snake_case of a CamelCase name (its ``_add_snake_case``): ``NBestEncodeAsIds``
    -> ``nbest_encode_as_ids``; a snake_case name stays as it is."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower().replace("n_best", "nbest")


def names(family: str, out_type: OutType) -> list[str]:
    """The names of one row: its CamelCase names and their snake_case twins, in that order."""
    spelled = SPELLINGS[family, out_type]
    return [*spelled, *(snake(name) for name in spelled if snake(name) not in spelled)]


#: The families whose out_type-None row is a method written out in processor.py (whose
#: overloads are the family's, in the stub).
WRITTEN = frozenset({"encode", "nbest_encode", "parallel_encode", "decode"})


def is_alias(family: str, out_type: OutType) -> bool:
    """A method under other names, rather than a function of a family."""
    return family not in FAMILIES or (out_type is None and family in WRITTEN)


def takes(family: str, out_type: OutType) -> tuple[str, ...]:
    """The keywords a family's function names before ``**options`` (all default None)."""
    return ("return_type",) if out_type is None else FAMILIES[family].takes


class Spelled:
    """The spellings that call a family's method with a fixed out type (or pass the caller's
    ``return_type`` on), written as stock 0.2.3's wrapper writes them: ``EncodeAsIds`` is
    ``def EncodeAsIds(self, input, **kwargs): return self.Encode(input=input, return_type=int,
    **kwargs)``. Each is named here by its snake_case name (the one tracebacks show);
    :func:`install` gives it its CamelCase names. The method a spelling calls is looked up on the
    instance, so that a subclass's override is called, as in stock. tests/runtime/test_spellings.py
    checks these against :data:`SPELLINGS` (one method per family row, taking the row's
    keywords) and against stock's results."""

    def encode_as_ids(self: Any, input: Any, **options: Any) -> Any:
        return self.Encode(input, return_type=int, **options)

    def encode_as_pieces(self: Any, input: Any, **options: Any) -> Any:
        return self.Encode(input, return_type=str, **options)

    def encode_as_numpy(self: Any, input: Any, **options: Any) -> Any:
        return self.Encode(input, return_type="numpy", **options)

    def encode_as_proto(self: Any, input: Any, **options: Any) -> Any:
        return self.Encode(input, return_type="proto", **options)

    def encode_as_offset_mapping(self: Any, input: Any, **options: Any) -> Any:
        return self.Encode(input, return_type="offset_mapping", **options)

    def sample_encode_as_ids(
        self: Any, input: Any, nbest_size: Any = None, alpha: Any = None, **options: Any
    ) -> Any:
        return self.Encode(
            input,
            nbest_size=nbest_size,
            alpha=alpha,
            enable_sampling=True,
            return_type=int,
            **options,
        )

    def sample_encode_as_pieces(
        self: Any, input: Any, nbest_size: Any = None, alpha: Any = None, **options: Any
    ) -> Any:
        return self.Encode(
            input,
            nbest_size=nbest_size,
            alpha=alpha,
            enable_sampling=True,
            return_type=str,
            **options,
        )

    def sample_encode_as_numpy(
        self: Any, input: Any, nbest_size: Any = None, alpha: Any = None, **options: Any
    ) -> Any:
        return self.Encode(
            input,
            nbest_size=nbest_size,
            alpha=alpha,
            enable_sampling=True,
            return_type="numpy",
            **options,
        )

    def sample_encode_as_proto(
        self: Any, input: Any, nbest_size: Any = None, alpha: Any = None, **options: Any
    ) -> Any:
        return self.Encode(
            input,
            nbest_size=nbest_size,
            alpha=alpha,
            enable_sampling=True,
            return_type="proto",
            **options,
        )

    def nbest_encode_as_ids(self: Any, input: Any, nbest_size: Any = None, **options: Any) -> Any:
        return self.nbest_encode(input, nbest_size=nbest_size, return_type=int, **options)

    def nbest_encode_as_pieces(
        self: Any, input: Any, nbest_size: Any = None, **options: Any
    ) -> Any:
        return self.nbest_encode(input, nbest_size=nbest_size, return_type=str, **options)

    def nbest_encode_as_numpy(self: Any, input: Any, nbest_size: Any = None, **options: Any) -> Any:
        return self.nbest_encode(input, nbest_size=nbest_size, return_type="numpy", **options)

    def nbest_encode_as_proto(self: Any, input: Any, nbest_size: Any = None, **options: Any) -> Any:
        return self.nbest_encode(input, nbest_size=nbest_size, return_type="proto", **options)

    def parallel_encode_as_ids(self: Any, input: Any, **options: Any) -> Any:
        return self.parallel_encode(input, return_type=int, **options)

    def parallel_encode_as_pieces(self: Any, input: Any, **options: Any) -> Any:
        return self.parallel_encode(input, return_type=str, **options)

    def parallel_encode_as_numpy(self: Any, input: Any, **options: Any) -> Any:
        return self.parallel_encode(input, return_type="numpy", **options)

    def parallel_encode_as_proto(self: Any, input: Any, **options: Any) -> Any:
        return self.parallel_encode(input, return_type="proto", **options)

    def decode_ids(self: Any, input: Any, return_type: Any = None, **options: Any) -> Any:
        return self.Decode(input, return_type=return_type, **options)

    def decode_ids_as_proto(self: Any, input: Any, **options: Any) -> Any:
        return self.Decode(input, return_type="proto", **options)

    def decode_pieces(self: Any, input: Any, return_type: Any = None, **options: Any) -> Any:
        return self.Decode(input, return_type=return_type, **options)

    def decode_pieces_as_proto(self: Any, input: Any, **options: Any) -> Any:
        return self.Decode(input, return_type="proto", **options)


def install(cls: type) -> None:
    """Give ``cls`` every name of :data:`SPELLINGS`: a family row's names are its
    :class:`Spelled` method (``cls`` must derive from it), an alias row's names the method it
    aliases (which must be ``cls``'s), as stock's ``_add_snake_case`` and its own aliases do."""
    for family, out_type in SPELLINGS:
        row = names(family, out_type)
        function = getattr(cls, family if is_alias(family, out_type) else row[-1])
        for name in row:
            setattr(cls, name, function)
