"""``brahmic-pua encode`` / ``decode`` take spm_encode's and spm_decode's flags, each with the
tool's meaning and output layout, on a plain and a brahmic_pua model.

The oracle is stock sentencepiece's Python API on the same ``.model`` file: the ids of a plain
model's output must be stock's exactly, and so must a brahmic_pua model's on the same text
(its pieces are shown as text, so they are read back to ids through the processor). Where the
tools do more than the API (the order of ``--extra_options``, ``--vocabulary``, n-best lines),
the expectation is written from spm's source (src/spm_encode_main.cc, spm_decode_main.cc and
SentencePieceProcessor's ApplyExtraOptions / SetVocabulary / LoadVocabulary), not from ours.
"""

from __future__ import annotations

import importlib
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as stock
from click.testing import CliRunner, Result
from conftest import examples, sample_held_out, sample_training, slow
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import nasty_texts

from brahmic_pua import SentencePieceProcessor
from brahmic_pua.cli.main import main

text_format: Any = importlib.import_module("google.protobuf.text_format")
model_pb2: Any = importlib.import_module("sentencepiece.sentencepiece_model_pb2")
spt_pb2: Any = importlib.import_module("sentencepiece.sentencepiece_pb2")

#: Lines that break tokenizers: literal PUA, spm's ▁, joiners, orphan and stacked marks, NFD,
#: controls, a CR, an empty line, a BOM, and text the models never saw.
NASTY = [
    "\ue000 \U000f0001 x",
    "▁ ▁▁ literal ▁",
    "क्\u200dष क्\u200cष",
    "\u0308 ి ాా కి\u0308",
    unicodedata.normalize("NFD", "क़ड़ ক্ষ"),
    "a\x00b\x1b\x7f",
    "a\rb\r",
    "",
    "\ufeffక",
    "☃ 漢字",
    "  two  spaces  ",
]


def _run(*args: str, input: bytes | str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input)


def _ok(*args: str, input: bytes | str | None = None) -> str:
    result = _run(*args, input=input)
    assert result.exit_code == 0, result.output
    return result.stdout_bytes.decode("utf-8")  # .stdout turns a CR LF the text holds into LF


def _one_line(result: Result, status: int) -> str:
    assert result.exit_code == status, result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert result.output.startswith("Error: ")
    return result.output


def _lines(texts: list[str]) -> str:
    return "".join(f"{text}\n" for text in texts)


def _as_read(texts: list[str]) -> list[str]:
    """The lines of ``_lines(texts)`` as every command reads them (docs/cli.md, written out
    here): the "\\r"s ending a line and a BOM starting the input dropped, the rest kept."""
    read = [text.rstrip("\r") for text in texts]
    return [read[0].removeprefix("\ufeff"), *read[1:]] if read else read


def _spm_steps(tokens: list[Any], steps: str, bos: Any, eos: Any) -> list[Any]:
    """spm's ApplyExtraOptions, as its source reads: each option in turn (``unk`` changes an
    id list not at all)."""
    tokens = list(tokens)
    for step in (s for s in steps.split(":") if s):
        if step == "reverse":
            tokens.reverse()
        elif step == "bos":
            tokens.insert(0, bos)
        elif step == "eos":
            tokens.append(eos)
    return tokens


def _train_stock(folder: Path, name: str, **options: Any) -> str:
    prefix = folder / name
    stock.SentencePieceTrainer.train(
        sentence_iterator=iter(sample_training("hi")),
        model_prefix=str(prefix),
        minloglevel=2,
        **{"vocab_size": 1000, **options},
    )
    return f"{prefix}.model"


