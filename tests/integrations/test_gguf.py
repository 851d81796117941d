"""llama.cpp's side of a model (integrations/gguf.py): the GGUF holds a BPE model's vocabulary
spelled in text (raw text in, no pre-step needed) and a Unigram model's as it is, and the pre-
and post-steps give our ids and our text.

The oracles here are stock sentencepiece (the pieces it segments, as strings) and llama.cpp's
documented detokenizer (a piece's ▁ written as a space, a byte piece as its byte);
tests/peers/test_runtimes.py runs llama.cpp itself.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as stock
from click.testing import CliRunner
from conftest import NEPALI, PRIVATE_USE, require_extra, sample_held_out

import brahmic_pua
from brahmic_pua.cli.main import main
from brahmic_pua.integrations.gguf import gguf_fields, llama_text, write_gguf
from brahmic_pua.model.model_proto import UNUSED, parse_model
from brahmic_pua.model.text_spelling import spell_in_text
from brahmic_pua.trainer import train_model

require_extra("gguf", "gguf", "the GGUF export")
import gguf  # noqa: E402  (after the check: a skip, not an ImportError, without the extra)

#: llama.h's llama_token_type, written out here (not imported from the code under test).
LLAMA_TYPES = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6}
BYTE = re.compile(r"<0x([0-9A-F]{2})>")


def texts() -> list[str]:
    return sample_held_out("te") + sample_held_out("hi") + NEPALI + ["", " ", "  క  ", "a\tb"]


@pytest.mark.parametrize("kind", ["bpe", "unigram"])
def test_export_writes_the_vocabulary_llama_cpp_segments_with(
    runner: CliRunner, sample_models: dict[str, Path], tmp_path: Path, kind: str
) -> None:
    """A BPE model's pieces as our processor shows them (its clusters as text: llama.cpp takes
    raw text, adding the dummy ▁ itself); a Unigram model's as the model holds them (codes:
    llama.cpp takes llama_input's text, dummy included)."""
    out = tmp_path / "m.gguf"
    result = runner.invoke(
        main, ["export", "--model", str(sample_models[kind]), "--to", "gguf", "--output", str(out)]
    )
    assert result.exit_code == 0, result.output
    fields = gguf.GGUFReader(str(out)).fields

    def array(name: str) -> list[Any]:
        field = fields[name]
        return [field.parts[i] for i in field.data]

    def flag(name: str) -> bool:
        return bool(fields[name].parts[-1][0])

    pieces = parse_model(sample_models[kind].read_bytes()).pieces
    tokens = [bytes(t).decode() for t in array("tokenizer.ggml.tokens")]
    types = [int(t[0]) for t in array("tokenizer.ggml.token_type")]
    assert types == [LLAMA_TYPES[p.type] for p in pieces]
    if kind == "bpe":
        ours = brahmic_pua.SentencePieceProcessor(model_file=str(sample_models[kind]))
        shown = [ours.id_to_piece(i) for i, p in enumerate(pieces) if p.type != UNUSED]
        assert [t for t, p in zip(tokens, pieces, strict=True) if p.type != UNUSED] == shown
        assert not any(PRIVATE_USE.search(t) for t in tokens)
        assert flag("tokenizer.ggml.add_space_prefix")
    else:
        assert tokens == [p.piece for p in pieces]
        assert [float(s[0]) for s in array("tokenizer.ggml.scores")] == [p.score for p in pieces]
        assert not flag("tokenizer.ggml.add_space_prefix")
    model = bytes(fields["tokenizer.ggml.model"].parts[-1]).decode()
    assert model == {"bpe": "llama", "unigram": "t5"}[kind]


def served(data: bytes, kind: str) -> Any:
    """Stock on the model the GGUF holds: spelled in text for BPE (the file's own pieces, read
    back from it, are checked above)."""
    return stock.SentencePieceProcessor(
        model_proto=spell_in_text(data).data if kind == "bpe" else data
    )


