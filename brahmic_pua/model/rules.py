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


class _HexNames(dict[str, str]):
    """``U+XXXX`` spellings, made once per character (rule files hold ~50,000 rules)."""

    def __missing__(self, ch: str) -> str:
        name = self[ch] = f"U+{ord(ch):04X}"
        return name


_HEX = _HexNames()


def _hex(text: str) -> str:
    return " ".join(map(_HEX.__getitem__, text))


def rule_pairs(codec: PUACodec) -> list[tuple[str, str]]:
    """(source, target) for every normalizer rule, in a fixed order."""
    pairs = [(cluster, code) for code, cluster in codec.code_pairs()]
    pairs += list(ESCAPED_LITERALS.items())
    taken = [code for code, _ in codec.code_pairs()] + sorted(RESERVED)
    pairs += [(code, ESCAPE + code) for code in taken]
    return pairs


def normalizer_tsv(codec: PUACodec) -> str:
    return "".join(f"{_hex(a)}\t{_hex(b)}\n" for a, b in rule_pairs(codec))


def denormalizer_tsv(codec: PUACodec) -> str:
    return "".join(f"{_hex(b)}\t{_hex(a)}\n" for a, b in rule_pairs(codec))
