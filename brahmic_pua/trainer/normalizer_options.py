"""sentencepiece's normalizer options, read into a brahmic_pua model's normalizer.

A brahmic_pua model's normalizer is compiled by brahmic_pua: N (NFC, or NFC with the Nepali
folds), then every cluster to its code (:mod:`brahmic_pua.model.rules`). Stock's ways of choosing
a normalizer are read into it, or refused in one line that says what to pass instead:

* ``normalization_rule_name`` (and ``name``, the spec field it sets): ``identity`` is
  ``normalization=none`` (the text as given, as stock's identity). The NFKC sets (``nmt_nfkc``,
  ``nfkc``, ``nmt_nfkc_cf``, ``nfkc_cf``) are rules like a user's, below: NFKC changes 44
  Brahmic characters, all as NFC does (nukta letters); the nmt_ sets also turn every ZWNJ
  (a half form's joiner: क्‌ष is then क् ष) and a literal ▁ into a space, as in stock.
* ``normalizer=`` (a ``SentencePieceNormalizer``, sentencepiece 0.2.3's) and
  ``normalization_rule_tsv=`` (a rule file): their rules join the cluster rules in the compiled
  normalizer (:func:`brahmic_pua.model.rules.with_user_rules`), applied after N in the same one
  longest-match pass as in stock, their targets written as the training text is (clusters as
  codes). Text they rewrite is tokenized and decoded rewritten, by brahmic_pua's processor on
  N(text) and stock spm on the raw text alike (guarantee 3: every other spelling of a rule's
  source gets a rule, as the cluster rules' do; a rule whose source N changes is left to N).
  They are not part of N (a single pass of stock's rules need not be idempotent, and N must
  be), so ``decode(encode(s)) == N(s)`` no longer holds where they rewrite: the trainer says
  so in one line, as for every option that turns a guarantee off. A rule is the longest match
  where it is one, as in stock; a cluster of the table is one longer match, so a rule for part
  of a cluster does not fire inside it. Rules with Private Use characters (a brahmic_pua
  model's own normalizer) are refused. ``normalizer=``'s flags (add_dummy_prefix,
  escape_whitespaces, remove_extra_whitespaces) become the model's, and a flag given beside it
  is refused, both as in stock.
* ``precompiled_charsmap`` and ``denormalization_rule_tsv`` are refused (see
  :func:`read_normalizer_options`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sentencepiece as stock

from brahmic_pua.codec.layout import PRIVATE_USE, is_private_use
from brahmic_pua.model.model_proto import model_pb2

#: Stock's rule names: ``identity`` is brahmic_pua's ``normalization=none``; each of the others
#: is its rule set (sentencepiece's own, from its compiled map), merged as a user's rules are.
RULE_NAMES = ("identity", "nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf")
#: The spec's flags, which ``normalizer=`` sets (stock refuses them beside it).
FLAGS = ("add_dummy_prefix", "escape_whitespaces", "remove_extra_whitespaces")
#: What stock refuses beside ``normalizer=`` (sentencepiece_trainer.cc, kNormalizerKeys).
NORMALIZER_KEYS = (
    "normalization_rule_name",
    "normalization_rule_tsv",
    *FLAGS,
    "name",
    "precompiled_charsmap",
)
#: Every option this module reads.
OPTIONS = (
    "normalizer",
    "normalization_rule_name",
    "name",
    "normalization_rule_tsv",
    "precompiled_charsmap",
    "denormalization_rule_tsv",
)


@dataclass(frozen=True)
class NormalizerChoice:
    """What stock's normalizer options ask of N: a mode (None: brahmic_pua's choice), rules to
    fold in (and where they came from, for messages), and the spec's flags."""

    mode: str | None = None
    rules: tuple[tuple[str, str], ...] = ()
    source: str = ""
    flags: dict[str, bool] = field(default_factory=dict)


def read_normalizer_options(given: dict[str, Any]) -> NormalizerChoice:
    """Take stock's normalizer options out of ``given`` (the trainer's options), checked; a
    ValueError of one line for one that cannot be honoured."""
    if "denormalization_rule_tsv" in given:
        raise ValueError(
            "denormalization_rule_tsv is set by brahmic_pua: the denormalizer maps each code "
            "back to its cluster, so that decode gives N(text) back (guarantee 1); apply your "
            "rules to the decoded text instead"
        )
    if "precompiled_charsmap" in given:
        raise ValueError(
            "precompiled_charsmap is set by brahmic_pua (it compiles the cluster table into the "
            "normalizer); pass your rules as normalizer=SentencePieceNormalizer(...) instead"
        )
    user = given.pop("normalizer", None)
    if user is not None:
        clash = next((key for key in NORMALIZER_KEYS if key in given), None)
        if clash is not None:
            raise ValueError(
                f"normalizer= and {clash}= cannot both be given: the normalizer's spec sets "
                f"{clash}, as in sentencepiece; leave {clash} out"
            )
        return _from_normalizer(user)
    name = given.pop("normalization_rule_name", None)
    spec_name = given.pop("name", None)
    if name is not None and spec_name is not None and str(name) != str(spec_name):
        raise ValueError(
            f"normalization_rule_name={name!r} and name={spec_name!r} name the same thing: give one"
        )
    name = name if name is not None else spec_name
    tsv = given.pop("normalization_rule_tsv", None)
    if tsv is not None:
        if name is not None:
            raise ValueError(
                "normalization_rule_tsv replaces the named rules: give it or "
                f"normalization_rule_name={name!r}, not both"
            )
        return _from_rule_file(str(tsv))
    if name is not None:
        return _named(str(name), "normalization_rule_name")
    return NormalizerChoice()