@pytest.mark.parametrize("kind", ["bpe", "unigram"])
def test_the_pre_step_is_the_string_stock_segments(
    sample_models: dict[str, Path], kind: str
) -> None:
    """llama.cpp escapes each space to ▁ (for a BPE model's GGUF, after a space it adds before a
    non-empty text) and segments the result: that must be the string whose pieces stock writes
    (lines stock spells in byte pieces aside: their pieces are not text)."""
    data = sample_models[kind].read_bytes()
    route = llama_text(data)
    plain = served(data, kind)
    checked = 0
    for text in texts():
        pieces = plain.encode(text, out_type=str)
        if any(BYTE.fullmatch(p) for p in pieces):
            continue
        given = route.input(text)
        if kind == "bpe" and given:
            given = " " + given
        assert given.replace(" ", "\u2581") == "".join(pieces)
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("kind", ["bpe", "unigram"])
def test_the_post_step_gives_our_decode_of_our_ids(
    sample_models: dict[str, Path], kind: str
) -> None:
    """What llama.cpp's detokenizer writes: each piece with ▁ as a space, a byte piece as its
    byte, and (add_space_prefix: a BPE model's GGUF) the first space dropped."""
    data = sample_models[kind].read_bytes()
    route = llama_text(data)
    ours = brahmic_pua.SentencePieceProcessor(model_proto=data)
    plain = served(data, kind)
    for text in texts():
        ids = ours.encode(text)
        written = b""
        for i in ids:
            piece = plain.id_to_piece(i)
            byte = BYTE.fullmatch(piece)
            written += bytes([int(byte[1], 16)]) if byte else piece.replace("\u2581", " ").encode()
        if kind == "bpe" and written.startswith(b" "):
            written = written[1:]
        shown = written.decode("utf-8", errors="replace")
        assert route.output(shown) == ours.decode(ids), text


def test_export_without_the_gguf_package_is_one_line(
    runner: CliRunner,
    sample_models: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "gguf", None)  # import gguf raises ImportError
    out = tmp_path / "m.gguf"
    args = ["export", "--model", str(sample_models["bpe"]), "--to", "gguf", "--output", str(out)]
    result = runner.invoke(main, args)
    assert result.exit_code == 1
    assert "pip install gguf" in result.output and result.output.count("\n") == 1
    assert not out.exists()


def test_llama_text_round_trips_through_the_command_line(
    runner: CliRunner, sample_models: dict[str, Path], tmp_path: Path
) -> None:
    """llama.cpp's tokens of its input concatenate back to that input, so ``--to text`` of
    ``--to llama`` is what our decode gives: N(text), line by line."""
    model = str(sample_models["bpe"])
    lines = [t for t in texts() if "\t" not in t]
    given = runner.invoke(
        main, ["llama-text", "--model", model, "--to", "llama"], input="\n".join(lines) + "\n"
    )
    assert given.exit_code == 0, given.output
    back = runner.invoke(main, ["llama-text", "--model", model, "--to", "text"], input=given.output)
    assert back.exit_code == 0, back.output
    ours = brahmic_pua.SentencePieceProcessor(model_file=model)
    assert back.output.split("\n")[:-1] == [ours.decode(ours.encode(t)) for t in lines]


def test_the_steps_take_a_path_bytes_or_a_processor_and_nothing_else(
    sample_models: dict[str, Path],
) -> None:
    path = sample_models["bpe"]
    data = path.read_bytes()
    processor = brahmic_pua.SentencePieceProcessor(model_file=str(path))
    given: list[str | Path | bytes | brahmic_pua.SentencePieceProcessor] = [
        str(path),
        path,
        data,
        processor,
    ]
    assert len({llama_text(model).input("క్రాంతి వచ్చాడు") for model in given}) == 1
    with pytest.raises(TypeError, match=r"takes a model: a \.model path, its bytes or a"):
        llama_text(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="lone surrogate U\\+D800"):
        llama_text(data).input("\ud800")
    with pytest.raises(ValueError, match="lone surrogate U\\+D800"):
        llama_text(data).output("a\ud800")


def test_a_damaged_model_is_one_line(tmp_path: Path) -> None:
    from brahmic_pua.model.manifest import ModelFileError

    bad = tmp_path / "bad.model"
    bad.write_bytes(b"not a model")
    with pytest.raises(ModelFileError, match=r"bad\.model") as raised:
        llama_text(bad)
    assert "\n" not in str(raised.value)


