"""The codec compiled into SentencePiece normalizer and denormalizer rules.

SentencePiece rewrites text with longest-match string → string rules before it tokenizes, and
rewrites its output with a second rule set after it detokenizes. Giving it cluster → code as the
first and code → cluster as the second makes a ``.model`` that stock sentencepiece uses on raw
text. Escapes go in too: ▁ and U+2585 become their stand-ins, a literal code point becomes
escape + itself, so the rules invert exactly whatever longest match does with unseen clusters.
"""

from __future__ import annotations

from brahmic_pua.codec import PUACodec
from brahmic_pua.codec.layout import ESCAPE, ESCAPED_LITERALS, RESERVED


def rule_pairs(codec: PUACodec) -> list[tuple[str, str]]:
    """(source, target) for every normalizer rule, in a fixed order."""
    pairs = [(cluster, code) for code, cluster in codec.code_pairs()]
    pairs += list(ESCAPED_LITERALS.items())
    taken = [code for code, _ in codec.code_pairs()] + sorted(RESERVED)
    pairs += [(code, ESCAPE + code) for code in taken]
    return pairs


def rule_files(codec: PUACodec) -> tuple[str, str]:
    """The normalizer and denormalizer rule files (``U+XXXX U+YYYY<TAB>U+ZZZZ`` lines).

    ~50,000 rules: every string is spelled by one ``str.translate`` over all of them.
    """
    pairs = rule_pairs(codec)
    joined = "\n".join(text for pair in pairs for text in pair)
    names = {ord(ch): f"U+{ord(ch):04X} " for ch in set(joined) - {"\n"}}
    spelled = joined.translate(names).replace(" \n", "\n").removesuffix(" ").split("\n")
    sources, targets = spelled[0::2], spelled[1::2]
    forward = "".join(f"{a}\t{b}\n" for a, b in zip(sources, targets, strict=True))
    backward = "".join(f"{b}\t{a}\n" for a, b in zip(sources, targets, strict=True))
    return forward, backward