@pytest.fixture(scope="module")
def stock_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Plain models stock trains: BPE, one without ``<s>``/``</s>``, and a char model."""
    folder = tmp_path_factory.mktemp("stock_models")
    return {
        "bpe": _train_stock(folder, "bpe", model_type="bpe"),
        "no_bos": _train_stock(folder, "no_bos", bos_id=-1, eos_id=-1),
        "char": _train_stock(folder, "char", model_type="char", vocab_size=400),
    }


@pytest.fixture(scope="module")
def flag_cases(
    plain_hindi_model: str, sample_models: dict[str, Path]
) -> dict[str, tuple[str, list[str]]]:
    """A model and text it was not trained on: plain Hindi, brahmic_pua Telugu."""
    return {
        "plain": (plain_hindi_model, sample_held_out("hi")[:6]),
        "brahmic": (str(sample_models["unigram"]), sample_held_out("te")[:6]),
    }


def _ids_of(model: str, output: str) -> list[list[int]]:
    """Output lines of pieces, as ids: a brahmic_pua model's shown pieces read back by the
    processor, a plain model's straight from stock."""
    sp = SentencePieceProcessor(model_file=model)
    return [[sp.piece_to_id(p) for p in line.split(" ") if p] for line in output.splitlines()]


# -- --extra_options ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["plain", "brahmic"])
@pytest.mark.parametrize(
    "steps",
    [
        "",
        "bos",
        "eos",
        "bos:eos",
        "reverse",
        "reverse:bos:eos",
        "bos:reverse",
        "eos:reverse:bos",
        "unk",
        "unk_piece::bos:",
    ],
)
@slow  # a process per option
def test_extra_options_on_ids_in_spm_order(
    flag_cases: dict[str, tuple[str, list[str]]], name: str, steps: str
) -> None:
    model, texts = flag_cases[name]
    sp = stock.SentencePieceProcessor(model_file=model)
    out = _ok(
        "encode",
        "--model",
        model,
        "--output_format",
        "id",
        "--extra_options",
        steps,
        input=_lines(texts),
    )
    expected = [_spm_steps(sp.encode(t), steps, sp.bos_id(), sp.eos_id()) for t in texts]
    assert [list(map(int, line.split())) for line in out.splitlines()] == expected


@pytest.mark.parametrize("name", ["plain", "brahmic"])
def test_python_api_options_are_reverse_bos_eos(
    flag_cases: dict[str, tuple[str, list[str]]], name: str
) -> None:
    """The Python API's add_bos, add_eos and reverse together are spm's reverse:bos:eos."""
    model, texts = flag_cases[name]
    sp = stock.SentencePieceProcessor(model_file=model)
    out = _ok("encode", "--model", model, "--extra_options", "reverse:bos:eos", input=_lines(texts))
    expected = [sp.encode(t, add_bos=True, add_eos=True, reverse=True) for t in texts]
    assert _ids_of(model, out) == expected


def test_unk_shows_the_unknown_piece(plain_hindi_model: str) -> None:
    """``unk``: an unknown piece prints as ``<unk>`` instead of its text (emit_unk_piece)."""
    sp = stock.SentencePieceProcessor(model_file=plain_hindi_model)
    texts = ["☃ x 漢字 नमस्ते", "\u200b"]
    for steps, emit in (("", False), ("unk", True), ("unk:reverse", True)):
        out = _ok(
            "encode", "--model", plain_hindi_model, "--extra_options", steps, input=_lines(texts)
        )
        expected = [
            sp.encode(t, out_type=str, emit_unk_piece=emit, reverse="reverse" in steps)
            for t in texts
        ]
        assert [line.split(" ") if line else [] for line in out.splitlines()] == expected
    assert "<unk>" in out and "☃" not in out


def test_bos_on_a_model_without_it_is_one_line(stock_models: dict[str, str]) -> None:
    for command in ("encode", "decode"):
        args = [command, "--model", stock_models["no_bos"], "--extra_options", "eos:bos"]
        shown = _one_line(_run(*args, input="x\n"), 1)
        assert "no eos piece (eos_id=-1" in shown