def test_a_bpe_model_that_cannot_be_spelled_in_text_keeps_the_pre_step(
    runner: CliRunner, tmp_path: Path
) -> None:
    """An akshara BPE model: its GGUF holds the model's own pieces (codes), llama.cpp adds no
    space, and llama_input gives the string stock segments, as before text spelling."""
    prefix = tmp_path / "ak"
    train_model(
        sentence_iterator=iter(sample_held_out("te") * 3),
        model_prefix=str(prefix),
        vocab_size=900,
        model_type="bpe",
        policy="akshara",
    )
    model, out = Path(f"{prefix}.model"), tmp_path / "ak.gguf"
    args = ["export", "--model", str(model), "--to", "gguf", "--output", str(out)]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    fields = gguf.GGUFReader(str(out)).fields
    tokens = fields["tokenizer.ggml.tokens"]
    pieces = parse_model(model.read_bytes()).pieces
    assert [bytes(tokens.parts[i]).decode() for i in tokens.data] == [p.piece for p in pieces]
    assert not bool(fields["tokenizer.ggml.add_space_prefix"].parts[-1][0])
    plain = stock.SentencePieceProcessor(model_file=str(model))
    route = llama_text(model)
    checked = 0
    for text in sample_held_out("te"):
        written = plain.encode(text, out_type=str)
        if not any(BYTE.fullmatch(p) for p in written):  # byte pieces are not text
            assert route.input(text).replace(" ", "\u2581") == "".join(written)
            checked += 1
    assert checked > 30


@pytest.mark.parametrize("failure", [KeyboardInterrupt, OSError])
@pytest.mark.parametrize("step", ["write_header_to_file", "write_kv_data_to_file"])
def test_a_write_that_stops_midway_leaves_the_file_that_was_there(
    sample_models: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    failure: type[BaseException],
    step: str,
) -> None:
    """write_gguf is whole or not at all: a Ctrl-C (KeyboardInterrupt) or an error after gguf's
    writer has put bytes on disk (a header: the 24-byte file a SIGINT once left) keeps the
    GGUF that was at the path, byte for byte, and leaves no temporary file beside it."""
    data = sample_models["bpe"].read_bytes()
    target = tmp_path / "model.gguf"
    write_gguf(data, target)
    before = target.read_bytes()
    real = getattr(gguf.GGUFWriter, step)

    def stops(self: Any, *args: Any, **kwargs: Any) -> None:
        real(self, *args, **kwargs)
        for handle in self.fout or []:
            handle.flush()  # on disk, as when the signal comes late in a large write
        raise failure("stopped midway")

    monkeypatch.setattr(gguf.GGUFWriter, step, stops)
    with pytest.raises(failure, match="stopped midway"):
        write_gguf(data, target)
    assert target.read_bytes() == before
    assert [path.name for path in tmp_path.iterdir()] == ["model.gguf"]
    monkeypatch.undo()
    write_gguf(sample_models["unigram"].read_bytes(), target)  # and a write that ends replaces it
    assert target.read_bytes() != before


def test_write_gguf_writes_through_a_device(sample_models: dict[str, Path]) -> None:
    """A device is written through, not replaced by a rename (brahmic_pua.io.atomic)."""
    write_gguf(sample_models["bpe"].read_bytes(), "/dev/null")
    assert Path("/dev/null").is_char_device()


# -- what a hostile .model holds that stock loads ------------------------------------------------


def _edited(model: Path, edit: Any) -> bytes:
    """The model with ``edit`` applied to its ModelProto, as a hand-edited file holds it."""
    message = parse_model(model.read_bytes())
    edit(message)
    return bytes(message.SerializeToString())


def _first_byte_piece(model: Path) -> int:
    return next(i for i, p in enumerate(parse_model(model.read_bytes()).pieces) if p.type == 6)


