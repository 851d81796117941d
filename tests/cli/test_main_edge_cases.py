"""Small input edge cases, each a one-line error or the right value where it was neither:

- ``filter --filters all`` said "unknown filter 'all'" (the trainer took it, the README and
  examples/nepali/run.py tell users to run it);
- ``decode --input_format id`` and ``repair --ids`` took ``1_000`` as 1000 (Python's ``int``);
- a ``.model`` whose piece is not UTF-8 gave a ``UnicodeDecodeError`` that did not name the file;
- a folding table that is not UTF-8 gave an error that did not name the file.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
import sentencepiece
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

import brahmic_pua as spm
from brahmic_pua.cli.common import parse_ids
from brahmic_pua.cli.main import main
from brahmic_pua.model.manifest import ModelFileError
from brahmic_pua.model.model_proto import parse_model
from brahmic_pua.nepbpe.filters import FILTERS, check_filters
from brahmic_pua.normalize.folding import (
    MAX_FOLDING_RULES,
    MAX_FOLDING_TEXT,
    FoldingTable,
    read_table,
)

TE = str(resources.files("brahmic_pua.data").joinpath("te.sample.txt"))
HI = str(resources.files("brahmic_pua.data").joinpath("hi.sample.txt"))


@pytest.fixture(scope="module")
def nepali_and_plain_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("small")
    spm.SentencePieceTrainer.train(
        input=HI,
        model_prefix=str(folder / "ne"),
        vocab_size=1000,
        progress=False,
        normalization="nepali-lm",
    )
    sentencepiece.SentencePieceTrainer.train(
        input=TE, model_prefix=str(folder / "plain"), vocab_size=600, minloglevel=2
    )
    return {"ne": folder / "ne.model", "plain": folder / "plain.model"}


def test_filters_all_is_every_filter_everywhere(
    nepali_and_plain_models: dict[str, Path], tmp_path: Path
) -> None:
    assert check_filters(["all"]) == FILTERS
    with pytest.raises(ValueError, match="stands alone"):
        check_filters(["all", "theta"])
    out = tmp_path / "f.model"
    args = [
        "filter",
        "--model",
        str(nepali_and_plain_models["ne"]),
        "--output",
        str(out),
        "--filters",
        "all",
    ]
    result = CliRunner().invoke(main, [*args, "--nepali-seeds", "--corpus", HI])
    assert result.exit_code == 0, result.output
    assert [line.split(":")[0] for line in result.output.splitlines()] == list(FILTERS)


@pytest.mark.parametrize("text", ["1_000", "+5", "-1", "٣", "1 2_0", "0x10", "1.0", "1e3"])
def test_ids_are_ascii_digits_only(text: str, nepali_and_plain_models: dict[str, Path]) -> None:
    with pytest.raises(ValueError, match="not a list of ids"):
        parse_ids(text)
    model = str(nepali_and_plain_models["plain"])
    result = CliRunner().invoke(main, ["decode", "--model", model, "--input_format", "id"], text)
    assert result.exit_code == 1 and "not a list of ids" in result.output
    repair = CliRunner().invoke(main, ["repair", "--model", model, "--ids", "-"], text)
    assert repair.exit_code != 0 and "not a list of ids" in repair.output


@given(st.lists(st.integers(0, 10**6), max_size=20), st.sampled_from([" ", "\t", "  ", " \t "]))
def test_ids_round_trip(ids: list[int], gap: str) -> None:
    assert parse_ids(gap.join(map(str, ids)) + "\r\n") == ids


def _damaged(model: Path, tmp_path: Path) -> Path:
    """The model with one piece's first byte made 0xFF (not UTF-8 anywhere)."""
    data = model.read_bytes()
    piece = parse_model(data).pieces[100].piece.encode()
    at = data.index(piece)
    bad = tmp_path / f"bad-{model.name}"
    bad.write_bytes(data[:at] + b"\xff" + data[at + 1 :])
    return bad


@pytest.mark.parametrize("kind", ["ne", "plain"])
def test_a_piece_that_is_not_utf8_names_the_file(
    kind: str, nepali_and_plain_models: dict[str, Path], tmp_path: Path
) -> None:
    bad = _damaged(nepali_and_plain_models[kind], tmp_path)
    with pytest.raises(ModelFileError, match=rf"^{bad}: piece 100 is not UTF-8"):
        spm.SentencePieceProcessor(model_file=str(bad))
    for command in (["vocab", "--model", str(bad)], ["audit", "--model", str(bad)]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 1, result.output
        assert result.output.startswith("Error: ") and str(bad) in result.output
        assert len(result.output.splitlines()) == 1 and "Traceback" not in result.output


def test_a_folding_table_that_is_not_utf8_names_the_file(tmp_path: Path) -> None:
    table = tmp_path / "fold.tsv"
    table.write_bytes("सँग\tसंग\n".encode() + b"\xff\tx\n")
    with pytest.raises(ValueError, match=rf"^{table} is not UTF-8 at line 2"):
        read_table(str(table), "lm")


def test_folding_tables_are_bounded_where_they_are_made(tmp_path: Path) -> None:
    """The bounds a model's manifest is held to on load also hold where a table is made, so
    the trainer cannot write a model that will not load."""
    many = tuple((f"x{i:03d}", "y") for i in range(MAX_FOLDING_RULES + 1))
    with pytest.raises(ValueError, match=f"at most {MAX_FOLDING_RULES}"):
        FoldingTable(many)
    with pytest.raises(ValueError, match=f"at most {MAX_FOLDING_TEXT}"):
        FoldingTable((("x" * (MAX_FOLDING_TEXT + 1), "y"),))
    table = tmp_path / "many.tsv"
    table.write_text("".join(f"{p}\t{r}\n" for p, r in many), encoding="utf-8")
    with pytest.raises(ValueError, match=rf"^{table}: .*at most {MAX_FOLDING_RULES}"):
        read_table(str(table), "lm")
