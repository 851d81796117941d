"""SentencePiece trainer options under spm's own names, plus brahmic_pua's, with our defaults.

Defaults chosen for exactness (each overridable, each documented in the README):
NFC applied by us; spm's own normalization replaced by the compiled codec rules;
``remove_extra_whitespaces=False`` (spm would collapse spaces); ``byte_fallback=True`` (no
⁇ for unseen characters, and orphan pieces are spelled in bytes); ``split_digits=True``;
``character_coverage`` planned from the corpus and the vocabulary size;
``max_sentence_length`` sized to the longest line (up to 65,536 bytes); spm's log quiet
(``minloglevel=2``);
``complete_word_starts=True`` (Unigram: little-used pieces swapped for the "▁" + piece word
starts that PUA training loses, see trainer/word_starts.py; off with a ``pretokenizer``, whose
splits such a piece could cross).

Every option of sentencepiece 0.2.3's trainer is accepted under its name and honoured, or refused
in one line that names the guarantee it would break and what to pass instead: its normalizer
options in :mod:`brahmic_pua.trainer.normalizer_options`, ``pretokenizer`` in
:mod:`brahmic_pua.trainer.pretokenize`, the options whose values are text spm matches against
its (coded) training text in :mod:`brahmic_pua.trainer.coded_options`; ``model_writer`` gets the
model's bytes instead of the files, as in stock. docs/dropin.md lists every default that differs.
"""

from __future__ import annotations

import difflib
import os
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from brahmic_pua.io.flags import bool_word, read_bool
from brahmic_pua.io.lines import expand_inputs
from brahmic_pua.io.lists import comma_list
from brahmic_pua.io.parquet import check_text_column
from brahmic_pua.model.model_proto import model_pb2
from brahmic_pua.nepbpe.filters import (
    DEFAULT_THETA,
    check_filter_inputs,
    check_filters,
)
from brahmic_pua.nepbpe.seeds import SeedError, Seeds, load_seeds
from brahmic_pua.normalize import check_mode
from brahmic_pua.segment import POLICIES
from brahmic_pua.trainer.engine import check_engine
from brahmic_pua.trainer.normalizer_options import OPTIONS as NORMALIZER_OPTIONS
from brahmic_pua.trainer.normalizer_options import (
    NormalizerChoice,
    read_normalizer_options,
    resolve_mode,
)
from brahmic_pua.trainer.spm_options import SpmOptions

OURS = (
    "policy",
    "scripts",
    "normalization",
    "folding_rules",
    "progress",
    "filters",
    "seeds_strict",
    "seeds_ambiguous",
    "nepali_seeds",
    "theta",
    "theta_per_million",
    "engine",
    "ray_address",
    "complete_word_starts",
    "text_column",
)
#: sentencepiece 0.2.3's trainer options that are no spec field (its Python wrapper's).
CALLABLES = (
    "pretokenizer",
    "allow_inconsistent_pretokenization",
    "model_writer",
    "sentence_reader",
)
UNSUPPORTED = ("input_format",)
#: Model types stock takes a pretokenizer for (trainer_interface.cc).
PRETOKENIZED_TYPES = ("unigram", "bpe")


class OptionError(ValueError):
    """An option's name or value is wrong (a usage error: the CLI exits 2), found before any
    corpus is read; a ValueError, so callers that catch those still do."""


class InputError(ValueError):
    """A glob in ``input=`` that matches no file: the user's files are wrong, not an option's
    spelling, so it stays an error of its own (exit 1, as a missing file), not an OptionError."""


