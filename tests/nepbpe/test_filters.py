"""Seed morphemes and post-training vocabulary filters, on real text.

Each filter is checked against its definition written again here, independently (Unicode
scripts through ``regex``, aksharas through ``segment``), on small Devanagari models (the Hindi
sample and the Nepali lines written for the tests): brahmic_pua Unigram and BPE, and plain spm
models trained with stock sentencepiece on the same lines. Real text almost never writes two
Brahmic scripts in one word, so the training text also holds words glued from a real Devanagari
and a real Telugu word, to give cross-script work to do.
"""

from __future__ import annotations

import io
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import regex
import sentencepiece as stock
from click.testing import CliRunner
from conftest import NEPALI, sample, sample_held_out, sample_training, slow

from brahmic_pua import SentencePieceProcessor, segment
from brahmic_pua.cli.filter_command import filter_command
from brahmic_pua.codec import PUACodec
from brahmic_pua.model.display import NORMAL, UNUSED
from brahmic_pua.model.manifest import ModelFileError, extract
from brahmic_pua.model.model_proto import parse_model
from brahmic_pua.nepbpe.filters import FILTERS, FilterResult, apply_filters, check_filters
from brahmic_pua.nepbpe.seeds import (
    SeedError,
    Seeds,
    load_seeds,
    nepali_entries,
    nepali_seeds,
    read_seeds,
    units,
)
from brahmic_pua.normalize import normalize
from brahmic_pua.trainer import train_model

VOCAB = 1200
SPACE = "\u2581"
SEEDS = nepali_seeds()


@pytest.fixture(scope="module")
def filter_corpora() -> tuple[list[str], list[str], list[str]]:
    """(Devanagari training lines, the same plus glued and Telugu lines, held-out lines)."""
    ne = sample_training("hi") + NEPALI * 8  # often enough for pieces that hold seeds
    te = sample("te")[:300]
    ne_words = [w for w, _ in Counter(" ".join(ne).split()).most_common(60) if len(w) > 2]
    te_words = [w for w, _ in Counter(" ".join(te).split()).most_common(60) if len(w) > 2]
    pairs = [a + b for a, b in zip(ne_words[:20], te_words[:20], strict=False)]
    glued = [" ".join(pairs[(i + k) % len(pairs)] for k in range(12)) for i in range(300)]
    return ne, ne + te + glued, sample_held_out("hi")


@pytest.fixture(scope="module")
def filter_models(
    filter_corpora: tuple[list[str], list[str], list[str]], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, bytes]:
    ne, mixed, _ = filter_corpora
    work = tmp_path_factory.mktemp("filters")
    out: dict[str, bytes] = {}
    for model_type in ("unigram", "bpe"):
        prefix = work / model_type
        train_model(
            sentence_iterator=iter(mixed),
            model_prefix=str(prefix),
            vocab_size=VOCAB,
            model_type=model_type,
        )
        out[model_type] = Path(f"{prefix}.model").read_bytes()
    plain = io.BytesIO()  # stock defaults: no byte fallback, spm's own script split
    stock.SentencePieceTrainer.train(
        sentence_iterator=iter(ne), model_writer=plain, vocab_size=VOCAB, minloglevel=2
    )
    out["plain"] = plain.getvalue()
    loose = io.BytesIO()  # byte fallback, no script split: pieces spm itself would refuse
    stock.SentencePieceTrainer.train(
        sentence_iterator=iter(mixed),
        model_writer=loose,
        vocab_size=VOCAB,
        model_type="bpe",
        byte_fallback=True,
        split_by_unicode_script=False,
        minloglevel=2,
    )
    out["plain-bpe"] = loose.getvalue()
    return out


MODELS = ("unigram", "bpe", "plain", "plain-bpe")


# -- the definitions, written again -------------------------------------------------------------

_NEUTRAL = regex.compile(r"[\s\p{Nd}\p{P}\u200c\u200d\u2581]|\p{sc=Zyyy}|\p{sc=Zinh}|\p{sc=Zzzz}")
_SCRIPTS = {name: regex.compile(rf"\p{{sc={name}}}") for name in ("Deva", "Telu", "Latn")}


def scripts_of(text: str) -> set[str]:
    found = set()
    for ch in text:
        if not _NEUTRAL.match(ch):
            name = next((n for n, p in _SCRIPTS.items() if p.match(ch)), None)
            found.add(name or unicodedata.name(ch, "?").split()[0])
    return found


