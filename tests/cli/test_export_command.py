"""``brahmic-pua export --to spm``: the BPE model spelled in text, written whole or not at all.

The oracle is our processor on the model given (its ids and decoded text); stock sentencepiece
runs the file the command wrote. The GGUF target is tested in tests/integrations/test_gguf.py.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
import sentencepiece as stock
from click.testing import CliRunner
from conftest import sample_held_out

import brahmic_pua
from brahmic_pua.cli.main import main


def export(runner: CliRunner, model: Path | str, output: Path) -> tuple[int, str]:
    args = ["export", "--model", str(model), "--to", "spm", "--output", str(output)]
    result = runner.invoke(main, args)
    return result.exit_code, result.output


def test_stock_gives_our_ids_on_the_exported_model(
    runner: CliRunner, sample_models: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "te.text.model"
    code, output = export(runner, sample_models["bpe"], out)
    assert code == 0, output
    assert output.count("\n") == 1 and "clusters spelled in text" in output
    ours = brahmic_pua.SentencePieceProcessor(model_file=str(sample_models["bpe"]))
    theirs = stock.SentencePieceProcessor(model_file=str(out))
    texts = sample_held_out("te") + [unicodedata.normalize("NFD", t) for t in sample_held_out("te")]
    assert theirs.encode(texts) == ours.encode(texts)
    assert theirs.decode(theirs.encode(texts)) == ours.decode(ours.encode(texts))
    # our own processor loads it as the plain model it is, with the same ids
    assert brahmic_pua.SentencePieceProcessor(model_file=str(out)).encode(texts) == ours.encode(
        texts
    )


def test_a_unigram_model_is_refused_in_one_line_and_nothing_is_written(
    runner: CliRunner, sample_models: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "u.model"
    code, output = export(runner, sample_models["unigram"], out)
    assert code == 1 and output.count("\n") == 1
    assert "only a BPE model can be spelled in text" in output
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_a_damaged_model_is_refused_in_one_line(runner: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "bad.model"
    bad.write_bytes(b"\x0a\x05hello" * 10)
    out = tmp_path / "x.model"
    code, output = export(runner, bad, out)
    assert code == 1 and output.count("\n") == 1 and str(bad) in output
    assert not out.exists()


@pytest.mark.parametrize("target", ["spm", "tokenizer.json"])
def test_a_plain_model_is_refused_in_one_line_for_each_text_form(
    runner: CliRunner, plain_hindi_model: str, tmp_path: Path, target: str
) -> None:
    out = tmp_path / "out"
    args = ["export", "--model", plain_hindi_model, "--to", target, "--output", str(out)]
    result = runner.invoke(main, args)
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert "plain SentencePiece model" in result.output and not out.exists()
