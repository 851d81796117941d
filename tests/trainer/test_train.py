"""Training through SentencePiece: one self-contained .model, and the four guarantees on real text.

(a) decode(encode(s)) == N(s); (b) no non-byte piece starts with a dependent mark, in the
vocabulary or in any segmentation; (c) stock sentencepiece gives the same ids; (d) training twice
gives a byte-identical model.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as stock
from conftest import (
    SAMPLE_VOCAB,
    TE_SAMPLE,
    corpora,
    corpus_files,
    read,
    sample,
    sample_held_out,
    sample_training,
    slow,
)
from hypothesis import given
from strategies import nasty_texts

import brahmic_pua as spm
from brahmic_pua.codec import PUACodec
from brahmic_pua.codec.closed_set import valid_clusters
from brahmic_pua.evaluation.metrics import orphan_mark_ids, private_code_byte_runs
from brahmic_pua.model.display import starts_with_mark
from brahmic_pua.model.manifest import extract
from brahmic_pua.segment.counting import count_corpus
from brahmic_pua.trainer import train_model


def test_model_file_is_self_contained(sample_models: dict[str, Path]) -> None:
    data = sample_models["bpe"].read_bytes()
    manifest = extract(data, "bpe")
    assert manifest is not None and manifest.normalization == "nfc"
    assert manifest.codec.policy == "fixtoken" and "telugu" in manifest.codec.scripts
    vocab = sample_models["bpe"].with_suffix(".vocab").read_text(encoding="utf-8")
    assert not any(0xE000 <= ord(ch) <= 0xF8FF or ord(ch) >= 0xF0000 for ch in vocab)
    assert "\n▁కూడా\t" in vocab or "\nకూడా\t" in vocab


# -- (a) exact round trip --------------------------------------------------------------------


def _check_round_trip(sample_models: dict[str, Path], lines: list[str]) -> None:
    expected = [unicodedata.normalize("NFC", line) for line in lines]
    for name in ("unigram", "mixed"):
        sp = spm.SentencePieceProcessor(model_file=str(sample_models[name]))
        assert sp.decode(sp.encode(lines)) == expected


@pytest.mark.parametrize("language", ["te", "hi"])
def test_round_trip_every_sample_line(sample_models: dict[str, Path], language: str) -> None:
    """Every line, held out or trained on, as written and in NFD (Telugu ై split in two,
    nukta letters decomposed)."""
    lines = sample(language)
    _check_round_trip(sample_models, lines + [unicodedata.normalize("NFD", line) for line in lines])


@corpora
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_round_trip_every_corpus_line(corpus_models: dict[str, Path], path: Path) -> None:
    _check_round_trip(corpus_models, read(path.name).split("\n"))


@pytest.mark.parametrize("name", ["unigram", "bpe"])
@given(text=nasty_texts)
def test_round_trip_any_text(sample_models: dict[str, Path], name: str, text: str) -> None:
    sp = _processor(sample_models, name)
    ids = sp.encode(text)
    assert sp.decode(ids) == unicodedata.normalize("NFC", text)
    pieces = sp.encode(text, out_type=str)
    assert sp.decode(pieces) == unicodedata.normalize("NFC", text)
    assert not any(0xE000 <= ord(ch) <= 0xF8FF or ord(ch) >= 0xF0000 for p in pieces for ch in p)


_cache: dict[str, spm.SentencePieceProcessor] = {}


def _processor(sample_models: dict[str, Path], name: str) -> spm.SentencePieceProcessor:
    """One processor a model file (sample and corpus models share names), kept alive: the
    orphan ids below are cached by the processor's id()."""
    path = str(sample_models[name])
    if path not in _cache:
        _cache[path] = spm.SentencePieceProcessor(model_file=path)
    return _cache[path]


# -- (b) no piece starts with a dependent mark -----------------------------------------------


_orphan_ids: dict[int, frozenset[int]] = {}


def _orphans(sp: spm.SentencePieceProcessor, rows: list[list[int]]) -> list[str]:
    """Non-byte pieces starting with a dependent mark among the encoded rows."""
    if id(sp) not in _orphan_ids:
        _orphan_ids[id(sp)] = orphan_mark_ids(sp)
    bad = _orphan_ids[id(sp)]
    return [sp.id_to_piece(i) for row in rows for i in row if i in bad]


