"""An existing SentencePiece workflow with one line changed: ``import brahmic_pua as spm``.

    python examples/spm_workflow.py

Trains on the sample corpus bundled with the package, so it runs anywhere.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import sentencepiece

import brahmic_pua as spm
from brahmic_pua.cli.demo import sample_lines


def main() -> None:
    train, held_out = sample_lines()
    with tempfile.TemporaryDirectory() as work:
        prefix = str(Path(work, "te"))
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(train), model_prefix=prefix, vocab_size=2000, model_type="bpe"
        )
        sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
        print(sp.encode("క్రాంతి", out_type=str))  # pieces are real text
        ids = sp.encode(held_out[:3])
        print(ids)
        assert sp.decode(ids) == held_out[:3]  # exact round trip
        stock = sentencepiece.SentencePieceProcessor(model_file=prefix + ".model")
        assert stock.encode(held_out[:3]) == ids  # the same file works in stock sentencepiece
        print("stock sentencepiece agrees:", stock.decode(ids)[0])


if __name__ == "__main__":
    main()
