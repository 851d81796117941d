"""The ``brahmic-pua`` command line: a thin shell, clear one-line errors, no partial files."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import CORPORA

from brahmic_pua import SCRIPT_NAMES, segment
from brahmic_pua.cli.main import main


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def test_segment_reads_stdin(runner: CliRunner) -> None:
    result = runner.invoke(main, ["segment"], input="క్రాంతి\nक्षेत्रमा\n")
    assert result.exit_code == 0
    assert result.output == "క్|రాం|తి\nक्|षे|त्|र|मा\n"


def test_segment_json_and_policy(runner: CliRunner) -> None:
    result = runner.invoke(main, ["segment", "--policy", "syllable", "--json"], input="घाउ लागेको")
    assert result.exit_code == 0
    assert json.loads(result.output) == segment("घाउ लागेको", "syllable")


def test_codec_build_encode_decode(runner: CliRunner, tmp_path: Path) -> None:
    codec = tmp_path / "te.codec.json"
    corpus = str(CORPORA / "te.train.txt")
    result = runner.invoke(main, ["codec", "build", "--input", corpus, "--output", str(codec)])
    assert result.exit_code == 0, result.output
    text = "క్రాంతి ▁ \ue000 नेपाल\n"
    encoded = runner.invoke(main, ["codec", "encode", "--codec", str(codec)], input=text)
    assert encoded.exit_code == 0
    assert "క" not in encoded.output and "\u2581" not in encoded.output
    decoded = runner.invoke(main, ["codec", "decode", "--codec", str(codec)], input=encoded.output)
    assert decoded.output == text


def test_output_file_is_written_whole(runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    result = runner.invoke(main, ["segment", "--output", str(target)], input="కి\nకా")
    assert result.exit_code == 0
    assert target.read_text(encoding="utf-8") == "కి\nకా\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_bad_codec_file_is_one_line_and_nonzero(runner: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "brahmic_pua.co', encoding="utf-8")
    target = tmp_path / "out.txt"
    result = runner.invoke(
        main, ["codec", "encode", "--codec", str(bad), "--output", str(target)], input="x"
    )
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert "corrupt or truncated" in result.output
    assert not target.exists()


def test_failed_build_leaves_no_file(runner: CliRunner, tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("క్రాంతి\n", encoding="utf-8")
    target = tmp_path / "codec.json"
    args = ["codec", "build", "--input", str(corpus), "--output", str(target), "--scripts", "xx"]
    result = runner.invoke(main, args)
    assert result.exit_code == 1
    assert "unknown script(s) xx" in result.output and "Traceback" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]


def test_scripts_lists_the_tables(runner: CliRunner) -> None:
    result = runner.invoke(main, ["scripts"])
    assert result.output.split() == list(SCRIPT_NAMES)


def test_console_script_is_installed() -> None:
    executable = shutil.which("brahmic-pua")
    assert executable, "pip install . should put brahmic-pua on PATH"
    done = subprocess.run(
        [executable, "segment"], input="క్రాంతి\n", capture_output=True, text=True, check=True
    )
    assert done.stdout == "క్|రాం|తి\n"


def test_train_encode_decode_like_spm(runner: CliRunner, tmp_path: Path) -> None:
    """The issue's acceptance commands: spm_train spellings, spm_encode/spm_decode style."""
    prefix = tmp_path / "te"
    corpus = str(CORPORA / "te.train.txt")
    args = ["train", "--input", corpus, "--model_prefix", str(prefix), "--vocab_size", "3000",
            "--model_type", "bpe", "--split_by_whitespace=true", "--num_threads", "1"]  # fmt: skip
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    model = f"{prefix}.model"
    pieces = runner.invoke(main, ["encode", "--model", model, "--output_format", "piece"],
                           input="క్రాంతి\n")  # fmt: skip
    assert pieces.exit_code == 0
    assert pieces.output.replace(" ", "").replace("▁", "") == "క్రాంతి\n"
    ids = runner.invoke(main, ["encode", "--model", model, "--output_format", "id"],
                        input="క్రాంతి నేపాల్\n")  # fmt: skip
    back = runner.invoke(main, ["decode", "--model", model, "--input_format", "id"],
                         input=ids.output)  # fmt: skip
    assert back.output == "క్రాంతి నేపాల్\n"
    back = runner.invoke(main, ["decode", "--model", model], input=pieces.output)
    assert back.output == "క్రాంతి\n"


def test_train_errors_are_one_line(runner: CliRunner, tmp_path: Path) -> None:
    prefix = tmp_path / "m"
    args = ["train", "--input", str(CORPORA / "te.train.txt"), "--model_prefix", str(prefix),
            "--vocab_size", "100"]  # fmt: skip
    result = runner.invoke(main, args)
    assert result.exit_code == 1
    assert "vocab_size=100 is too small" in result.output and "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []
    result = runner.invoke(main, ["train", "--input", "missing.txt", "--model_prefix", "x"])
    assert result.exit_code == 1 and "not found" in result.output


def test_encode_rejects_a_non_model(runner: CliRunner, tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.model"
    bogus.write_bytes(b"\xff\xff\xff not a model")
    result = runner.invoke(main, ["encode", "--model", str(bogus)], input="x\n")
    assert result.exit_code == 1 and "not a SentencePiece model" in result.output
    assert result.output.count("\n") == 1


def test_demo(runner: CliRunner) -> None:
    result = runner.invoke(main, ["demo", "--vocab_size", "1000"])
    assert result.exit_code == 0, result.output
    assert "brahmic_pua:" in result.output and "plain spm:" in result.output
    assert "orphan-mark tokens per 1000: brahmic_pua 0.0" in result.output


def test_input_that_is_not_utf8(runner: CliRunner, tmp_path: Path) -> None:
    source = tmp_path / "latin1.txt"
    source.write_bytes("caf\u00e9\n".encode("latin-1"))
    target = tmp_path / "out.txt"
    args = ["segment", "--input", str(source), "--output", str(target)]
    result = runner.invoke(main, args)
    assert result.exit_code == 1
    assert "input is not UTF-8" in result.output and "iconv" in result.output
    assert result.output.count("\n") == 1 and not target.exists()