@pytest.mark.parametrize("name", ["unigram", "bpe", "mixed"])
def test_vocabulary_has_no_usable_orphan_piece(sample_models: dict[str, Path], name: str) -> None:
    sp = _processor(sample_models, name)
    usable = [
        i
        for i in range(sp.get_piece_size())
        if not (sp.is_byte(i) or sp.is_unused(i) or sp.is_control(i) or sp.is_unknown(i))
    ]
    assert not [sp.id_to_piece(i) for i in usable if starts_with_mark(sp.id_to_piece(i))]


def _check_no_orphans(sample_models: dict[str, Path], lines: list[str]) -> None:
    for name in ("unigram", "bpe", "mixed"):
        sp = _processor(sample_models, name)
        assert not _orphans(sp, sp.encode(lines))


def test_no_orphan_piece_in_any_encoded_sample_line(sample_models: dict[str, Path]) -> None:
    lines = sample("te") + sample("hi")
    _check_no_orphans(sample_models, lines + [unicodedata.normalize("NFD", line) for line in lines])


@corpora
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_no_orphan_piece_in_any_encoded_corpus_line(
    corpus_models: dict[str, Path], path: Path
) -> None:
    _check_no_orphans(corpus_models, read(path.name).split("\n"))


@pytest.mark.parametrize("name", ["unigram", "bpe"])
def test_no_orphan_piece_when_sampling(sample_models: dict[str, Path], name: str) -> None:
    sp = _processor(sample_models, name)
    lines = [*sample("te")[-600:], " ా క్ ర ి", "ం ః ్ ా"]
    for alpha in (0.1, 0.5, 1.0):
        rows = sp.encode(lines, enable_sampling=True, alpha=alpha, nbest_size=-1)
        assert not _orphans(sp, rows)
        assert sp.decode(rows) == lines
    if name == "unigram":
        for line in lines[:200]:
            best = sp.nbest_encode_as_ids(line, nbest_size=5)
            assert not _orphans(sp, best)
            assert all(sp.decode(row) == line for row in best)


# -- byte fallback spells real text ------------------------------------------------------------


def _check_byte_pieces(sp: spm.SentencePieceProcessor, lines: list[str]) -> None:
    assert sp.codec is not None
    raw = stock.SentencePieceProcessor(model_proto=sp.serialized_model_proto())
    pieces = {raw.id_to_piece(i) for i in range(raw.get_piece_size()) if not raw.is_unused(i)}
    assert all(code in pieces for code, _ in sp.codec.code_pairs())  # every code has a piece
    runs, private = private_code_byte_runs(sp.encode(lines), sp)
    assert private == 0
    assert runs > 0  # the check is not vacuous


@pytest.mark.parametrize("name", ["unigram", "bpe", "mixed"])
def test_byte_pieces_never_stand_for_a_private_code(
    sample_models: dict[str, Path], name: str
) -> None:
    """Clusters without a piece are left as text, so a run of byte pieces is always the UTF-8
    of the text itself (an orphan mark, a rare character), never of an internal code."""
    lines = sample_held_out("te") + sample_held_out("hi")
    _check_byte_pieces(_processor(sample_models, name), [*lines, "ఁ ౘౙ ౚ ॡ ॠ ঌ ൿ", "ా ि"])


@corpora
@pytest.mark.parametrize("name", ["unigram", "bpe", "mixed"])
def test_byte_pieces_never_stand_for_a_private_code_in_the_corpora(
    corpus_models: dict[str, Path], name: str
) -> None:
    sp = _processor(corpus_models, name)
    lines = read("te.extra.txt").split("\n")[-3000:] + read("ne.train.txt").split("\n")[-3000:]
    _check_byte_pieces(sp, lines)


# -- (c) stock sentencepiece agrees: tests/model/test_rules.py


# -- (d) reproducible ------------------------------------------------------------------------


