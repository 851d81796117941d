"""Untrusted ids, pieces, model paths and input paths: each is one line, never a traceback.

* An id out of range, of any size, is one IndexError naming it (stock raises IndexError for
  an id that fits its C++ int and TypeError beyond, the oracle for "out of range" here), and
  exit 1 with one line in ``decode``.
* A ``<U+XXXX>`` piece that names no character is one line naming the piece.
* A model path is checked before it is read whole: its size, and its first bytes. A device
  that never ends, a file larger than protobuf parses and a large text file are refused
  under a memory limit the whole file would exceed (a loader that reads first would run out).
* A pipe given as a training input is named as one, not "not found".
"""

from __future__ import annotations

import importlib
import os
import resource
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as stock
from click.testing import CliRunner
from conftest import examples, through_fifo
from hypothesis import given, settings
from hypothesis import strategies as st

import brahmic_pua
from brahmic_pua.cli.main import main
from brahmic_pua.io.bounded import HEAD_BYTES
from brahmic_pua.model.manifest import ModelFileError
from brahmic_pua.model.model_file import MAX_MODEL_BYTES, read_model_file
from brahmic_pua.model.model_proto import model_pb2

#: The address space a CLI run gets where a file must not be read whole: about twice what a
#: run needs (python, sentencepiece, protobuf), far below the files tried.
MEMORY_LIMIT = 1_200_000_000
#: protobuf's base error class, whatever the implementation (protobuf ships without types).
PROTOBUF_ERROR: Any = importlib.import_module("google.protobuf.message").Error
ID_METHODS = ("decode", "id_to_piece", "get_score", "is_unknown", "is_control", "is_unused")


@pytest.fixture(scope="module")
def model_paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A brahmic_pua model and a plain spm model on the Telugu sample (about two seconds)."""
    sample = str(resources.files("brahmic_pua.data").joinpath("te.sample.txt"))
    work = tmp_path_factory.mktemp("inputs")
    brahmic_pua.SentencePieceTrainer.train(
        input=sample, model_prefix=str(work / "te"), vocab_size=600, progress=False
    )
    stock.SentencePieceTrainer.train(
        input=sample, model_prefix=str(work / "plain"), vocab_size=400, minloglevel=2
    )
    return {"brahmic": str(work / "te.model"), "plain": str(work / "plain.model")}


def _one_line(result: Any) -> str:
    output: str = result.output
    assert result.exit_code == 1, output
    assert "Traceback" not in output and len(output.strip().splitlines()) == 1, output
    return output


def _stock_refuses(sp: Any, method: str, id: int) -> bool:
    """Whether stock sentencepiece refuses ``id`` as it refuses an id (the oracle)."""
    try:
        getattr(sp, method)([5, id] if method == "decode" else id)
    except (IndexError, TypeError):
        return True
    return False


@settings(max_examples=examples(60), deadline=None)
@given(
    id=st.one_of(
        st.integers(max_value=-1),
        st.integers(min_value=600),
        st.sampled_from([2**31 - 1, 2**31, -(2**31) - 1, 2**63, -(2**63) - 1, 2**64]),
    ),
    method=st.sampled_from(ID_METHODS),
    kind=st.sampled_from(["brahmic", "plain"]),
    batch=st.booleans(),
)
def test_an_id_out_of_range_is_one_index_error_naming_it(
    model_paths: dict[str, str], id: int, method: str, kind: str, batch: bool
) -> None:
    path = model_paths[kind]
    oracle = stock.SentencePieceProcessor(model_file=path)
    if not _stock_refuses(oracle, method, id):  # 600..: the plain model is smaller
        return
    sp = brahmic_pua.SentencePieceProcessor(model_file=path)
    ids: Any = [5, id] if method == "decode" else id
    with pytest.raises(IndexError) as raised:
        getattr(sp, method)([ids] if batch else ids)
    message = str(raised.value)
    assert f"piece id {id} is out of range" in message and "\n" not in message


def test_a_wrong_type_among_ids_stays_stock_type_error(model_paths: dict[str, str]) -> None:
    sp = brahmic_pua.SentencePieceProcessor(model_file=model_paths["brahmic"])
    wrong: Any = [5, 1.5]
    with pytest.raises(TypeError):
        sp.decode(wrong)


@pytest.mark.parametrize("line", ["5 2147483648", "5 9223372036854775808", "7 99999999999999"])
@pytest.mark.parametrize("kind", ["brahmic", "plain"])
def test_decode_of_a_huge_id_is_one_cli_line(
    model_paths: dict[str, str], line: str, kind: str
) -> None:
    result = CliRunner().invoke(
        main, ["decode", "--model", model_paths[kind], "--input_format", "id"], input=f"{line}\n"
    )
    assert f"piece id {line.split()[1]} is out of range" in _one_line(result)


@pytest.mark.parametrize("piece", ["<U+110000>", "<U+FFFFFF>", "<U+D800>", "a<U+DFFF>"])
def test_a_marked_piece_that_is_no_character_is_one_line(
    model_paths: dict[str, str], piece: str
) -> None:
    result = CliRunner().invoke(
        main,
        ["decode", "--model", model_paths["brahmic"], "--input_format", "piece"],
        input=f"x {piece}\n",
    )
    output = _one_line(result)
    assert repr(piece) in output and "U+0000..U+10FFFF" in output


def test_a_marked_character_still_decodes(model_paths: dict[str, str]) -> None:
    sp = brahmic_pua.SentencePieceProcessor(model_file=model_paths["brahmic"])
    assert sp.decode(["<U+10FFFF>"]) == "\U0010ffff"


def _cli_under_memory_limit(model: str) -> subprocess.CompletedProcess[str]:
    """``encode --model model`` in a process limited to :data:`MEMORY_LIMIT` bytes."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    return subprocess.run(
        [sys.executable, "-m", "brahmic_pua.cli.main", "encode", "--model", model],
        input="క\n",
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
    )


