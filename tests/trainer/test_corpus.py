"""Training on what users actually give: options checked before the corpus is read, symbols
that keep the round trip, iterators and files read the way spm reads them, reproducible
sampling, and one line for every option that turns a guarantee off."""

from __future__ import annotations

import os
import tempfile
import threading
import tracemalloc
import unicodedata
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as stock
from conftest import require_extra, sample, sample_held_out, sample_training, slow

import brahmic_pua as spm
from brahmic_pua.codec import PUACodec
from brahmic_pua.codec import codec as codec_module
from brahmic_pua.io.lines import BATCH_CHARS
from brahmic_pua.model.display import starts_with_mark
from brahmic_pua.normalize import normalizer
from brahmic_pua.segment.counting import count_batches
from brahmic_pua.trainer import count_plan, range_count, train_model
from brahmic_pua.trainer.corpus import Corpus
from brahmic_pua.trainer.count_plan import INPUT_ENV
from brahmic_pua.trainer.options import OptionError

LINES = sample("te")


class Watched:
    """An iterator that records whether training started reading it."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.read = False

    def __iter__(self) -> Iterator[str]:
        self.read = True
        return iter(self.lines)


def _train(
    tmp_path: Path, lines: list[str] | None = None, **options: Any
) -> spm.SentencePieceProcessor:
    settings: dict[str, Any] = {"vocab_size": 1500, **options}
    report = train_model(
        sentence_iterator=iter(LINES if lines is None else lines),
        model_prefix=str(tmp_path / "m"),
        **settings,
    )
    return spm.SentencePieceProcessor(model_file=report.model_file)


# -- checked before the corpus is read --------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"vocab_size": "abc"}, r"vocab_size='abc' is not an integer"),
        ({"vocab_size": 0}, r"vocab_size=0 is out of range"),
        ({"character_coverage": "abc"}, r"character_coverage='abc' is not a number"),
        ({"num_threads": "x"}, r"num_threads='x' is not an integer"),
        ({"split_by_whitespace": "maybe"}, r"split_by_whitespace='maybe' is not true or false"),
        ({"max_sentencepiece_length": 0}, r"max_sentencepiece_length=0 is out of range"),
        ({"input_sentence_size": 50}, r"input_sentence_size=50 must be 0"),
        ({"model_type": "wordpiece"}, r"model_type='wordpiece' is not one of"),
        ({"model_prefix": ""}, r"model_prefix='' names no file"),
        ({"user_defined_symbols": ["ా"]}, r"starts with the dependent mark U\+0C3E"),
        ({"user_defined_symbols": "్,x"}, r"starts with the dependent mark U\+0C4D"),
        ({"user_defined_symbols": ["a\ue010"]}, r"holds a Private Use Area character"),
        ({"complete_word_starts": "maybe"}, r"complete_word_starts='maybe' is not true or false"),
    ],
)
def test_bad_options_fail_before_reading(
    tmp_path: Path, options: dict[str, object], message: str
) -> None:
    corpus = Watched(LINES)
    arguments: dict[str, object] = {"model_prefix": str(tmp_path / "m"), **options}
    with pytest.raises(ValueError, match=message) as error:
        train_model(sentence_iterator=corpus, **arguments)  # type: ignore[arg-type]
    assert "\n" not in str(error.value)
    assert not corpus.read and list(tmp_path.iterdir()) == []


def test_unwritable_outputs_fail_before_reading(tmp_path: Path) -> None:
    (tmp_path / "out.vocab").mkdir()
    for prefix, message in [
        (tmp_path / "out", "is a directory"),
        (tmp_path / "missing" / "out", "does not exist"),
    ]:
        corpus = Watched(LINES)
        with pytest.raises(ValueError, match=message):
            train_model(sentence_iterator=corpus, model_prefix=str(prefix), vocab_size=1500)
        assert not corpus.read
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.vocab"]


def test_blank_corpus_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"no text: 3 lines, all blank"):
        train_model(sentence_iterator=iter(["", "  ", "\t"]), model_prefix=str(tmp_path / "m"))
    assert list(tmp_path.iterdir()) == []


def test_non_utf8_file_names_line_and_offset(tmp_path: Path) -> None:
    lines = LINES[:1000]
    data = "\n".join(lines).encode() + b"\n\xff oops\n"
    offset = data.index(b"\xff")
    (tmp_path / "bad.txt").write_bytes(data)
    with pytest.raises(ValueError, match=rf"line 1001 \(byte offset {offset}: invalid start byte"):
        train_model(input=str(tmp_path / "bad.txt"), model_prefix=str(tmp_path / "m"))


# -- user-defined symbols keep the round trip -------------------------------------------------


def test_user_symbols_keep_the_round_trip(tmp_path: Path) -> None:
    sp = _train(tmp_path, user_defined_symbols="క్రాంతి,<sep>", control_symbols="<ctl>")
    theirs = stock.SentencePieceProcessor(model_file=str(tmp_path / "m.model"))
    assert sp.codec is not None
    codes = sp.codec.encode("క్రాంతి")  # the symbol's own PUA codes, typed literally
    assert codes != "క్రాంతి"
    texts = ["క్రాంతి", "ఆ క్రాంతి<sep>వచ్చింది", codes, f"a{codes}b క్రాంతి", "<ctl> <sep>"]
    for text in texts:
        ids = sp.encode(text)
        assert sp.decode(ids) == text
        assert sp.decode(sp.encode(text, out_type=str)) == text
        assert theirs.encode(text) == ids and theirs.decode(ids) == text
    assert sp.encode("క్రాంతి", out_type=str)[-1] == "క్రాంతి"
    assert "<sep>" in sp.encode("a<sep>b", out_type=str)


# -- lines read the way spm reads them --------------------------------------------------------


@slow  # trains several models
def test_open_file_iterator_trains_like_the_file(tmp_path: Path) -> None:
    """``sentence_iterator=open(path)`` (spm's documented idiom) yields lines ending in "\\n"."""
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(LINES[:600]) + "\n", encoding="utf-8")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    train_model(input=str(path), model_prefix=str(tmp_path / "a" / "m"), vocab_size=1000)
    with open(path, encoding="utf-8") as stream:
        train_model(
            sentence_iterator=stream, model_prefix=str(tmp_path / "b" / "m"), vocab_size=1000
        )
    assert (tmp_path / "a" / "m.model").read_bytes() == (tmp_path / "b" / "m.model").read_bytes()
    with_bom = tmp_path / "bom.txt"
    with_bom.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    (tmp_path / "c").mkdir()
    train_model(input=str(with_bom), model_prefix=str(tmp_path / "c" / "m"), vocab_size=1000)
    assert (tmp_path / "c" / "m.model").read_bytes() == (tmp_path / "a" / "m.model").read_bytes()
    assert "\ufeff" not in (tmp_path / "c" / "m.vocab").read_text(encoding="utf-8")