# -- n-best and sampling ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["plain", "brahmic"])
@pytest.mark.parametrize("size", [1, 3, 0])
def test_nbest_prints_each_candidate_on_its_own_line(
    flag_cases: dict[str, tuple[str, list[str]]], name: str, size: int
) -> None:
    model, texts = flag_cases[name]
    texts = [*texts[:3], ""]
    sp = stock.SentencePieceProcessor(model_file=model)
    ids = _ok(
        "encode",
        "--model",
        model,
        "--output_format",
        "nbest_id",
        "--nbest_size",
        str(size),
        "--extra_options",
        "eos",
        input=_lines(texts),
    )
    nbest = [best for t in texts for best in sp.nbest_encode(t, nbest_size=size)]
    expected = [[*best, sp.eos_id()] for best in nbest]
    assert [list(map(int, line.split())) for line in ids.splitlines()] == expected
    pieces = _ok(
        "encode",
        "--model",
        model,
        "--output_format",
        "nbest_piece",
        "--nbest_size",
        str(size),
        "--extra_options",
        "eos",
        input=_lines(texts),
    )
    assert _ids_of(model, pieces) == expected


def test_nbest_default_size_is_ten(flag_cases: dict[str, tuple[str, list[str]]]) -> None:
    model, texts = flag_cases["plain"]
    out = _ok("encode", "--model", model, "--output_format", "nbest_id", input=texts[0] + "\n")
    assert len(out.splitlines()) == 10


@pytest.mark.parametrize("name", ["plain", "brahmic"])
def test_sampling_follows_the_seed(flag_cases: dict[str, tuple[str, list[str]]], name: str) -> None:
    """sample_id with --random_seed: stock's samples after spm's seed (spm_encode's defaults
    nbest_size=10, alpha=0.5, and whole-lattice sampling), the same on a second run."""
    model, texts = flag_cases[name]
    sp = stock.SentencePieceProcessor(model_file=model)
    for extra, nbest, alpha in (([], 10, 0.5), (["--nbest_size=-1", "--alpha=0.2"], -1, 0.2)):
        args = ["encode", "--model", model, "--output_format", "sample_id", "--random_seed", "7"]
        first = _ok(*args, *extra, input=_lines(texts))
        assert _ok(*args, *extra, input=_lines(texts)) == first
        stock.set_random_generator_seed(7)
        expected = [
            sp.encode(t, enable_sampling=True, nbest_size=nbest, alpha=alpha) for t in texts
        ]
        assert [list(map(int, line.split())) for line in first.splitlines()] == expected
        pieces = _ok(*args, *extra, "--output_format", "sample_piece", input=_lines(texts))
        assert _ids_of(model, pieces) == expected


@pytest.mark.parametrize("size", ["0", "1"])
def test_sampling_one_candidate_is_the_best_segmentation(
    flag_cases: dict[str, tuple[str, list[str]]], size: str
) -> None:
    """spm's SampleEncode encodes as usual for nbest_size 0 or 1 (Python's API refuses them)."""
    for model, texts in flag_cases.values():
        sp = stock.SentencePieceProcessor(model_file=model)
        out = _ok(
            "encode",
            "--model",
            model,
            "--output_format",
            "sample_id",
            "--nbest_size",
            size,
            input=_lines(texts),
        )
        assert [list(map(int, line.split())) for line in out.splitlines()] == sp.encode(texts)


def test_bpe_sampling_is_dropout_at_alpha(
    stock_models: dict[str, str], sample_models: dict[str, Path]
) -> None:
    """A BPE model drops each merge with probability alpha, whatever --nbest_size says: at 0
    its best encoding, at 1 no merge at all."""
    texts = sample_held_out("hi")[:4]
    for model in (stock_models["bpe"], str(sample_models["bpe"])):
        sp = stock.SentencePieceProcessor(model_file=model)
        for alpha, size in (("0", "1"), ("1", "10"), ("1", "0")):
            out = _ok(
                "encode",
                "--model",
                model,
                "--output_format",
                "sample_id",
                "--alpha",
                alpha,
                "--nbest_size",
                size,
                input=_lines(texts),
            )
            expected = sp.encode(texts, enable_sampling=True, nbest_size=-1, alpha=float(alpha))
            assert [list(map(int, line.split())) for line in out.splitlines()] == expected