@pytest.mark.parametrize("model_type", ["unigram", "bpe"])
def test_training_twice_gives_identical_files(tmp_path: Path, model_type: str) -> None:
    lines = sample("te") + sample("hi")
    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        train_model(
            sentence_iterator=iter(lines),
            model_prefix=str(tmp_path / run / "m"),
            vocab_size=3000,
            model_type=model_type,
            num_threads=2,
        )
    for suffix in (".model", ".vocab"):
        first = (tmp_path / "a" / f"m{suffix}").read_bytes()
        assert first == (tmp_path / "b" / f"m{suffix}").read_bytes()


def _old_codec(monkeypatch: pytest.MonkeyPatch) -> None:
    """The trainer's table as it was before issue 41: with fixtoken's closed sets."""
    real = PUACodec.from_counts.__func__  # type: ignore[attr-defined]

    def with_closed_set(cls: type[PUACodec], *args: Any, **kwargs: Any) -> PUACodec:
        return real(cls, *args[:3], closed_set=True)  # type: ignore[no-any-return]

    monkeypatch.setattr(PUACodec, "from_counts", classmethod(with_closed_set))


@pytest.mark.parametrize("model_type", ["unigram", "bpe"])
def test_models_with_and_without_the_closed_sets_tokenize_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_type: str
) -> None:
    """The closed sets only placed codes: without them the same clusters get codes, fewer
    codes apart. A BPE model's vocabulary and ids stay; a Unigram model keeps its pieces, in
    another order (its scores move by a step of the score grid: spm's sums follow the codes).
    A model made with them (every model before issue 41) loads and decodes as before, to N of
    its text, by stock's ids as well."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(sample("te") + sample("hi")) + "\n", encoding="utf-8")
    options: dict[str, Any] = {"vocab_size": 2000, "model_type": model_type, "num_threads": 1}
    made = {}
    for name in ("new", "old"):
        if name == "old":
            _old_codec(monkeypatch)
        (tmp_path / name).mkdir()
        train_model(input=str(corpus), model_prefix=str(tmp_path / name / "m"), **options)
        made[name] = tmp_path / name / "m"
    data = {name: prefix.with_suffix(".model").read_bytes() for name, prefix in made.items()}
    assert data["new"] != data["old"]
    old_codec = extract(data["old"], "old")
    new_codec = extract(data["new"], "new")
    assert old_codec is not None and new_codec is not None
    old_codes, new_codes = dict(old_codec.codec.code_pairs()), dict(new_codec.codec.code_pairs())
    assert set(old_codes.values()) == set(new_codes.values())  # the same clusters have codes,
    assert max(old_codes) > max(new_codes)  # beyond the closed sets' codes before
    vocab = {name: prefix.with_suffix(".vocab").read_text("utf-8") for name, prefix in made.items()}
    pieces = {
        name: {row.split("\t")[0] for row in text.splitlines()} for name, text in vocab.items()
    }
    assert pieces["new"] == pieces["old"]
    if model_type == "bpe":
        assert vocab["new"] == vocab["old"]
    lines = sample_held_out("te") + sample_held_out("hi") + ["ఝౌం ऴ्ह క్\u200d"]
    ids = {}
    for name, prefix in made.items():
        ours = spm.SentencePieceProcessor(model_file=str(prefix.with_suffix(".model")))
        plain = stock.SentencePieceProcessor(model_file=str(prefix.with_suffix(".model")))
        ids[name] = ours.encode(lines)
        assert plain.encode([unicodedata.normalize("NFC", line) for line in lines]) == ids[name]
        assert ours.decode(ids[name]) == [unicodedata.normalize("NFC", line) for line in lines]
    if model_type == "bpe":
        assert ids["new"] == ids["old"]


def test_the_trainer_builds_no_closed_set(tmp_path: Path) -> None:
    """Counted (the closed sets' cache, emptied first): no closed set is listed for a training
    (it was built to be dropped again), but for one with required_chars, which may name a
    cluster the corpus lacks."""
    options: dict[str, Any] = {"input": TE_SAMPLE, "vocab_size": 1000, "model_type": "bpe"}
    valid_clusters.cache_clear()
    try:
        train_model(model_prefix=str(tmp_path / "a"), **options)
        assert valid_clusters.cache_info().currsize == 0
        train_model(model_prefix=str(tmp_path / "b"), required_chars="క", **options)
        assert valid_clusters.cache_info().currsize >= 1
    finally:
        valid_clusters.cache_clear()


def test_a_required_cluster_the_corpus_lacks_gets_its_piece(tmp_path: Path) -> None:
    counted = count_corpus(sample("te"), "fixtoken").clusters
    absent = [c for c in valid_clusters("telugu") if c not in counted][:3]
    assert len(absent) == 3
    prefix = tmp_path / "m"
    train_model(
        input=TE_SAMPLE, model_prefix=str(prefix), vocab_size=1000, required_chars="".join(absent)
    )
    sp = spm.SentencePieceProcessor(model_file=f"{prefix}.model")
    pieces = {sp.id_to_piece(i) for i in range(sp.get_piece_size())}
    assert all(cluster in pieces for cluster in absent), absent


# -- options, planning and errors ------------------------------------------------------------


def test_word_model_encodes_each_known_word_as_one_piece(tmp_path: Path) -> None:
    """A word model's pieces are whole words: every word of its corpus (the vocabulary holds
    them all) is one piece, the id stock sentencepiece gives on the same file, and decodes
    back to itself."""
    lines = [unicodedata.normalize("NFC", line) for line in sample_training("hi")]
    # spm's words are split at ASCII spaces only (a no-break space stays inside a word)
    words = sorted({word for line in lines for word in line.split(" ") if word})
    report = train_model(
        sentence_iterator=iter(lines),
        model_prefix=str(tmp_path / "word"),
        model_type="word",
        vocab_size=len(words) + 300,
        hard_vocab_limit=False,  # (room to spare: the exact count depends on spm's meta pieces)
    )
    ours = spm.SentencePieceProcessor(model_file=report.model_file)
    theirs = stock.SentencePieceProcessor(model_file=report.model_file)
    for word in words:
        ids = ours.encode(word)
        assert ids == theirs.encode(word)
        assert ours.id_to_piece(ids) == [f"▁{word}"], word
        assert ours.decode(ids) == word
    line = " ".join(words[:50])
    assert len(ours.encode(line)) == 50 and ours.decode(ours.encode(line)) == line


def test_small_vocab_plans_the_alphabet(tmp_path: Path) -> None:
    """1,200 pieces have no room for all of the Telugu sample's ~600 symbols: coverage is
    lowered."""
    report = train_model(
        input=TE_SAMPLE, model_prefix=str(tmp_path / "small"), vocab_size=1200, model_type="bpe"
    )
    assert report.alphabet.kept < report.alphabet.symbols
    assert report.alphabet.character_coverage < 1.0
    sp = spm.SentencePieceProcessor(model_file=report.model_file)
    lines = sample("te")
    assert sp.decode(sp.encode(lines)) == lines


def test_too_small_vocab_says_what_is_needed(tmp_path: Path) -> None:
    """Every too-small size names the same minimum, and that minimum trains."""
    minimums = set()
    for size in (200, 300, 500):
        with pytest.raises(ValueError, match=rf"vocab_size={size} is too small") as error:
            train_model(input=TE_SAMPLE, model_prefix=str(tmp_path / "x"), vocab_size=size)
        found = re.search(r"the smallest vocab_size that trains is (\d+)", str(error.value))
        assert found is not None
        minimums.add(int(found.group(1)))
    assert list(tmp_path.iterdir()) == [] and len(minimums) == 1
    minimum = minimums.pop()
    with pytest.raises(ValueError, match="too small"):
        train_model(input=TE_SAMPLE, model_prefix=str(tmp_path / "x"), vocab_size=minimum - 1)
    report = train_model(input=TE_SAMPLE, model_prefix=str(tmp_path / "x"), vocab_size=minimum)
    sp = spm.SentencePieceProcessor(model_file=report.model_file)
    lines = sample("te")[:500]
    assert sp.decode(sp.encode(lines)) == lines


@pytest.mark.parametrize("model_type", ["unigram", "bpe", "word"])
def test_vocab_size_beyond_the_corpus_is_refused_before_spm_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_type: str
) -> None:
    """spm would loop as long as vocab_size (minutes at 2·10⁹) before it says "too high"."""

    def no_training(*args: object) -> None:
        raise AssertionError("spm was run")

    monkeypatch.setattr("brahmic_pua.trainer.train.fit", no_training)
    with pytest.raises(ValueError, match=r"vocab_size=2000000000 is more than this corpus can "):
        train_model(
            input=TE_SAMPLE,
            model_prefix=str(tmp_path / "x"),
            vocab_size=2_000_000_000,
            model_type=model_type,
        )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("model_type", "hard"), [("char", True), ("bpe", False)])
def test_vocab_size_cut_to_the_corpus_bound_makes_the_same_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_type: str, hard: bool
) -> None:
    """Where spm makes what it can (a char model, hard_vocab_limit=false) a vocab_size over the
    corpus's bound is cut to it: the model is the one spm writes when given the size itself."""
    from brahmic_pua.trainer.fit import fit as train_fit

    lines = sample("te")[:300]
    size = sum(len(line) for line in lines) + 2000  # over the bound, yet a short loop for spm
    given_to_spm = []

    def fit(*args: Any, **keywords: Any) -> Any:
        given_to_spm.append(args[3].vocab_size)
        return train_fit(*args, **keywords)

    monkeypatch.setattr("brahmic_pua.trainer.train.fit", fit)
    written = []
    for run in ("cut", "given"):
        if run == "given":
            monkeypatch.setattr("brahmic_pua.trainer.train.most_pieces", lambda *a: 10**12)
        (tmp_path / run).mkdir()
        report = train_model(
            sentence_iterator=iter(lines),
            model_prefix=str(tmp_path / run / "m"),
            vocab_size=size,
            model_type=model_type,
            hard_vocab_limit=hard,
        )
        written.append(Path(report.model_file).read_bytes())
    assert given_to_spm[0] < size and given_to_spm[1] == size
    assert written[0] == written[1]


