"""``SentencePieceTrainer``: spm training on clusters, writing one self-contained ``.model``.

The corpus is scanned once (normalization, cluster counts, line lengths), the codec is built, its
table is compiled into spm's normalizer and denormalizer rules, and spm trains on the raw
(normalized) text, mapping clusters itself. The resulting model gets its orphan-mark pieces set
UNUSED and the brahmic_pua manifest appended, and is moved into place with its ``.vocab``.
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
from brahmic_pua.model.model_proto import UNUSED
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
from brahmic_pua.trainer.engine import count_clusters
from brahmic_pua.trainer.fit import fit
from brahmic_pua.trainer.normalizer_options import weakened
from brahmic_pua.trainer.options import TrainOptions, build_options, read_bool
from brahmic_pua.trainer.pretokenize import ClusterPretokenizer
from brahmic_pua.trainer.signals import temporary_folder, terminated_cleanly
from brahmic_pua.trainer.word_starts import complete_word_starts

#: spm's default vocab_size.
DEFAULT_VOCAB_SIZE = 8000
DEFAULT_MAX_SENTENCE_LENGTH = 4192
#: The most the default ``max_sentence_length`` grows to fit a corpus's longest line. spm holds
#: a sentence whole while it trains: one line of 1.8 MB (a run of marks) took 48 s, then failed
#: (``std::isfinite(score)``), where stock skips every line over 4,192 bytes. Longer lines are
#: skipped, and the report says how many.
MAX_DEFAULT_SENTENCE_LENGTH = 1 << 16
SPM_NUM_THREADS = 16  # spm's default


@dataclass(frozen=True)
class TrainReport:
    model_file: str
    vocab_file: str
    lines: int
    clusters: int
    alphabet: AlphabetPlan
    max_sentence_length: int
    lines_too_long: int
    lines_with_block: int
    disabled_pieces: int
    warnings: tuple[str, ...] = ()
    filters: FilterReport | None = None
    word_starts: int = 0  # Unigram pieces swapped for "▁" + a piece (trainer/word_starts.py)
    #: The model's pieces, and how many of them are UNUSED (disabled: no encoding writes them,
    #: and their ids stay so that every other id keeps its number).
    vocab_size: int = 0
    unused: int = 0

    def summary(self) -> str:
        a = self.alphabet
        written = (
            f"{self.model_file} and {self.vocab_file}" if self.model_file else "the model_writer"
        )
        parts = [
            f"wrote {written}: {counted(self.lines, 'line')}, "
            f"{counted(self.clusters, 'cluster')} in the table, {a.kept:,} of "
            f"{counted(a.symbols, 'symbol')} kept (character_coverage={a.character_coverage:.6f}), "
            f"{counted(self.disabled_pieces, 'piece')} starting with a mark disabled"
        ]
        if self.lines_too_long:
            parts.append(
                f"{counted(self.lines_too_long, 'line')} longer than max_sentence_length="
                f"{self.max_sentence_length} bytes skipped by SentencePiece (a larger "
                "max_sentence_length keeps such lines)"
            )
        if self.lines_with_block:
            parts.append(
                f"{counted(self.lines_with_block, 'line contains', 'lines contain')} U+2585, "
                "which spm drops: trained with it escaped (encoding is unaffected)"
            )
        if self.word_starts:
            parts.append(
                f"{counted(self.word_starts, 'little-used piece')} swapped for word starts"
            )
        if self.filters is not None:
            parts += self.filters.lines()
            if self.unused and self.vocab_size:
                parts.append(
                    f"unused pieces: {self.unused:,} of {counted(self.vocab_size, 'id')} "
                    f"({100 * self.unused / self.vocab_size:.1f}% of an embedding table whose "
                    "rows no encoding trains; the ids stay so that every other id keeps its "
                    "number)"
                )
        return "; ".join(parts)


def _model_type(options: dict[str, Any]) -> str:
    return str(options.get("model_type", "unigram")).lower()


def _reserved_pieces(options: dict[str, Any]) -> int:
    ids = ("unk_id", "bos_id", "eos_id", "pad_id")
    defaults = {"unk_id": 0, "bos_id": 1, "eos_id": 2, "pad_id": -1}
    meta = sum(1 for name in ids if int(options.get(name, defaults[name])) >= 0)
    symbols = sum(
        len(symbol_list(options.get(n))) for n in ("user_defined_symbols", "control_symbols")
    )
    return meta + symbols


@terminated_cleanly()
def train_model(arg: str | None = None, **kwargs: Any) -> TrainReport:
    """Train and write ``<model_prefix>.model`` / ``.vocab``; see :class:`SentencePieceTrainer`.

    Everything that can be checked without the corpus is checked first: options, symbols,
    output paths. An option that turns a guarantee off is reported in one line on stderr.
    Temporary files are removed however the run ends, on SIGINT and SIGTERM too (Python's
    default SIGTERM included: :func:`~brahmic_pua.trainer.signals.terminated_cleanly`).
    """
    options = build_options(arg, kwargs, progress=sys.stderr.isatty())
    if options.model_writer is None:  # else the model goes to the writer, and no file is written
        prefix = str(options.spm["model_prefix"])
        for path in (f"{prefix}.model", f"{prefix}.vocab"):
            check_writable(path)
    if "user_defined_symbols" in options.spm:
        # Raw (after N), not mapped to codes: spm matches user symbols in the raw input
        # before its rules run, so literal codes in the text stay escaped.
        options.spm["user_defined_symbols"] = user_symbols(options.spm, options.normalization)
    warnings = weakened_guarantees(options.spm)
    if (rewritten := weakened(options.normalizer_choice)) is not None:
        warnings.append(rewritten)
    if (unused := unused_seeds(options.filters, options.seeds is not None)) is not None:
        warnings.append(unused)
    for warning in warnings:
        print(f"brahmic_pua: {warning}", file=sys.stderr)
    n = normalizer(options.normalization, _folding(options))
    # spm's input_sentence_size, honoured here: a sample by a fixed seed (spm's own differs
    # from run to run) or, with shuffle_input_sentence=false, the first lines, as in spm.
    sample = int(options.spm.pop("input_sentence_size", 0))
    first = sample > 0 and not read_bool(
        "shuffle_input_sentence", options.spm.get("shuffle_input_sentence", True)
    )
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
        counts = count_clusters(
            corpus,
            options.policy,
            options.engine,
            options.ray_address,
            int(options.spm.get("num_threads", SPM_NUM_THREADS)),
            keep_words=options.complete_word_starts and _model_type(options.spm) == "unigram",
        )
        # Without fixtoken's closed sets: only counted clusters keep a code, but for
        # required_chars, which may name a cluster the corpus lacks.
        closed = bool(options.spm.get("required_chars"))
        codec = PUACodec.from_counts(counts.clusters, options.policy, options.scripts, closed)
        report = _train(options, n, corpus, codec, counts.characters, warnings, counts.words)
        assert report is not None  # (None only for a probe)
        return report
    finally:
        corpus.close()


def _bounded_vocab_size(opts: dict[str, Any], symbols: int, characters: int) -> int:
    """``vocab_size`` as given, refused at once beyond what the corpus can give (see
    :func:`~brahmic_pua.trainer.checks.most_pieces`), or, where spm would make what it can
    (hard_vocab_limit=false, a char model), passed to spm cut to that bound: the pieces spm
    makes are the same, without its long loop."""
    vocab_size = int(opts.get("vocab_size", DEFAULT_VOCAB_SIZE))
    most = most_pieces(opts, _reserved_pieces(opts), symbols, characters)
    if vocab_size <= most:
        return vocab_size
    hard = read_bool("hard_vocab_limit", opts.get("hard_vocab_limit", True))
    if hard and _model_type(opts) != "char":
        raise ValueError(beyond_corpus(vocab_size, most, characters))
    opts["vocab_size"] = most
    return vocab_size


def _folding(options: TrainOptions) -> FoldingTable | None:
    """A user's folding table, read for the Nepali modes' names (``lm`` / ``ocr``)."""
    if options.folding_rules is None:
        return None
    return read_table(options.folding_rules, options.normalization.removeprefix("nepali-"))


def _alphabet(
    opts: dict[str, Any], symbols: Counter[str], byte_fallback_given: bool, warnings: list[str]
) -> AlphabetPlan:
    """The alphabet plan, with ``character_coverage`` (and, where the default cannot be had,
    ``byte_fallback``) set in ``opts``.

    brahmic_pua's byte_fallback=True needs 256 pieces. Where the vocabulary has no room for them
    beside the symbols spm must keep (a toy vocab_size such as 100), stock's default, False,
    is used instead, with the one line that says guarantee 1 is off, and if the symbols do not
    all fit then either, spm's own character_coverage decides, as in stock; given explicitly,
    byte_fallback is the user's. Where the symbols do not fit and ``hard_vocab_limit=false``
    lets spm make the vocabulary what it can, spm's coverage decides too."""
    vocab_size = int(opts.get("vocab_size", DEFAULT_VOCAB_SIZE))
    model_type = _model_type(opts)
    reserved = _reserved_pieces(opts)

    def planned(byte_fallback: bool) -> AlphabetPlan:
        if "character_coverage" in opts:
            coverage = float(opts["character_coverage"])
            check_coverage(symbols, coverage, vocab_size, reserved, byte_fallback)
            return AlphabetPlan(len(symbols), len(symbols), coverage)
        return plan(symbols, vocab_size, reserved, model_type, byte_fallback)

    byte_fallback = read_bool("byte_fallback", opts["byte_fallback"])
    soft = not read_bool("hard_vocab_limit", opts.get("hard_vocab_limit", True))
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
            opts["byte_fallback"] = False
            note = (
                f"vocab_size={vocab_size} has no room for byte fallback's 256 pieces: trained "
                "without it (stock's default), which turns off guarantee 1, decode(encode(s)) "
                f"== N(s), for characters without a piece (with it: {error})"
            )
            print(f"brahmic_pua: {note}", file=sys.stderr)
            warnings.append(note)
        elif soft:
            alphabet = _stock_coverage(symbols)
        else:
            raise
    opts.setdefault("character_coverage", alphabet.character_coverage)
    return alphabet