@dataclass(frozen=True)
class TrainOptions:
    """Every option of one training, read and checked once (:func:`build_options`): spm's
    own as :class:`~brahmic_pua.trainer.spm_options.SpmOptions`, brahmic_pua's as fields. A
    step that needs other values makes a new one (``dataclasses.replace``)."""

    spm: SpmOptions
    inputs: list[str] = field(default_factory=list)
    sentence_iterator: Iterable[str] | None = None
    policy: str = "fixtoken"
    scripts: list[str] | None = None
    normalization: str = "nfc"
    folding_rules: str | None = None
    progress: bool = False
    filters: tuple[str, ...] = ()
    seeds: Seeds | None = None
    theta: float = DEFAULT_THETA
    theta_per_million: float | None = None
    engine: str = "local"  # where clusters are counted: this process, or a Ray cluster
    ray_address: str | None = None
    complete_word_starts: bool = True
    #: The column of Parquet inputs read as lines (brahmic_pua.io.parquet); None: its default.
    text_column: str | None = None
    spm_log: bool = False  # the caller set minloglevel or logstream: spm's log is theirs
    normalizer_choice: NormalizerChoice = field(default_factory=NormalizerChoice)
    pretokenizer: Callable[[str], Any] | None = None
    allow_inconsistent_pretokenization: bool = False
    model_writer: Any = None  # an object with .write(bytes): the model goes there, no files
    byte_fallback_given: bool = False  # else brahmic_pua's default, True where it fits


def parse_flag_string(arg: str) -> dict[str, str]:
    """spm's single-string form, ``"--input=a.txt --vocab_size=8000"``: every word is
    ``--name=value`` (shell quoting allowed), as stock ``SentencePieceTrainer.train`` takes it."""
    options: dict[str, str] = {}
    for token in shlex.split(arg):
        if not token.startswith("--") or "=" not in token:
            raise ValueError(f"cannot read {token!r}: write options as --name=value")
        name, value = _split_flag(token)
        options[name] = value
    return options


def parse_flag_args(args: Sequence[str]) -> dict[str, str]:
    """spm_train's command-line form, as the CLI passes its extra flags through:
    ``--name=value``, ``--name value``, or a bare ``--name`` for true. The CLI's spelling rule
    holds here too: a dash in a name is spm's underscore (``--num-threads`` is
    ``--num_threads``). The values go through the same :func:`build_options` checks as the
    string and keyword forms."""
    options: dict[str, str] = {}
    i = 0
    while i < len(args):
        token = args[i]
        if not token.startswith("--"):
            raise ValueError(f"unexpected argument {token!r}: spm options look like --name=value")
        if "=" in token:
            name, value = _split_flag(token)
        elif i + 1 < len(args) and not args[i + 1].startswith("--"):
            name, value = token[2:], args[i + 1]
            i += 1
        else:
            name, value = token[2:], "true"
        options[flag_name(name)] = value
        i += 1
    return options


def flag_name(name: str) -> str:
    """The one spelling rule of the command line: spm's underscores, a dash accepted for
    each (``model-prefix`` is ``model_prefix``)."""
    return name.replace("-", "_")


def _split_flag(token: str) -> tuple[str, str]:
    name, value = token[2:].split("=", 1)
    return name, value


def _known_spm_options() -> set[str]:
    names = {f.name for f in model_pb2.TrainerSpec.DESCRIPTOR.fields}
    names |= {f.name for f in model_pb2.NormalizerSpec.DESCRIPTOR.fields}
    return names | {"minloglevel", "sentence_iterator", "logstream"}


def known_options() -> set[str]:
    """Every option name the trainer reads: spm's (its spec fields and its Python wrapper's),
    brahmic_pua's own (:data:`OURS`), and those it answers with a reason."""
    names = _known_spm_options() | set(OURS) | set(CALLABLES) | set(NORMALIZER_OPTIONS)
    return names | set(UNSUPPORTED)


def closest_option(name: str) -> str | None:
    """The known option ``name`` most likely means (a typo, or a dash for spm's "_"), or None."""
    close = difflib.get_close_matches(flag_name(name), sorted(known_options()), n=1, cutoff=0.8)
    return close[0] if close else None


def build_options(arg: str | None, kwargs: Mapping[str, Any], progress: bool) -> TrainOptions:
    """Merge the string and keyword forms, check them, and apply brahmic_pua's defaults. A
    wrong name or value is an :class:`OptionError`; a seed file that cannot be read stays the
    :class:`~brahmic_pua.nepbpe.seeds.SeedError` naming it."""
    try:
        return _build_options(arg, kwargs, progress)
    except (SeedError, InputError):
        raise
    except ValueError as error:
        raise OptionError(str(error)) from None


