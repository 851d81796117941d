"""spm's training run on the corpus's lines, overlapped with building the model's full rules.

spm maps clusters to codes itself, with the codec's rules. Its lines are already N's output, so
the codec's own rules are all it needs to train (:func:`training_rule_files`); the rules for
every other spelling, which the finished model needs and which take most of the Python time
before training, are built and compiled on this thread while spm trains on another. spm reads
its lines from a file with the GIL released; only when the lines cannot be a file (a line holds
a line feed) is it fed from Python, and then the two run one after the other.

spm always trains on a thread of its own, this one waiting: Python runs signal handlers on the
main thread only, between bytecodes, so a main thread inside spm's C++ would take Ctrl-C or
SIGTERM only when spm returns, and an iterator that spm calls would get the signal's exception,
which spm turns into a training error (exit 1, not 130). An interrupted spm cannot be stopped:
its thread (a daemon) is left to the process's end (:func:`spm_running`).

On the progress display the training is a phase, "training SentencePiece (unigram)", with what
spm's log says it is at (:mod:`brahmic_pua.trainer.spm_log`), then "compiling rules" while the
rules are still being built once spm is done.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import sentencepiece as spm

from brahmic_pua.codec import PUACodec
from brahmic_pua.io.progress import Phases
from brahmic_pua.model.compile import compile_rules
from brahmic_pua.model.model_proto import parse_model
from brahmic_pua.model.rules import rule_files, training_rule_files
from brahmic_pua.normalize import Normalizer
from brahmic_pua.trainer.corpus import Corpus
from brahmic_pua.trainer.spm_log import SpmLog, captured
from brahmic_pua.trainer.spm_options import SpmOptions
from brahmic_pua.trainer.spm_words import (
    BLOCK,
    ESCAPED_BLOCK,
    restored,
    rules_split_alike,
    word_options,
    words_train_alike,
)

T = TypeVar("T")


@dataclass(frozen=True)
class Built:
    """The model's complete rules, compiled (normalizer, denormalizer), and the codec they were
    built for: ``fit``'s codec, or the codec of the clusters spm was forecast to keep."""

    codec: PUACodec
    maps: tuple[bytes, bytes]


def fit(
    corpus: Corpus,
    codec: PUACodec,
    normalizer: Normalizer,
    options: SpmOptions,
    work: str,
    *,
    phases: Phases | None = None,
    read_log: bool = False,
    user_rules: tuple[tuple[str, str], ...] = (),
    forecast: Callable[[str], PUACodec | None] | None = None,
) -> tuple[Any, int, Built | None]:
    """spm's model, trained on the corpus's lines, the number of lines spm skipped as longer
    than ``max_sentence_length``, and the complete rules (None without NFC: the codec's rules,
    spm's own, are all), for the caller to put in the model once it knows which codes spm
    kept. ``phases``:
    the phases' display; ``read_log``: spm's log may be read for it (the caller did not ask for
    it); ``user_rules``: a user's normalizer rules, in both the training rules and the complete
    ones (spm trains on the text they rewrite, as stock does); ``forecast``: given the training
    rules' file, the codec of the clusters spm will keep, or None (the rules are then built
    for that codec, :mod:`brahmic_pua.trainer.coverage_forecast`)."""
    too_long = _lines_too_long(corpus, options.integer("max_sentence_length"))
    rules = training_rule_files(codec, normalizer, user_rules)
    rule_paths = (
        _write(work, "normalize.tsv", rules[0]),
        _write(work, "denormalize.tsv", rules[1]),
    )
    words, path = _spm_input(corpus, options, rules[0], too_long)
    source: dict[str, Any] = {"input": path}
    stop = threading.Event()  # set when this thread stops waiting: the iterator ends spm
    if path is None:
        source = {"sentence_iterator": _escaped(corpus.lines(), stop)}
    phases = phases if phases is not None else Phases(False)
    label = f"training SentencePiece ({options.model_type})"
    log = None
    if read_log and phases.enabled:  # (thread 0: no lines shown until spm's thread is known)
        log = SpmLog(lambda say: phases.show(say, label), thread=0, words=words is not None)
    complete = _completer(codec, normalizer, user_rules, work, forecast, rule_paths[0])
    with captured(log) as capture, phases.writing_to(capture.stderr):
        spm_options = options.replace(minloglevel=0) if capture.active else options
        if words is not None:
            spm_options = word_options(spm_options)
        level = spm_options.minloglevel  # alongside, the training's
        train = _training(source, spm_options, work, rule_paths, log)
        # spm's own log on stderr (minloglevel < 2, asked for): no line redrawn over it
        live = capture.active or level >= 2 or "logstream" in options
        phases.start(label, live)
        # Without NFC the codec's rules are all the rules; from Python, spm holds the GIL.
        alongside = normalizer.composes and bool(path)
        built = _alongside(train, (lambda: complete(level)) if alongside else None, stop, phases)
    if normalizer.composes and not path:  # spm took the GIL for every line: one after the other
        phases.start("compiling rules")
        built = complete(options.minloglevel)
    phases.end()
    model = parse_model(Path(work, "model.model").read_bytes())
    if words is not None:
        restored(model, options)
    return model, too_long, built