def _stock_coverage(symbols: Counter[str]) -> AlphabetPlan:
    """spm's default character_coverage, for hard_vocab_limit=false: spm's to decide."""
    kept = kept_at(sorted(symbols.values(), reverse=True), SPM_COVERAGE)
    return AlphabetPlan(len(symbols), kept, SPM_COVERAGE)


def _train(
    options: TrainOptions,
    normalizer: Normalizer,
    corpus: Corpus,
    codec: PUACodec,
    characters: Counter[str],
    warnings: list[str],
    words: Counter[str] | None = None,
    probe: bool = False,
) -> TrainReport | None:
    """Plan, train and write the model (``probe``: train only, writing nothing). ``words``:
    the corpus's words with their counts, if the count kept them, for the word-start pass."""
    opts = dict(options.spm)
    stats = corpus.stats
    if stats.lines == 0:
        raise ValueError("the corpus is empty: give at least one non-empty line")
    if not any(not ch.isspace() for ch in characters):
        raise ValueError(
            f"the corpus has no text: {counted(stats.lines, 'line')}, all blank; give at least "
            "one line with text"
        )
    model_type = _model_type(opts)
    symbols = symbol_counts(codec, characters, stats.lines)
    alphabet = _alphabet(opts, symbols, options.byte_fallback_given, warnings)
    vocab_size = _bounded_vocab_size(opts, len(symbols), sum(characters.values()))
    required = required_clusters(str(opts.get("required_chars", "")), codec, normalizer)
    scanned = codec  # a probe at another vocab_size plans from all the clusters again
    codec = codec.restricted([*coded_clusters(codec, symbols, alphabet.kept), *required])
    # spm measures lines in bytes; a cluster's code may take 4 bytes where its text took 3.
    needed = stats.longest_line_bytes * 4 // 3 + 16
    if "max_sentence_length" not in opts:
        opts["max_sentence_length"] = max(
            DEFAULT_MAX_SENTENCE_LENGTH, min(needed, MAX_DEFAULT_SENTENCE_LENGTH)
        )
    limit = int(opts["max_sentence_length"])
    prefix = str(opts.pop("model_prefix", ""))
    user_rules = options.normalizer_choice.rules
    pretokenizer = None
    if options.pretokenizer is not None:
        pretokenizer = ClusterPretokenizer(
            options.pretokenizer, codec, options.allow_inconsistent_pretokenization
        )
        opts["pretokenizer"] = pretokenizer
        opts["allow_inconsistent_pretokenization"] = options.allow_inconsistent_pretokenization
    if (nothing := no_brahmic_text(codec)) is not None:  # after the checks that fail at once
        print(f"brahmic_pua: {nothing}", file=sys.stderr)
        warnings.append(nothing)
    with temporary_folder("brahmic_pua_train_") as work, Phases(options.progress) as phases:
        coded_options(opts, codec, normalizer, work)
        try:
            model, too_long = fit(
                corpus, codec, normalizer, opts, work, phases, not options.spm_log, user_rules
            )
        except ValueError as error:  # spm's "Vocabulary size too high", in our words
            if pretokenizer is not None and (failed := pretokenizer.error()) is not None:
                raise failed from pretokenizer.failure
            if (limit_hit := spm_vocab_limit(str(error))) is None:
                raise
            if probe:
                raise _TooHigh(limit_hit[1]) from None
            phases.start("finding a vocab_size that trains")
            trains = size_that_trains(
                limit_hit[1],
                lambda size: _made_at(size, options, normalizer, corpus, scanned, characters),
            )
            raise ValueError(vocab_too_large(str(error), trains)) from None
        if probe:
            return None
        if pretokenizer is not None and pretokenizer.cuts_inside_clusters:
            cuts = pretokenizer.cuts_inside_clusters
            note = (
                f"the pretokenizer cut inside a cluster {counted(cuts, 'time')}; those cuts were "
                "not kept: a cluster is one symbol to SentencePiece"
            )
            print(f"brahmic_pua: {note}", file=sys.stderr)
            warnings.append(note)
        codec = _drop_codes_without_piece(model, codec, normalizer, work, phases, user_rules)
        disabled = _finish(model, codec, prefix)
        starts = 0
        if options.complete_word_starts:
            if model_type == "unigram":  # (the others are left alone)
                phases.start("completing word starts")
            starts = complete_word_starts(model, corpus.lines(), words)
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
        model.trainer_spec.vocab_size = vocab_size  # as given, where it was cut to the bound
        phases.start("writing the model")
        manifest = Manifest(codec, normalizer.mode, normalizer.folding, user_rules=bool(user_rules))
        data = embed(model.SerializeToString(), manifest)
        model_file, vocab_file = _write(options, prefix, data, model, codec)
    report = TrainReport(
        model_file,
        vocab_file,
        stats.lines,
        len(codec),
        alphabet,
        limit,
        too_long,
        stats.lines_with_block,
        disabled,
        tuple(warnings),
        filtered,
        starts,
        len(model.pieces),
        sum(piece.type == UNUSED for piece in model.pieces),
    )
    if options.progress or int(opts.get("minloglevel", 2)) < 2:
        print(report.summary(), file=sys.stderr)
    return report