def test_what_a_model_type_cannot_do_is_one_line(stock_models: dict[str, str]) -> None:
    shown = _one_line(
        _run(
            "encode", "--model", stock_models["bpe"], "--output_format", "nbest_piece", input="x\n"
        ),
        1,
    )
    assert "n-best needs a Unigram model" in shown and "bpe" in shown
    shown = _one_line(
        _run(
            "encode", "--model", stock_models["char"], "--output_format", "sample_id", input="x\n"
        ),
        1,
    )
    assert "sampling needs a Unigram or BPE model" in shown
    vocab = stock_models["char"].replace(".model", ".vocab")
    shown = _one_line(
        _run("encode", "--model", stock_models["char"], "--vocabulary", vocab, input="x\n"), 1
    )
    assert "--vocabulary needs a Unigram or BPE model" in shown


# -- protos -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["plain", "brahmic"])
@pytest.mark.parametrize("steps", ["", "bos:eos:unk", "reverse:bos"])
def test_proto_formats_print_protobuf_text(
    flag_cases: dict[str, tuple[str, list[str]]], name: str, steps: str
) -> None:
    """A proto per line in protobuf's text format, then an empty line (spm's Utf8DebugString
    and WriteLine); the extra options act on its pieces as spm's ApplyExtraOptions does."""
    model, texts = flag_cases[name]
    texts = [*texts[:2], "☃"]
    sp = SentencePieceProcessor(model_file=model)
    args = ["encode", "--model", model, "--extra_options", steps]
    out = _ok(*args, "--output_format", "proto", input=_lines(texts))
    records = out.split("\n\n")
    assert records[-1] == "" and len(records) == len(texts) + 1
    for text, record in zip(texts, records, strict=False):
        proto = text_format.Parse(record, spt_pb2.SentencePieceText())
        plain = sp.encode(text, out_type="proto")
        assert proto.text == plain.text == text
        ids = _spm_steps([p.id for p in plain.pieces], steps, sp.bos_id(), sp.eos_id())
        assert [p.id for p in proto.pieces] == ids
        unk = "unk" in steps
        assert ("<unk>" in [p.piece for p in proto.pieces]) == (unk and sp.unk_id() in ids)
        if "bos" in steps:
            bos = next(p for p in proto.pieces if p.id == sp.bos_id())
            assert (bos.piece, bos.begin, bos.end, bos.surface) == ("<s>", 0, 0, "")
    nbest = _ok(*args, "--output_format", "nbest_proto", "--nbest_size", "2", input=texts[0])
    parsed = text_format.Parse(nbest, spt_pb2.NBestSentencePieceText())
    best = sp.nbest_encode(texts[0], nbest_size=2)
    assert [[p.id for p in n.pieces] for n in parsed.nbests] == [
        _spm_steps(ids, steps, sp.bos_id(), sp.eos_id()) for ids in best
    ]
    sampled = _ok(*args, "--output_format", "sample_proto", "--nbest_size", "1", input=texts[0])
    one = text_format.Parse(sampled, spt_pb2.SentencePieceText())
    assert [p.id for p in one.pieces] == _spm_steps(
        sp.encode(texts[0]), steps, sp.bos_id(), sp.eos_id()
    )


@pytest.mark.parametrize("name", ["plain", "brahmic"])
def test_decode_proto(flag_cases: dict[str, tuple[str, list[str]]], name: str) -> None:
    model, texts = flag_cases[name]
    sp = SentencePieceProcessor(model_file=model)
    ids = [sp.encode(t) for t in texts[:2]]
    out = _ok(
        "decode",
        "--model",
        model,
        "--input_format",
        "id",
        "--output_format",
        "proto",
        input=_lines([" ".join(map(str, i)) for i in ids]),
    )
    records = out.split("\n\n")[:-1]
    for row, record in zip(ids, records, strict=True):
        proto = text_format.Parse(record, spt_pb2.SentencePieceText())
        assert proto == sp.decode(row, out_type="proto")


