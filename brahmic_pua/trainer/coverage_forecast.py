"""Which codes spm's character coverage will keep, worked out before spm has finished, so that
the model's rules are built once, for the clusters spm keeps, while spm trains.

Why. The alphabet plan gives spm a ``character_coverage`` meant to keep exactly the planned
codes, but spm counts characters in its own training text, where a cluster without a code is its
characters, and at the cut, among codes seen once, spm may keep fewer than planned. The trainer
then dropped those codes and built and compiled the rules again after training: 0.4 s of the 50
MB mix's 8k training (168 codes dropped), on the path to the model.

How. spm's characters are those of its normalized training text: each piece of the count
(words cut before every sure start, which no cluster and so no rule of the codec crosses) is
normalized by spm's own normalizer with the training rules and its characters counted with the
piece's count, and every word brings one "▁". spm then sorts the characters by count, then by
code point, and keeps them while the share covered so far, a single-precision float, is below the
coverage (``TrainerInterface::LoadSentences``); that is done here the same way.

It is a forecast: the trainer compares it with the model spm made and builds the rules again
where they differ, so a wrong forecast costs time, never a different model. Where something else
changes spm's characters (a user's rules, user symbols spm cuts out of its text, required
characters), there is no forecast.
"""

from __future__ import annotations

import struct
from collections import Counter
from collections.abc import Mapping

import sentencepiece as spm

from brahmic_pua.trainer.spm_options import SpmOptions

SPACE = "\u2581"
#: spm's pretokenization boundary (``kPretokenizationBoundaryChar``): counted, never kept.
BOUNDARY = "\u2586"
#: Options under which spm's characters are not the pieces' (see the module's text).
_OTHER_CHARACTERS = ("user_defined_symbols", "control_symbols", "required_chars")


def forecast_alphabet(
    pieces: Mapping[str, int] | None,
    words: int,
    rules_file: str,
    options: SpmOptions,
    user_rules: bool,
) -> set[str] | None:
    """The characters spm keeps as its alphabet when it trains with ``options`` on text whose
    pieces are ``pieces`` (with counts) in ``words`` words, normalized by the rules in
    ``rules_file``; None where that is not worked out here."""
    if pieces is None or user_rules or any(options[name] for name in _OTHER_CHARACTERS):
        return None
    if options.model_type == "word":
        return None  # its pieces are words: a kept character need not be in one
    if not options.flag("add_dummy_prefix"):
        return None
    coverage = as_float(options.number("character_coverage"))
    if coverage >= 1.0 or options.flag("use_all_vocab"):
        return None  # every character is kept: nothing to forecast
    normalizer = spm.SentencePieceNormalizer(
        rule_tsv=rules_file,
        add_dummy_prefix=False,
        escape_whitespaces=True,
        remove_extra_whitespaces=False,
    )
    texts = list(pieces)
    characters: Counter[str] = Counter()
    for text, normalized in zip(texts, normalizer.normalize(texts), strict=True):
        n = pieces[text]
        for ch, k in Counter(normalized).items():
            characters[ch] += k * n
    # Every "▁" of spm's text starts a word (a literal one is escaped by the rules); a piece
    # of the pure count may start with a space that joined it to another word
    characters[SPACE] = words
    characters.pop("\x00", None)  # spm skips NUL
    return spm_alphabet(characters, coverage)


def spm_alphabet(characters: Mapping[str, int], coverage: float) -> set[str]:
    """The characters spm keeps for ``coverage`` (a float: :func:`as_float`), as its loop in
    ``LoadSentences`` keeps them."""
    total = sum(characters.values())
    kept: set[str] = set()
    accumulated = 0
    for ch, count in sorted(characters.items(), key=lambda item: (-item[1], item[0])):
        if as_float(accumulated / total) >= coverage:
            break
        accumulated += count
        if ch != BOUNDARY:
            kept.add(ch)
    return kept


def as_float(value: float) -> float:
    """``value`` as a C ``float`` holds it (spm's coverage and its share covered so far)."""
    result: float = struct.unpack("f", struct.pack("f", value))[0]
    return result


__all__ = ["as_float", "forecast_alphabet", "spm_alphabet"]