class _TooHigh(Exception):
    """spm's "Vocabulary size too high" in a probe: how many pieces it made."""

    def __init__(self, made: int) -> None:
        super().__init__(made)
        self.made = made


def _made_at(
    size: int,
    options: TrainOptions,
    normalizer: Normalizer,
    corpus: Corpus,
    codec: PUACodec,
    characters: Counter[str],
) -> int | None:
    """Train at vocab_size=``size`` as the user's rerun would (the alphabet planned for that
    size), quietly and writing nothing: None when spm trains, else the pieces it made (-1 for
    any other failure, which ends the search)."""
    trial = replace(options, spm={**options.spm, "vocab_size": size}, progress=False)
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            _train(trial, normalizer, corpus, codec, characters, [], probe=True)
    except _TooHigh as again:
        return again.made
    except ValueError:
        return -1
    return None


def _write(
    options: TrainOptions, prefix: str, data: bytes, model: Any, codec: PUACodec
) -> tuple[str, str]:
    """The model to ``model_writer`` (stock writes no file then), or ``<prefix>.model`` and
    ``.vocab`` together; the paths written ("" for a writer)."""
    if options.model_writer is not None:
        options.model_writer.write(data)
        return "", ""
    scores = read_bool(
        "vocabulary_output_piece_score", options.spm.get("vocabulary_output_piece_score", True)
    )
    model_file, vocab_file = f"{prefix}.model", f"{prefix}.vocab"
    write_atomic_many({model_file: data, vocab_file: vocab_text(model, codec, scores)})
    return model_file, vocab_file