def _build_options(arg: str | None, kwargs: Mapping[str, Any], progress: bool) -> TrainOptions:
    """The options read from ``given`` one group at a time, each group checked as it is read,
    and made one frozen :class:`TrainOptions` at the end."""
    given = _given(arg, kwargs)
    choice = read_normalizer_options(given)
    given.update(choice.flags)
    fields: dict[str, Any] = {"normalizer_choice": choice}
    fields |= _output_options(given)
    fields |= _pretokenizer_options(given)
    policy = str(given.pop("policy", "fixtoken"))
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}: choose one of {', '.join(POLICIES)}")
    scripts = given.pop("scripts", None)
    mode = given.pop("normalization", None)
    mode = check_mode(str(mode)) if mode is not None else None
    folding = given.pop("folding_rules", None)
    fields |= {
        "policy": policy,
        "scripts": comma_list(scripts) if scripts is not None else None,
        "normalization": check_mode(resolve_mode(choice, mode)),
        "folding_rules": None if folding is None else str(folding),
        "progress": read_bool("progress", given.pop("progress", progress)),
        "complete_word_starts": _word_starts(
            given.pop("complete_word_starts", None), fields["pretokenizer"] is not None
        ),
    }
    fields |= _nepbpe_options(given)
    fields |= _input_options(given)
    fields["spm_log"] = bool({"minloglevel", "logstream"} & set(given))
    fields["byte_fallback_given"] = "byte_fallback" in given
    spm = SpmOptions.with_defaults(check_values(given))
    if "model_prefix" in spm:
        check_model_prefix(spm.text("model_prefix"))
    return TrainOptions(spm=spm, **fields)


def _input_options(given: dict[str, Any]) -> dict[str, Any]:
    """``input`` (files, globs expanded) or ``sentence_iterator``, ``text_column`` for Parquet
    inputs, and where they are counted: ``engine`` and ``ray_address``."""
    iterator = given.pop("sentence_iterator", None)
    given.pop("input_format", None)
    source = given.pop("input", None)
    inputs = _expanded(comma_list(source)) if source is not None else []
    if bool(inputs) == (iterator is not None):
        raise ValueError("give exactly one of input=<files> or sentence_iterator=<iterable>")
    column = check_text_column(given.pop("text_column", None), inputs)
    engine = check_engine(str(given.pop("engine", "local")), bool(inputs))
    address = given.pop("ray_address", None)
    if address is not None and engine != "ray":
        raise ValueError("ray_address is for engine=ray")
    return {
        "inputs": inputs,
        "sentence_iterator": iterator,
        "text_column": column,
        "engine": engine,
        "ray_address": None if address is None else str(address),
    }


def _expanded(names: list[str]) -> list[str]:
    """Input names with each glob (``data/*.parquet``) replaced by the files it matches, sorted,
    by the one glob rule (:func:`~brahmic_pua.io.lines.expand_inputs`); a name that is a file,
    or holds no glob character, is left to the corpus's own checks."""
    files: list[str] = []
    for name in names:
        if any(ch in name for ch in "*?[") and not os.path.isfile(name):
            try:
                files += expand_inputs([name])
            except ValueError as error:
                raise InputError(str(error)) from None
        else:
            files.append(name)
    return files