def test_long_lines_and_block_lines_are_not_dropped(tmp_path: Path) -> None:
    lines = sample("te")
    long_line = "ఝౌం " * 5000  # 45 KB, ten times spm's default max_sentence_length
    lines += [long_line, "\u2585 ఙ్ఞూ"]
    report = train_model(
        sentence_iterator=iter(lines), model_prefix=str(tmp_path / "m"), vocab_size=2000
    )
    assert report.lines_too_long == 0 and report.max_sentence_length > len(long_line.encode())
    assert report.lines_with_block == 1
    sp = spm.SentencePieceProcessor(model_file=report.model_file)
    assert "ఝౌం" in sp.encode("ఝౌం", out_type=str) or "▁ఝౌం" in sp.encode("ఝౌం", out_type=str)
    assert not any(sp.is_byte(i) for i in sp.encode("ఙ్ఞూ"))


@slow  # a corpus of long lines
def test_a_line_beyond_the_default_limit_is_skipped_and_said(tmp_path: Path) -> None:
    """max_sentence_length grows to fit long lines, up to 65,536 bytes: a line past that (a run
    of 40,000 nukta-virama pairs, 240 KB) is skipped as stock skips lines past 4,192 bytes,
    where sizing spm to it made a 1.8 MB line train 48 s and fail (std::isfinite(score))."""
    bomb = "क" + "\u093c\u094d" * 40_000
    lines = [*sample("hi"), bomb]
    report = train_model(
        sentence_iterator=iter(lines), model_prefix=str(tmp_path / "m"), vocab_size=1500
    )
    assert report.max_sentence_length == 1 << 16 < len(bomb.encode())
    assert report.lines_too_long == 1
    assert "1 line longer than max_sentence_length=65536 bytes skipped" in report.summary()
    sp = spm.SentencePieceProcessor(model_file=report.model_file)
    assert sp.decode(sp.encode(bomb)) == unicodedata.normalize("NFC", bomb)