def _sparse(path: Path, head: bytes, size: int) -> str:
    """A file of ``size`` bytes starting with ``head``, the rest a hole (no disk used)."""
    with open(path, "wb") as file:
        file.write(head)
        file.truncate(size)
    return str(path)


def _refused(result: subprocess.CompletedProcess[str], model: str) -> str:
    assert result.returncode == 1, result.stderr[-2000:]
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith(f"Error: {model}: not a SentencePiece model")
    return result.stderr


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_device_that_never_ends_is_refused_from_its_first_bytes() -> None:
    assert "byte 0 is 0x00" in _refused(_cli_under_memory_limit("/dev/zero"), "/dev/zero")


def test_a_large_text_file_is_named_without_reading_it(tmp_path: Path) -> None:
    text = _sparse(tmp_path / "corpus.txt", "తెలుగు భాష\n".encode() * 1000, 1_500_000_000)
    assert "a text file, not a .model file" in _refused(_cli_under_memory_limit(text), text)


def test_a_file_larger_than_protobuf_parses_is_refused_by_its_size(
    model_paths: dict[str, str], tmp_path: Path
) -> None:
    head = Path(model_paths["brahmic"]).read_bytes()
    big = _sparse(tmp_path / "big.model", head, MAX_MODEL_BYTES + 1)
    shown = _refused(_cli_under_memory_limit(big), big)
    assert f"{MAX_MODEL_BYTES + 1:,} bytes" in shown and f"{MAX_MODEL_BYTES:,}" in shown


def test_a_model_through_a_pipe_loads(model_paths: dict[str, str], tmp_path: Path) -> None:
    data = Path(model_paths["brahmic"]).read_bytes()
    fifo = tmp_path / "model.fifo"
    sp = through_fifo(fifo, [data], lambda name: brahmic_pua.SentencePieceProcessor(str(name)))
    assert sp.encode("తెలుగు") == brahmic_pua.SentencePieceProcessor(
        model_file=model_paths["brahmic"]
    ).encode("తెలుగు")