def _given(arg: str | None, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The string and keyword forms merged, every name known and the input a text."""
    given: dict[str, Any] = dict(parse_flag_string(arg)) if arg else {}
    given.update(kwargs)
    unknown = sorted(set(given) - known_options())
    if unknown:
        named = [_with_hint(name) for name in unknown]
        raise ValueError(f"unknown trainer option(s): {', '.join(named)}")
    if str(given.get("input_format", "")).lower() not in ("", "text"):
        raise ValueError(
            f"input_format={given['input_format']!r} is not supported by brahmic_pua's trainer "
            "(clusters are counted per line of text): write one sentence a line, a sentence "
            "repeated for its frequency, or pass sentence_iterator="
        )
    if "sentence_reader" in given:  # stock's other name for it
        if "sentence_iterator" in given:
            raise ValueError("sentence_reader is sentence_iterator: give one")
        given["sentence_iterator"] = given.pop("sentence_reader")
    return given


def _word_starts(given: object, pretokenizer: bool) -> bool:
    """``complete_word_starts``: on unless given off, or left out with a pretokenizer."""
    if given is None:
        return not pretokenizer
    starts = read_bool("complete_word_starts", given)
    if starts and pretokenizer:
        raise ValueError(
            'complete_word_starts adds "▁" + piece pieces spm did not learn, which could '
            "cross the pretokenizer's splits; leave complete_word_starts out with a "
            "pretokenizer"
        )
    return starts


def _output_options(given: dict[str, Any]) -> dict[str, Any]:
    """``model_writer``: stock writes the model there (an object with ``write(bytes)``) and no
    file; without it, ``model_prefix`` names the files."""
    writer = given.pop("model_writer", None)
    if writer is not None and not callable(getattr(writer, "write", None)):
        raise ValueError(
            f"model_writer is a {type(writer).__name__}: give an object with a write(bytes) "
            "method, such as io.BytesIO()"
        )
    if writer is None and "model_prefix" not in given:
        raise ValueError(
            "model_prefix is required: the trainer writes <prefix>.model and .vocab (or pass "
            "model_writer= to get the model's bytes)"
        )
    return {"model_writer": writer}


def _pretokenizer_options(given: dict[str, Any]) -> dict[str, Any]:
    """``pretokenizer`` (a callable text -> list of str) and
    ``allow_inconsistent_pretokenization``, checked as stock checks them, before the corpus."""
    user = given.pop("pretokenizer", None)
    allow = given.pop("allow_inconsistent_pretokenization", False)
    fields = {
        "allow_inconsistent_pretokenization": read_bool(
            "allow_inconsistent_pretokenization", allow
        ),
        "pretokenizer": user,
    }
    if user is None:
        return fields
    if not callable(user):
        raise ValueError(
            f"pretokenizer is a {type(user).__name__}: give a callable that takes the text and "
            "returns its pieces (a list of str)"
        )
    model_type = str(given.get("model_type", "unigram")).strip().lower()
    if model_type not in PRETOKENIZED_TYPES:
        raise ValueError(
            f"pretokenizer needs model_type=unigram or bpe (as in sentencepiece), not {model_type}"
        )
    if given.get("pretokenization_delimiter"):
        raise ValueError(
            "pretokenizer and pretokenization_delimiter cannot both be given (as in "
            "sentencepiece): give one"
        )
    return fields


#: spm's own range checks (trainer_interface.cc, VerifySpec), made before the corpus is read.
RANGES: dict[str, tuple[float, float]] = {
    "vocab_size": (1, 2**31 - 1),
    "character_coverage": (0.98, 1.0),
    "max_sentencepiece_length": (1, 512),
    "num_sub_iterations": (1, 10),
    "num_threads": (1, 1024),
    "self_test_sample_size": (0, 1000),
    "shrinking_factor": (0.5, 0.95),
    "max_sentence_length": (10, 1073741824),
    "input_sentence_size": (0, 2**63 - 1),
    "seed_sentencepiece_size": (1, 2**31 - 1),
    "minloglevel": (0, 4),
}
#: protobuf's FieldDescriptor class (protobuf ships without type information), whose TYPE_*
#: constants name the field types: taken from the descriptor, not written down here.
_FIELD: Any = type(model_pb2.TrainerSpec.DESCRIPTOR.fields[0])
_INTEGERS = frozenset(
    getattr(_FIELD, f"TYPE_{name}")
    for name in (
        "INT32",
        "INT64",
        "UINT32",
        "UINT64",
        "SINT32",
        "SINT64",
        "FIXED32",
        "FIXED64",
        "SFIXED32",
        "SFIXED64",
    )
)
_NUMBERS = frozenset({_FIELD.TYPE_FLOAT, _FIELD.TYPE_DOUBLE})
_BOOL, _ENUM = _FIELD.TYPE_BOOL, _FIELD.TYPE_ENUM


def _field_types() -> dict[str, tuple[int, tuple[str, ...]]]:
    """Each spec option's field type and, for an enum (model_type), its values' names."""
    fields = [*model_pb2.TrainerSpec.DESCRIPTOR.fields, *model_pb2.NormalizerSpec.DESCRIPTOR.fields]
    types = {
        f.name: (f.type, tuple(v.name.lower() for v in f.enum_type.values) if f.enum_type else ())
        for f in fields
        if not f.is_repeated
    }
    types["minloglevel"] = (_FIELD.TYPE_INT32, ())
    return types


def check_values(given: Mapping[str, Any]) -> dict[str, Any]:
    """spm option values as their proto types, each checked the way spm would check it: a bad
    value is one line naming the option, before any corpus is read."""
    types = _field_types()
    checked: dict[str, Any] = {}
    for name, value in given.items():
        kind, names = types.get(name, (None, ()))
        try:
            checked[name] = _convert(kind, names, value)
        except (TypeError, ValueError):
            if kind in _INTEGERS:
                expected = "an integer"
            elif kind in _NUMBERS:
                expected = "a number"
            else:
                expected = "true or false" if kind == _BOOL else f"one of {', '.join(names)}"
            raise ValueError(f"{name}={value!r} is not {expected}") from None
        low, high = RANGES.get(name, (None, None))
        if low is not None and high is not None and not low <= checked[name] <= high:
            raise ValueError(f"{name}={value!r} is out of range: SentencePiece needs {low}..{high}")
    size = checked.get("input_sentence_size", 0)
    if 0 < size <= 100:
        raise ValueError(f"input_sentence_size={size} must be 0 (all lines) or more than 100")
    return checked


def _convert(kind: int | None, names: tuple[str, ...], value: Any) -> Any:
    """``value`` as a field of type ``kind`` (``names``: an enum's values) holds it."""
    if kind in _INTEGERS:
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise TypeError
        return int(value)
    if kind in _NUMBERS:
        if isinstance(value, bool):
            raise TypeError
        return float(value)
    if kind == _BOOL:
        return bool_word(value)
    if kind == _ENUM:
        name = str(value).strip().lower()
        if name not in names:
            raise ValueError
        return name
    return value


def _with_hint(name: str) -> str:
    """``name``, with the option it most likely means (spm's names use "_", not "-")."""
    close = closest_option(name)
    return f"{name} (did you mean {close}?)" if close else name


def check_model_prefix(prefix: str) -> str:
    """The one rule for ``model_prefix``: it must name a file, since the trainer writes
    ``<prefix>.model`` and ``<prefix>.vocab``; "", "out/" or "out/.." would write hidden files
    named ".model" or files outside the folder meant."""
    last = prefix.replace("\\", "/").replace(os.sep, "/").rsplit("/", 1)[-1]
    if last.strip() in ("", ".", ".."):
        raise ValueError(
            f"model_prefix={prefix!r} names no file: give a path such as out/te "
            "(the trainer writes out/te.model and out/te.vocab)"
        )
    return prefix


__all__ = [
    "InputError",
    "OptionError",
    "TrainOptions",
    "build_options",
    "check_model_prefix",
    "closest_option",
    "flag_name",
    "known_options",
    "parse_flag_args",
    "parse_flag_string",
    "read_bool",
]


def _nepbpe_options(given: dict[str, Any]) -> dict[str, Any]:
    """The NepBPE layer's options: post-training filters, seed morphemes, θ; all
    checked here, before any corpus is read."""
    filters = check_filters(comma_list(given.pop("filters", ())))
    strict, ambiguous = given.pop("seeds_strict", None), given.pop("seeds_ambiguous", None)
    nepali = read_bool("nepali_seeds", given.pop("nepali_seeds", False))
    seeds = None
    if strict is not None or ambiguous is not None or nepali:
        seeds = load_seeds(strict, ambiguous, nepali=nepali)
    theta = _number("theta", given.pop("theta", DEFAULT_THETA))
    per_million = given.pop("theta_per_million", None)
    check_filter_inputs(
        filters,
        seeds=seeds is not None,
        give_seeds="seeds_strict=, seeds_ambiguous= or nepali_seeds=true",
    )
    return {
        "filters": filters,
        "seeds": seeds,
        "theta": theta,
        "theta_per_million": (
            None if per_million is None else _number("theta_per_million", per_million)
        ),
    }


def _number(name: str, value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} is not a number") from None
    if number < 0:
        raise ValueError(f"{name}={value!r} must be 0 or more")
    return number
