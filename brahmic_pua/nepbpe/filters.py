"""Post-training vocabulary filters (NepBPE §3.2's Gate, applied to a trained vocabulary).

SentencePiece chooses its pieces by frequency alone; NepBPE admits a merge only if its Gate
allows it. We cannot run spm's training with the Gate, so each filter removes afterwards the
pieces the Gate would not have built: the piece is set UNUSED, its id never moves, and spm
spells that text with the remaining pieces (or bytes). Each is on by name:

``cross-script`` — ``ScriptCompat``: no usable piece holds text of two scripts. Faithful for
    the pieces that exist; spm may have spent those vocabulary slots otherwise.
``punct-join`` — ``ScriptCompat`` with ``PUN`` as a script of its own: no piece joins script
    text and punctuation. The danda । and double danda ॥ count as punctuation. NepBPE is
    inconsistent here: §2.2 lists them in Σ_P (punctuation), while its DFA ``D`` takes
    Devanagari as U+0900–U+097F, which holds them (and Unicode gives them Script=Common).
``mark-start`` — guarantee 2 (NepBPE's fix #16, no token splits a matra): no piece whose text
    after ▁ starts with a combining mark (Mn, Mc, Me). brahmic_pua's trainer does this already
    (so 0 there); on a plain spm model it is the repair.
``theta`` — the Gate's ``a ∈ V_ambiguous ∧ Freq(a, b) < θ``: a piece that is an ambiguous seed
    followed by more text is kept only if that text occurs at least θ times in the corpus.
    Approximation: Freq is counted as occurrences of the piece's text in whole aksharas inside
    words, an upper bound on the pair count the Gate sees, so fewer pieces go than in NepBPE;
    a seed inside a piece (not at its start) is not gated, and the Gate's ``b ∈ V_seed``
    clause (no piece ends in an ambiguous seed: no रुपमा) is not applied to ambiguous seeds.
``seed-absorb`` — ``a ∈ V_strict`` and ``b ∈ V_seed`` for strict seeds: no piece holds a strict
    seed together with other text (``▁`` aside), so the seed can never be absorbed. Faithful
    for the pieces; whether each occurrence then comes out as one piece is up to spm's choice
    among the rest (``bench/bench_filters.py`` measures it).

What counts as script text: a PUA code has the script of its block (``codec.script_of``); a
real character has its Unicode Script. Neutral, in every filter: spm's ▁ (and a literal ▁),
whitespace, decimal digits of any script (General_Category Nd), ZWJ and ZWNJ, and every other
character of Script Common, Inherited or Unknown (symbols such as ₹ or %, shared combining
marks). Punctuation is General_Category P* (Pc Pd Ps Pe Pi Pf Po): neutral to
``cross-script``, the other side of ``punct-join``. Seeds, pieces and corpus words are matched
in aksharas (:func:`brahmic_pua.nepbpe.seeds.units`) after the model's N.

Only NORMAL pieces are ever disabled: never unknown, control, byte or user-defined pieces, nor
a one-character piece the text needs (a PUA code, or any character of a model without byte
fallback). A lone mark in a model with byte fallback is safe: bytes spell it exactly.
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from brahmic_pua.codec import PUACodec
from brahmic_pua.codec.layout import is_private_use
from brahmic_pua.io.wording import counted
from brahmic_pua.model.display import (
    SPACE,
    display,
    mark_start_ids,
    set_unused,
    starts_with_mark,
)
from brahmic_pua.model.loader import load_model
from brahmic_pua.model.manifest import embed
from brahmic_pua.model.model_proto import NORMAL, ModelProto
from brahmic_pua.nepbpe.seeds import Seeds, units
from brahmic_pua.normalize import normalizer
from brahmic_pua.orthography.classify import unicode_script

FILTERS = ("cross-script", "punct-join", "mark-start", "theta", "seed-absorb")
#: The filters that read seeds (the others need none).
SEED_FILTERS = ("theta", "seed-absorb")
DEFAULT_THETA = 100.0
PUNCTUATION = "punctuation"
EXAMPLES = 8
_ZW = frozenset("\u200c\u200d")
NFC = normalizer("nfc")  # N for a plain spm model


@dataclass(frozen=True)
class FilterResult:
    """What one filter disabled: ids (ascending) and their pieces as text, aligned."""

    name: str
    ids: tuple[int, ...]
    pieces: tuple[str, ...]
    note: str = ""

    def line(self) -> str:
        """``name: N pieces disabled (examples); note``: one line for a report."""
        listed = ", ".join(self.pieces[:EXAMPLES])
        more = ", …" if len(self.pieces) > EXAMPLES else ""
        text = f"{self.name}: {counted(len(self.ids), 'piece')} disabled"
        text += f" ({listed}{more})" if self.ids else ""
        return f"{text}; {self.note}" if self.note else text


@dataclass(frozen=True)
class FilterReport:
    results: tuple[FilterResult, ...]

    @property
    def disabled(self) -> int:
        return sum(len(result.ids) for result in self.results)

    def lines(self) -> list[str]:
        return [result.line() for result in self.results]


def check_filter_inputs(
    chosen: Iterable[str],
    *,
    seeds: bool,
    corpus: bool = True,
    give_seeds: str = "seed files",
    give_corpus: str = "one",
) -> None:
    """The one check of what the filters need, before any work: ``theta`` and ``seed-absorb``
    need seeds, ``theta`` a corpus. ``give_seeds`` / ``give_corpus`` say how the caller (the
    library, the trainer's options, the CLI's flags) provides them."""
    chosen = set(chosen)
    if chosen & set(SEED_FILTERS) and not seeds:
        raise ValueError(f"the theta and seed-absorb filters need seeds: give {give_seeds}")
    if "theta" in chosen and not corpus:
        raise ValueError(f"the theta filter counts continuations in a corpus: give {give_corpus}")


def check_filters(names: Iterable[str]) -> tuple[str, ...]:
    """The filter names in order, once each; an unknown name is a ValueError listing them."""
    chosen = tuple(dict.fromkeys(name.strip() for name in names if name.strip()))
    if "all" in chosen:  # every filter, in their order: the trainer and the CLI alike
        if len(chosen) > 1:
            raise ValueError("filters=all stands alone: give all, or a list of filter names")
        return FILTERS
    unknown = [name for name in chosen if name not in FILTERS]
    if unknown:
        raise ValueError(f"unknown filter {unknown[0]!r}: choose from {', '.join(FILTERS)}")
    return chosen


@lru_cache(maxsize=1 << 14)
def char_class(ch: str) -> str | None:
    """The script of a real character (lower case), ``"punctuation"``, or None if neutral.

    The script comes from the committed Unicode tables (:func:`unicode_script`), so which
    pieces a filter disables does not depend on the installed ``regex``.
    """
    category = unicodedata.category(ch)
    if ch == SPACE or ch.isspace() or ch in _ZW or category == "Nd":
        return None
    if category.startswith("P"):
        return PUNCTUATION
    return unicode_script(ch)


class _Vocabulary:
    """A model's pieces with what the filters ask of them, for a brahmic or a plain model."""

    def __init__(self, model: ModelProto, codec: PUACodec | None) -> None:
        self.model = model
        self.codec = codec
        self.byte_fallback = bool(model.trainer_spec.byte_fallback)
        self._kinds: dict[str, frozenset[str]] = {}

    def text(self, piece: str) -> str:
        """The text a piece stands for (codes as clusters), spm's ▁ kept."""
        return self.codec.decode(piece) if self.codec else piece

    def shown(self, piece: str) -> str:
        return display(piece, self.codec) if self.codec else piece

    def classes(self, piece: str) -> set[str]:
        """Scripts and punctuation in a piece (see :meth:`kinds`)."""
        found: set[str] = set()
        for ch in piece:
            found |= self.kinds(ch)
        return found

    def kinds(self, ch: str) -> frozenset[str]:
        """A code's letters have the script of its block, its digits and punctuation (१, ॰)
        are what they are; other characters go by Unicode (a literal, escaped code point is
        private use, Script Unknown: neutral)."""
        known = self._kinds.get(ch)
        if known is not None:
            return known
        codec = self.codec
        cluster = codec.cluster_of(ch) if codec is not None else None
        if codec is None or cluster is None:
            kind = None if is_private_use(ch) else char_class(ch)
            found = frozenset({kind} if kind else ())
        else:
            kinds = {k for k in map(char_class, cluster) if k is not None}
            letters = kinds - {PUNCTUATION}
            if letters:
                kinds = (kinds - letters) | {codec.script_of(ch) or min(letters)}
            found = frozenset(kinds)
        self._kinds[ch] = found
        return found

    def required(self, piece: str) -> bool:
        """A one-character piece the text cannot do without: a cluster's code (its bytes would
        be a private code's, not text's), or any character when there is no byte fallback."""
        if len(piece) != 1:
            return False
        return not self.byte_fallback or (
            self.codec is not None and self.codec.cluster_of(piece) is not None
        )

    def candidates(self) -> list[tuple[int, str]]:
        """(id, piece) of every usable NORMAL piece a filter may disable."""
        return [
            (i, p.piece)
            for i, p in enumerate(self.model.pieces)
            if p.type == NORMAL and not self.required(p.piece)
        ]

    def disable(self, name: str, ids: Sequence[int], note: str = "") -> FilterResult:
        shown = tuple(self.shown(self.model.pieces[i].piece) for i in ids)
        set_unused(self.model, ids)
        return FilterResult(name, tuple(ids), shown, note)


