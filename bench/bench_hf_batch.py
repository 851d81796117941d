"""BrahmicPuaTokenizer on a batch against a plain fast tokenizer: seconds, and the ratio.

    python bench/bench_hf_batch.py [--lines 2000] [--model-type unigram|bpe]
                                   [--ours PATH --plain PATH]

Without ``--ours``/``--plain`` trains two 8000-piece models of ``--model-type`` on te.train: a
brahmic_pua one (``brahmic_pua.SentencePieceTrainer``) and a plain one (stock spm, byte
fallback). "fast" is the plain model as transformers' converter builds it for a fast tokenizer
(``SpmConverter``, ``legacy=False``; its ids are checked against stock spm's and the agreement
printed) in a ``PreTrainedTokenizerFast`` that adds ``<s>`` as Llama does; "ours" is
``BrahmicPuaTokenizer`` on the brahmic_pua model; both pad with ``</s>``. The text is the first
``--lines`` lines of te.extra (news, held out). Best of 5, ours and fast in alternation, for
``tok(lines)``, ``tok(lines, padding=True)`` and ``tok(lines, padding=True,
return_tensors="np")``; the ratio is ours ÷ fast (below 1: ours is faster), and ours ÷ spm is
against our processor's own batch ``encode(lines)`` (ids only), timed in the same rounds: what
transformers' side of the call costs on top of spm.

The script calls only public API, so it measures any checkout: ``PYTHONPATH=<checkout>`` runs
that checkout's brahmic_pua (transformers' row-at-a-time batch path before the batch path).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any

import sentencepiece as stock
from tokenizers import processors
from transformers import PreTrainedTokenizerFast
from transformers.convert_slow_tokenizer import SpmConverter

import brahmic_pua
from brahmic_pua.hf import BrahmicPuaTokenizer
from brahmic_pua.io.lines import file_lines
from brahmic_pua.model.model_proto import model_pb2

from common import CORPORA, best_of

REPEAT = 5
VOCAB = 8000
CASES: dict[str, dict[str, Any]] = {
    "tok(lines)": {},
    "padding=True": {"padding": True},
    'padding=True, "np"': {"padding": True, "return_tensors": "np"},
}


def fast_tokenizer(model: Path) -> Any:
    """The plain model as transformers converts it for a fast tokenizer, ``<s>`` added."""
    proto = model_pb2.ModelProto.FromString(model.read_bytes())
    pieces = proto.pieces
    bpe = proto.trainer_spec.model_type == 2
    vocab: Any = (
        {p.piece: i for i, p in enumerate(pieces)} if bpe else [(p.piece, p.score) for p in pieces]
    )
    backend = SpmConverter.build_tokenizer_from_spm_proto(proto, vocab, legacy=False)
    bos = proto.trainer_spec.bos_id
    backend.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", bos)]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=backend,
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
        pad_token="</s>",
    )


def train(work: str, model_type: str) -> tuple[Path, Path]:
    text = str(CORPORA / "te.train.txt")
    brahmic_pua.SentencePieceTrainer.train(
        input=text, model_prefix=f"{work}/ours", vocab_size=VOCAB, model_type=model_type
    )
    stock.SentencePieceTrainer.train(
        input=text,
        model_prefix=f"{work}/plain",
        vocab_size=VOCAB,
        model_type=model_type,
        byte_fallback=True,
        minloglevel=2,
    )
    return Path(f"{work}/ours.model"), Path(f"{work}/plain.model")


def measure(ours_model: Path, plain_model: Path, lines: list[str]) -> None:
    ours: Any = BrahmicPuaTokenizer(ours_model, pad_token="</s>")
    fast = fast_tokenizer(plain_model)
    plain_ids = stock.SentencePieceProcessor(model_file=str(plain_model)).encode(lines)
    agree = sum(
        row[1:] == ids for row, ids in zip(fast(lines)["input_ids"], plain_ids, strict=True)
    )
    own_ids = brahmic_pua.SentencePieceProcessor(model_file=str(ours_model)).encode(lines)
    same = sum(row[1:] == ids for row, ids in zip(ours(lines)["input_ids"], own_ids, strict=True))
    print(f"{len(lines):,} lines; ids as their processor's: fast {agree:,}, ours {same:,}")
    print(f"{'':22} {'ours s':>8} {'fast s':>8} {'ours ÷ fast':>12} {'ours ÷ spm':>11}")
    for name, options in CASES.items():
        runs = {
            "ours": partial(ours, lines, **options),
            "fast": partial(fast, lines, **options),
            "spm": partial(ours.sp.encode, lines),
        }
        best = {key: seconds for key, (seconds, _) in best_of(runs, REPEAT).items()}
        mine, theirs, floor = best["ours"], best["fast"], best["spm"]
        print(f"{name:22} {mine:8.4f} {theirs:8.4f} {mine / theirs:11.2f}× {mine / floor:10.2f}×")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--model-type", choices=["unigram", "bpe"], default="unigram")
    parser.add_argument("--ours", type=Path, help="a brahmic_pua model (with --plain)")
    parser.add_argument("--plain", type=Path, help="a stock spm model (with --ours)")
    args = parser.parse_args()
    if (args.ours is None) != (args.plain is None):
        parser.error("--ours and --plain go together")
    lines = list(islice(file_lines(CORPORA / "te.extra.txt"), args.lines))
    threads = os.environ.get("TOKENIZERS_PARALLELISM", "unset")
    print(f"brahmic_pua from {Path(brahmic_pua.__file__).parent}; TOKENIZERS_PARALLELISM {threads}")
    if args.ours is not None:
        measure(args.ours, args.plain, lines)
        return
    with tempfile.TemporaryDirectory() as work:
        measure(*train(work, args.model_type), lines)


if __name__ == "__main__":
    main()