def test_string_form_and_spm_spelling(tmp_path: Path) -> None:
    prefix = tmp_path / "s"
    spm.SentencePieceTrainer.train(
        f"--input={TE_SAMPLE} --model_prefix={prefix} --vocab_size=1500 --model_type=bpe "
        "--policy=akshara --user_defined_symbols=క్రాంతి"
    )
    sp = spm.SentencePieceProcessor(model_file=f"{prefix}.model")
    assert sp.codec is not None and sp.codec.policy == "akshara"
    assert sp.encode("క్రాంతి", out_type=str)[-1] == "క్రాంతి"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"vocab_sise": 10}, r"option\(s\): vocab_sise \(did you mean vocab_size\?\)"),
        ({"ray-address": "ray://h:1"}, r"ray-address \(did you mean ray_address\?\)"),
        ({"zzz": 1}, r"unknown trainer option\(s\): zzz$"),
        ({"denormalization_rule_tsv": "rules.tsv"}, "set by brahmic_pua"),
        ({"normalization_rule_name": "nfkd"}, "unknown normalization_rule_name 'nfkd'"),
        ({"policy": "words"}, "unknown policy"),
        ({"normalization": "nfkc"}, "unknown normalization"),
        ({"input": "/nonexistent.txt"}, "not found"),
        ({"input": None, "sentence_iterator": iter(["కి", "a\ud800"])}, r"line 2: lone surrogate"),
    ],
)
def test_bad_options_are_clear(tmp_path: Path, options: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {"input": TE_SAMPLE, "model_prefix": str(tmp_path / "m")}
    arguments.update(options)
    arguments = {k: v for k, v in arguments.items() if v is not None}
    with pytest.raises(ValueError, match=message):
        train_model(**arguments)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_plain_spm_model_is_wrapped_unchanged(tmp_path: Path) -> None:
    lines = sample("hi")
    stock.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_prefix=str(tmp_path / "p"),
        vocab_size=1000,
        minloglevel=2,
    )
    ours = spm.SentencePieceProcessor(model_file=str(tmp_path / "p.model"))
    theirs = stock.SentencePieceProcessor(model_file=str(tmp_path / "p.model"))
    assert not ours.is_brahmic
    assert ours.encode(lines[:50]) == theirs.encode(lines[:50])
    assert ours.encode(lines[0], out_type=str) == theirs.encode(lines[0], out_type=str)


