"""Does a model's manifest say what its compiled rules do? Checked on every load.

The manifest's fingerprint is an integrity check anyone can recompute, so a manifest edited
and re-signed (half its codec dropped, ``nepali-lm`` relabelled ``nfc``) must be caught by
comparing it with the rules spm compiled into the model, which decide every id and every
decoded text. Three checks, each a few C calls over text linear in the model's size:

1. **The denormalizer is the codec, both ways.** Over every Private Use code a table may use
   (137,465 of them, run together: a code's rule is one character long, and only the three
   reserved characters, left out, begin longer ones), the denormalizer must give exactly the
   manifest's cluster for each of its codes and leave every other code as it is. A manifest
   that lacks codes the rules map would show those pieces, and decode them on the fast path,
   as codes; one that swaps two clusters shows each as the other.
2. **The normalizer writes only the codec's codes.** Every Private Use character among the
   normalizer's targets (the compiled map's string pool, which holds each target once) is a
   code of the manifest or a reserved character.
3. **The rules normalize as the manifest's N**: for probe texts that tell the modes and
   folding tables apart, the denormalizer of the normalizer of a text is N(text), as
   guarantee 1 promises. Where the manifest says the normalizer holds a user's rules, which
   rewrite beyond N by design, the rules must still hold N: they code a probe and its N alike
   (else the processor, which applies N first, and stock would give different ids). The
   probes: a ZWJ (``nepali-lm`` deletes it), every pattern of the manifest's folding table
   and of the shipped Nepali tables, characters NFC changes (``none`` keeps them) and the
   canonical decompositions of the first clusters of the table that have one.

Not checked: folding patterns in neither the manifest's table nor the shipped ones, and a
model without denormalizer rules (a manifest embedded in a plain spm model by hand, whose
codes stock decodes as themselves).
"""

from __future__ import annotations

import struct
import unicodedata
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

import sentencepiece as stock

from brahmic_pua.codec import PUACodec
from brahmic_pua.codec.layout import PRIVATE_USE, RESERVED, code_points
from brahmic_pua.codec.table_file import quoted
from brahmic_pua.model.model_proto import model_pb2
from brahmic_pua.normalize import Normalizer
from brahmic_pua.normalize.folding import ZWJ, nepali_table

#: How many of the table's clusters with a canonical decomposition are probed (check 3).
DECOMPOSED_PROBES = 32
#: Texts NFC changes in every script: a composing accent (é), and क़ (U+0958), which NFC
#: decomposes (a composition exclusion).
NFC_PROBES = ("e\u0301", "\u0958")


class RuleError(ValueError):
    """A one-line reason a model's rules contradict its manifest."""


def check_rules(message: Any, codec: PUACodec, normalizer: Normalizer, user_rules: bool) -> None:
    """Raise :class:`RuleError` where the parsed model's rules contradict its manifest's codec
    and N (``user_rules``: the manifest says a user's rules rewrite beyond N)."""
    denormalizer = rules_normalizer(message.denormalizer_spec)
    if denormalizer is None:
        return
    _check_codes(denormalizer, codec)
    _check_targets(bytes(message.normalizer_spec.precompiled_charsmap), codec)
    forward = rules_normalizer(message.normalizer_spec)
    if forward is None:
        return
    if user_rules:
        _check_n_absorbed(forward, codec, normalizer)
    else:
        _check_normalization(forward, denormalizer, codec, normalizer)


def rules_normalizer(spec: Any) -> Any:
    """Stock's normalizer with exactly ``spec``'s rules (no dummy prefix, spaces as they are),
    or None where it has none: what the load check, the text spelling (its ``Decompile``) and
    llama.cpp's post-step run a model's compiled rules with."""
    if not spec.precompiled_charsmap:
        return None
    rules = model_pb2.NormalizerSpec()
    rules.CopyFrom(spec)
    rules.add_dummy_prefix = rules.remove_extra_whitespaces = rules.escape_whitespaces = False
    try:
        return stock.SentencePieceNormalizer(normalizer_spec=rules.SerializeToString())
    except (RuntimeError, OSError) as error:
        raise RuleError(f"its rules cannot be read ({' '.join(str(error).split())})") from None


