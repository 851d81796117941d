"""``SentencePieceTrainer``: spm training on clusters, writing one self-contained ``.model``.

The corpus is scanned once (normalization, cluster counts, line lengths) and the codec is built
(:func:`train_model`); then :func:`_train` runs three steps, each returning what the next needs:
:func:`_plan` (the alphabet, the vocab_size, the codec spm trains with, spm's options),
:func:`_fit` (the codec's table compiled into spm's normalizer and denormalizer rules, spm
training on the raw, normalized text and mapping clusters itself) and :func:`_finish` (codes no
piece holds dropped, orphan-mark pieces set UNUSED, word starts, filters); :func:`_write` then
appends the brahmic_pua manifest and moves the model into place with its ``.vocab``. Where spm
says the vocab_size is too high, :func:`_made_at` probes smaller sizes (plan and fit only) for
one that trains, to name it in the error.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from brahmic_pua.codec import PUACodec
from brahmic_pua.codec.layout import RESERVED
from brahmic_pua.io.atomic import check_writable, write_atomic_many
from brahmic_pua.io.leftovers import owned_prefix, owner
from brahmic_pua.io.progress import Phases
from brahmic_pua.io.wording import counted
from brahmic_pua.model.compile import compile_rules
from brahmic_pua.model.display import (
    NORMAL,
    USER_DEFINED,
    mark_start_ids,
    set_unused,
    vocab_text,
)
from brahmic_pua.model.manifest import Manifest, embed
from brahmic_pua.model.model_proto import UNUSED, ModelProto
from brahmic_pua.model.rules import rule_files
from brahmic_pua.model.score_grid import quantize_scores
from brahmic_pua.nepbpe.filters import FilterReport, filter_model
from brahmic_pua.normalize import Normalizer, normalizer
from brahmic_pua.normalize.folding import FoldingTable, read_table
from brahmic_pua.trainer.alphabet import (
    SPM_COVERAGE,
    AlphabetPlan,
    check_coverage,
    coded_clusters,
    kept_at,
    plan,
    spellable,
    symbol_counts,
)
from brahmic_pua.trainer.checks import (
    beyond_corpus,
    most_pieces,
    no_brahmic_text,
    size_that_trains,
    spm_vocab_limit,
    symbol_list,
    unused_seeds,
    user_symbols,
    vocab_too_large,
    weakened_guarantees,
)
from brahmic_pua.trainer.coded_options import coded_options, required_clusters
from brahmic_pua.trainer.corpus import Corpus
from brahmic_pua.trainer.count_plan import plan_count
from brahmic_pua.trainer.coverage_forecast import forecast_alphabet
from brahmic_pua.trainer.engine import count_clusters
from brahmic_pua.trainer.fit import Built, fit
from brahmic_pua.trainer.normalizer_options import weakened
from brahmic_pua.trainer.options import TrainOptions, build_options
from brahmic_pua.trainer.pretokenize import ClusterPretokenizer
from brahmic_pua.trainer.signals import temporary_folder, terminated_cleanly
from brahmic_pua.trainer.spm_options import SPM_DEFAULTS, SpmOptions
from brahmic_pua.trainer.train_report import TrainReport
from brahmic_pua.trainer.word_starts import complete_word_starts

#: spm's default vocab_size (the CLI's default too).
DEFAULT_VOCAB_SIZE: int = SPM_DEFAULTS["vocab_size"]
#: The most the default ``max_sentence_length`` grows to fit a corpus's longest line. spm holds
#: a sentence whole while it trains: one line of 1.8 MB (a run of marks) took 48 s, then failed
#: (``std::isfinite(score)``), where stock skips every line over 4,192 bytes. Longer lines are
#: skipped, and the report says how many.
MAX_DEFAULT_SENTENCE_LENGTH = 1 << 16


def _reserved_pieces(options: SpmOptions) -> int:
    ids = ("unk_id", "bos_id", "eos_id", "pad_id")
    meta = sum(1 for name in ids if options.integer(name) >= 0)
    symbols = sum(len(symbol_list(options[n])) for n in ("user_defined_symbols", "control_symbols"))
    return meta + symbols


@terminated_cleanly()
@owner()
def train_model(arg: str | None = None, **kwargs: Any) -> TrainReport:
    """Train and write ``<model_prefix>.model`` / ``.vocab``; see :class:`SentencePieceTrainer`.

    Everything that can be checked without the corpus is checked first: options, symbols,
    output paths. An option that turns a guarantee off is reported in one line on stderr.
    Temporary files are removed however the run ends, on SIGINT and SIGTERM too (Python's
    default SIGTERM included: :func:`~brahmic_pua.trainer.signals.terminated_cleanly`); where
    no cleanup can run (SIGKILL, a native abort in spm), by the next training
    (:mod:`brahmic_pua.io.leftovers`).
    """
    options, warnings = _checked_options(arg, kwargs)
    n = normalizer(options.normalization, _folding(options))
    # spm's input_sentence_size, honoured here: a sample by a fixed seed (spm's own differs
    # from run to run) or, with shuffle_input_sentence=false, the first lines, as in spm.
    sample = options.spm.integer("input_sentence_size")
    first = sample > 0 and not options.spm.flag("shuffle_input_sentence")
    options = replace(options, spm=options.spm.without("input_sentence_size"))
    corpus = Corpus(
        options.inputs,
        options.sentence_iterator,
        n,
        sample,
        first,
        options.progress,
        options.text_column,
    )
    try:
        counted = count_clusters(
            corpus,
            plan_count(corpus, options),
            options.policy,
            options.ray_address,
            keep_words=options.complete_word_starts and options.spm.model_type == "unigram",
        )
        corpus.stats, counts = counted.stats, counted.counts
        # Without fixtoken's closed sets: only counted clusters keep a code, but for
        # required_chars, which may name a cluster the corpus lacks.
        closed = bool(options.spm.text("required_chars"))
        codec = PUACodec.from_counts(counts.clusters, options.policy, options.scripts, closed)
        inputs = _Inputs(options, n, corpus, codec, counts.characters, counts.words, counts.pieces)
        return _train(inputs, warnings)
    finally:
        corpus.close()


def _checked_options(arg: str | None, kwargs: dict[str, Any]) -> tuple[TrainOptions, list[str]]:
    """The options, and the warnings said on stderr, from all that can be checked without the
    corpus: the options themselves, the output paths, the user's symbols (as spm must see
    them) and the options that turn a guarantee off."""
    options = build_options(arg, kwargs, progress=sys.stderr.isatty())
    if options.model_writer is None:  # else the model goes to the writer, and no file is written
        prefix = options.spm.text("model_prefix")
        for path in (f"{prefix}.model", f"{prefix}.vocab"):
            check_writable(path)
    if "user_defined_symbols" in options.spm:
        # Raw (after N), not mapped to codes: spm matches user symbols in the raw input
        # before its rules run, so literal codes in the text stay escaped.
        symbols = user_symbols(options.spm, options.normalization)
        options = replace(options, spm=options.spm.replace(user_defined_symbols=symbols))
    warnings = weakened_guarantees(options.spm)
    if (rewritten := weakened(options.normalizer_choice)) is not None:
        warnings.append(rewritten)
    if (unused := unused_seeds(options.filters, options.seeds is not None)) is not None:
        warnings.append(unused)
    for warning in warnings:
        print(f"brahmic_pua: {warning}", file=sys.stderr)
    return options, warnings


@dataclass(frozen=True)
class _Inputs:
    """What every step starts from: the options, N and the corpus as the count left it."""

    options: TrainOptions
    normalizer: Normalizer
    corpus: Corpus
    codec: PUACodec  # every cluster the count found
    characters: Counter[str]
    words: Counter[str] | None  # the corpus's words with their counts, if the count kept them
    pieces: Counter[str] | None  # the words' pieces with their counts, if the count kept them


def _train(given: _Inputs, warnings: list[str]) -> TrainReport:
    """Plan, fit, finish and write the model; ``warnings``: those said so far, for the report."""
    stats, options = given.corpus.stats, given.options
    _check_text(stats.lines, given.characters)
    plan = _plan(given, warnings)
    with temporary_folder(owned_prefix("train")) as work, Phases(options.progress) as phases:
        try:
            model, too_long, built = _fit(given, plan, work, phases)
        except _TooHigh as error:  # spm's "Vocabulary size too high", in our words
            phases.start("finding a vocab_size that trains")
            trains = size_that_trains(error.made, lambda size: _made_at(size, given))
            raise ValueError(vocab_too_large(error.message, trains)) from None
        if (cut := _cuts_note(plan.pretokenizer)) is not None:
            _warn(cut, warnings)
        finished = _finish(given, plan, model, built, work, phases)
        phases.start("writing the model")
        model_file, vocab_file = _write(given, plan, model, finished.codec)
    report = TrainReport(
        model_file=model_file,
        vocab_file=vocab_file,
        lines=stats.lines,
        clusters=len(finished.codec),
        alphabet=plan.alphabet,
        max_sentence_length=plan.max_sentence_length,
        lines_too_long=too_long,
        lines_with_block=stats.lines_with_block,
        disabled_pieces=finished.disabled,
        warnings=tuple(warnings),
        filters=finished.filters,
        word_starts=finished.word_starts,
        vocab_size=len(model.pieces),
        unused=sum(piece.type == UNUSED for piece in model.pieces),
    )
    if options.progress or plan.spm.minloglevel < 2:
        print(report.summary(), file=sys.stderr)
    return report


def _check_text(lines: int, characters: Counter[str]) -> None:
    """Refuse a corpus with no text to train on, before anything is planned."""
    if lines == 0:
        raise ValueError("the corpus is empty: give at least one non-empty line")
    if not any(not ch.isspace() for ch in characters):
        raise ValueError(
            f"the corpus has no text: {counted(lines, 'line')}, all blank; give at least "
            "one line with text"
        )


@dataclass(frozen=True)
class _Plan:
    """What spm is given, planned from the count, and what the finished model keeps of it."""

    spm: SpmOptions  # spm's options, completed (model_prefix taken out)
    alphabet: AlphabetPlan
    vocab_size: int  # as given, where spm's is cut to the corpus's bound
    codec: PUACodec  # the clusters the alphabet keeps, and the required ones
    max_sentence_length: int
    prefix: str  # model_prefix ("" with a model_writer)
    pretokenizer: ClusterPretokenizer | None


def _plan(given: _Inputs, warnings: list[str]) -> _Plan:
    """The alphabet, the vocab_size spm is given, the codec it trains with and the rest of its
    options; a warning (on stderr too) where the plan turns a guarantee off."""
    options, normalizer, codec = given.options, given.normalizer, given.codec
    characters, stats = given.characters, given.corpus.stats
    symbols = symbol_counts(codec, characters, stats.lines)
    alphabet, spm = _alphabet(options.spm, symbols, options.byte_fallback_given, warnings)
    vocab_size, spm = _bounded_vocab_size(spm, len(symbols), sum(characters.values()))
    required = required_clusters(spm.text("required_chars"), codec, normalizer)
    coded = [*coded_clusters(codec, symbols, alphabet.kept), *required]
    codec = codec.restricted(spellable(coded, codec.policy, spm.model_type))
    # spm measures lines in bytes; a cluster's code may take 4 bytes where its text took 3.
    needed = stats.longest_line_bytes * 4 // 3 + 16
    fitting = max(SPM_DEFAULTS["max_sentence_length"], min(needed, MAX_DEFAULT_SENTENCE_LENGTH))
    spm = spm.setdefault(max_sentence_length=fitting)
    prefix = spm.text("model_prefix")
    spm = spm.without("model_prefix")
    pretokenizer = None
    if options.pretokenizer is not None:
        pretokenizer = ClusterPretokenizer(
            options.pretokenizer, codec, options.allow_inconsistent_pretokenization
        )
        spm = spm.replace(
            pretokenizer=pretokenizer,
            allow_inconsistent_pretokenization=options.allow_inconsistent_pretokenization,
        )
    if (nothing := no_brahmic_text(codec)) is not None:  # after the checks that fail at once
        _warn(nothing, warnings)
    limit = spm.integer("max_sentence_length")
    return _Plan(spm, alphabet, vocab_size, codec, limit, prefix, pretokenizer)


def _fit(given: _Inputs, plan: _Plan, work: str, phases: Phases) -> tuple[Any, int, Built | None]:
    """spm's model, the lines it skipped and the complete rules
    (:func:`~brahmic_pua.trainer.fit.fit`), built for the clusters spm is forecast to keep. A
    pretokenizer's own failure is raised as itself, and spm's "Vocabulary size too high" as
    :class:`_TooHigh`."""
    options, normalizer = given.options, given.normalizer
    spm_options = coded_options(plan.spm, plan.codec, normalizer, work)
    read_log, user_rules = not options.spm_log, options.normalizer_choice.rules
    stats = given.corpus.stats
    words = given.characters[" "] + stats.lines - stats.empty_lines  # each starts with "▁"

    def forecast(rules_file: str) -> PUACodec | None:
        kept = forecast_alphabet(given.pieces, words, rules_file, spm_options, bool(user_rules))
        if kept is None:
            return None
        coded = [c for code, c in plan.codec.code_pairs() if code in kept]
        return plan.codec.restricted(spellable(coded, plan.codec.policy, plan.spm.model_type))

    try:
        return fit(
            given.corpus,
            plan.codec,
            normalizer,
            spm_options,
            work,
            phases=phases,
            read_log=read_log,
            user_rules=user_rules,
            forecast=forecast,
        )
    except ValueError as error:
        pretokenizer = plan.pretokenizer
        if pretokenizer is not None and (failed := pretokenizer.error()) is not None:
            raise failed from pretokenizer.failure
        if (limit_hit := spm_vocab_limit(str(error))) is None:
            raise
        raise _TooHigh(limit_hit[1], str(error)) from None


def _cuts_note(pretokenizer: ClusterPretokenizer | None) -> str | None:
    """The warning for a pretokenizer that cut inside clusters while spm trained, or None."""
    if pretokenizer is None or not (cuts := pretokenizer.cuts_inside_clusters):
        return None
    return (
        f"the pretokenizer cut inside a cluster {counted(cuts, 'time')}; those cuts were not "
        "kept: a cluster is one symbol to SentencePiece"
    )


class _TooHigh(Exception):
    """spm's "Vocabulary size too high": its ``message``, and how many pieces it ``made``."""

    def __init__(self, made: int, message: str) -> None:
        super().__init__(made)
        self.made = made
        self.message = message