def test_a_model_through_a_pipe_is_read_to_the_bound_and_refused_past_it(
    model_paths: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pipe has no size to refuse unread: it is read to the bound and refused one byte past
    it, in the model reader's words, naming the bound."""
    data = Path(model_paths["brahmic"]).read_bytes()
    assert len(data) > 2 * HEAD_BYTES  # the head passes its check; the bound stops the rest
    monkeypatch.setattr("brahmic_pua.model.model_file.MAX_MODEL_BYTES", len(data))
    (tmp_path / "fits").mkdir()
    assert through_fifo(tmp_path / "fits" / "model.fifo", [data], read_model_file) == data
    bound = len(data) // 2
    monkeypatch.setattr("brahmic_pua.model.model_file.MAX_MODEL_BYTES", bound)
    with pytest.raises(ModelFileError) as refused:
        through_fifo(tmp_path / "model.fifo", [data], read_model_file)
    assert str(refused.value) == (
        f"{tmp_path / 'model.fifo'}: not a SentencePiece model: over {bound:,} bytes and not at "
        f"its end, more than the {bound:,} bytes protobuf parses at most; give the .model file "
        "that training wrote"
    )


@settings(max_examples=examples(300), deadline=None)
@given(data=st.binary(max_size=64))
def test_first_bytes_refused_are_bytes_protobuf_refuses(tmp_path_factory: Any, data: bytes) -> None:
    """The check of the first bytes refuses nothing protobuf would parse (bar text, which
    is named as text); protobuf is the oracle."""
    path = tmp_path_factory.mktemp("bytes") / "m.model"
    path.write_bytes(data)
    try:
        read = read_model_file(path)
    except ModelFileError as error:
        if "a text file" in str(error) or "a JSON file" in str(error):
            return
        with pytest.raises(PROTOBUF_ERROR):
            model_pb2.ModelProto().ParseFromString(data)
    else:
        assert read == data


def test_a_pipe_as_training_input_is_named_as_one(tmp_path: Path) -> None:
    fifo = tmp_path / "lines.fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"is a pipe or a device, not a file") as raised:
        brahmic_pua.SentencePieceTrainer.train(
            input=str(fifo), model_prefix=str(tmp_path / "m"), vocab_size=10
        )
    assert "not found" not in str(raised.value)


def _outcome(call: Any, sp: Any) -> object:
    """What ``call(sp)`` gives: its value, or the type of what it raises."""
    try:
        return call(sp)
    except Exception as error:  # the comparison is of types: ours names the id, stock does not
        return type(error)


@pytest.mark.parametrize("edit", ["retyped", "removed"])
def test_a_model_without_an_unknown_piece_behaves_as_stock(
    no_unknown_models: dict[str, Path], edit: str
) -> None:
    """A model with no unknown piece (stock loads it, ``unk_id() == -1``): every call that
    meets the missing piece gives what stock's processor gives on the same file, the value or
    the type of its error. Pieces are compared where both processors see the same ones: text
    outside the model's scripts, which byte fallback spells in both."""
    model = str(no_unknown_models[edit])
    ours, theirs = (
        brahmic_pua.SentencePieceProcessor(model_file=model),
        stock.SentencePieceProcessor(model_file=model),
    )
    size = theirs.get_piece_size()
    calls: dict[str, Any] = {
        "unk_id": lambda sp: sp.unk_id(),
        "piece_to_id": lambda sp: sp.piece_to_id("xyzzy"),
        "piece_to_id of a list": lambda sp: sp.piece_to_id(["xyzzy", "<s>"]),
        "getitem": lambda sp: sp["xyzzy"],
        "encode": lambda sp: sp.encode("☃ x 漢字"),
        "encode as pieces": lambda sp: sp.encode("☃ x", out_type=str),
        "emit_unk_piece": lambda sp: sp.encode("☃ x", out_type=str, emit_unk_piece=True),
        "emit_unk_piece as bytes": lambda sp: sp.encode(["x"], out_type=bytes, emit_unk_piece=True),
        "emit_unk_piece on ids": lambda sp: sp.encode("☃ x", emit_unk_piece=True),
        "nbest emit_unk_piece": lambda sp: sp.nbest_encode(
            "x", 2, out_type=str, emit_unk_piece=True
        ),
        "sampled": lambda sp: sp.encode("☃", out_type=str, enable_sampling=True, nbest_size=-1),
        "decode of unknown pieces": lambda sp: sp.decode(["xyzzy", "▁x", "<unk>"]),
        "decode of ids": lambda sp: sp.decode(theirs.encode("☃ x")),
        "decode past the end": lambda sp: sp.decode([5, size]),
        "decode of -1": lambda sp: sp.decode([-1]),
        "id_to_piece of -1": lambda sp: sp.id_to_piece(-1),
        "is_unknown": lambda sp: [i for i in range(size) if sp.is_unknown(i)],
    }
    for name, call in calls.items():
        assert _outcome(call, ours) == _outcome(call, theirs), name
    emitting = brahmic_pua.SentencePieceProcessor(model_file=model, emit_unk_piece=True)
    assert _outcome(lambda sp: sp.encode("x", out_type=str), emitting) is ValueError