def spans_scripts(classes: set[str]) -> bool:
    return len(classes - {PUNCTUATION}) > 1


def joins_punctuation(classes: set[str]) -> bool:
    return PUNCTUATION in classes and len(classes) > 1


def absorbs(piece_units: Sequence[str], seed: Sequence[str]) -> bool:
    """True when ``piece_units`` hold ``seed`` (whole aksharas) and other text besides ▁."""
    body = [u for u in piece_units if u != SPACE]
    n = len(seed)
    return len(body) > n and any(
        tuple(piece_units[i : i + n]) == tuple(seed) for i in range(len(piece_units) - n + 1)
    )


def extension(piece_units: Sequence[str], seeds: Iterable[Sequence[str]]) -> bool:
    """True when ``piece_units`` (after a leading ▁) are a seed followed by more text."""
    body = tuple(piece_units[1:] if piece_units[:1] == (SPACE,) else piece_units)
    return any(len(body) > len(s) and body[: len(s)] == tuple(s) for s in seeds)


def count_in_words(
    corpus: Iterable[str], normalizer: Callable[[str], str], wanted: set[tuple[str, ...]]
) -> tuple[Counter[tuple[str, ...]], int]:
    """How often each unit sequence in ``wanted`` occurs inside the corpus's whitespace
    words (in whole aksharas, overlapping), and the number of words."""
    words: Counter[str] = Counter()
    for line in corpus:
        words.update(normalizer(line).split())
    counts: Counter[tuple[str, ...]] = Counter()
    if not wanted:
        return counts, sum(words.values())
    firsts = {w[0] for w in wanted}
    longest = max(map(len, wanted))
    for word, n in words.items():
        if not any(first in word for first in firsts):
            continue
        found = units(word)
        for i, unit in enumerate(found):
            if unit in firsts:
                for j in range(i + 1, min(len(found), i + longest) + 1):
                    if found[i:j] in wanted:
                        counts[found[i:j]] += n
    return counts, sum(words.values())


