"""spm's trainer options as one typed, frozen value: :class:`SpmOptions`.

The trainer reads spm's options in many steps (the alphabet plan, the vocab_size bound, the
word file, the forecast of spm's alphabet, the checks of guarantees) and changes a few of them
for spm (``vocab_size`` cut to the corpus's bound, ``character_coverage`` planned,
``byte_fallback`` off where 256 byte pieces do not fit, values mapped to codes). As a dict
passed from step to step, each step read it with spm's default written out again
(``options.get("model_type", "unigram")`` four times) and some changed their argument in place,
so which values spm finally got depended on the order of calls. Here the options are built
once, read with one rule for defaults, and a step that changes them returns a new value
(:meth:`SpmOptions.replace`); :meth:`SpmOptions.keywords` is what spm is called with.

**Defaults, one place.** brahmic_pua's defaults where they differ from spm's (:data:`DEFAULTS`,
documented in docs/dropin.md) are given to spm as if the user had given them; an option not
given reads as spm's own default, from the ``TrainerSpec`` and ``NormalizerSpec`` descriptors of
sentencepiece's generated module (the ``[default = ...]`` of its .proto, enum values by their
lower-case names), so no default of spm is written down a second time, and ``options[name]``
is the value spm trains with. ``name in options`` says whether it was given (or set by a
step): a default is not passed to spm, which applies its own.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from brahmic_pua.io.flags import read_bool
from brahmic_pua.model.model_proto import model_pb2

#: brahmic_pua's defaults that differ from spm's: spaces kept as written, byte fallback (no ⁇
#: for an unseen character), digits split, spm's log quiet. Given to spm always.
DEFAULTS: Mapping[str, Any] = MappingProxyType(
    {
        "remove_extra_whitespaces": False,
        "byte_fallback": True,
        "split_digits": True,
        "minloglevel": 2,
    }
)
#: Options of spm's Python wrapper that are no spec field, with stock's defaults.
WRAPPER_DEFAULTS: Mapping[str, Any] = MappingProxyType({"minloglevel": 0})


def _spec_defaults() -> dict[str, Any]:
    """spm's defaults, from the descriptors: a float field as the decimal its .proto writes
    (the descriptor holds the float32 nearest it: 0.9994999766 for 0.9995), an enum by the
    lower-case name of its default value."""
    defaults: dict[str, Any] = {}
    for message in (model_pb2.TrainerSpec, model_pb2.NormalizerSpec):
        for spec_field in message.DESCRIPTOR.fields:
            value = spec_field.default_value
            if spec_field.enum_type is not None:
                value = spec_field.enum_type.values_by_number[value].name.lower()
            elif isinstance(value, float):
                value = float(f"{value:.7g}")
            defaults.setdefault(spec_field.name, value)
    return defaults


#: spm's own default of every spec option (and of its wrapper's ``minloglevel``).
SPM_DEFAULTS: Mapping[str, Any] = MappingProxyType({**_spec_defaults(), **WRAPPER_DEFAULTS})


@dataclass(frozen=True)
class SpmOptions:
    """The spm options given (checked, as their proto types) and those steps set, read-only;
    reading one that is absent gives its default (see the module docstring)."""

    given: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "given", MappingProxyType(dict(self.given)))

    @classmethod
    def with_defaults(cls, given: Mapping[str, Any]) -> SpmOptions:
        """``given`` over brahmic_pua's :data:`DEFAULTS`, which are then given to spm too."""
        return cls({**DEFAULTS, **given})

    def __getitem__(self, name: str) -> Any:
        """The value spm trains with: the given one, else spm's default (brahmic_pua's own
        defaults are given, :meth:`with_defaults`)."""
        return self.given[name] if name in self.given else SPM_DEFAULTS[name]

    def __contains__(self, name: object) -> bool:
        return name in self.given

    def items(self) -> Iterator[tuple[str, Any]]:
        """The given options, as spm gets them."""
        return iter(self.given.items())

    def flag(self, name: str) -> bool:
        """A boolean option as read by the one flag grammar ("false", 0, False...)."""
        return read_bool(name, self[name])

    def integer(self, name: str) -> int:
        return int(self[name])

    def number(self, name: str) -> float:
        return float(self[name])

    def text(self, name: str) -> str:
        """A text option; an absent one without a default is ""."""
        value = self[name] if name in self.given or name in SPM_DEFAULTS else ""
        return str(value)

    @property
    def model_type(self) -> str:
        return str(self["model_type"]).strip().lower()

    @property
    def vocab_size(self) -> int:
        return self.integer("vocab_size")

    @property
    def minloglevel(self) -> int:
        return self.integer("minloglevel")

    def replace(self, **changes: Any) -> SpmOptions:
        """These options with ``changes`` given over them."""
        return SpmOptions({**self.given, **changes})

    def setdefault(self, **values: Any) -> SpmOptions:
        """These options with ``values`` given where the option is not."""
        return SpmOptions({**values, **self.given})

    def without(self, *names: str) -> SpmOptions:
        """These options with ``names`` not given (their defaults read again)."""
        return SpmOptions({k: v for k, v in self.given.items() if k not in names})

    def keywords(self) -> dict[str, Any]:
        """What ``sentencepiece.SentencePieceTrainer.train`` is called with: the given ones."""
        return dict(self.given)


__all__ = ["DEFAULTS", "SPM_DEFAULTS", "SpmOptions"]