def _made_at(size: int, given: _Inputs) -> int | None:
    """Train at vocab_size=``size`` as the user's rerun would (the alphabet planned for that
    size, from every cluster the count found), quietly and writing nothing: None when spm
    trains, else the pieces it made (-1 for any other failure, which ends the search)."""
    options = given.options
    spm = options.spm.replace(vocab_size=size)
    trial = replace(given, options=replace(options, spm=spm, progress=False))
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            plan = _plan(trial, [])
            with temporary_folder(owned_prefix("train")) as work, Phases(False) as phases:
                _fit(trial, plan, work, phases)
    except _TooHigh as again:
        return again.made
    except ValueError:
        return -1
    return None


@dataclass(frozen=True)
class _Finished:
    """What finishing the model changed, for the report."""

    codec: PUACodec  # without the clusters no piece holds
    disabled: int  # orphan and escape pieces set UNUSED
    word_starts: int  # pieces swapped for word starts
    filters: FilterReport | None


def _finish(
    given: _Inputs, plan: _Plan, model: ModelProto, built: Built | None, work: str, phases: Phases
) -> _Finished:
    """spm's ``model``, in place, made brahmic_pua's: codes no piece holds dropped, orphan and
    escape pieces disabled, word starts completed and the filters run (where asked), scores
    quantized (Unigram) and spm's vocab_size put back as given."""
    options, normalizer, corpus = given.options, given.normalizer, given.corpus
    user_rules = options.normalizer_choice.rules
    model_type = plan.spm.model_type
    codec = _drop_codes_without_piece(
        model, plan.codec, built, normalizer, work, phases, user_rules, model_type
    )
    # codes spm kept that the codec dropped after it (a prefix it did not keep: spellable)
    dropped = {code for code, _ in plan.codec.code_pairs()} - {c for c, _ in codec.code_pairs()}
    disabled = _disable_pieces(model, codec, dropped, plan.prefix)
    starts = 0
    if options.complete_word_starts:
        if model_type == "unigram":  # (the others are left alone)
            phases.start("completing word starts")
        starts = complete_word_starts(model, corpus.lines(), given.words)
    filtered = None
    if options.filters:
        phases.start(f"filters ({', '.join(options.filters)})")
        filtered = filter_model(
            model,
            options.filters,
            codec=codec,
            normalizer=normalizer,
            seeds=options.seeds,
            corpus=corpus.lines(),
            theta=options.theta,
            theta_per_million=options.theta_per_million,
        )
    if model_type == "unigram":  # every sentencepiece release adds these up alike
        quantize_scores(model)
    model.trainer_spec.vocab_size = plan.vocab_size  # as given, where it was cut to the bound
    return _Finished(codec, disabled, starts, filtered)