def test_iterator_lines_are_kept_exactly(tmp_path: Path) -> None:
    """A CR inside an iterator's line is part of the line (the spill used to split it)."""
    lines = [*LINES, "క\rఖ", "గ\r\nఘ ఙ"]
    report = train_model(
        sentence_iterator=iter(lines), model_prefix=str(tmp_path / "m"), vocab_size=1500
    )
    assert report.lines == len(lines)
    sp = spm.SentencePieceProcessor(model_file=report.model_file)
    assert sp.decode(sp.encode(lines[-2:])) == lines[-2:]


@slow  # trains several models
def test_sampled_training_is_reproducible(tmp_path: Path) -> None:
    """spm's own input_sentence_size sampling changes between runs; ours is seeded."""
    lines = sample("te")
    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        train_model(
            sentence_iterator=iter(lines),
            model_prefix=str(tmp_path / run / "m"),
            vocab_size=1000,
            input_sentence_size=600,
            model_type="bpe",
        )
    assert (tmp_path / "a" / "m.model").read_bytes() == (tmp_path / "b" / "m.model").read_bytes()
    (tmp_path / "c").mkdir()
    train_model(
        sentence_iterator=iter(lines),
        model_prefix=str(tmp_path / "c" / "m"),
        vocab_size=1000,
        model_type="bpe",
    )
    assert (tmp_path / "c" / "m.model").read_bytes() != (tmp_path / "a" / "m.model").read_bytes()