def _spm_input(
    corpus: Corpus, options: SpmOptions, rules: str, too_long: int
) -> tuple[str | None, str | None]:
    """The file of words spm trains on, where they make the model its lines make (its options
    and the training ``rules`` keep words apart, no line is too long: spm skips a too-long line
    whole, which words cannot say, and the count wrote the words), and the file spm reads: that
    one, else the line file (None: the lines are fed from Python)."""
    words = None
    if not too_long and words_train_alike(options) and rules_split_alike(rules):
        words = corpus.spm_words()
    return words, words or corpus.spm_input()


def _completer(
    codec: PUACodec,
    normalizer: Normalizer,
    user_rules: tuple[tuple[str, str], ...],
    work: str,
    forecast: Callable[[str], PUACodec | None] | None,
    training_rules: str,
) -> Callable[[int], Built]:
    """The build of the model's full rules at a log level, to run while spm trains: for
    ``codec``, or for the codec of the clusters ``forecast`` says spm will keep (given the
    training rules' file)."""

    def complete(level: int) -> Built:
        target = codec
        if forecast is not None:
            # spm's normalizer logs as it is built: at the training's level, which spm's thread
            # may not have set yet (compile_rules passes it to its own training)
            spm.SetMinLogLevel(level)
            if (kept := forecast(training_rules)) is not None:
                target = kept
        maps = _run(lambda: compile_rules(*rule_files(target, normalizer, user_rules), work, level))
        return Built(target, maps)

    return complete


def _lines_too_long(corpus: Corpus, limit: int) -> int:
    """How many of the corpus's lines spm skips as longer than ``limit`` bytes."""
    if corpus.stats.longest_line_bytes <= limit:
        return 0
    return sum(len(text.encode("utf-8")) > limit for text in corpus.lines())


def _training(
    source: dict[str, Any],
    options: SpmOptions,
    work: str,
    rules: tuple[str, str],
    log: SpmLog | None,
) -> Callable[[], None]:
    """spm's training, to run on a thread of its own: the model to ``work``/model.model, from
    ``source`` (a line file or an iterator) with the training rules in the files ``rules``
    (forward, backward); ``log`` learns which thread is spm's."""
    forward, backward = rules

    def train() -> None:
        if log is not None:
            log.thread = threading.get_native_id()
            log.running = True
        try:
            spm.SentencePieceTrainer.train(
                **source,
                model_prefix=str(Path(work, "model")),
                normalization_rule_tsv=forward,
                denormalization_rule_tsv=backward,
                **options.keywords(),
            )
        finally:
            if log is not None:
                log.started.set()

    return train


class SpmThread(threading.Thread):
    """The thread spm trains on: its class, not a list kept of them, tells
    :func:`spm_running` which threads are spm's."""


def spm_running() -> bool:
    """Whether a thread of this process is still in spm's training, left there by an
    interrupted training. A process that exits then should do so without finalizing
    (``os._exit``, after flushing): spm's thread returning into a finalizing interpreter
    aborts the process ("terminate called without an active exception", exit 134). Python's
    own list of threads holds a thread until its very end, past ``is_alive()``."""
    return any(isinstance(thread, SpmThread) for thread in threading.enumerate())


def _alongside(
    train: Callable[[], None],
    complete: Callable[[], T] | None,
    stop: threading.Event,
    phases: Phases | None = None,
) -> T | None:
    """``train()`` on a thread and ``complete()``, if given, here meanwhile; then wait for
    the thread. The thread is a daemon: Ctrl-C stops the waiting (``stop`` is then set), and
    an interrupted process does not wait for spm to finish. When spm is done first, ``phases``
    moves on to "compiling rules"."""
    failure: list[BaseException] = []
    compiling = threading.Lock()  # held while complete() runs
    if complete is not None:
        compiling.acquire()

    def run() -> None:
        try:
            _run(train)
        except BaseException as error:  # handed to the waiting thread
            failure.append(error)
            return
        if phases is not None and not compiling.acquire(blocking=False) and not stop.is_set():
            phases.start("compiling rules")

    thread = SpmThread(target=run, name="brahmic_pua-spm-train", daemon=True)
    thread.start()
    try:
        done = None
        if complete is not None:
            done = complete()
            compiling.release()
        thread.join()
    except BaseException:
        stop.set()
        raise
    if failure:
        raise failure[0]
    return done


def _run(call: Callable[[], T]) -> T:
    """``call()``, with spm's errors as one line."""
    try:
        return call()
    except RuntimeError as error:
        raise ValueError(f"SentencePiece could not train: {_first_line(error)}") from None


def _escaped(lines: Iterator[str], stop: threading.Event) -> Iterator[str]:
    """Lines with U+2585, which spm drops with the line, escaped as in the line file; an
    error once ``stop`` is set, which ends spm's reading (the training is abandoned). The
    lines' files are closed here, on spm's thread: not later, when the last reference goes
    (a traceback holds this frame), maybe in a process that is exiting, which aborts it."""
    try:
        for line in lines:
            if stop.is_set():
                raise RuntimeError("training interrupted")
            yield line.replace(BLOCK, ESCAPED_BLOCK) if BLOCK in line else line
    finally:
        if isinstance(lines, Generator):
            lines.close()


def _write(work: str, name: str, text: str) -> str:
    path = Path(work, name)
    path.write_text(text, encoding="utf-8")
    return str(path)


def _first_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[-1] if lines else type(error).__name__