def _write(given: _Inputs, plan: _Plan, model: ModelProto, codec: PUACodec) -> tuple[str, str]:
    """The model, with its manifest, to ``model_writer`` (stock writes no file then), or
    ``<prefix>.model`` and ``.vocab`` together; the paths written ("" for a writer)."""
    options, normalizer = given.options, given.normalizer
    user_rules = bool(options.normalizer_choice.rules)
    manifest = Manifest(codec, normalizer.mode, normalizer.folding, user_rules=user_rules)
    data = embed(model.SerializeToString(), manifest)
    if options.model_writer is not None:
        options.model_writer.write(data)
        return "", ""
    scores = options.spm.flag("vocabulary_output_piece_score")
    model_file, vocab_file = f"{plan.prefix}.model", f"{plan.prefix}.vocab"
    write_atomic_many({model_file: data, vocab_file: vocab_text(model, codec, scores)})
    return model_file, vocab_file


def _warn(note: str, warnings: list[str]) -> None:
    """A warning on stderr at once, and in the report's list."""
    print(f"brahmic_pua: {note}", file=sys.stderr)
    warnings.append(note)


def _drop_codes_without_piece(
    model: ModelProto,
    codec: PUACodec,
    built: Built | None,
    normalizer: Normalizer,
    work: str,
    phases: Phases,
    user_rules: tuple[tuple[str, str], ...],
    model_type: str,
) -> PUACodec:
    """The codec without clusters that no piece holds (character_coverage can drop a code we
    planned to keep), with the model's rules for it: those ``built`` while spm trained where
    they are for these clusters (the forecast held), else compiled now.

    A code is kept if any piece holds it, not only a piece of its own: a word model's pieces
    are whole words, with no piece for a lone cluster (keeping only those would empty the
    codec and leave every word piece unreachable). In the other types every kept code has a
    piece of its own, so the two readings agree."""
    usable = {ch for p in model.pieces if p.type in (NORMAL, USER_DEFINED) for ch in p.piece}
    kept = [cluster for code, cluster in codec.code_pairs() if code in usable]
    kept = spellable(kept, codec.policy, model_type)
    if built is not None and [cluster for _, cluster in built.codec.code_pairs()] == kept:
        model.normalizer_spec.precompiled_charsmap = built.maps[0]
        if built.codec is not codec:  # spm's denormalizer holds every planned code
            model.denormalizer_spec.precompiled_charsmap = built.maps[1]
        return built.codec
    if len(kept) == len(codec):
        if built is not None:  # forecast to drop codes that spm kept
            phases.start("compiling rules again, for the clusters spm kept")
            forward = compile_rules(*rule_files(codec, normalizer, user_rules), work)[0]
            model.normalizer_spec.precompiled_charsmap = forward
        return codec
    codec = codec.restricted(kept)
    phases.start("compiling rules again, for the clusters spm kept")
    forward, backward = compile_rules(*rule_files(codec, normalizer, user_rules), work)
    model.normalizer_spec.precompiled_charsmap = forward
    model.denormalizer_spec.precompiled_charsmap = backward
    return codec