# -- options that turn a guarantee off say so -------------------------------------------------


@pytest.mark.parametrize(
    ("options", "guarantee"),
    [
        ({"byte_fallback": False, "vocab_size": 3000}, "byte_fallback=False turns off guarantee 1"),
        ({"remove_extra_whitespaces": True}, "remove_extra_whitespaces=True turns off guarantee 1"),
        ({"model_type": "word", "vocab_size": 4000}, "model_type=word turns off guarantee 1"),
        (
            {"treat_whitespace_as_suffix": True},
            "treat_whitespace_as_suffix=True turns off guarantee 1",
        ),
    ],
)
@slow  # trains several models
def test_weakening_options_say_which_guarantee(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: dict[str, object], guarantee: str
) -> None:
    report = train_model(
        sentence_iterator=iter(LINES),
        model_prefix=str(tmp_path / "m"),
        **{"vocab_size": 1500, **options},  # type: ignore[arg-type]
    )
    lines = [line for line in capsys.readouterr().err.splitlines() if "turns off" in line]
    assert len(lines) == 1 and guarantee in lines[0] and report.warnings == (lines[0][13:],)
    sp = spm.SentencePieceProcessor(model_file=report.model_file)
    broken = ["a  b ", "xyz qqq", "ఞ్ఝౌం"]
    assert sp.decode(sp.encode(broken)) != broken  # the warning is true