# -- --generate_vocabulary and --vocabulary ----------------------------------------------------


def _spm_vocabulary(model: str, texts: list[str]) -> list[str]:
    """spm_encode --generate_vocabulary from stock's ids: unknown and control pieces left out,
    by count then piece (spm's Sorted), pieces as the processor shows them."""
    sp, shown = stock.SentencePieceProcessor(model_file=model), SentencePieceProcessor(model)
    counts = Counter(i for t in texts for i in sp.encode(t))
    kept = {
        shown.id_to_piece(i): n
        for i, n in counts.items()
        if not sp.is_unknown(i) and not sp.is_control(i)
    }
    return [f"{p}\t{n}" for p, n in sorted(kept.items(), key=lambda kv: (-kv[1], kv[0]))]


@pytest.mark.parametrize("name", ["plain", "brahmic"])
def test_generate_vocabulary(flag_cases: dict[str, tuple[str, list[str]]], name: str) -> None:
    model, texts = flag_cases[name]
    texts = [*texts, "☃ ☃", ""]
    for flag in ("--generate_vocabulary", "--generate_vocabulary=true"):
        out = _ok("encode", "--model", model, "--output_format", "id", flag, input=_lines(texts))
        assert out.splitlines() == _spm_vocabulary(model, texts)
    assert "<unk>" not in out and "☃" not in out


def _spm_restricted(model: str, allowed: set[str]) -> Any:
    """spm's SetVocabulary on a model without UNUSED or byte pieces (where ours does what spm
    does): a NORMAL piece neither listed nor one character becomes UNUSED."""
    proto = model_pb2.ModelProto()
    proto.ParseFromString(Path(model).read_bytes())
    for piece in proto.pieces:
        if piece.type == piece.NORMAL and piece.piece not in allowed and len(piece.piece) != 1:
            piece.type = piece.UNUSED
    return stock.SentencePieceProcessor(model_proto=proto.SerializeToString())


def test_vocabulary_restricts_as_spm(
    flag_cases: dict[str, tuple[str, list[str]]], tmp_path: Path, stock_models: dict[str, str]
) -> None:
    for model in (flag_cases["plain"][0], stock_models["bpe"]):
        texts = sample_held_out("hi")[:8]
        vocabulary = _ok(
            "encode", "--model", model, "--generate_vocabulary", input=_lines(texts[:3])
        )
        listed = tmp_path / "vocab.tsv"
        listed.write_text(vocabulary + "▁के\n\tकी\t9\n", encoding="utf-8")  # spm skips the tab
        for threshold in ("0", "2"):
            args = ["--vocabulary", str(listed), "--vocabulary_threshold", threshold]
            out = _ok(
                "encode", "--model", model, "--output_format", "id", *args, input=_lines(texts)
            )
            allowed = {
                line.split("\t")[0]
                for line in vocabulary.splitlines()
                if int(line.split("\t")[1]) >= int(threshold)
            } | {"▁के", "की"}
            expected = _spm_restricted(model, allowed).encode(texts)
            assert [list(map(int, line.split())) for line in out.splitlines()] == expected