def test_constructor_defaults_like_sentencepiece(sample_models: dict[str, Path]) -> None:
    sp = spm.SentencePieceProcessor(
        model_file=str(sample_models["unigram"]), add_bos=True, out_type=str
    )
    first: object = sp.encode("కి")[0]  # typed as an id: the static type assumes out_type=int
    assert first == "<s>"
    assert sp.encode("కి", out_type=int)[0] == sp.bos_id()


def test_processor_api(sample_models: dict[str, Path]) -> None:
    sp = _processor(sample_models, "unigram")
    assert sp.vocab_size() == sp.get_piece_size() == SAMPLE_VOCAB
    assert (sp.unk_id(), sp.bos_id(), sp.eos_id(), sp.pad_id()) == (0, 1, 2, -1)
    ids = sp.encode("క్రాంతి", add_bos=True, add_eos=True)
    assert ids[0] == sp.bos_id() and ids[-1] == sp.eos_id()
    assert sp.encode("క్రాంతి", reverse=True) == sp.encode("క్రాంతి")[::-1]
    piece = sp.id_to_piece(ids[1])
    assert sp.piece_to_id(piece) == ids[1]
    assert sp.encode_as_pieces("కి") == sp.encode("కి", out_type=str)
    assert sp.decode(sp.encode(["కి", "కా"])) == ["కి", "కా"]
    assert sp.is_byte(sp.piece_to_id("<0x41>")) and sp.is_control(1) and sp.is_unknown(0)
    entropy = sp.calculate_entropy("క్రాంతి విజ్ఞానం", 0.5)
    assert entropy > 0
    assert sp.calculate_entropy("క్రాంతి విజ్ఞానం", 0.0) > entropy  # uniform is most uncertain
    with pytest.raises(ValueError, match="Unigram"):
        _processor(sample_models, "bpe").calculate_entropy("కి", 0.5)


