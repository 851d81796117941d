"""NepBPE's E4 protocol: every metric of :mod:`brahmic_pua.evaluation.metrics` for one
tokenizer on a set of texts, computed through its real encode and decode path, so evaluation
cannot drift from use. :func:`text_metrics` is the one place a metric is computed from an
encoding; ``eval`` (:func:`evaluate`) and ``audit`` both ask it for their bundle.

A tokenizer is brahmic_pua's processor or stock sentencepiece's on a plain model (its N is the
identity), or any :class:`~brahmic_pua.model.processor_types.Encoder` (``encode(texts) -> rows of
ids``, ``decode(rows) -> texts``) such as :class:`O200k`; an encoder that is not a whole
:class:`~brahmic_pua.model.processor_types.Processor` gets the metrics that need no vocabulary.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from typing import Any, Protocol, runtime_checkable

from brahmic_pua.evaluation import metrics
from brahmic_pua.evaluation.report import LABELS as ALL_LABELS
from brahmic_pua.evaluation.report import labels_of, table
from brahmic_pua.model.processor_types import Encoder, Processor, Vocabulary

#: What :func:`evaluate` reports for any encoder, in its result's order.
BASIC = ("lines", "tokens", "fertility", "tokens_per_char", "bytes_per_token", "round_trip_rate")
#: What it adds for a SentencePiece processor, whose vocabulary and alignment it can read.
VOCABULARY = (
    "byte_fallback_per_1000",
    "orphan_marks_per_1000",
    "cluster_split_rate",
    "conjunct_split_rate",
    "unk_rate",
    "vocab_size",
    "vocab_share",
)
#: Table labels of :func:`evaluate`'s scalar results, in table order: the one wording of
#: :data:`brahmic_pua.evaluation.report.LABELS`, for the keys evaluate computes.
LABELS: dict[str, str] = labels_of(
    [key for key in ALL_LABELS if key in {*BASIC, "nsl", *VOCABULARY}]
)


def expected_text(processor: Encoder, text: str) -> str:
    """N(s): what decoding the encoding of ``text`` must give back. A brahmic_pua model's N as
    its manifest records it (mode and folding table); the identity for anything else."""
    manifest = getattr(processor, "manifest", None)
    return text if manifest is None else manifest.normalizer(text)


@runtime_checkable
class Aligned(Protocol):
    """A tokenizer that says itself where its tokens start in a text (character offsets), as
    :class:`~brahmic_pua.evaluation.tokenizer_json.HFTokenizer` does from its offsets; a
    SentencePiece processor is aligned by :func:`~brahmic_pua.evaluation.metrics.token_starts`
    instead."""

    def token_starts(self, texts: Sequence[str], /) -> list[list[int]]: ...


class _Encoding:
    """One tokenizer's rows of ids for some texts, and what the metrics read off them: N(s)
    and the token starts are derived once, when the first metric needs them."""

    def __init__(
        self, tokenizer: Encoder, texts: list[str], rows: metrics.Rows, baseline: Encoder | None
    ) -> None:
        self.tokenizer = tokenizer
        self.texts = texts
        self.rows = rows
        self._baseline = baseline

    @cached_property
    def normalized(self) -> list[str]:
        return [expected_text(self.tokenizer, text) for text in self.texts]

    @property
    def vocabulary(self) -> Vocabulary:
        if not isinstance(self.tokenizer, Vocabulary):
            raise TypeError(f"{type(self.tokenizer).__name__} has no vocabulary to measure")
        return self.tokenizer

    @property
    def baseline(self) -> Encoder:
        if self._baseline is None:
            raise TypeError("NSL needs a baseline tokenizer")
        return self._baseline

    @cached_property
    def starts(self) -> list[list[int]]:
        """Where each text's tokens begin, by the tokenizer's own alignment."""
        if isinstance(self.tokenizer, Processor):
            return metrics.token_starts(self.tokenizer, self.normalized)
        if isinstance(self.tokenizer, Aligned):
            return self.tokenizer.token_starts(self.normalized)
        raise TypeError(f"{type(self.tokenizer).__name__} does not say where its tokens start")

    def split_rate(self, count: Callable[[str, Sequence[int]], tuple[int, int]]) -> float:
        return metrics.split_share(count, self.normalized, self.starts)


#: Every metric of the bundle (the keys of :data:`~brahmic_pua.evaluation.report.LABELS`, and
#: ``vocab_share``), each as one call into :mod:`brahmic_pua.evaluation.metrics`.
METRICS: dict[str, Callable[[_Encoding], Any]] = {
    "lines": lambda e: len(e.texts),
    "tokens": lambda e: metrics.total_tokens(e.rows),
    "fertility": lambda e: metrics.fertility(e.rows, e.texts),
    "tokens_per_char": lambda e: metrics.tokens_per_char(e.rows, e.normalized),
    "bytes_per_token": lambda e: metrics.bytes_per_token(e.rows, e.normalized),
    "byte_fallback_per_1000": lambda e: metrics.byte_fallback_per_1000(e.rows, e.vocabulary),
    "orphan_marks_per_1000": lambda e: metrics.orphan_marks_per_1000(e.rows, e.vocabulary),
    "cluster_split_rate": lambda e: e.split_rate(metrics.split_clusters),
    "conjunct_split_rate": lambda e: e.split_rate(metrics.split_conjuncts),
    "unk_rate": lambda e: metrics.unk_rate(e.rows, e.vocabulary),
    "round_trip_rate": lambda e: metrics.round_trip_rate(e.normalized, e.tokenizer.decode(e.rows)),
    "nsl": lambda e: metrics.nsl(e.rows, e.baseline.encode(e.texts)),
    "vocab_size": lambda e: e.vocabulary.get_piece_size(),
    "vocab_share": lambda e: metrics.vocabulary_share(e.vocabulary),
}


def text_metrics(
    tokenizer: Encoder,
    texts: Sequence[str],
    keys: Iterable[str],
    *,
    baseline: Encoder | None = None,
    rows: metrics.Rows | None = None,
) -> dict[str, Any]:
    """The metric bundle that ``eval`` and ``audit`` both report, one definition for both:
    the :data:`METRICS` named by ``keys``, in that order, for ``tokenizer`` on ``texts``
    through its real encode and decode path. ``rows`` are its encodings of ``texts`` when the
    caller has them already (the audit counts scripts on the same rows); ``baseline`` is the
    tokenizer ``nsl`` divides by. Only the asked metrics are computed, so a report pays for
    no number it does not show; one that does not apply (a vocabulary metric of an encoder
    without one) is a TypeError."""
    texts, keys = list(texts), list(keys)
    unknown = [key for key in keys if key not in METRICS]
    if unknown:
        raise ValueError(f"no metric named {', '.join(unknown)}: choose from {', '.join(METRICS)}")
    encoding = _Encoding(
        tokenizer, texts, tokenizer.encode(texts) if rows is None else rows, baseline
    )
    return {key: METRICS[key](encoding) for key in keys}


def evaluate(
    processor: Encoder, texts: Sequence[str], baseline: Encoder | None = None
) -> dict[str, Any]:
    """Every metric for ``processor`` on ``texts`` (keys: :data:`LABELS`, plus
    ``vocab_share``, script name → share of the usable vocabulary). ``nsl`` is there when a
    ``baseline`` tokenizer is given: this one's tokens ÷ the baseline's, on the same texts."""
    texts = list(texts)
    if not texts:
        raise ValueError("no text to evaluate on")
    keys = [*BASIC, *(["nsl"] if baseline is not None else [])]
    if isinstance(processor, Processor):  # a SentencePiece vocabulary to look into
        keys += VOCABULARY
    return text_metrics(processor, texts, keys, baseline=baseline)


def format_table(columns: Mapping[str, Mapping[str, Any]], reference: str | None = None) -> str:
    """Results side by side: one row per metric, one column per tokenizer, aligned; ``-``
    where a metric does not apply (:func:`brahmic_pua.evaluation.report.table`). ``reference``
    names the NSL baseline in its label."""
    return "\n".join(table(columns, LABELS, reference))