def test_char_model_keeps_every_guarantee(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sp = _train(tmp_path, model_type="char", vocab_size=1500)
    assert "turns off" not in capsys.readouterr().err
    held = [*sample_held_out("te"), *sample("hi"), " ా క్ ర ి", "a  b ", "\ue003▁x\u2585"]
    ids = sp.encode(held)
    assert sp.decode(ids) == [unicodedata.normalize("NFC", s) for s in held]
    assert not [
        i for row in ids for i in row if not sp.is_byte(i) and starts_with_mark(sp.id_to_piece(i))
    ]


# -- the codec under threads ------------------------------------------------------------------


@slow  # trains several models
def test_codec_is_thread_safe(monkeypatch: pytest.MonkeyPatch) -> None:
    """Caches that fill up are replaced, never cleared under another thread's feet."""
    monkeypatch.setattr(codec_module, "_CACHE_LIMIT", 64)
    codec = PUACodec.build(LINES)
    texts = sample_held_out("te")[:40]
    expected = [PUACodec.build(LINES).encode(t) for t in texts]
    failures: list[BaseException] = []
    results: dict[int, list[str]] = {}

    def work(worker: int) -> None:
        try:
            for _ in range(2):
                results[worker] = [codec.encode(t) for t in texts[worker::2] + texts]
        except BaseException as error:  # reported below
            failures.append(error)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    for worker, got in results.items():
        assert got == expected[worker::2] + expected


def test_codes_spm_drops_are_left_as_text(tmp_path: Path) -> None:
    """A user's character_coverage can make spm drop a code the plan kept: that cluster leaves
    the table and the rules are recompiled, so no code is ever without a piece."""
    lines = sample_training("te") + sample_training("hi")
    report = train_model(
        sentence_iterator=iter(lines),
        model_prefix=str(tmp_path / "m"),
        vocab_size=3000,
        character_coverage=0.98,
    )
    sp = spm.SentencePieceProcessor(model_file=report.model_file)
    theirs = stock.SentencePieceProcessor(model_file=report.model_file)
    assert sp.codec is not None and len(sp.codec) < report.alphabet.symbols
    usable = {theirs.id_to_piece(i) for i in range(len(sp)) if not theirs.is_unused(i)}
    assert all(code in usable for code, _ in sp.codec.code_pairs())
    held = sample_held_out("te") + sample_held_out("hi")
    ids = sp.encode(held)
    assert sp.decode(ids) == [unicodedata.normalize("NFC", s) for s in held]
    assert theirs.encode(held) == ids


def test_manifest_that_is_not_an_object_is_one_clear_error(tmp_path: Path) -> None:
    from brahmic_pua.model.manifest import Manifest

    for payload in (b"[1, 2]", b'"text"', b"null", b"{}"):
        with pytest.raises(spm.ModelFileError, match="manifest"):
            Manifest.from_bytes(payload, "m.model")


@pytest.mark.parametrize("inner_line_feed", [False, True])
def test_an_spm_error_is_one_line_on_either_path(tmp_path: Path, inner_line_feed: bool) -> None:
    """spm trains on a thread from its line file, or here from Python when a line holds a line
    feed: either way its error reaches the caller as one ValueError and nothing is written."""
    lines = sample("te")[:300] + ["తెలుగు\nభాష"] * inner_line_feed
    with pytest.raises(ValueError, match=r"^SentencePiece could not train: .*too high") as error:
        train_model(sentence_iterator=lines, model_prefix=str(tmp_path / "m"), vocab_size=30000)
    assert "\n" not in str(error.value)
    assert not list(tmp_path.iterdir())


def test_the_line_file_and_the_iterator_give_one_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """spm reads the lines from a file (U+2585 escaped in it) or, forced here, from Python:
    with CR, BOM, blank lines, literal codes and ▁ among them, the models are byte-identical."""
    odd = ["a\u2585b", "\ufeffజ్ఞ ా", "x\ry", "", "  ", "తె\u200cలు\u200dగు", "\ue000\u2581z"]
    lines = odd * 20 + sample("te")
    made = []
    for name in ("file", "iterator"):
        if name == "iterator":
            monkeypatch.setattr(Corpus, "spm_input", lambda *_: None)
        prefix = tmp_path / name / "m"
        prefix.parent.mkdir()
        train_model(sentence_iterator=lines, model_prefix=str(prefix), vocab_size=1500)
        made.append([(prefix.parent / f"m{s}").read_bytes() for s in (".model", ".vocab")])
    assert made[0] == made[1]


@slow  # trains several models
def test_worker_processes_write_the_same_model_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """num_threads > 1 counts line ranges of input files in worker processes (forced here on a
    small corpus, in ranges of 60 kB across two files with a BOM, CRLF, U+2585, no final
    newline): the same counts, statistics and spm line file, so the same model."""
    hindi = sample("hi")
    first, second = tmp_path / "te.txt", tmp_path / "mixed.txt"
    first.write_bytes(("\ufeff" + "\r\n".join(LINES[:800]) + "\r\n\n▅ క\n").encode())
    second.write_bytes(("\n".join(LINES[800:] + hindi) + "\n\nकि").encode())
    files = [str(first), str(second)]
    monkeypatch.setattr(count_plan, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(range_count, "MIN_RANGE_BYTES", 60_000)
    monkeypatch.setattr(range_count, "MAX_RANGE_BYTES", 60_000)
    assert count_plan.local_workers(files, 2)[0] == 2  # no other thread in this process
    assert len(range_count.plan_ranges(files, 2)) > 4
    made = {}
    # spm trains on the words the workers write (a part each), then on the lines they write
    for workers, spm_input in ((2, "words"), (2, "lines"), (1, "words")):
        monkeypatch.setenv(INPUT_ENV, spm_input)
        if workers == 1:
            monkeypatch.setattr(count_plan, "local_workers", lambda *_: (1, "one process"))
        prefix = tmp_path / f"{workers}-{spm_input}" / "m"
        prefix.parent.mkdir()
        report = train_model(
            input=files,
            model_prefix=str(prefix),
            vocab_size=1000,
            model_type="bpe",
            num_threads=2,
        )
        assert report.lines_with_block == 1
        made[workers, spm_input] = [
            (prefix.parent / f"m{s}").read_bytes() for s in (".model", ".vocab")
        ]
    assert made[1, "words"] == made[2, "words"] == made[2, "lines"]


def test_a_worker_range_with_a_tab_trains_on_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A word with a tab cannot be a row of spm's word file: the worker removes its part and
    spm trains on the lines, read again; the same model as lines from the start."""
    source = tmp_path / "c.txt"
    source.write_text("\n".join([*LINES[:600], "a\tb c", *LINES[600:900]]) + "\n", "utf-8")
    monkeypatch.setattr(count_plan, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(range_count, "MIN_RANGE_BYTES", 60_000)
    monkeypatch.setattr(range_count, "MAX_RANGE_BYTES", 60_000)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    (tmp_path / "temp").mkdir()
    made = []
    for spm_input in ("words", "lines"):
        monkeypatch.setenv(INPUT_ENV, spm_input)
        prefix = tmp_path / spm_input / "m"
        prefix.parent.mkdir()
        options: dict[str, Any] = {"vocab_size": 1000, "model_type": "bpe", "num_threads": 2}
        train_model(input=str(source), model_prefix=str(prefix), **options)
        made.append([(prefix.parent / f"m{s}").read_bytes() for s in (".model", ".vocab")])
    assert made[0] == made[1]
    assert os.listdir(tmp_path / "temp") == []


@slow  # trains several models
@pytest.mark.parametrize("first", [False, True])
def test_a_sample_is_trained_as_its_lines_alone(tmp_path: Path, first: bool) -> None:
    """With input_sentence_size only the sample is read past the line count and counted: the
    model is byte-identical to one trained on the sample's lines, whether the corpus came as
    files or as an iterator."""
    hindi = sample("hi")
    files = [tmp_path / "te.txt", tmp_path / "hi.txt"]
    files[0].write_text("\n".join(LINES) + "\n▅ క\n", encoding="utf-8")
    files[1].write_text("\n".join(hindi), encoding="utf-8")
    names = [str(path) for path in files]
    every = [*LINES, "▅ క", *hindi]
    options: dict[str, Any] = {
        "vocab_size": 1000,
        "model_type": "bpe",
        "shuffle_input_sentence": not first,
    }
    corpus = Corpus(names, None, normalizer("nfc"), 700, first)
    chosen = [text for batch in corpus.scan() for text in batch]
    corpus.close()
    assert len(chosen) == 700 and (chosen == every[:700]) == first
    made = []
    sources: list[tuple[str, dict[str, Any]]] = [
        ("files", {"input": names, "input_sentence_size": 700}),
        ("iterator", {"sentence_iterator": iter(every), "input_sentence_size": 700}),
        ("the sample", {"sentence_iterator": iter(chosen)}),
    ]
    for name, source in sources:
        prefix = tmp_path / name / "m"
        prefix.parent.mkdir()
        report = train_model(model_prefix=str(prefix), **source, **options)
        assert report.lines == 700
        made.append([(prefix.parent / f"m{s}").read_bytes() for s in (".model", ".vocab")])
    assert made[0] == made[1] == made[2]


@pytest.mark.parametrize("sample", [0, 150, 5000])
def test_a_bad_item_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sample: int
) -> None:
    """An iterator item that is not text is one error line naming it, before spm runs, with
    or without a sample to choose, and no spill, line file or rule file stays behind."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    items: list[object] = [*LINES[:300], 7, *LINES[300:400]]
    with pytest.raises(ValueError, match=r"^sentence_iterator item 301 is int, not str or bytes"):
        train_model(
            sentence_iterator=iter(items),
            model_prefix=str(tmp_path / "m"),
            vocab_size=1000,
            input_sentence_size=sample,
        )
    assert list(temporary.iterdir()) == [] and not (tmp_path / "m.model").exists()


# -- Parquet input ------------------------------------------------------------------------------


def _write_parquet(path: Path, rows: Sequence[str | None], column: str = "body") -> None:
    require_extra("pyarrow", "arrow", "training on Parquet input")
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"id": pa.array(range(len(rows))), column: pa.array(rows, pa.string())})
    pq.write_table(table, path, row_group_size=100)


