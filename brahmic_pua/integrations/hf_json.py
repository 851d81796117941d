"""A ``tokenizer.json`` that gives a brahmic_pua BPE model's ids in Hugging Face tokenizers (Rust,
transformers' fast tokenizers) and tokenizers.js, on raw text, with no brahmic_pua code in front.

It is built from the model spelled in text (:mod:`brahmic_pua.model.text_spelling`), whose BPE
rebuilds each cluster through the chain of its prefixes before any other merge. tokenizers' BPE
differs from SentencePiece's in one way that matters here: it looks each character up in the
vocabulary *before* merging, and a character that is no entry falls back to bytes at once,
where SentencePiece merges first and spells only what is left over. A vowel sign or virama is
no piece of the model (no piece starts with one), so it must be an entry to be merged into its
cluster, but a lone one, which joins no cluster, must not be, or it would come out as that
entry where SentencePiece writes its bytes. So each mark that *extends* a cluster of the table
is rewritten by the normalizer to a stand-in (:data:`STAND_INS`, one per mark, after NFC)
and the vocabulary is spelled with stand-ins: a mark extends a cluster when the characters since
the last starter, followed by it, are a cluster of the table (the table is closed under
prefixes, so that is exactly when SentencePiece's chain of merges takes it). One ``Replace`` per
mark, with a lookbehind over the prefixes it extends; the decoder writes the marks back.

The rest is SentencePiece's own pipeline, step for step:

* normalizer: N (NFC; under nepali-lm and nepali-ocr the folding too, :func:`_n_steps`), the
  model's escapes (a literal ▁ and
  U+2585 to their stand-ins, the reserved escape codes escaped), the marks' stand-ins, spm's
  dummy ▁ (``Prepend``, which leaves an empty text empty, as spm does) and every space as ▁;
* model: BPE with byte fallback; a merge for every split of a piece into two entries, ranked by
  the piece's score (SentencePiece merges the adjacent pair whose concatenation is the
  best-scoring piece, whatever the split);
* decoder: ▁ as spaces, bytes, fused, the dummy space stripped, the marks and escapes back.

What differs (docs/runtimes.md): text that holds one of the table's codes (a Private Use
character) as a literal, whose ids are its bytes where the model writes an escape and the
cluster's piece; the vocabulary has one entry per stand-in after the model's pieces (ids no
encoding writes); a text that N empties (a ZWJ alone under nepali-lm), for which spm writes
its ▁ and tokenizers nothing. Refused in one line: what :func:`spell_in_text` refuses, a model
whose clusters are not all spelled in text (trained before the prefix closure), N without NFC
(``none``), a folding table whose patterns overlap, a user's rules, and whitespace options
tokenizers cannot follow.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from brahmic_pua.codec.layout import ESCAPE, ESCAPED_LITERALS
from brahmic_pua.model.model_proto import BYTE, CONTROL, NORMAL, UNKNOWN, USER_DEFINED, parse_model
from brahmic_pua.model.text_spelling import NotSpellable, TextSpelled, spell_in_text
from brahmic_pua.normalize import Normalizer
from brahmic_pua.normalize.folding import ZWJ
from brahmic_pua.orthography.charclass import STARTERS
from brahmic_pua.orthography.classify import classify

#: The stand-ins, in order: CJK compatibility ideographs (U+F900 on) that NFC replaces by
#: another character, so that no text that went through the normalizer's NFC holds one except
#: where the mark steps wrote it (a model without NFC, ``none``, is refused). 460 of them: more
#: than the marks of all Brahmic scripts.
STAND_INS: Final[tuple[str, ...]] = tuple(
    ch
    for ch in map(chr, range(0xF900, 0xFB00))
    if unicodedata.category(ch) == "Lo" and unicodedata.normalize("NFC", ch) != ch
)
SPACE: Final[str] = "\u2581"


@dataclass(frozen=True)
class TokenizerJson:
    """A tokenizer.json (:func:`tokenizer_json`) and what it is made of."""

    #: The file's text (JSON, UTF-8 when written).
    text: str
    #: How many of the model's pieces it holds (ids 0 to pieces - 1, as in the model).
    pieces: int
    #: Mark → its stand-in (the vocabulary entries after the pieces, in this order).
    stand_ins: dict[str, str]
    #: How many merges the model holds.
    merges: int

    def summary(self) -> str:
        return (
            f"{self.pieces:,} pieces with the model's ids, {self.merges:,} merges, "
            f"{len(self.stand_ins)} characters written as stand-ins (entries {self.pieces:,} "
            f"to {self.pieces + len(self.stand_ins) - 1:,}, which no encoding writes)"
        )


def _refuse_unfollowed(spelled: TextSpelled, original: Any, source: str) -> None:
    """:class:`NotSpellable` for a model whose ids a tokenizer.json cannot give: clusters left
    coded, no NFC in front (a stand-in could come from the text), a user's rules (tokenizers
    cannot apply their longest match), whitespace options it does not follow."""
    manifest = spelled.manifest
    if spelled.coded:
        raise NotSpellable(
            f"{source}: {len(spelled.coded)} clusters keep their code ({spelled.coded[0]}, …): "
            "a prefix of theirs has no piece (a model trained before brahmic_pua closed its "
            "tables under prefixes); train it again with this version"
        )
    if not manifest.normalizer.composes:
        raise NotSpellable(
            f"{source} was trained with normalization=none: without NFC in front, a character "
            "the tokenizer.json uses as a stand-in for a mark could come from the text itself "
            "and decode as that mark; export it with --to spm, or train with normalization=nfc"
        )
    if manifest.user_rules:
        raise NotSpellable(
            f"{source} was trained with a user's normalization rules: a tokenizer.json cannot "
            "apply their longest match (tokenizers' Replace normalizers run one after "
            "another); export it with --to spm, or --to gguf with llama_input"
        )
    spec = original.normalizer_spec
    if spec.remove_extra_whitespaces or not spec.escape_whitespaces:
        raise NotSpellable(
            f"{source} was trained with remove_extra_whitespaces=true or escape_whitespaces="
            "false, which this tokenizer.json does not follow; train with brahmic_pua's "
            "defaults"
        )
    if original.trainer_spec.treat_whitespace_as_suffix:
        raise NotSpellable(f"{source} puts ▁ at the end of words, which tokenizers cannot")


def tokenizer_json(data: bytes, source: str = "the model") -> TokenizerJson:
    """The tokenizer.json of a serialized brahmic_pua BPE model (module docstring), or
    :class:`NotSpellable` in one line saying why none gives its ids."""
    spelled = spell_in_text(data, source)  # reads the model; refuses Unigram, plain models...
    original, manifest = parse_model(data), spelled.manifest
    _refuse_unfollowed(spelled, original, source)
    spec = original.normalizer_spec
    model = parse_model(spelled.data)
    codec = manifest.codec
    clusters = [cluster for _, cluster in codec.code_pairs() if classify(cluster[0]) in STARTERS]
    stand_ins = _stand_ins(clusters, {p.piece for p in model.pieces if p.type == NORMAL})
    spelled_as = _spelling(codec.code_pairs(), stand_ins)
    vocab: dict[str, int] = {}
    mergeable: dict[str, float] = {}
    added = []
    for i, (before, piece) in enumerate(zip(original.pieces, model.pieces, strict=True)):
        token = spelled_as(before.piece) if piece.type in (NORMAL, USER_DEFINED) else piece.piece
        vocab[token] = i
        if piece.type == NORMAL:
            mergeable[token] = float(piece.score)
        elif piece.type in (CONTROL, UNKNOWN, USER_DEFINED):
            added.append(_added(i, token, special=piece.type != USER_DEFINED))
    if len(vocab) != len(model.pieces):
        raise NotSpellable(f"{source}: two pieces are spelled alike with marks as stand-ins")
    for k, stand_in in enumerate(stand_ins.values()):
        vocab[stand_in] = len(model.pieces) + k
    merges = list(_merges(mergeable, vocab))
    unknown = next((p.piece for p in model.pieces if p.type == UNKNOWN), None)
    document = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": _normalizer(_n_steps(manifest.normalizer, source), clusters, stand_ins, spec),
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": _decoder(stand_ins, spec.add_dummy_prefix),
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": unknown,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": True,
            "byte_fallback": any(p.type == BYTE for p in model.pieces),
            "ignore_merges": False,
            "vocab": vocab,
            "merges": merges,
        },
    }
    text = json.dumps(document, ensure_ascii=False, indent=1)
    return TokenizerJson(text, len(model.pieces), stand_ins, len(merges))


def _stand_ins(clusters: list[str], pieces: set[str]) -> dict[str, str]:
    """Every character that extends a cluster (all but its first), and every first character of
    a cluster that is no piece alone (a cluster such as ङ् whose ङ never stood alone: spm merges
    the raw character, tokenizers needs an entry for it), in code point order, each with its
    stand-in."""
    marks = sorted({ch for cluster in clusters for ch in cluster[1:]})
    starters = sorted({c[0] for c in clusters if len(c) > 1 and c[0] not in pieces})
    if len(marks) + len(starters) > len(STAND_INS):
        raise NotSpellable(
            f"{len(marks) + len(starters):,} characters need a stand-in: more than "
            f"{len(STAND_INS):,}"
        )
    return dict(zip(marks + starters, STAND_INS, strict=False))


def _spelling(code_pairs: list[tuple[str, str]], stand_ins: dict[str, str]) -> Callable[[str], str]:
    """A piece of the model (codes) as the vocabulary spells it: each code's cluster with its
    marks as stand-ins, and its first character too where that has one (and the cluster is
    longer than it); any other character as it is."""
    marks = _translation(stand_ins)
    table = {}
    for code, cluster in code_pairs:
        first = cluster[0]
        if len(cluster) > 1:
            first = stand_ins.get(first, first)
        table[ord(code)] = first + cluster[1:].translate(marks)

    def spelled(piece: str) -> str:
        return piece.translate(table)

    return spelled


def _translation(stand_ins: dict[str, str]) -> dict[int, str]:
    return {ord(mark): stand_in for mark, stand_in in stand_ins.items()}


def _merges(mergeable: dict[str, float], vocab: dict[str, int]) -> Iterator[list[str]]:
    """Every split of every NORMAL piece into two entries that can be merged, the pieces best
    score first (ties: the lower id, as spm lists them)."""
    ranked = sorted(mergeable, key=lambda token: (-mergeable[token], vocab[token]))
    parts = set(mergeable) | {t for t in vocab if len(t) == 1}
    for token in ranked:
        for cut in range(1, len(token)):
            left, right = token[:cut], token[cut:]
            if left in parts and right in parts:
                yield [left, right]


def _added(i: int, content: str, *, special: bool) -> dict[str, Any]:
    return {
        "id": i,
        "content": content,
        "single_word": False,
        "lstrip": False,
        "rstrip": False,
        "normalized": not special,
        "special": special,
    }


def _replace(pattern: str, content: str, *, regex: bool = False) -> dict[str, Any]:
    return {
        "type": "Replace",
        "pattern": {"Regex" if regex else "String": pattern},
        "content": content,
    }


def _n_steps(normalizer: Normalizer, source: str) -> list[dict[str, Any]]:
    """N as tokenizers' normalizers: NFC; under nepali-lm the ZWJs deleted, NFC again; the
    folding rules one ``Replace`` each, longest first, then NFC (brahmic_pua.normalize.modes).
    A fold is longest match, left to right, which a sequence of replacements reproduces while
    no two patterns overlap (the end of one the start of another): a table with such a pair is
    refused."""
    if not normalizer.composes:
        return []
    steps: list[dict[str, Any]] = [{"type": "NFC"}]
    if normalizer.strips_zwj:
        steps += [_replace(ZWJ, ""), {"type": "NFC"}]
    rules = normalizer.folding.rules
    if not rules:
        return steps
    patterns = [pattern for pattern, _ in rules]
    for a in patterns:
        for b in patterns:
            if a != b and any(a.endswith(b[:k]) for k in range(1, len(b))):
                raise NotSpellable(
                    f"{source}: folding patterns {a!r} and {b!r} overlap, so replacing them one "
                    "after another is not the fold's longest match; export with --to spm"
                )
    ordered = sorted(rules, key=lambda rule: (-len(rule[0]), rule[0]))
    return steps + [_replace(a, b) for a, b in ordered] + [{"type": "NFC"}]


def _normalizer(
    n_steps: list[dict[str, Any]],
    clusters: list[str],
    stand_ins: dict[str, str],
    spec: Any,
) -> dict[str, Any]:
    steps = list(n_steps)
    # the model's escapes, in an order where no step rewrites what an earlier one wrote
    for literal in (ESCAPE, *ESCAPED_LITERALS.values()):
        steps.append(_replace(literal, ESCAPE + literal))
    for literal, stand_in in ESCAPED_LITERALS.items():
        steps.append(_replace(literal, stand_in))
    steps += _mark_steps(clusters, stand_ins)
    if spec.add_dummy_prefix:
        steps.append({"type": "Prepend", "prepend": SPACE})
    steps.append(_replace(" ", SPACE))
    return {"type": "Sequence", "normalizers": steps}


def _mark_steps(clusters: list[str], stand_ins: dict[str, str]) -> list[dict[str, Any]]:
    """One Replace per mark: the mark, after a prefix it extends to a cluster of the table, to
    its stand-in; then one per first character that has a stand-in, before a mark that extends
    it. Characters already rewritten by an earlier step are matched in either form."""
    after: dict[str, set[str]] = {}
    for cluster in clusters:
        for k in range(1, len(cluster)):
            after.setdefault(cluster[k], set()).add(cluster[:k])

    def either(ch: str) -> str:
        return f"[{re.escape(ch)}{stand_ins[ch]}]" if ch in stand_ins else re.escape(ch)

    steps = []
    for mark, stand_in in stand_ins.items():
        if mark in after:
            prefixes = sorted(after[mark], key=lambda p: (-len(p), p))
            behind = "|".join("".join(map(either, prefix)) for prefix in prefixes)
            steps.append(_replace(f"(?<={behind}){re.escape(mark)}", stand_in, regex=True))
    for first, stand_in in stand_ins.items():
        if first not in after:  # a first character: before a mark that makes a cluster of it
            seconds = sorted({c[1] for c in clusters if len(c) > 1 and c[0] == first})
            ahead = "".join(f"{re.escape(ch)}{stand_ins[ch]}" for ch in seconds)
            steps.append(_replace(f"{re.escape(first)}(?=[{ahead}])", stand_in, regex=True))
    return steps


def _decoder(stand_ins: dict[str, str], dummy: bool) -> dict[str, Any]:
    steps: list[dict[str, Any]] = [
        _replace(SPACE, " "),
        {"type": "ByteFallback"},
        {"type": "Fuse"},
    ]
    if dummy:
        steps.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})
    steps += [_replace(stand_in, mark) for mark, stand_in in stand_ins.items()]
    for literal, stand_in in ESCAPED_LITERALS.items():
        steps.append(_replace(f"(?<!{ESCAPE}){stand_in}", literal, regex=True))
    for literal in (*ESCAPED_LITERALS.values(), ESCAPE):
        steps.append(_replace(ESCAPE + literal, literal))
    return {"type": "Sequence", "decoders": steps}


def with_special_tokens(text: str, bos: tuple[str, int] | None, eos: tuple[str, int] | None) -> str:
    """The tokenizer.json ``text`` with a post-processor that adds ``bos`` before and ``eos``
    after each sequence of a single text or a pair ((piece, id) each, or None), as
    :class:`~brahmic_pua.hf.BrahmicPuaTokenizer` adds them: transformers' fast tokenizers add
    special tokens only through the file's post-processor."""
    document = json.loads(text)
    if bos is None and eos is None:
        return text

    def around(sequence: str, type_id: int) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = [{"Sequence": {"id": sequence, "type_id": type_id}}]
        if bos is not None:
            items.insert(0, {"SpecialToken": {"id": bos[0], "type_id": type_id}})
        if eos is not None:
            items.append({"SpecialToken": {"id": eos[0], "type_id": type_id}})
        return items

    tokens = [token for token in (bos, eos) if token is not None]
    document["post_processor"] = {
        "type": "TemplateProcessing",
        "single": around("A", 0),
        "pair": around("A", 0) + around("B", 1),
        "special_tokens": {
            piece: {"id": piece, "ids": [i], "tokens": [piece]} for piece, i in tokens
        },
    }
    return json.dumps(document, ensure_ascii=False, indent=1)