def _named(name: str, option: str) -> NormalizerChoice:
    """Stock's rule set ``name``: ``identity`` is ``normalization=none``, the others their
    rules."""
    if name == "identity":
        return NormalizerChoice(mode="none", source=f"{option}={name}")
    if name not in RULE_NAMES:
        raise ValueError(f"unknown {option} {name!r}: sentencepiece's are {', '.join(RULE_NAMES)}")
    where = f"{option}={name}"
    return NormalizerChoice(
        rules=_decompiled(stock.SentencePieceNormalizer(rule_name=name), where), source=where
    )


def _from_normalizer(user: Any) -> NormalizerChoice:
    serialized = getattr(user, "serialized_normalizer_spec", None)
    if not callable(serialized):
        raise ValueError(
            f"normalizer= is a {type(user).__name__}: give a SentencePieceNormalizer "
            "(it has serialized_normalizer_spec())"
        )
    spec = model_pb2.NormalizerSpec()
    spec.ParseFromString(bytes(serialized()))
    flags = {flag: bool(getattr(spec, flag)) for flag in FLAGS}
    if not spec.precompiled_charsmap:  # a named set (stock trains an unnamed one as nmt_nfkc)
        named = _named(spec.name or "nmt_nfkc", "normalizer= with rule_name")
        return NormalizerChoice(named.mode, named.rules, "normalizer=", flags)
    rules = _decompiled(stock.SentencePieceNormalizer(normalizer_spec=spec), "normalizer=")
    return NormalizerChoice(rules=rules, source="normalizer=", flags=flags)


def _from_rule_file(path: str) -> NormalizerChoice:
    where = f"normalization_rule_tsv={path}"
    try:
        loaded = stock.SentencePieceNormalizer(rule_tsv=path)
    except (RuntimeError, OSError, ValueError) as error:
        reason = str(error).strip().splitlines()[-1] if str(error).strip() else "unreadable"
        raise ValueError(f"{where}: cannot read the rules ({reason})") from None
    return NormalizerChoice(rules=_decompiled(loaded, where), source=where)


def _decompiled(loaded: Any, where: str) -> tuple[tuple[str, str], ...]:
    """The rules of a stock normalizer, in a fixed order (the model must not depend on the
    order the compiled map lists them in: guarantee 4)."""
    try:
        pairs = loaded.Decompile()
    except RuntimeError:  # no compiled map: no rules
        return ()
    rules = tuple(sorted((str(source), str(target)) for source, target in pairs))
    private = None
    if PRIVATE_USE.search("".join(text for rule in rules for text in rule)):
        private = next(r for r in rules if any(is_private_use(ch) for ch in "".join(r)))
    if private is not None:
        raise ValueError(
            f"{where} has a rule with a Private Use character ({private[0]!r} → "
            f"{private[1]!r}), which brahmic_pua reserves for clusters (is it a brahmic_pua "
            "model's normalizer? pass normalization= of that model instead)"
        )
    return rules


def resolve_mode(choice: NormalizerChoice, normalization: str | None) -> str:
    """The normalization mode: brahmic_pua's own option, or what stock's options imply
    (``identity`` is ``none``), refused when the two disagree."""
    if choice.mode is not None:
        if normalization is not None and normalization != choice.mode:
            raise ValueError(
                f"the identity normalizer is normalization={choice.mode}, and "
                f"normalization={normalization} was given too: give one"
            )
        return choice.mode
    return normalization or "nfc"


def weakened(choice: NormalizerChoice) -> str | None:
    """The one line for rules that turn guarantee 1 off where they rewrite, or None."""
    if not choice.rules:
        return None
    return (
        f"{choice.source} rules turn off guarantee 1, decode(encode(s)) == N(s), where they "
        "rewrite: text they rewrite decodes as rewritten (as it would in sentencepiece)"
    )


__all__ = [
    "NormalizerChoice",
    "read_normalizer_options",
    "resolve_mode",
    "weakened",
]
