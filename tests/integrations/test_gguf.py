"""llama.cpp's side of a model (integrations/gguf.py): the GGUF holds the model's vocabulary as
it is, and the pre- and post-steps give our ids and our text.

The oracles here are stock sentencepiece (the pieces it segments, as strings) and llama.cpp's
documented detokenizer (a piece's ▁ written as a space, a byte piece as its byte);
tests/peers/test_runtimes.py runs llama.cpp itself.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as stock
from click.testing import CliRunner
from conftest import NEPALI, require_extra, sample_held_out

import brahmic_pua
from brahmic_pua.cli.main import main
from brahmic_pua.integrations.gguf import llama_text
from brahmic_pua.model.model_proto import parse_model

require_extra("gguf", "gguf", "the GGUF export")
import gguf  # noqa: E402  (after the check: a skip, not an ImportError, without the extra)

#: llama.h's llama_token_type, written out here (not imported from the code under test).
LLAMA_TYPES = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6}
BYTE = re.compile(r"<0x([0-9A-F]{2})>")


def texts() -> list[str]:
    return sample_held_out("te") + sample_held_out("hi") + NEPALI + ["", " ", "  క  ", "a\tb"]


@pytest.mark.parametrize("kind", ["bpe", "unigram"])
def test_export_writes_the_vocabulary_as_the_model_holds_it(
    runner: CliRunner, sample_models: dict[str, Path], tmp_path: Path, kind: str
) -> None:
    out = tmp_path / "m.gguf"
    result = runner.invoke(
        main, ["export", "--model", str(sample_models[kind]), "--to", "gguf", "--output", str(out)]
    )
    assert result.exit_code == 0, result.output
    fields = gguf.GGUFReader(str(out)).fields

    def array(name: str) -> list[Any]:
        field = fields[name]
        return [field.parts[i] for i in field.data]

    pieces = parse_model(sample_models[kind].read_bytes()).pieces
    assert [bytes(t).decode() for t in array("tokenizer.ggml.tokens")] == [p.piece for p in pieces]
    assert [float(s[0]) for s in array("tokenizer.ggml.scores")] == [p.score for p in pieces]
    types = [int(t[0]) for t in array("tokenizer.ggml.token_type")]
    assert types == [LLAMA_TYPES[p.type] for p in pieces]
    model = bytes(fields["tokenizer.ggml.model"].parts[-1]).decode()
    assert model == {"bpe": "llama", "unigram": "t5"}[kind]


def test_the_pre_step_is_the_string_stock_segments(sample_models: dict[str, Path]) -> None:
    """llama.cpp escapes each space to ▁ and segments the result: that must be the string whose
    pieces stock writes (lines stock spells in byte pieces aside: their pieces are not text)."""
    data = sample_models["bpe"].read_bytes()
    route = llama_text(data)
    plain = stock.SentencePieceProcessor(model_proto=data)
    checked = 0
    for text in texts():
        pieces = plain.encode(text, out_type=str)
        if any(BYTE.fullmatch(p) for p in pieces):
            continue
        assert route.input(text).replace(" ", "\u2581") == "".join(pieces)
        checked += 1
    assert checked > 100


def test_the_post_step_gives_our_decode_of_our_ids(sample_models: dict[str, Path]) -> None:
    data = sample_models["bpe"].read_bytes()
    route = llama_text(data)
    ours = brahmic_pua.SentencePieceProcessor(model_proto=data)
    plain = stock.SentencePieceProcessor(model_proto=data)
    for text in texts():
        ids = ours.encode(text)
        written = b""  # what llama.cpp's detokenizer writes for these ids
        for i in ids:
            piece = plain.id_to_piece(i)
            byte = BYTE.fullmatch(piece)
            written += bytes([int(byte[1], 16)]) if byte else piece.replace("\u2581", " ").encode()
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


def test_export_to_tokenizer_json_is_refused_in_one_line(
    runner: CliRunner, sample_models: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "tokenizer.json"
    args = ["export", "--model", str(sample_models["bpe"]), "--to", "tokenizer.json"]
    result = runner.invoke(main, [*args, "--output", str(out)])
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert "BrahmicPuaTokenizer" in result.output and not out.exists()