@pytest.mark.parametrize("kind", ["bpe", "unigram"])
@pytest.mark.parametrize(
    ("name", "number"),
    [("bos_id", 10**9), ("eos_id", 10**9), ("unk_id", None), ("pad_id", 5), ("bos_id", -1)],
)
def test_the_special_ids_are_stocks_not_trainer_specs(
    sample_models: dict[str, Path], kind: str, name: str, number: int | None
) -> None:
    """trainer_spec's ids are numbers stock never reads once a model is trained (it finds
    ``<s>``, ``</s>``, ``<unk>``, ``<pad>`` by their pieces' types): the GGUF's special ids are
    stock's processor's on the same bytes, each inside the vocabulary, whatever trainer_spec
    says (a bos_id of 10⁹ went to llama.cpp as it was; an unk_id naming a byte piece (None
    here) made llama.cpp give that byte for a character no piece holds)."""
    model = sample_models[kind]
    number = _first_byte_piece(model) if number is None else number
    data = _edited(model, lambda m: setattr(m.trainer_spec, name, number))
    sp = stock.SentencePieceProcessor(model_proto=data)  # stock loads it: the oracle
    fields = gguf_fields(data)
    tokens = fields["tokenizer.ggml.tokens"]
    assert isinstance(tokens, list)
    for key, id in (("bos", sp.bos_id()), ("eos", sp.eos_id()), ("unknown", sp.unk_id())):
        written = fields.get(f"tokenizer.ggml.{key}_token_id")
        assert written == (id if id >= 0 else None), key
        assert written is None or (isinstance(written, int) and 0 <= written < len(tokens))
    assert fields.get("tokenizer.ggml.padding_token_id") == (
        sp.pad_id() if sp.pad_id() >= 0 else None
    )


@pytest.mark.parametrize("score", [float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize("model", ["bpe", "plain_bpe"])
def test_a_score_that_is_not_finite_is_refused_in_one_line(
    runner: CliRunner,
    sample_models: dict[str, Path],
    tmp_path: Path,
    score: float,
    model: str,
) -> None:
    """Stock loads a BPE model with a NaN or infinite score (it refuses one in a Unigram model);
    llama.cpp would be handed it, and a merge order with NaN has no order: one line naming the
    piece and the score, exit 1, nothing written."""
    if model == "plain_bpe":
        prefix = tmp_path / "plain"
        stock.SentencePieceTrainer.train(
            sentence_iterator=iter(sample_held_out("te") * 3),
            model_prefix=str(prefix),
            vocab_size=400,
            model_type="bpe",
            byte_fallback=True,
            minloglevel=2,
        )
        source = Path(f"{prefix}.model")
    else:
        source = sample_models["bpe"]
    at = len(parse_model(source.read_bytes()).pieces) - 1
    hostile = tmp_path / "hostile.model"
    hostile.write_bytes(_edited(source, lambda m: setattr(m.pieces[at], "score", score)))
    stock.SentencePieceProcessor(model_file=str(hostile))  # stock loads it
    out = tmp_path / "m.gguf"
    args = ["export", "--model", str(hostile), "--to", "gguf", "--output", str(out)]
    result = runner.invoke(main, args)
    assert result.exit_code == 1, result.output
    line = result.output.strip().splitlines()[-1]
    assert line.startswith(f"Error: piece {at} (") and f"has score {score}" in line, line
    assert "Traceback" not in result.output and not PRIVATE_USE.search(line)
    assert not out.exists()
    with pytest.raises(ValueError, match=f"piece {at} .* has score {score}"):
        write_gguf(hostile.read_bytes(), out)
    assert not out.exists()


def test_a_unigram_score_that_is_not_finite_is_refused_by_stocks_own_check(
    sample_models: dict[str, Path],
) -> None:
    data = _edited(sample_models["unigram"], lambda m: setattr(m.pieces[300], "score", math.nan))
    with pytest.raises(brahmic_pua.ModelFileError, match="score is NaN or Inf"):
        gguf_fields(data)


def test_a_piece_type_outside_the_enum_is_stocks_normal(sample_models: dict[str, Path]) -> None:
    """A type number spm's enum lacks is kept aside by protobuf (a proto2 enum), so the piece
    reads as NORMAL in stock's C++ and here: the GGUF says normal, as stock uses it."""
    message: Any = parse_model(sample_models["bpe"].read_bytes())
    piece = message.pieces[300]
    piece.ParseFromString(piece.SerializeToString() + bytes([0x18, 9]))  # type (field 3) = 9
    data = bytes(message.SerializeToString())
    assert bytes([0x18, 9]) in data  # the unknown value travels with the file
    sp = stock.SentencePieceProcessor(model_proto=data)
    assert not any(getattr(sp, f"is_{kind}")(300) for kind in ("control", "unknown", "byte"))
    types = gguf_fields(data)["tokenizer.ggml.token_type"]
    assert isinstance(types, list) and types[300] == LLAMA_TYPES[1]