def test_vocabulary_of_a_text_keeps_its_unigram_encoding(
    flag_cases: dict[str, tuple[str, list[str]]], tmp_path: Path
) -> None:
    """Restricted to the pieces a Unigram encoding of a text uses, the text encodes the same;
    other text uses only those pieces, single characters and special pieces."""
    for model, texts in flag_cases.values():
        sp = SentencePieceProcessor(model_file=model)
        listed = tmp_path / "vocab.tsv"
        listed.write_text(
            _ok("encode", "--model", model, "--generate_vocabulary", input=_lines(texts[:3])),
            encoding="utf-8",
        )
        args = ["encode", "--model", model, "--vocabulary", str(listed)]
        assert _ok(*args, input=_lines(texts[:3])) == _ok(
            "encode", "--model", model, input=_lines(texts[:3])
        )
        allowed = {line.split("\t")[0] for line in listed.read_text("utf-8").splitlines()}
        for piece in " ".join(_ok(*args, input=_lines(texts[3:]))).split():
            id = sp.piece_to_id(piece)
            special = sp.is_control(id) or sp.is_unknown(id) or sp.is_byte(id)
            assert piece in allowed or len(piece) == 1 or special, piece


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("a\n\nb\n", "line 2 is empty"),
        ("a\tx\n", "the count 'x' is not a whole number"),
        ("a\t99999999999\n", "not a whole number"),
    ],
)
def test_a_bad_vocabulary_file_is_one_line(
    plain_hindi_model: str, tmp_path: Path, content: str, says: str
) -> None:
    listed = tmp_path / "v.tsv"
    listed.write_text(content, encoding="utf-8")
    out = tmp_path / "out.txt"
    args = [
        "encode",
        "--model",
        plain_hindi_model,
        "--vocabulary",
        str(listed),
        "--output",
        str(out),
    ]
    assert says in _one_line(_run(*args, input="x\n"), 1)
    assert not out.exists()


# -- decode ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["plain", "brahmic"])
@pytest.mark.parametrize("steps", ["", "reverse", "bos:eos", "unk", "bos:reverse:unk"])
def test_decode_extra_options(
    flag_cases: dict[str, tuple[str, list[str]]], name: str, steps: str
) -> None:
    """spm_decode applies the options to the pieces before decoding them: ``reverse`` reverses
    them, ``bos``/``eos`` add pieces that decode to nothing, ``unk`` decodes a piece that is
    not in the vocabulary as " ⁇ " instead of as itself."""
    model, texts = flag_cases[name]
    sp = stock.SentencePieceProcessor(model_file=model)
    ids = [sp.encode(t) for t in texts]
    expected = [sp.decode(_spm_steps(i, steps, sp.bos_id(), sp.eos_id())) for i in ids]
    assert _decoded_ids(model, ids, steps) == expected
    if name == "plain":
        pieces = ["▁x ▁qq☃ " + " ".join(sp.encode(t, out_type=str)) for t in texts]
        out = _ok("decode", "--model", model, "--extra_options", steps, input=_lines(pieces))
        unknown = "<unk>" if "unk" in steps else None
        rows = [
            [
                unknown if unknown and sp.piece_to_id(p) == sp.unk_id() else p
                for p in line.split(" ")
            ]
            for line in pieces
        ]
        bos, eos = sp.id_to_piece(sp.bos_id()), sp.id_to_piece(sp.eos_id())
        assert out.splitlines() == [sp.decode(_spm_steps(r, steps, bos, eos)) for r in rows]
        assert (" ⁇ " in out) == ("unk" in steps)


def _decoded_ids(model: str, ids: list[list[int]], steps: str) -> list[str]:
    """``decode --input_format id --extra_options steps`` of rows of ids: its output lines."""
    given = _lines([" ".join(map(str, row)) for row in ids])
    out = _ok(
        "decode", "--model", model, "--input_format", "id", "--extra_options", steps, input=given
    )
    return out.splitlines()


def test_decode_skips_empty_pieces_as_spm_splits(plain_hindi_model: str) -> None:
    """spm_decode splits a line at spaces and skips empty parts: leading, doubled and
    trailing spaces change nothing (an empty first piece would keep the ▁ of the next)."""
    sp = stock.SentencePieceProcessor(model_file=plain_hindi_model)
    pieces = sp.encode(sample_held_out("hi")[0], out_type=str)
    spaced = "  " + "  ".join(pieces) + " "
    assert (
        _ok("decode", "--model", plain_hindi_model, input=spaced + "\n") == sp.decode(pieces) + "\n"
    )