@pytest.mark.parametrize("sample", [0, 700])
def test_parquet_trains_the_model_of_the_text_file_of_its_rows(tmp_path: Path, sample: int) -> None:
    """Two Parquet files named by a glob, rows with line feeds, CRLF, nulls and empty rows: the
    model (and vocab) of one text file holding those rows one a line, byte for byte."""
    rows: list[str | None] = [*LINES[:600], "ఒకటి\nరెండు", None, "", "మూడు\r\n", "\ufeffనాలుగు"]
    rows += LINES[600:900]
    (tmp_path / "data").mkdir()
    _write_parquet(tmp_path / "data" / "a.parquet", rows[:603])
    _write_parquet(tmp_path / "data" / "b.parquet", rows[603:])
    text = tmp_path / "corpus.txt"
    text.write_text("".join(f"{row or ''}\n" for row in rows), encoding="utf-8", newline="")
    options: dict[str, Any] = {"vocab_size": 1000, "model_type": "bpe", "num_threads": 1}
    if sample:
        options["input_sentence_size"] = sample
    made = {}
    for name, given in (
        ("text", {"input": str(text)}),
        ("parquet", {"input": str(tmp_path / "data" / "*.parquet"), "text_column": "body"}),
    ):
        folder = tmp_path / name  # the same file name: the model records it
        folder.mkdir()
        spm.SentencePieceTrainer.train(model_prefix=str(folder / "m"), **options, **given)
        made[name] = [(folder / f"m{suffix}").read_bytes() for suffix in (".model", ".vocab")]
    assert made["parquet"] == made["text"]