def filter_model(
    model: ModelProto,
    names: Sequence[str],
    *,
    codec: PUACodec | None = None,
    normalizer: Callable[[str], str] = NFC,
    seeds: Seeds | None = None,
    corpus: Iterable[str] | None = None,
    theta: float = DEFAULT_THETA,
    theta_per_million: float | None = None,
) -> FilterReport:
    """Apply the named filters, in order, to a ModelProto in place (see the module docstring).

    ``codec``: a brahmic_pua model's codec (None for a plain spm model). ``normalizer``: the
    model's N, applied to seeds and corpus lines. ``theta``: the θ gate as a count in
    ``corpus``; ``theta_per_million`` instead scales it with the corpus, θ = that many per
    million whitespace words (NepBPE's θ = 100 is a count, so a corpus ten times larger
    passes ten times more continuations; a rate keeps the gate as strict on any corpus).
    """
    chosen = check_filters(names)
    check_filter_inputs(chosen, seeds=seeds is not None, corpus=corpus is not None)
    if theta < 0 or (theta_per_million is not None and theta_per_million < 0):
        raise ValueError("theta must be a count of 0 or more")
    seeds = seeds.normalized(normalizer) if seeds is not None else Seeds()
    vocab = _Vocabulary(model, codec)
    results = []
    for name in chosen:
        pieces = vocab.candidates()
        if name == "cross-script":
            ids = [i for i, p in pieces if spans_scripts(vocab.classes(p))]
            results.append(vocab.disable(name, ids))
        elif name == "punct-join":
            ids = [i for i, p in pieces if joins_punctuation(vocab.classes(p))]
            results.append(vocab.disable(name, ids))
        elif name == "mark-start":
            ids, spared = mark_start_ids(model, vocab.text, keep=vocab.required)
            kept = sum(starts_with_mark(model.pieces[i].piece) for i in spared)
            note = (
                f"{counted(kept, 'lone mark')} kept: no byte fallback to spell them" if kept else ""
            )
            results.append(vocab.disable(name, ids, note))
        elif name == "seed-absorb":
            strict = [units(s) for s in seeds.strict]
            ids = [i for i, p in pieces if any(absorbs(units(vocab.text(p)), s) for s in strict)]
            note = "" if strict else "no strict seeds"
            results.append(vocab.disable(name, ids, note))
        else:
            assert corpus is not None
            limits = (theta, theta_per_million)
            results.append(_theta(vocab, pieces, seeds, corpus, normalizer, *limits))
    return FilterReport(tuple(results))


