"""What spm_encode's and spm_decode's flags mean, for ``brahmic-pua encode`` and ``decode``.

SentencePiece's two tools (src/spm_encode_main.cc, src/spm_decode_main.cc) set options on the
C++ processor that sentencepiece's Python API does not expose: ``SetEncodeExtraOptions`` and
``SetDecodeExtraOptions`` (``--extra_options``), ``LoadVocabulary`` (``--vocabulary``), and
``SampleEncode`` as the tool calls it (``--nbest_size`` 0 or 1 is no error there). Each is
rebuilt here on the processor's public API, with the tool's meaning:

* ``--extra_options`` (:func:`extra_options`): ``bos``, ``eos``, ``reverse``, ``unk`` (or
  ``unk_piece``), colon-separated, applied in the order written, as spm applies them:
  ``bos:reverse`` puts ``<s>`` last, ``reverse:bos`` first. Empty parts are skipped, as spm's
  splitter skips them. On a model with no unknown piece (``unk_id() == -1``: stock loads one
  with byte fallback) ``unk`` changes nothing, as no piece is the unknown one; a piece that is
  not in such a model decodes as written, as stock's decoder gives it.
* ``--vocabulary`` (:func:`restricted`): spm's ``SetVocabulary`` rule on a copy of the model: a
  piece neither listed (shown or as the model holds it) nor one character is disabled. spm
  changes every other piece too, and two of those changes are left out: a piece the model
  itself disables (``UNUSED``: a mark-start or filtered piece) stays disabled, where spm would
  enable it again when listed or one character; and byte pieces keep their type (spm makes
  them ``NORMAL`` or ``UNUSED``, but its byte fallback emits them all the same, and stock's
  loader refuses a byte-fallback model whose 256 byte pieces are not bytes).
* Sampling (:func:`sampling`) and n-best (:func:`check_nbest`) as the tool calls them; the
  output lines (:func:`encoder`) as the tool writes them: one line per input line, one per
  candidate for ``nbest_*``, and a proto in protobuf's text format followed by an empty line
  (what ``Utf8DebugString`` printed until spm 0.1.8 commented the printing out: stock's tool
  now computes the proto and prints nothing).
* ``--random_seed`` (:func:`seed`): spm's ``SetRandomGeneratorSeed``.
* ``--generate_vocabulary`` (:func:`vocabulary_counts`): ``piece<TAB>count`` of every piece but
  unknown and control ones, by count, then by piece.

Pieces are the processor's: on a brahmic_pua model shown as the text they stand for, with the
ids stock sentencepiece gives on the same text.
"""

from __future__ import annotations

import importlib
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, TypeVar

from brahmic_pua import SentencePieceProcessor, set_random_generator_seed
from brahmic_pua.io.lines import bounded_lines
from brahmic_pua.model.model_proto import NORMAL, UNUSED, model_type, parse_model

_text_format: Any = importlib.import_module("google.protobuf.text_format")

#: spm_encode's --output_format values, in its order.
ENCODE_FORMATS: Final = (
    "piece",
    "id",
    "proto",
    "sample_piece",
    "sample_id",
    "sample_proto",
    "nbest_piece",
    "nbest_id",
    "nbest_proto",
)
#: The largest ``--vocabulary`` file read: one line per piece, a piece and its count, is some
#: 20-50 MB for a model of 1,000,000 pieces (a 2,000-piece Telugu model's is 41 KB); a file
#: past this is no vocabulary (``--vocabulary /dev/zero`` grew to a MemoryError at 2.9 GB).
MAX_VOCABULARY_BYTES: Final = 128 << 20
#: spm_decode's --input_format and --output_format values.
DECODE_INPUTS: Final = ("piece", "id")
DECODE_FORMATS: Final = ("string", "proto")
#: The names spm's ParseExtraOptions knows; ``unk_piece`` is spm's other name for ``unk``.
EXTRA_OPTIONS: Final = {
    "bos": "bos",
    "eos": "eos",
    "reverse": "reverse",
    "unk": "unk",
    "unk_piece": "unk",
}
#: SampleEncode's and NBestEncode's limit on nbest_size (spm's kMaxNBestSize).
MAX_SAMPLE_NBEST: Final = 512

