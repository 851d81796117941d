"""SentencePiece trainer options under spm's own names, plus brahmic_pua's, with our defaults.

Defaults chosen for exactness (each overridable, each documented in the README):
NFC applied by us; spm's own normalization replaced by the compiled codec rules;
``remove_extra_whitespaces=False`` (spm would collapse spaces); ``byte_fallback=True`` (no
⁇ for unseen characters, and orphan pieces are spelled in bytes); ``split_digits=True``;
``character_coverage`` planned from the corpus and the vocabulary size;
``max_sentence_length`` sized to the longest line; spm's log quiet (``minloglevel=2``).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from brahmic_pua.model.proto import model_pb2
from brahmic_pua.normalize import check_mode
from brahmic_pua.segment import POLICIES

DEFAULTS: dict[str, Any] = {
    "remove_extra_whitespaces": False,
    "byte_fallback": True,
    "split_digits": True,
    "minloglevel": 2,
}
OURS = ("policy", "scripts", "normalization", "progress")
MANAGED = ("normalization_rule_name", "normalization_rule_tsv", "denormalization_rule_tsv")
UNSUPPORTED = ("input_format", "model_writer")


@dataclass
class TrainOptions:
    spm: dict[str, Any]
    inputs: list[str] = field(default_factory=list)
    sentence_iterator: Iterable[str] | None = None
    policy: str = "fixtoken"
    scripts: list[str] | None = None
    normalization: str = "nfc"
    progress: bool = False


def parse_flag_string(arg: str) -> dict[str, str]:
    """spm's single-string form: ``"--input=a.txt --vocab_size=8000"``."""
    options: dict[str, str] = {}
    for token in shlex.split(arg):
        if not token.startswith("--") or "=" not in token:
            raise ValueError(f"cannot read {token!r}: write options as --name=value")
        name, value = token[2:].split("=", 1)
        options[name] = value
    return options


def _known_spm_options() -> set[str]:
    names = {f.name for f in model_pb2.TrainerSpec.DESCRIPTOR.fields}
    names |= {f.name for f in model_pb2.NormalizerSpec.DESCRIPTOR.fields}
    return names | {"minloglevel", "sentence_iterator", "logstream"}


def build_options(arg: str | None, kwargs: Mapping[str, Any], progress: bool) -> TrainOptions:
    """Merge the string and keyword forms, check them, and apply brahmic_pua's defaults."""
    given: dict[str, Any] = dict(parse_flag_string(arg)) if arg else {}
    given.update(kwargs)
    for name in MANAGED:
        if name in given:
            raise ValueError(
                f"{name} is set by brahmic_pua (it compiles the cluster table into the "
                "normalizer); remove it (brahmic_pua's own option is normalization=nfc|none)"
            )
    known = _known_spm_options() | set(OURS) | set(UNSUPPORTED)
    unknown = sorted(set(given) - known)
    if unknown:
        raise ValueError(f"unknown trainer option(s): {', '.join(unknown)}")
    for name in UNSUPPORTED:
        if name in given and not (name == "input_format" and given[name] in ("", "text")):
            raise ValueError(f"{name} is not supported by brahmic_pua's trainer")
    if "model_prefix" not in given:
        raise ValueError("model_prefix is required: the trainer writes <prefix>.model and .vocab")
    options = TrainOptions(spm={**DEFAULTS})
    options.policy = str(given.pop("policy", "fixtoken"))
    if options.policy not in POLICIES:
        raise ValueError(f"unknown policy {options.policy!r}: choose one of {', '.join(POLICIES)}")
    scripts = given.pop("scripts", None)
    if isinstance(scripts, str):
        scripts = [s for s in scripts.split(",") if s]
    options.scripts = list(scripts) if scripts is not None else None
    options.normalization = check_mode(str(given.pop("normalization", "nfc")))
    options.progress = bool(given.pop("progress", progress))
    options.sentence_iterator = given.pop("sentence_iterator", None)
    given.pop("input_format", None)
    source = given.pop("input", None)
    if source is not None:
        names = [source] if isinstance(source, str) else list(source)
        options.inputs = [p.strip() for name in names for p in str(name).split(",") if p.strip()]
    if bool(options.inputs) == (options.sentence_iterator is not None):
        raise ValueError("give exactly one of input=<files> or sentence_iterator=<iterable>")
    options.spm.update(given)
    return options


def spm_bool(value: Any) -> bool:
    """spm's flag strings ("true", "false", "1") as a bool."""
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


__all__ = ["TrainOptions", "build_options", "parse_flag_string", "spm_bool"]
