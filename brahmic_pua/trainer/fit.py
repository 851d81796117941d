"""spm's training run on the corpus's lines, overlapped with building the model's full rules.

spm maps clusters to codes itself, with the codec's rules. Its lines are already N's output, so
the codec's own rules are all it needs to train (:func:`training_rule_files`); the rules for
every other spelling, which the finished model needs and which take most of the Python time
before training, are built and compiled on this thread while spm trains on another. spm reads
its lines from a file with the GIL released; only when the lines cannot be a file (a line holds
a line feed) is it fed from Python, and then the two run one after the other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import sentencepiece as spm

from brahmic_pua.codec import PUACodec
from brahmic_pua.model.compile import compile_rules
from brahmic_pua.model.proto import parse_model
from brahmic_pua.model.rules import rule_files, training_rule_files
from brahmic_pua.normalize import Normalizer
from brahmic_pua.trainer.corpus import BLOCK, ESCAPED_BLOCK, Corpus

T = TypeVar("T")


def fit(
    corpus: Corpus,
    codec: PUACodec,
    n: Normalizer,
    options: dict[str, Any],
    work: str,
) -> tuple[Any, int]:
    """spm's model, trained on the corpus's lines with the complete normalizer in it, and the
    number of lines spm skipped as longer than ``max_sentence_length``."""
    limit = int(options["max_sentence_length"])
    too_long = 0
    if corpus.stats.longest_line_bytes > limit:
        too_long = sum(len(text.encode("utf-8")) > limit for text in corpus.lines())
    forward, backward = training_rule_files(codec, n)
    path = corpus.spm_input()
    source: dict[str, Any] = {"input": path}
    if path is None:
        source = {"sentence_iterator": _escaped(corpus.lines())}
    prefix = Path(work, "model")

    def train() -> None:
        spm.SentencePieceTrainer.train(
            **source,
            model_prefix=str(prefix),
            normalization_rule_tsv=_write(work, "normalize.tsv", forward),
            denormalization_rule_tsv=_write(work, "denormalize.tsv", backward),
            **options,
        )

    def complete() -> bytes:
        return _run(lambda: compile_rules(*rule_files(codec, n), work)[0])

    if not n.composes:  # without NFC, the codec's rules are all the rules
        _run(train)
        charsmap = None
    elif path:
        charsmap = _overlapped(train, complete)
    else:
        _run(train)
        charsmap = complete()
    model = parse_model(Path(f"{prefix}.model").read_bytes())
    if charsmap is not None:
        model.normalizer_spec.precompiled_charsmap = charsmap
    return model, too_long


def _overlapped(train: Callable[[], None], complete: Callable[[], bytes]) -> bytes:
    """``complete()`` here while ``train()`` runs on a thread. The thread is a daemon: Ctrl-C
    stops waiting for it, and an interrupted process does not wait for spm to finish."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            _run(train)
        except BaseException as error:  # handed to the waiting thread
            failure.append(error)

    thread = threading.Thread(target=run, name="brahmic_pua-spm-train", daemon=True)
    thread.start()
    charsmap = complete()
    thread.join()
    if failure:
        raise failure[0]
    return charsmap


def _run(call: Callable[[], T]) -> T:
    """``call()``, with spm's errors as one line."""
    try:
        return call()
    except RuntimeError as error:
        raise ValueError(f"SentencePiece could not train: {_first_line(error)}") from None


def _escaped(lines: Iterator[str]) -> Iterator[str]:
    """Lines with U+2585, which spm drops with the line, escaped as in the line file."""
    for line in lines:
        yield line.replace(BLOCK, ESCAPED_BLOCK) if BLOCK in line else line


def _write(work: str, name: str, text: str) -> str:
    path = Path(work, name)
    path.write_text(text, encoding="utf-8")
    return str(path)


def _first_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[-1] if lines else type(error).__name__
