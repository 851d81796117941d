"""Rule files compiled into SentencePiece's ``precompiled_charsmap`` by SentencePiece itself.

spm exposes its rule compiler only through training, so a model's rules are replaced by
training a throwaway character model on one line with the new rule files and taking its
compiled maps: the same compiler, so the same longest-match behaviour, bit for bit.
"""

from __future__ import annotations

from pathlib import Path

import sentencepiece as spm

from brahmic_pua.model.model_proto import parse_model


def compile_rules(
    forward: str, backward: str, work: str | Path, minloglevel: int = 2
) -> tuple[bytes, bytes]:
    """(normalizer, denormalizer) charsmaps for two rule files' text, built in ``work``.
    ``minloglevel`` is spm's (one level for the whole process): alongside a training, that
    training's own, so as not to change its log halfway."""
    folder = Path(work)
    rules, derules = folder / "compile_normalize.tsv", folder / "compile_denormalize.tsv"
    rules.write_text(forward, encoding="utf-8")
    derules.write_text(backward, encoding="utf-8")
    prefix = folder / "compile"
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(["a"]),
        model_prefix=str(prefix),
        model_type="char",
        vocab_size=8,
        hard_vocab_limit=False,
        byte_fallback=False,
        normalization_rule_tsv=str(rules),
        denormalization_rule_tsv=str(derules),
        minloglevel=minloglevel,
    )
    model = parse_model(Path(f"{prefix}.model").read_bytes())
    return (
        bytes(model.normalizer_spec.precompiled_charsmap),
        bytes(model.denormalizer_spec.precompiled_charsmap),
    )