def is_cross_script(text: str) -> bool:
    return len(scripts_of(text)) > 1


def is_punct_join(text: str) -> bool:
    return bool(regex.search(r"\p{P}", text)) and bool(scripts_of(text))


def is_mark_start(text: str) -> bool:
    return bool(regex.match(r"\u2581*\p{M}", text))


def aksharas(text: str) -> list[str]:
    return segment(text.replace(SPACE, ""), "akshara")


def holds(whole: Sequence[str], part: Sequence[str]) -> bool:
    n = len(part)
    return any(list(whole[i : i + n]) == list(part) for i in range(len(whole) - n + 1))


def is_absorbing(text: str) -> bool:
    found = aksharas(text)
    seeds = [aksharas(s) for s in SEEDS.strict]
    return any(len(found) > len(s) and holds(found, s) for s in seeds)


def extended_seed(text: str) -> bool:
    found = aksharas(text.removeprefix(SPACE))
    return any(
        len(found) > len(aksharas(s)) and found[: len(aksharas(s))] == aksharas(s)
        for s in SEEDS.ambiguous
    )


@cache
def word_units(lines: tuple[str, ...]) -> list[tuple[list[str], int]]:
    words = Counter(w for line in lines for w in unicodedata.normalize("NFC", line).split())
    return [(segment(w, "akshara"), n) for w, n in words.items()]


def corpus_count(text: str, lines: tuple[str, ...]) -> int:
    body = aksharas(text.removeprefix(SPACE))
    return sum(
        n
        for found, n in word_units(lines)
        for i in range(len(found) - len(body) + 1)
        if found[i : i + len(body)] == body
    )


# -- helpers -------------------------------------------------------------------------------------


