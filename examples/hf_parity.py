"""transformers' own SentencePiece tokenizers against BrahmicPuaTokenizer on a brahmic_pua model.

    python examples/hf_parity.py [--model te.model] [--lines ../shared/corpora/te.extra.txt]

Without --model it trains an 8000-piece Unigram model on --train (te.train.txt). Over the last
--count lines of --lines (held out: te.extra.txt is not in te.train.txt) it counts, for each
tokenizer, the lines whose ids equal brahmic_pua's, whose ids decode back to the text (its own
ids; and brahmic_pua's ids, which is what a model trained on them generates), and whose tokens
show Private Use code points. Needs ``pip install 'brahmic-pua[hf]'``.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from brahmic_pua import SentencePieceProcessor
from brahmic_pua.hf import BrahmicPuaTokenizer
from brahmic_pua.io.lines import file_lines
from brahmic_pua.trainer import train_model

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
PRIVATE_USE = re.compile("[\ue000-\uf8ff\U000f0000-\U0010ffff]")


def candidates(model: Path, work: Path) -> dict[str, Callable[[], Any]]:
    """How a transformers user would load the .model, by name; built lazily, one at a time."""
    from transformers import AutoTokenizer, LlamaTokenizer, T5Tokenizer
    from transformers.tokenization_utils_sentencepiece import SentencePieceBackend

    directory = work / "spm"  # the file name transformers looks for
    directory.mkdir()
    (directory / "tokenizer.model").write_bytes(model.read_bytes())
    return {
        "SentencePieceBackend(vocab_file=)": lambda: SentencePieceBackend(vocab_file=str(model)),
        "LlamaTokenizer(vocab_file=)": lambda: LlamaTokenizer(vocab_file=str(model)),
        "LlamaTokenizer.from_pretrained": lambda: LlamaTokenizer.from_pretrained(directory),
        "T5Tokenizer(vocab_file=)": lambda: T5Tokenizer(vocab_file=str(model)),
        "T5Tokenizer.from_pretrained": lambda: T5Tokenizer.from_pretrained(directory),
        "AutoTokenizer.from_pretrained": lambda: AutoTokenizer.from_pretrained(directory),
        "BrahmicPuaTokenizer": lambda: BrahmicPuaTokenizer(model),
    }


def count(tokenizer: Any, lines: list[str], sp: SentencePieceProcessor) -> tuple[int, ...]:
    """(ids equal, own ids decode, brahmic_pua's ids decode, lines with PUA tokens)."""
    same = own = ours = shown = 0
    for line, want in zip(lines, sp.encode(lines), strict=True):
        text = sp.decode(want)  # N(line): what a round trip can give back
        ids = tokenizer(line, add_special_tokens=False)["input_ids"]
        same += ids == want
        own += tokenizer.decode(ids, skip_special_tokens=True) == text
        with contextlib.suppress(IndexError, ValueError):  # an id past a smaller vocabulary
            ours += tokenizer.decode(want, skip_special_tokens=True) == text
        tokens = tokenizer.convert_ids_to_tokens(ids)
        shown += any(PRIVATE_USE.search(token) for token in tokens)
    return same, own, ours, shown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, help="a brahmic_pua .model (default: train one)")
    parser.add_argument("--train", type=Path, default=CORPORA / "te.train.txt")
    parser.add_argument("--lines", type=Path, default=CORPORA / "te.extra.txt")
    parser.add_argument("--count", type=int, default=2000)
    args = parser.parse_args()
    lines = list(file_lines(args.lines, skip_blank=True))[-args.count :]
    with tempfile.TemporaryDirectory() as name:
        work = Path(name)
        model = args.model
        if model is None:
            train_model(
                input=str(args.train),
                model_prefix=str(work / "te"),
                vocab_size=8000,
                minloglevel=2,
            )
            model = work / "te.model"
        sp = SentencePieceProcessor(model_file=model)
        print(f"{len(lines):,} lines of {args.lines.name}, model {model.name}")
        print(f"{'':34} {'ids equal':>10} {'decode':>8} {'decode':>8} {'PUA in':>8}")
        print(f"{'tokenizer':34} {'to ours':>10} {'own ids':>8} {'our ids':>8} {'tokens':>8}")
        for label, load in candidates(model, work).items():
            try:
                tokenizer = load()
            except Exception as error:  # a loader that fails is a result too
                print(f"{label:34} fails to load: {type(error).__name__}: {error}"[:160])
                continue
            same, own, ours, shown = count(tokenizer, lines, sp)
            print(f"{label:34} {same:>10,} {own:>8,} {ours:>8,} {shown:>8,}")


if __name__ == "__main__":
    main()