_RESERVED = re.compile(f"[{''.join(sorted(RESERVED))}]")


def _disable_pieces(model: ModelProto, codec: PUACodec, dropped: set[str], prefix: str) -> int:
    """Disable orphan and escape pieces, and pieces holding a code of ``dropped`` (planned and
    kept by spm, then dropped by the codec: no text reaches them); drop temporary paths so
    output is reproducible. A literal Private Use character that is no code (U+F8FF in the
    corpus) is text like any other: its pieces stay."""

    escaped = _RESERVED.search  # an escape code in a piece: no segmentation may use it
    marks, _ = mark_start_ids(model, lambda piece: "" if escaped(piece) else codec.decode(piece))
    escapes = [
        i
        for i, p in enumerate(model.pieces)
        if p.type == NORMAL and (escaped(p.piece) or not dropped.isdisjoint(p.piece))
    ]
    ids = sorted({*marks, *escapes})
    set_unused(model, ids)
    disabled = len(ids)
    model.trainer_spec.model_prefix = Path(prefix).name
    del model.trainer_spec.input[:]  # spm's line file, a temporary path
    model.normalizer_spec.normalization_rule_tsv = ""
    model.denormalizer_spec.normalization_rule_tsv = ""
    model.normalizer_spec.name = "brahmic_pua"
    model.denormalizer_spec.name = "brahmic_pua"
    return disabled