@cache
def _every_code() -> str:
    """Every code a table may hold, in order, as one text (built once: 137,465 characters)."""
    return "".join(map(chr, code_points()))


def _check_codes(denormalizer: Any, codec: PUACodec) -> None:
    """Check 1: the denormalizer over every code is the manifest's table over it."""
    table = {ord(code): cluster for code, cluster in codec.code_pairs()}
    probe = _every_code()
    if denormalizer.Normalize(probe) == probe.translate(table):
        return
    for code in _chunked(
        probe, 4096, lambda part: denormalizer.Normalize(part) != part.translate(table)
    ):
        ruled = denormalizer.Normalize(code)
        listed = table.get(ord(code))
        if ruled != (code if listed is None else listed):
            said = (
                "missing from the manifest"
                if listed is None
                else f"{quoted(listed)} in the manifest"
            )
            raise RuleError(f"U+{ord(code):04X} is {said}, {quoted(ruled)} in the denormalizer")
    raise RuleError("the denormalizer maps codes together that it does not map alone")


def _chunked(text: str, size: int, differs: Callable[[str], bool]) -> Iterator[str]:
    """The characters of the ``size``-character chunks of ``text`` for which ``differs``."""
    for start in range(0, len(text), size):
        part = text[start : start + size]
        if differs(part):
            yield from part


def _check_targets(charsmap: bytes, codec: PUACodec) -> None:
    """Check 2: every Private Use character the normalizer writes is a code or reserved.

    A compiled map is a little-endian uint32 (the trie's size), the trie, then every target
    once, each ended by a NUL (sentencepiece's normalizer.cc)."""
    if len(charsmap) < 4:
        return
    (trie,) = struct.unpack("<I", charsmap[:4])
    written = charsmap[4 + trie :].decode("utf-8", errors="replace")
    known = {code for code, _ in codec.code_pairs()} | RESERVED
    unknown = set(PRIVATE_USE.findall(written)) - known
    if unknown:
        code = min(unknown)
        raise RuleError(
            f"its normalizer writes U+{ord(code):04X}, a code the manifest's table does not have"
        )


def probes(codec: PUACodec, normalizer: Normalizer) -> list[str]:
    """The texts check 3 normalizes (see the module's docstring)."""
    texts = [ZWJ, *NFC_PROBES]
    tables = (normalizer.folding, nepali_table("lm"), nepali_table("ocr"))
    texts += [pattern for table in tables for pattern, _ in table.rules]
    decomposed = (
        d
        for _, cluster in codec.code_pairs()
        if (d := unicodedata.normalize("NFD", cluster)) != cluster
    )
    texts += [d for d, _ in zip(decomposed, range(DECOMPOSED_PROBES), strict=False)]
    return list(dict.fromkeys(texts))


def _check_n_absorbed(forward: Any, codec: PUACodec, normalizer: Normalizer) -> None:
    """Check 3 where a user's rules rewrite beyond N: on each probe the rules give the same
    codes for the text and for its N. That is what the processor needs (it applies N, then
    the rules, where stock applies the rules alone), and it holds for any rules that hold N,
    the user's among them; a manifest that claims an N the rules do not hold (a folding rule
    they lack) would give other ids than stock's."""
    for text in probes(codec, normalizer):
        given, normalized = forward.Normalize(text), forward.Normalize(normalizer(text))
        if given != normalized:
            table = " with its folding table" if normalizer.folding.rules else ""
            raise RuleError(
                f"its rules (a user's besides N) code {quoted(text)} and its normalization="
                f"{normalizer.mode}{table}, {quoted(normalizer(text))}, differently"
            )


def _check_normalization(
    forward: Any, denormalizer: Any, codec: PUACodec, normalizer: Normalizer
) -> None:
    """Check 3: on each probe, the rules' round trip gives the manifest's N of it."""
    for text in probes(codec, normalizer):
        ruled = denormalizer.Normalize(forward.Normalize(text))
        if ruled != normalizer(text):
            table = " with its folding table" if normalizer.folding.rules else ""
            raise RuleError(
                f"its rules make {quoted(text)} {quoted(ruled)}, normalization="
                f"{normalizer.mode}{table} makes it {quoted(normalizer(text))}"
            )