_T = TypeVar("_T")
_COUNT = re.compile(r"[ \t\n\v\f\r]*([+-]?[0-9]+)")
_INT32 = 2**31


class UsageProblem(ValueError):
    """A flag's value that is wrong whatever the model: the command reports it as a usage
    error (exit 2), unlike what one model cannot do (exit 1)."""


def extra_options(value: str) -> tuple[str, ...]:
    """``--extra_options`` as the steps spm applies, in order (``unk_piece`` read as ``unk``)."""
    steps = []
    for part in (part for part in value.split(":") if part):
        if part not in EXTRA_OPTIONS:
            raise UsageProblem(
                f"--extra_options: {part!r} is not an option; use bos, eos, reverse or unk, "
                "separated by colons (e.g. bos:eos)"
            )
        steps.append(EXTRA_OPTIONS[part])
    return tuple(steps)


def check_extra_options(sp: SentencePieceProcessor, steps: Sequence[str]) -> None:
    """spm's own check, in the order written: ``bos`` and ``eos`` need their pieces."""
    for step in steps:
        flag = f"{step}_id"
        if step in ("bos", "eos") and getattr(sp, flag)() < 0:
            raise ValueError(
                f"--extra_options {step}: this model has no {step} piece ({flag}=-1 when it "
                f"was trained); leave {step} out"
            )


def apply_steps(
    tokens: list[_T],
    steps: Sequence[str],
    bos: _T,
    eos: _T,
    unknown: Callable[[_T], _T] | None = None,
) -> list[_T]:
    """The steps in the order given; ``unk`` rewrites a token by ``unknown``, when given (an
    encoding asks the processor instead: ``emit_unk_piece``)."""
    tokens = list(tokens)
    for step in steps:
        if step == "reverse":
            tokens.reverse()
        elif step == "bos":
            tokens.insert(0, bos)
        elif step == "eos":
            tokens.append(eos)
        elif unknown is not None:
            tokens = [unknown(token) for token in tokens]
    return tokens


def _specials(sp: SentencePieceProcessor, steps: Sequence[str]) -> tuple[str, str]:
    """The ``<s>`` and ``</s>`` pieces the steps add (empty when they add none)."""
    bos = sp.id_to_piece(sp.bos_id()) if "bos" in steps else ""
    return bos, sp.id_to_piece(sp.eos_id()) if "eos" in steps else ""


def _proto_steps(sp: SentencePieceProcessor, spt: Any, steps: Sequence[str]) -> None:
    """spm's ApplyExtraOptions on a SentencePieceText: stock's Python API refuses the options
    with protos, spm_encode applies them (``<s>`` at offset 0, ``</s>`` at the text's end)."""
    if not steps:
        return
    make = type(spt).SentencePiece
    pieces = []
    for piece in spt.pieces:
        copy = make()
        copy.CopyFrom(piece)
        pieces.append(copy)
    end = len(spt.text.encode("utf-8"))
    for step in steps:
        if step == "unk":
            if sp.unk_id() >= 0:  # else no piece is the unknown one
                unk = sp.id_to_piece(sp.unk_id())
                for piece in pieces:
                    if piece.id == sp.unk_id():
                        piece.piece = unk
            continue
        if step == "reverse":
            pieces.reverse()
            continue
        id = sp.bos_id() if step == "bos" else sp.eos_id()
        at = 0 if step == "bos" else end
        added = make(piece=sp.id_to_piece(id), id=id, begin=at, end=at)
        pieces.insert(0 if step == "bos" else len(pieces), added)
    del spt.pieces[:]
    spt.pieces.extend(pieces)


def proto_text(message: Any) -> str:
    """A proto as the tool once printed it (``Utf8DebugString``): protobuf's text format, text
    as UTF-8; the writer's line end leaves an empty line after each."""
    return str(_text_format.MessageToString(message, as_utf8=True))