def _bounded_vocab_size(spm: SpmOptions, symbols: int, characters: int) -> tuple[int, SpmOptions]:
    """``vocab_size`` as given, refused at once beyond what the corpus can give (see
    :func:`~brahmic_pua.trainer.checks.most_pieces`), or, where spm would make what it can
    (hard_vocab_limit=false, a char model), passed to spm cut to that bound: the pieces spm
    makes are the same, without its long loop. With the options spm is given."""
    vocab_size = spm.vocab_size
    most = most_pieces(spm, _reserved_pieces(spm), symbols, characters)
    if vocab_size <= most:
        return vocab_size, spm
    if spm.flag("hard_vocab_limit") and spm.model_type != "char":
        raise ValueError(beyond_corpus(vocab_size, most, characters))
    return vocab_size, spm.replace(vocab_size=most)


def _folding(options: TrainOptions) -> FoldingTable | None:
    """A user's folding table, read for the Nepali modes' names (``lm`` / ``ocr``)."""
    if options.folding_rules is None:
        return None
    return read_table(options.folding_rules, options.normalization.removeprefix("nepali-"))


def _alphabet(
    spm: SpmOptions, symbols: Counter[str], byte_fallback_given: bool, warnings: list[str]
) -> tuple[AlphabetPlan, SpmOptions]:
    """The alphabet plan, and the options with ``character_coverage`` (and, where the default
    cannot be had, ``byte_fallback``) set for spm.

    brahmic_pua's byte_fallback=True needs 256 pieces. Where the vocabulary has no room for them
    beside the symbols spm must keep (a toy vocab_size such as 100), stock's default, False,
    is used instead, with the one line that says guarantee 1 is off, and if the symbols do not
    all fit then either, spm's own character_coverage decides, as in stock; given explicitly,
    byte_fallback is the user's. Where the symbols do not fit and ``hard_vocab_limit=false``
    lets spm make the vocabulary what it can, spm's coverage decides too."""
    vocab_size, model_type, reserved = spm.vocab_size, spm.model_type, _reserved_pieces(spm)

    def planned(byte_fallback: bool) -> AlphabetPlan:
        if "character_coverage" in spm:
            coverage = spm.number("character_coverage")
            check_coverage(symbols, coverage, vocab_size, reserved, byte_fallback)
            return AlphabetPlan(len(symbols), len(symbols), coverage)
        return plan(symbols, vocab_size, reserved, model_type, byte_fallback)

    byte_fallback = spm.flag("byte_fallback")
    soft = not spm.flag("hard_vocab_limit")
    try:
        alphabet = planned(byte_fallback)
    except ValueError as error:
        if byte_fallback and not byte_fallback_given:
            try:
                alphabet = planned(False)
            except ValueError:
                if not soft:
                    raise error from None
                alphabet = _stock_coverage(symbols)
            spm = spm.replace(byte_fallback=False)
            note = (
                f"vocab_size={vocab_size} has no room for byte fallback's 256 pieces: trained "
                "without it (stock's default), which turns off guarantee 1, decode(encode(s)) "
                f"== N(s), for characters without a piece (with it: {error})"
            )
            _warn(note, warnings)
        elif soft:
            alphabet = _stock_coverage(symbols)
        else:
            raise
    return alphabet, spm.setdefault(character_coverage=alphabet.character_coverage)


