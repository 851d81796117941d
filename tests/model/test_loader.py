"""The one model loader (brahmic_pua.model.loader): each kind of bad model is its own subclass of
ModelFileError, and every command that loads a model says the same line for the same file."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import brahmic_pua
from brahmic_pua.cli.main import main
from brahmic_pua.model.loader import load_model, load_model_file
from brahmic_pua.model.manifest import (
    ManifestError,
    ModelFileError,
    ModelReadError,
    NotAModelError,
)
from brahmic_pua.model.model_proto import MANIFEST, model_pb2, parse_model


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A trained model, its .vocab, a corpus, and a copy of the model with a damaged manifest."""
    where = tmp_path_factory.mktemp("loader")
    sample = resources.files("brahmic_pua.data").joinpath("te.sample.txt")
    brahmic_pua.SentencePieceTrainer.train(
        input=str(sample), model_prefix=str(where / "te"), vocab_size=1000, progress=False
    )
    (where / "corpus.txt").write_text("తెలుగు\n", encoding="utf-8")
    message: Any = parse_model((where / "te.model").read_bytes())
    body = json.loads(bytes(message.Extensions[MANIFEST]))
    body["fingerprint"] = "sha256:0"
    message.ClearExtension(MANIFEST)
    field = model_pb2.ModelProto()
    field.Extensions[MANIFEST] = json.dumps(body).encode()
    damaged = bytes(message.SerializeToString()) + bytes(field.SerializeToString())
    (where / "damaged.model").write_bytes(damaged)
    return where


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("missing.model", ModelReadError),
        ("te.vocab", NotAModelError),
        ("corpus.txt", NotAModelError),
        ("damaged.model", ManifestError),
    ],
)
def test_each_failure_is_its_own_type_naming_the_file(
    folder: Path, name: str, kind: type[ModelFileError]
) -> None:
    path = folder / name
    with pytest.raises(kind) as raised:
        load_model_file(path)
    assert str(path) in str(raised.value) and "\n" not in str(raised.value)
    others = {ModelReadError, NotAModelError, ManifestError} - {kind}
    assert not isinstance(raised.value, tuple(others))


def test_bytes_are_named_by_their_source(folder: Path) -> None:
    data = (folder / "te.vocab").read_bytes()
    with pytest.raises(NotAModelError, match=r"^model_proto: not a SentencePiece model"):
        load_model(data)
    with pytest.raises(NotAModelError, match=r"^my\.vocab: not a SentencePiece model"):
        load_model(data, "my.vocab")


def test_a_model_without_pieces_is_refused_as_stock_refuses_it() -> None:
    with pytest.raises(NotAModelError, match=r"^model_proto: not a SentencePiece model \("):
        load_model(model_pb2.ModelProto().SerializeToString())


@pytest.mark.parametrize("name", ["te.vocab", "damaged.model"])
def test_every_command_says_the_same_line_for_the_same_model(folder: Path, name: str) -> None:
    """encode, encode-corpus, filter and audit load through the one loader: one line each,
    the same words about the model."""
    path = str(folder / name)
    corpus = str(folder / "corpus.txt")
    runner = CliRunner()
    commands = [
        ["encode", "--model", path, corpus],
        ["encode-corpus", "--model", path, "--output", str(folder / f"out-{name}"), corpus],
        [
            "filter",
            "--model",
            path,
            "--output",
            str(folder / f"f-{name}.model"),
            "--filters",
            "mark-start",
        ],
    ]
    said = set()
    for command in commands:
        result = runner.invoke(main, command)
        assert result.exit_code == 1, (command, result.output)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), (command, result.output)
        said.add(lines[0])
    assert len(said) == 1, said