@pytest.mark.parametrize("edit", ["retyped", "removed"])
@pytest.mark.parametrize("steps", ["", "unk", "bos:unk:eos"])
def test_a_model_without_an_unknown_piece_decodes_as_stock(
    no_unknown_models: dict[str, Path], edit: str, steps: str
) -> None:
    """A model with no unknown piece (``unk_id() == -1``) decodes ids and pieces as stock does:
    ``unk`` changes nothing (no piece is the unknown one) and a piece not in the model decodes
    as written. Stock's processor on the same file is the oracle, fed the model's own pieces
    for the text's shown ones."""
    model = str(no_unknown_models[edit])
    sp = stock.SentencePieceProcessor(model_file=model)
    assert sp.unk_id() == -1
    texts = [*sample_held_out("te")[:4], "☃ x"]
    ids = [sp.encode(t) for t in texts]
    assert _decoded_ids(model, ids, steps) == [sp.decode(i) for i in ids]
    shown = SentencePieceProcessor(model_file=model)
    lines = [["xyzzy", *shown.encode(t, out_type=str), "qq☃"] for t in texts]
    given = _lines([" ".join(line) for line in lines])
    out = _ok("decode", "--model", model, "--extra_options", steps, input=given)
    expected = [sp.decode(["xyzzy", *sp.encode(t, out_type=str), "qq☃"]) for t in texts]
    assert out.splitlines() == expected
    assert all(line.startswith("xyzzy ") and line.endswith("qq☃") for line in expected)


def test_unk_on_a_model_without_an_unknown_piece_encodes_as_without_it(
    no_unknown_models: dict[str, Path],
) -> None:
    """spm_encode's ``unk`` replaces the pieces whose id is the unknown one: on a model with
    none, nothing (byte fallback spells what the model lacks)."""
    model = str(no_unknown_models["retyped"])
    texts = ["☃ x", sample_held_out("te")[0]]
    for output_format in ("piece", "id", "proto"):
        plain = _ok(
            "encode", "--model", model, "--output_format", output_format, input=_lines(texts)
        )
        out = _ok(
            "encode",
            "--model",
            model,
            "--output_format",
            output_format,
            "--extra_options",
            "unk",
            input=_lines(texts),
        )
        assert out == plain


# -- input, output, usage -----------------------------------------------------------------------


def test_inputs_as_arguments_in_order(plain_hindi_model: str, tmp_path: Path) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("नमस्ते\n", encoding="utf-8")
    second.write_text("भारत\nx", encoding="utf-8")
    sp = stock.SentencePieceProcessor(model_file=plain_hindi_model)
    out = _ok(
        "encode", "--model", plain_hindi_model, "--output_format", "id", str(first), str(second)
    )
    expected = [sp.encode(t) for t in ("नमस्ते", "भारत", "x")]
    assert [list(map(int, line.split())) for line in out.splitlines()] == expected
    assert _ok(
        "encode", "--model", plain_hindi_model, "--output_format", "id", "--input", str(first)
    ) == (" ".join(map(str, expected[0])) + "\n")


@pytest.mark.parametrize(
    "args",
    [
        ["encode", "--extra_options", "bos:foo"],
        ["encode", "--output_format", "nbest"],
        ["encode", "--output_format", "sample_id", "--nbest_size", "513"],
        ["encode", "--random_seed", "-1"],
        ["encode", "--random_seed", str(2**32)],
        ["encode", "--generate_vocabulary", "maybe"],
        ["encode", "--alpha", "x"],
        ["encode", "--vocabulary_threshold", "1.5"],
        ["encode", "--input", "{text}", "{text}"],
        ["encode", "--no_such_flag=1"],
        ["decode", "--output_format", "piece"],
        ["decode", "--input_format", "string"],
        ["decode", "--extra_options", "reverse:eos:bogus"],
    ],
)
def test_usage_errors_exit_2_in_one_line(
    plain_hindi_model: str, tmp_path: Path, args: list[str]
) -> None:
    text = tmp_path / "in.txt"
    text.write_text("x\n", encoding="utf-8")
    words = [a.format(text=text) for a in args]
    shown = _one_line(_run(words[0], "--model", plain_hindi_model, *words[1:], input="x\n"), 2)
    assert "--help" in shown