def _theta(
    vocab: _Vocabulary,
    pieces: list[tuple[int, str]],
    seeds: Seeds,
    corpus: Iterable[str],
    normalizer: Callable[[str], str],
    theta: float,
    per_million: float | None,
) -> FilterResult:
    ambiguous = [units(s) for s in seeds.ambiguous]
    extensions: dict[int, tuple[str, ...]] = {}
    for i, piece in pieces:
        found = units(vocab.text(piece))
        if extension(found, ambiguous):
            extensions[i] = found[1:] if found[:1] == (SPACE,) else found
    counts, words = count_in_words(corpus, normalizer, set(extensions.values()))
    limit = theta if per_million is None else per_million * words / 1e6
    ids = [i for i, body in extensions.items() if counts[body] < limit]
    rule = f"{per_million:g} per million words" if per_million is not None else "a count"
    note = (
        f"θ = {math.ceil(limit):,} ({rule}) over {counted(words, 'corpus word')}; "
        f"{counted(len(extensions), 'piece extends', 'pieces extend')} an ambiguous seed"
    )
    return vocab.disable("theta", ids, note)


def apply_filters(
    data: bytes,
    names: Sequence[str],
    *,
    seeds: Seeds | None = None,
    corpus: Iterable[str] | None = None,
    theta: float = DEFAULT_THETA,
    theta_per_million: float | None = None,
    source: str = "model",
) -> tuple[bytes, FilterReport]:
    """A serialized model (brahmic_pua or plain spm) with the named filters applied, and the
    report. The manifest is kept; so is every id. See :func:`filter_model`."""
    loaded = load_model(data, source)
    manifest, model = loaded.manifest, loaded.message
    report = filter_model(
        model,
        names,
        codec=manifest.codec if manifest else None,
        normalizer=manifest.normalizer if manifest else NFC,
        seeds=seeds,
        corpus=corpus,
        theta=theta,
        theta_per_million=theta_per_million,
    )
    out = model.SerializeToString()
    return (embed(out, manifest) if manifest else out), report