def sampling(kind: str, nbest_size: int, alpha: float) -> dict[str, Any]:
    """The processor's keywords for spm_encode's ``SampleEncode(line, nbest_size, alpha)``.

    spm samples a Unigram model among the n best (``nbest_size`` > 1) or over the whole lattice
    (< 0), and encodes as usual for 0 or 1; a BPE model always drops merges out with
    probability ``alpha`` (nbest_size ignored). Python's API refuses 0 and 1 where the tool
    does not, so they are spelled the way it takes them."""
    if kind not in ("unigram", "bpe"):
        raise ValueError(
            f"sampling needs a Unigram or BPE model: spm samples no {kind} model; use piece or id"
        )
    if nbest_size > MAX_SAMPLE_NBEST:
        raise UsageProblem(
            f"--nbest_size {nbest_size}: sampling takes at most {MAX_SAMPLE_NBEST} candidates"
        )
    if kind == "unigram" and nbest_size in (0, 1):
        return {}
    return {
        "enable_sampling": True,
        "nbest_size": -1 if kind == "bpe" else nbest_size,
        "alpha": alpha,
    }


def check_nbest(kind: str, nbest_size: int) -> None:
    """spm's NBestEncode exists for Unigram models only, and lists at most 512 (a larger size
    is spm's INTERNAL error, one past a C int a TypeError traceback of the binding)."""
    if nbest_size > MAX_SAMPLE_NBEST:
        raise UsageProblem(
            f"--nbest_size {nbest_size}: an n-best list holds at most {MAX_SAMPLE_NBEST} "
            "segmentations"
        )
    if kind != "unigram":
        raise ValueError(
            f"n-best needs a Unigram model: spm gives no n-best list for a {kind} model; use "
            "piece or id (or sample_* to sample)"
        )


def encoder(
    sp: SentencePieceProcessor,
    output_format: str,
    steps: Sequence[str],
    nbest_size: int,
    alpha: float,
) -> Callable[[str], list[str]]:
    """One input line to the lines spm_encode writes for it in ``output_format``."""
    kind = model_type(sp.serialized_model_proto())
    mode, _, unit = output_format.rpartition("_")
    unk = "unk" in steps and sp.unk_id() >= 0  # emit_unk_piece: pieces only; none to emit
    options: dict[str, Any] = sampling(kind, nbest_size, alpha) if mode == "sample" else {}
    if mode == "nbest":
        check_nbest(kind, nbest_size)
    bos_piece, eos_piece = _specials(sp, steps)

    def line(tokens: list[Any]) -> str:
        if unit == "id":
            return " ".join(map(str, apply_steps(tokens, steps, sp.bos_id(), sp.eos_id())))
        return " ".join(apply_steps(tokens, steps, bos_piece, eos_piece))

    def proto(message: Any) -> str:
        for spt in message.nbests if mode == "nbest" else [message]:
            _proto_steps(sp, spt, steps)
        return proto_text(message)

    def encode(text: str) -> list[str]:
        found: Any  # a proto, or rows of ids or pieces
        try:
            if unit == "proto":
                if mode == "nbest":
                    found = sp.nbest_encode(text, nbest_size=nbest_size, out_type="proto")
                else:
                    found = sp.encode(text, out_type="proto", **options)
                return [proto(found)]
            out = int if unit == "id" else str
            if mode == "nbest":
                found = sp.nbest_encode(
                    text, nbest_size=nbest_size, out_type=out, emit_unk_piece=unk
                )
                return [line(best) for best in found]
            return [line(sp.encode(text, out_type=out, emit_unk_piece=unk, **options))]
        except RuntimeError as error:  # spm's own refusal, as its one line
            raise ValueError(f"spm: {error}") from None

    return encode


def decoder(
    sp: SentencePieceProcessor,
    input_format: str,
    output_format: str,
    steps: Sequence[str],
    parse_ids: Callable[[str], list[int]],
) -> Callable[[str], str]:
    """One input line to spm_decode's output for it: pieces (or ids) split at spaces, empty
    parts skipped as spm's splitter skips them, the extra options applied before decoding."""
    bos, eos = _specials(sp, steps)
    unk_id = sp.unk_id()
    unknown: Callable[[str], str] | None = None
    if unk_id >= 0:  # else ``unk`` changes nothing: no piece is the unknown one
        unk = sp.id_to_piece(unk_id)

        def unknown(piece: str) -> str:  # spm: a piece not in the vocabulary decodes as " ⁇ "
            return unk if sp.piece_to_id(piece) == unk_id else piece

    def tokens(line: str) -> list[Any]:
        if input_format == "piece":
            pieces = [piece for piece in line.split(" ") if piece]
            return apply_steps(pieces, steps, bos, eos, unknown)
        try:
            ids = parse_ids(line)
        except ValueError:
            raise ValueError(f"not a list of ids: {line[:40]!r}") from None
        return apply_steps(ids, steps, sp.bos_id(), sp.eos_id())  # an id's piece is known

    def decode(line: str) -> str:
        try:
            if output_format == "proto":
                return proto_text(sp.decode(tokens(line), out_type="proto"))
            return str(sp.decode(tokens(line)))
        except IndexError as error:  # an id outside the vocabulary, as the processor says it
            raise ValueError(str(error)) from None
        except RuntimeError as error:
            raise ValueError(f"spm: {error}") from None

    return decode