def _drop_codes_without_piece(
    model: Any,
    codec: PUACodec,
    normalizer: Normalizer,
    work: str,
    phases: Phases,
    user_rules: tuple[tuple[str, str], ...],
) -> PUACodec:
    """The codec without clusters that no piece holds (character_coverage can drop a code we
    planned to keep), with the model's rules recompiled to match; usually nothing to do.

    A code is kept if any piece holds it, not only a piece of its own: a word model's pieces
    are whole words, with no piece for a lone cluster (keeping only those would empty the
    codec and leave every word piece unreachable). In the other types every kept code has a
    piece of its own, so the two readings agree."""
    usable = {ch for p in model.pieces if p.type in (NORMAL, USER_DEFINED) for ch in p.piece}
    kept = [cluster for code, cluster in codec.code_pairs() if code in usable]
    if len(kept) == len(codec):
        return codec
    codec = codec.restricted(kept)
    phases.start("compiling rules again, for the clusters spm kept")
    forward, backward = compile_rules(*rule_files(codec, normalizer, user_rules), work)
    model.normalizer_spec.precompiled_charsmap = forward
    model.denormalizer_spec.precompiled_charsmap = backward
    return codec


_RESERVED = re.compile(f"[{''.join(sorted(RESERVED))}]")


def _finish(model: Any, codec: PUACodec, prefix: str) -> int:
    """Disable orphan and escape pieces; drop temporary paths so output is reproducible."""

    escaped = _RESERVED.search  # an escape code in a piece: no segmentation may use it
    marks, _ = mark_start_ids(model, lambda piece: "" if escaped(piece) else codec.decode(piece))
    escapes = [i for i, p in enumerate(model.pieces) if p.type == NORMAL and escaped(p.piece)]
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