def test_text_column_without_parquet_input_is_an_option_error(tmp_path: Path) -> None:
    text = tmp_path / "corpus.txt"
    text.write_text("\n".join(LINES[:200]) + "\n", encoding="utf-8")
    with pytest.raises(OptionError, match="no input is Parquet: leave text_column out"):
        train_model(input=str(text), model_prefix=str(tmp_path / "m"), text_column="text")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt"]


def test_a_glob_that_matches_nothing_names_it(tmp_path: Path) -> None:
    pattern = str(tmp_path / "none" / "*.parquet")
    with pytest.raises(ValueError, match="matches no file") as caught:
        train_model(input=pattern, model_prefix=str(tmp_path / "m"))
    assert not isinstance(caught.value, OptionError)  # a missing file's exit status, not usage


def test_parquet_column_is_checked_before_reading(tmp_path: Path) -> None:
    source = tmp_path / "c.parquet"
    _write_parquet(source, LINES[:200], column="content")
    with pytest.raises(ValueError, match=r"has no column 'text' \(its columns: 'id', 'content'\)"):
        Corpus([str(source)], None, normalizer("nfc"))
    with pytest.raises(ValueError, match="engine=ray reads input= text files by byte ranges"):
        train_model(
            input=str(source),
            text_column="content",
            model_prefix=str(tmp_path / "m"),
            engine="ray",
        )


def _count_peak(path: Path) -> int:
    """The most memory Python held while the corpus at ``path`` was scanned and counted."""
    corpus = Corpus([str(path)], None, normalizer("nfc"))
    tracemalloc.start()
    try:
        count_batches(corpus.scan(), "fixtoken")
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        corpus.close()


def test_long_lines_are_held_a_few_at_a_time(tmp_path: Path) -> None:
    """The count's memory grows with the longest lines, not with how many there are: ten lines
    of half a batch peak about as two do (one batch), where a batch took 16 lines at a time
    (ten lines of 39 MB, a 390 MB file, peaked at 2.0 GB). The oracle: the same count's peak
    on the first two lines alone."""
    line = ("తెలుగు భాష " * 400_000)[: BATCH_CHARS // 2 + 1]
    two, ten = tmp_path / "two.txt", tmp_path / "ten.txt"
    two.write_text(f"{line}\n" * 2, encoding="utf-8")
    ten.write_text(f"{line}\n" * 10, encoding="utf-8")
    assert _count_peak(ten) < 2 * _count_peak(two)