@slow  # a process per example
@settings(max_examples=examples(40), deadline=None)
@given(st.lists(nasty_texts.map(lambda t: t.replace("\n", "")), min_size=1, max_size=4))
def test_nasty_lines_keep_the_layout(
    flag_cases: dict[str, tuple[str, list[str]]], lines: list[str]
) -> None:
    """Any line: one output line per input line (piece, id, sample), one per candidate
    (nbest); ids as the processor gives them, which are stock's on a plain model."""
    for model, _ in flag_cases.values():
        sp = SentencePieceProcessor(model_file=model)
        reference = stock.SentencePieceProcessor(model_file=model)
        data = _lines(lines).encode("utf-8")
        read = _as_read(lines)
        ids = _ok("encode", "--model", model, "--output_format", "id", input=data)
        assert [list(map(int, line.split())) for line in ids.split("\n")[:-1]] == sp.encode(read)
        if not sp.is_brahmic:
            assert ids == _lines([" ".join(map(str, reference.encode(t))) for t in read])
        pieces = _ok("encode", "--model", model, "--extra_options", "bos:eos", input=data)
        assert pieces.count("\n") == len(lines)
        nbest = _ok(
            "encode",
            "--model",
            model,
            "--output_format",
            "nbest_id",
            "--nbest_size",
            "2",
            input=data,
        )
        assert [list(map(int, line.split())) for line in nbest.split("\n")[:-1]] == [
            best for t in read for best in sp.nbest_encode(t, nbest_size=2)
        ]
        sampled = _ok("encode", "--model", model, "--output_format", "sample_id", input=data)
        assert sampled.count("\n") == len(lines)
        back = _ok("decode", "--model", model, "--input_format", "id", input=ids)
        assert back.split("\n")[:-1] == [sp.decode(i) for i in sp.encode(read)]


@pytest.mark.parametrize("name", ["plain", "brahmic"])
def test_nasty_lines_match_stock(flag_cases: dict[str, tuple[str, list[str]]], name: str) -> None:
    """The fixed nasty lines: ids are stock's on the text the processor gives stock (N, NFC
    here, and a literal Private Use code escaped on a brahmic_pua model)."""
    model, _ = flag_cases[name]
    sp, reference = SentencePieceProcessor(model_file=model), stock.SentencePieceProcessor(model)
    out = _ok(
        "encode",
        "--model",
        model,
        "--output_format",
        "id",
        "--extra_options",
        "reverse:bos:eos",
        input=_lines(NASTY),
    )
    rows = [list(map(int, line.split())) for line in out.split("\n")[:-1]]
    read = _as_read(NASTY)
    assert rows == sp.encode(read, add_bos=True, add_eos=True, reverse=True)
    if name == "plain":
        assert rows == reference.encode(read, add_bos=True, add_eos=True, reverse=True)
    else:
        simple = [
            i
            for i, t in enumerate(read)
            if t == unicodedata.normalize("NFC", t)
            and not any(unicodedata.category(c) == "Co" for c in t)
        ]
        assert [rows[i] for i in simple] == reference.encode(
            [read[i] for i in simple], add_bos=True, add_eos=True, reverse=True
        )


@pytest.mark.parametrize("size", [513, 2**31, 10**30])
@pytest.mark.parametrize("output_format", ["nbest_id", "nbest_piece", "sample_id"])
def test_an_nbest_size_past_spms_limit_is_a_usage_error(
    sample_models: dict[str, Path], size: int, output_format: str
) -> None:
    """spm lists and samples at most 512 (kMaxNBestSize); past that its INTERNAL error, and
    past a C int a traceback of the binding, would reach the user."""
    model = str(sample_models["unigram"])
    args = ["--output_format", output_format, "--nbest_size", str(size)]
    result = _run("encode", "--model", model, *args, input="క్రాంతి\n")
    assert "at most 512" in _one_line(result, 2)