def test_normalization_none_keeps_nfd_text(tmp_path: Path) -> None:
    lines = sample_training("te")
    telugu = sample_held_out("te")
    nfd = [unicodedata.normalize("NFD", line) for line in telugu]  # ై becomes ె + ౖ
    report = train_model(
        sentence_iterator=iter(lines + nfd),
        model_prefix=str(tmp_path / "raw"),
        vocab_size=3000,
        normalization="none",
    )
    sp = spm.SentencePieceProcessor(model_file=report.model_file)
    assert sp.manifest is not None and sp.manifest.normalization == "none"
    assert sp.decode(sp.encode(nfd)) == nfd
    assert nfd != [unicodedata.normalize("NFC", line) for line in nfd]


def test_damaged_models_are_one_clear_error(sample_models: dict[str, Path], tmp_path: Path) -> None:
    data = sample_models["bpe"].read_bytes()
    truncated = tmp_path / "truncated.model"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(spm.ModelFileError, match="not a SentencePiece model"):
        spm.SentencePieceProcessor(model_file=str(truncated))
    edited = tmp_path / "edited.model"
    assert data.count(b'"normalization": "nfc"') == 1
    edited.write_bytes(data.replace(b'"normalization": "nfc"', b'"normalization": "nfd"'))
    with pytest.raises(spm.ModelFileError, match="fingerprint"):
        spm.SentencePieceProcessor(model_file=str(edited))
    with pytest.raises(spm.ModelFileError, match="cannot read model"):
        spm.SentencePieceProcessor(model_file=str(tmp_path / "missing.model"))


def test_entropy_matches_brute_force(sample_models: dict[str, Path]) -> None:
    """The forward algorithm equals −Σ p log p over every segmentation, enumerated."""
    import math

    from brahmic_pua.runtime.entropy import segmentation_entropy

    sp = _processor(sample_models, "unigram")
    raw = stock.SentencePieceProcessor(model_proto=sp.serialized_model_proto())
    scores = {
        raw.id_to_piece(i): raw.get_score(i)
        for i in range(raw.get_piece_size())
        if not (raw.is_control(i) or raw.is_unused(i) or raw.is_byte(i) or raw.is_unknown(i))
    }

    def segmentations(text: str) -> list[float]:
        if not text:
            return [0.0]
        found = []
        for end in range(1, len(text) + 1):
            if text[:end] in scores:
                found += [scores[text[:end]] + rest for rest in segmentations(text[end:])]
        return found

    ambiguous = 0
    for word in ("క్రాంతి", "విజ్ఞానం", "తెలుగు భాష", "ప్రభుత్వ పాఠశాలలు"):
        normalized = raw.normalize(word)
        for alpha in (0.2, 1.0):
            weights = [alpha * s for s in segmentations(normalized)]
            top = max(weights)
            z = sum(math.exp(w - top) for w in weights)
            expected = -sum(math.exp(w - top) / z * (w - top - math.log(z)) for w in weights)
            ambiguous += len(weights) > 1
            assert segmentation_entropy(raw, normalized, alpha) == pytest.approx(expected)
    assert ambiguous >= 4  # the check is not vacuous


@pytest.mark.parametrize("model_type", ["bpe", "unigram"])
def test_a_private_use_character_of_the_corpus_keeps_its_pieces(
    tmp_path: Path, model_type: str
) -> None:
    """U+F8FF is no code of the table: a BPE model whose codec drops codes after spm (the prefix
    closure) disables the pieces of those codes only, not the pieces that hold it."""
    prefix = tmp_path / model_type
    lines = sample_training("te")[:400] + ["\uf8ff\uf8ffab \uf8ff\uf8ffab"] * 200
    train_model(
        sentence_iterator=iter(lines),
        model_prefix=str(prefix),
        vocab_size=1500,
        model_type=model_type,
    )
    model = stock.SentencePieceProcessor(model_file=f"{prefix}.model")
    usable = [
        model.id_to_piece(i)
        for i in range(model.get_piece_size())
        if "\uf8ff" in model.id_to_piece(i) and not model.is_unused(i)
    ]
    assert usable, "every piece holding U+F8FF was disabled"
    assert "<0xEF>" not in model.encode("\uf8ff\uf8ffab", out_type=str)