def _stock_coverage(symbols: Counter[str]) -> AlphabetPlan:
    """spm's default character_coverage, for hard_vocab_limit=false: spm's to decide."""
    kept = kept_at(sorted(symbols.values(), reverse=True), SPM_COVERAGE)
    return AlphabetPlan(len(symbols), kept, SPM_COVERAGE)


class SentencePieceTrainer:
    """Drop-in for ``sentencepiece.SentencePieceTrainer``: the same options under the same names
    (keywords, or spm's ``"--input=… --vocab_size=…"`` string), every one of sentencepiece
    0.2.3's (``pretokenizer``, ``model_writer`` and ``normalizer`` among them) honoured or
    refused in one line, plus ``policy`` (fixtoken, akshara, syllable, grapheme), ``scripts``
    and ``normalization`` (nfc, none, nepali-lm, nepali-ocr). The defaults that differ from
    stock's, and why: docs/dropin.md.

    >>> import tempfile
    >>> from importlib.resources import files
    >>> from brahmic_pua import SentencePieceTrainer
    >>> sample = str(files("brahmic_pua.data") / "te.sample.txt")  # 1,142 lines of Telugu
    >>> folder = tempfile.TemporaryDirectory()
    >>> SentencePieceTrainer.train(input=sample, model_prefix=f"{folder.name}/te", vocab_size=1000)
    >>> import os
    >>> sorted(os.listdir(folder.name))  # an ordinary spm model and its vocabulary
    ['te.model', 'te.vocab']
    >>> folder.cleanup()
    """

    @staticmethod
    def train(arg: str | None = None, **kwargs: Any) -> None:
        train_model(arg, **kwargs)

    Train = train