class View:
    """A serialized model's pieces and what they stand for."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.proto = parse_model(data)
        manifest = extract(data, "test")
        self.codec: PUACodec | None = manifest.codec if manifest else None

    def text(self, i: int) -> str:
        piece = self.proto.pieces[i].piece
        return self.codec.decode(piece) if self.codec else str(piece)

    def usable(self) -> list[int]:
        return [i for i, p in enumerate(self.proto.pieces) if p.type == NORMAL]

    def required(self, i: int) -> bool:
        piece = self.proto.pieces[i].piece
        if len(piece) != 1:
            return False
        return not self.proto.trainer_spec.byte_fallback or (
            self.codec is not None and self.codec.cluster_of(piece) is not None
        )


@cache
def filtered(
    name: str, data: bytes, names: tuple[str, ...], filter_corpora: tuple[str, ...]
) -> Any:
    return apply_filters(data, names, seeds=SEEDS, corpus=filter_corpora)


def predicate(name: str, filter_corpora: tuple[str, ...]) -> Callable[[str], bool]:
    if name == "theta":
        return lambda text: extended_seed(text) and corpus_count(text, filter_corpora) < 100
    return {
        "cross-script": is_cross_script,
        "punct-join": is_punct_join,
        "mark-start": is_mark_start,
        "seed-absorb": is_absorbing,
    }[name]


# -- seeds --------------------------------------------------------------------------------------


def test_units_bind_conjuncts() -> None:
    assert units("उल्लेख") == ("उ", "ल्ले", "ख")
    assert units("▁नेपालले") == ("▁", "ने", "पा", "ल", "ले")


def test_seed_file(tmp_path: Path) -> None:
    path = tmp_path / "seeds.txt"
    nfd = unicodedata.normalize("NFD", "café")
    path.write_text(f"# Nepali\nले  # ergative\n\n{nfd}\r\nले\nC#\n", encoding="utf-8")
    assert read_seeds(path) == ("ले", "café", "C#")


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("ले\nघर ले\n", "seeds.txt:2: seed 'घर ले' contains whitespace U+0020"),
        ("ले \n", "contains whitespace U+0020"),
        ("\u093e\n", "starts with the dependent mark U+093E"),
        ("\ue010\n", "Private Use"),
        ("▁ले\n", "contains whitespace U+2581"),
    ],
)
def test_seed_file_errors(tmp_path: Path, content: str, fragment: str) -> None:
    path = tmp_path / "seeds.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SeedError) as caught:
        read_seeds(path)
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


def test_seed_file_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "seeds.txt"
    path.write_bytes("ले\n".encode() + b"\xff\n")
    with pytest.raises(SeedError, match=r"seeds.txt is not UTF-8 at line 2"):
        read_seeds(path)


def test_seeds_strict_wins_and_empty_is_refused() -> None:
    seeds = Seeds(("लाई",), ("मा",)).union(Seeds((), ("लाई", "को")))
    assert seeds == Seeds(("लाई",), ("मा", "को"))
    with pytest.raises(SeedError, match="empty seed"):
        Seeds(("",))
    folded = SEEDS.normalized(lambda text: normalize(text, "nepali-lm"))
    assert "सँग" in SEEDS.strict and "संग" in folded.ambiguous and "सँग" not in folded.strict


def test_shipped_nepali_list() -> None:
    entries = nepali_entries()
    assert all(e.source and unicodedata.is_normalized("NFC", e.seed) for e in entries)
    assert {"लाई", "बाट", "हरू"} <= set(SEEDS.strict)
    assert {"ले", "मा", "को", "का"} <= set(SEEDS.ambiguous)
    assert len(SEEDS.strict) + len(SEEDS.ambiguous) == len(entries)
    assert load_seeds(nepali=True) == SEEDS


# -- filters ------------------------------------------------------------------------------------


@slow  # trains a model per filter and type
@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("name", FILTERS)
def test_each_filter_disables_exactly_its_definition(
    filter_models: dict[str, bytes],
    filter_corpora: tuple[list[str], list[str], list[str]],
    model: str,
    name: str,
) -> None:
    lines = tuple(filter_corpora[1])
    data = filter_models[model]
    out, report = filtered(model, data, (name,), lines)
    before, after = View(data), View(out)
    disabled = {i for i in before.usable() if after.proto.pieces[i].type == UNUSED}
    wanted = predicate(name, lines)
    expected = {i for i in before.usable() if not before.required(i) and wanted(before.text(i))}
    assert disabled == expected
    assert set(report.results[0].ids) == disabled
    again, report2 = filtered(model, out, (name,), lines)
    assert report2.disabled == 0 and again == out


def test_filters_do_real_work(
    filter_models: dict[str, bytes], filter_corpora: tuple[list[str], list[str], list[str]]
) -> None:
    lines = tuple(filter_corpora[1])
    counts = {
        (model, name): filtered(model, filter_models[model], (name,), lines)[1].disabled
        for model in MODELS
        for name in FILTERS
    }
    for model in ("unigram", "bpe", "plain-bpe"):
        assert counts[model, "cross-script"] > 0, model
        assert counts[model, "punct-join"] > 0, model
    for model in MODELS:
        assert counts[model, "theta"] > 0 and counts[model, "seed-absorb"] > 0, model
    assert counts["unigram", "mark-start"] == counts["bpe", "mark-start"] == 0
    assert counts["plain", "mark-start"] > 100 and counts["plain-bpe", "mark-start"] > 0


@pytest.mark.parametrize(
    ("ids", "said"),
    [
        ((), "mark-start: 0 pieces disabled"),
        ((7,), "mark-start: 1 piece disabled (ా)"),
        ((7, 9), "mark-start: 2 pieces disabled (ా, ి)"),
    ],
)
def test_a_report_line_counts_in_words_that_agree(ids: tuple[int, ...], said: str) -> None:
    pieces = ("ా", "ి")[: len(ids)]
    assert FilterResult("mark-start", ids, pieces).line() == said


def test_lone_marks_kept_without_byte_fallback(
    filter_models: dict[str, bytes], filter_corpora: tuple[list[str], list[str], list[str]]
) -> None:
    lines = tuple(filter_corpora[1])
    out, report = filtered("plain", filter_models["plain"], ("mark-start",), lines)
    plain = View(out)
    left = [plain.text(i) for i in plain.usable() if is_mark_start(plain.text(i))]
    assert left and all(len(text) == 1 for text in left)  # no byte fallback: they stay
    marks = "lone mark" if len(left) == 1 else "lone marks"
    assert f"{len(left):,} {marks} kept" in report.lines()[0]
    loose = View(filtered("plain-bpe", filter_models["plain-bpe"], ("mark-start",), lines)[0])
    assert not [i for i in loose.usable() if is_mark_start(loose.text(i))]


@pytest.mark.parametrize("model", MODELS)
def test_all_filters_keep_ids_round_trip_and_encodings_clean(
    filter_models: dict[str, bytes],
    filter_corpora: tuple[list[str], list[str], list[str]],
    model: str,
) -> None:
    _, mixed, held = filter_corpora
    data = filter_models[model]
    out, _ = filtered(model, data, FILTERS, tuple(mixed))
    before, after = parse_model(data), parse_model(out)
    assert [p.score for p in before.pieces] == [p.score for p in after.pieces]
    changed = [(p.type, q.type) for p, q in zip(before.pieces, after.pieces, strict=True)]
    assert all(old == new or (old, new) == (NORMAL, UNUSED) for old, new in changed)
    # a piece keeps its spelling unless disabled, then it is spelled after a space
    spelled = [(p.piece, q.piece, q.type) for p, q in zip(before.pieces, after.pieces, strict=True)]
    assert all(
        new == old if kind != UNUSED else new.startswith(" ") and new in (old, " " + old)
        for old, new, kind in spelled
    )
    view = View(out)
    bad = {
        i
        for i in range(len(after.pieces))
        if after.pieces[i].type != NORMAL
        or any(predicate(name, tuple(mixed))(view.text(i)) for name in FILTERS if name != "theta")
    }
    bad -= {
        i for i, p in enumerate(after.pieces) if p.type in (2, 3, 4, 6)
    }  # unk, ctrl, user, byte
    bad -= {i for i in range(len(after.pieces)) if view.required(i)}
    texts = [unicodedata.normalize("NFC", line) for line in held]
    filtered_stock = stock.SentencePieceProcessor(model_proto=out)
    rows = filtered_stock.encode(texts)
    sampled = filtered_stock.encode(texts, enable_sampling=True, alpha=0.3, nbest_size=-1)
    assert not {i for row in rows + sampled for i in row} & bad
    if model in ("unigram", "bpe"):
        sp = SentencePieceProcessor(model_proto=out)
        kept, original_manifest = extract(out, "out"), extract(data, "data")
        assert kept is not None and original_manifest is not None and sp.is_brahmic
        assert kept.codec.fingerprint == original_manifest.codec.fingerprint
        assert sp.encode(held) == rows
        assert sp.decode(rows) == texts
    else:
        original = stock.SentencePieceProcessor(model_proto=data)
        assert filtered_stock.decode(rows) == original.decode(original.encode(texts))


def test_theta_scales_with_the_corpus(
    filter_models: dict[str, bytes], filter_corpora: tuple[list[str], list[str], list[str]]
) -> None:
    lines = filter_corpora[1]
    _, none = apply_filters(filter_models["bpe"], ["theta"], seeds=SEEDS, corpus=lines, theta=0)
    _, rate = apply_filters(
        filter_models["bpe"], ["theta"], seeds=SEEDS, corpus=lines, theta_per_million=1e9
    )
    assert none.disabled == 0
    assert "per million" in rate.results[0].note
    view = View(filter_models["bpe"])
    extending = [i for i in view.usable() if extended_seed(view.text(i))]
    assert rate.disabled == len(extending) > 0


def test_bad_requests_are_one_line_errors(filter_models: dict[str, bytes]) -> None:
    with pytest.raises(ValueError, match="unknown filter 'cross_script'"):
        check_filters(["cross_script"])
    with pytest.raises(ValueError, match="need seeds"):
        apply_filters(filter_models["bpe"], ["seed-absorb"])
    with pytest.raises(ValueError, match="corpus"):
        apply_filters(filter_models["bpe"], ["theta"], seeds=SEEDS)
    with pytest.raises(ModelFileError, match="not a SentencePiece model"):
        apply_filters(b"hello world\n", ["punct-join"])


# -- the command --------------------------------------------------------------------------------


def test_cli_writes_model_and_vocab(
    filter_models: dict[str, bytes],
    filter_corpora: tuple[list[str], list[str], list[str]],
    tmp_path: Path,
) -> None:
    model = tmp_path / "in.model"
    model.write_bytes(filter_models["unigram"])
    text = tmp_path / "corpus.txt"
    text.write_text("\n".join(filter_corpora[1]) + "\n", encoding="utf-8")
    strict = tmp_path / "strict.txt"
    strict.write_text("लाई\nबाट\n", encoding="utf-8")
    out = tmp_path / "out.model"
    args = ["--model", str(model), "--output", str(out), "--filters", ",".join(FILTERS)]
    result = CliRunner().invoke(
        filter_command,
        [*args, "--seeds_strict", str(strict), "--nepali-seeds", "--corpus", str(text)],
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line.split(":")[0] for line in lines] == list(FILTERS)
    _, report = apply_filters(
        filter_models["unigram"], FILTERS, seeds=SEEDS, corpus=filter_corpora[1]
    )
    assert lines == report.lines()
    vocab = (tmp_path / "out.vocab").read_text(encoding="utf-8").splitlines()
    pieces = parse_model(out.read_bytes()).pieces
    assert len(vocab) == len(pieces) and all("\t" in line for line in vocab)
    assert not any("\ue003" <= ch <= "\uf8ff" for line in vocab for ch in line)
    assert SentencePieceProcessor(model_file=str(out)).is_brahmic


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--filters", "cross-script,nope"], "unknown filter 'nope'"),
        (["--filters", "theta", "--nepali-seeds"], "give --corpus"),
        (["--filters", "seed-absorb"], "need seeds"),
        (["--filters", "seed-absorb", "--seeds_strict", "BAD"], "starts with the dependent mark"),
    ],
)
def test_cli_errors(
    filter_models: dict[str, bytes], tmp_path: Path, extra: list[str], message: str
) -> None:
    model = tmp_path / "in.model"
    model.write_bytes(filter_models["bpe"])
    bad = tmp_path / "bad.txt"
    bad.write_text("\u093e\n", encoding="utf-8")
    extra = [str(bad) if arg == "BAD" else arg for arg in extra]
    out = tmp_path / "out.model"
    result = CliRunner().invoke(
        filter_command, ["--model", str(model), "--output", str(out), *extra]
    )
    assert result.exit_code == 1
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not out.exists()


# -- wired into the trainer ---------------------------------------------------------------------


def test_the_trainer_applies_the_nepbpe_layer(
    filter_corpora: tuple[list[str], list[str], list[str]], tmp_path: Path
) -> None:
    """``normalization="nepali-lm", nepali_seeds=True, filters="all"``: every filter reported,
    a second pass finds nothing left, stock spm still agrees and the round trip holds."""
    ne, _, held = filter_corpora
    report = train_model(
        sentence_iterator=iter(ne),
        model_prefix=str(tmp_path / "ne"),
        vocab_size=VOCAB,
        normalization="nepali-lm",
        nepali_seeds=True,
        filters="all",
    )
    assert report.filters is not None
    assert [r.name for r in report.filters.results] == list(FILTERS)
    assert (
        sum(r.name in ("punct-join", "seed-absorb") and bool(r.ids) for r in report.filters.results)
        == 2
    )
    assert "seed-absorb: " in report.summary()
    model = parse_model(Path(report.model_file).read_bytes())
    unused = sum(piece.type == UNUSED for piece in model.pieces)  # from the file, not the report
    assert unused >= report.filters.disabled > 0
    share = f"{100 * unused / len(model.pieces):.1f}% of an embedding table"
    assert f"unused pieces: {unused:,} of {len(model.pieces):,} ids ({share}" in (report.summary())
    data = Path(report.model_file).read_bytes()
    again, second = apply_filters(data, FILTERS, seeds=SEEDS, corpus=ne, source="trained")
    assert second.disabled == 0 and again == data
    sp = SentencePieceProcessor(model_file=report.model_file)
    theirs = stock.SentencePieceProcessor(model_file=report.model_file)
    assert sp.encode(held) == theirs.encode(held)
    assert sp.decode(sp.encode(held)) == [sp.manifest.normalizer(s) for s in held]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"filters": "nope"}, "unknown filter"),
        ({"filters": ["theta"]}, "need seeds"),
        ({"filters": "all", "nepali_seeds": True, "theta": "x"}, "theta='x' is not a number"),
        ({"seeds_strict": "/nonexistent/seeds.txt"}, "nonexistent"),
    ],
)
def test_nepbpe_options_fail_before_reading(
    tmp_path: Path, options: dict[str, object], message: str
) -> None:
    read: list[int] = []

    def lines() -> Iterator[str]:
        read.append(1)
        yield "नेपाल"

    with pytest.raises(ValueError, match=message):
        train_model(sentence_iterator=lines(), model_prefix=str(tmp_path / "m"), **options)  # type: ignore[arg-type]
    assert not read