def read_vocabulary(name: str, threshold: int) -> set[str]:
    """The pieces of a ``--vocabulary`` file that spm's LoadVocabulary keeps: each line is
    ``piece`` or ``piece<TAB>count`` (empty fields skipped; a piece without a count counts 1),
    kept when its count is at least ``threshold``. The file is read whole, at most
    :data:`MAX_VOCABULARY_BYTES` of it."""
    kept = set()
    lines = bounded_lines(name, MAX_VOCABULARY_BYTES, "--vocabulary file")
    for number, line in enumerate(lines, 1):
        fields = [field for field in line.split("\t") if field]
        if not fields:
            raise ValueError(
                f"--vocabulary {name}: line {number} is empty; each line is a piece, or a "
                "piece, a tab and its count"
            )
        count = 1
        if len(fields) > 1:
            found = _COUNT.match("\t".join(fields[1:]))
            if found is None or not -_INT32 <= int(found.group(1)) < _INT32:
                raise ValueError(
                    f"--vocabulary {name}: line {number}: the count {fields[1][:20]!r} is not "
                    "a whole number (piece<TAB>count, as --generate_vocabulary writes)"
                )
            count = int(found.group(1))
        if count >= threshold:
            kept.add(fields[0])
    return kept


def restricted(sp: SentencePieceProcessor, allowed: Iterable[str]) -> SentencePieceProcessor:
    """A processor that only emits ``allowed`` pieces (shown or the model's own), one-character
    pieces and special ones: spm's SetVocabulary rule on a copy of the model, with the two
    exceptions in the module docstring."""
    data = sp.serialized_model_proto()
    kind = model_type(data)
    if kind not in ("unigram", "bpe"):
        raise ValueError(
            f"--vocabulary needs a Unigram or BPE model: spm restricts no {kind} model"
        )
    pieces = set(allowed)
    ids = {sp.piece_to_id(piece) for piece in pieces}  # shown as text
    model = parse_model(data)
    for id, piece in enumerate(model.pieces):
        listed = id in ids or piece.piece in pieces  # or as the model holds it
        if piece.type == NORMAL and not listed and len(piece.piece) != 1:
            piece.type = UNUSED
    return SentencePieceProcessor(model_proto=model.SerializeToString())


def vocabulary_counts(sp: SentencePieceProcessor, lines: Iterable[str]) -> list[str]:
    """``piece<TAB>count`` lines of the pieces encoding ``lines`` uses, as
    ``spm_encode --generate_vocabulary`` writes them: unknown and control pieces left out,
    most frequent first, ties in code point order of the piece."""
    counts: Counter[int] = Counter()
    for line in lines:
        counts.update(sp.encode(line))
    by_piece = {
        sp.id_to_piece(id): count
        for id, count in counts.items()
        if not sp.is_unknown(id) and not sp.is_control(id)
    }
    ranked = sorted(by_piece.items(), key=lambda item: (-item[1], item[0]))
    return [f"{piece}\t{count}" for piece, count in ranked]


def seed(value: int | None) -> None:
    """``--random_seed``: spm's ``SetRandomGeneratorSeed`` before the first line, so that the
    same seed gives the same samples. sentencepiece 0.2.3 (pip) reseeds every thread at once
    but mixes a per-process salt into the seed (abseil's seed sequence): the samples repeat
    within one program, not from one run of the command to the next, where spm_encode built
    from source repeats them."""
    if value is not None:
        set_random_generator_seed(value)
