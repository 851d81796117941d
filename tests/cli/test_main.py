"""The ``brahmic-pua`` command line: a thin shell, clear one-line errors, no partial files."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import TE_SAMPLE, default_sigint, require_extra, sample

from brahmic_pua import POLICIES, SCRIPT_NAMES, SentencePieceProcessor, segment
from brahmic_pua.cli import main as cli_main
from brahmic_pua.cli.main import main
from brahmic_pua.io.npy import read_ids
from brahmic_pua.trainer import train_model


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
    corpus = TE_SAMPLE
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
    corpus = TE_SAMPLE
    args = [
        "train",
        "--input",
        corpus,
        "--model_prefix",
        str(prefix),
        "--vocab_size",
        "3000",
        "--model_type",
        "bpe",
        "--split_by_whitespace=true",
        "--num_threads",
        "1",
    ]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    model = f"{prefix}.model"
    pieces = runner.invoke(
        main, ["encode", "--model", model, "--output_format", "piece"], input="క్రాంతి\n"
    )
    assert pieces.exit_code == 0
    assert pieces.output.replace(" ", "").replace("▁", "") == "క్రాంతి\n"
    ids = runner.invoke(
        main, ["encode", "--model", model, "--output_format", "id"], input="క్రాంతి నేపాల్\n"
    )
    back = runner.invoke(
        main, ["decode", "--model", model, "--input_format", "id"], input=ids.output
    )
    assert back.output == "క్రాంతి నేపాల్\n"
    back = runner.invoke(main, ["decode", "--model", model], input=pieces.output)
    assert back.output == "క్రాంతి\n"


def test_train_errors_are_one_line(runner: CliRunner, tmp_path: Path) -> None:
    prefix = tmp_path / "m"
    args = ["train", "--input", TE_SAMPLE, "--model_prefix", str(prefix), "--vocab_size", "100"]
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
    assert "orphan-mark tokens: brahmic_pua 0.0," in result.output
    assert "byte-fallback tokens: brahmic_pua " in result.output
    assert "byte fallback: a cluster the vocabulary has no piece for" in result.output


def test_input_that_is_not_utf8(runner: CliRunner, tmp_path: Path) -> None:
    source = tmp_path / "latin1.txt"
    source.write_bytes("caf\u00e9\n".encode("latin-1"))
    target = tmp_path / "out.txt"
    args = ["segment", "--input", str(source), "--output", str(target)]
    result = runner.invoke(main, args)
    assert result.exit_code == 1
    assert "latin1.txt is not UTF-8 at line 1 (byte offset 3:" in result.output
    assert "iconv" in result.output
    assert result.output.count("\n") == 1 and not target.exists()


# -- lines kept exactly, interruptions, broken pipes, one-line errors --------------------------

MODULE = [sys.executable, "-m", "brahmic_pua.cli.main"]
ODD_LINES = ["క \u0308ి", "a\rb", "▁▁ literal ▁ x", "x \u0308 y", "క్రాంతి\r"]


@pytest.fixture(scope="module")
def policy_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One small model per policy, trained on 500 Telugu lines and the odd lines (often enough
    that their clusters get pieces of their own)."""
    directory = tmp_path_factory.mktemp("models")
    lines = sample("te")[:500]
    made = {}
    for policy in POLICIES:
        prefix = str(directory / policy)
        train_model(
            sentence_iterator=iter(lines + ODD_LINES * 20),
            model_prefix=prefix,
            vocab_size=1000,
            policy=policy,
            num_threads=1,
        )
        made[policy] = f"{prefix}.model"
    return made


def test_a_carriage_return_is_text_inside_a_line_and_dropped_at_its_end(
    runner: CliRunner, tmp_path: Path, policy_models: dict[str, str]
) -> None:
    """Lines end at "\\n" only; the "\\r"s just before it belong to the line end and go, a lone
    "\\r" inside a line stays: as train read the odd lines (its model learned a "\\r" piece
    from "a\\rb", and none from the end of "క్రాంతి\\r"). The "\\r" of CRLF was kept before, as
    a byte piece on every line where encode-corpus and train dropped it."""
    sp = SentencePieceProcessor(model_file=policy_models["fixtoken"])
    assert "\r" in sp.encode("a\rb", out_type=str)
    text = "a\rb\nక\r\nx\r\r\n\rనే\n".encode()
    as_read = "a\rb\nక\nx\n\rనే\n".encode()  # the rule, written out
    segmented = runner.invoke(main, ["segment"], input=text)
    assert segmented.stdout_bytes == "a|\r|b\nక\nx\n\r|నే\n".encode()
    codec = tmp_path / "te.codec.json"
    corpus = TE_SAMPLE
    runner.invoke(main, ["codec", "build", "--input", corpus, "--output", str(codec)])
    commands = [
        (["codec", "encode", "--codec", str(codec)], ["codec", "decode", "--codec", str(codec)]),
        (
            ["encode", "--model", policy_models["fixtoken"]],
            ["decode", "--model", policy_models["fixtoken"]],
        ),
        (
            ["encode", "--model", policy_models["fixtoken"], "--output_format", "id"],
            ["decode", "--model", policy_models["fixtoken"], "--input_format", "id"],
        ),
    ]
    for encode, decode in commands:
        encoded = runner.invoke(main, encode, input=text)
        assert encoded.exit_code == 0, encoded.output
        assert encoded.stdout_bytes == runner.invoke(main, encode, input=as_read).stdout_bytes
        decoded = runner.invoke(main, decode, input=encoded.stdout_bytes)
        assert decoded.stdout_bytes == as_read, encode


def test_a_crlf_file_reads_as_its_lf_file_in_every_command(
    runner: CliRunner, tmp_path: Path, policy_models: dict[str, str]
) -> None:
    """One file, one encoding: the same lines saved with CRLF and a BOM (as Notepad saves them)
    give every line command the output of the LF file, and encode the ids encode-corpus writes,
    which are the processor's ids of each line without its line end."""
    model = policy_models["fixtoken"]
    lines = [*sample("te")[:40], *ODD_LINES]
    lf, crlf = tmp_path / "lf.txt", tmp_path / "crlf.txt"
    lf.write_bytes("".join(f"{line.rstrip(chr(13))}\n" for line in lines).encode())
    crlf.write_bytes(("\ufeff" + "".join(f"{line}\r\n" for line in lines)).encode())
    codec = tmp_path / "te.codec.json"
    built = runner.invoke(main, ["codec", "build", "--input", TE_SAMPLE, "--output", str(codec)])
    assert built.exit_code == 0, built.output
    commands = [
        ["segment", "--input"],
        ["segment", "--json", "--input"],
        ["normalize", "--mode", "nepali-lm", "--input"],
        ["codec", "encode", "--codec", str(codec), "--input"],
        ["encode", "--model", model, "--input"],
        ["encode", "--model", model, "--output_format", "id"],
        ["encode", "--model", model, "--generate_vocabulary"],
        ["llama-text", "--model", model, "--to", "llama", "--input"],
    ]
    for command in commands:
        outputs = []
        for path in (lf, crlf):
            result = runner.invoke(main, [*command, str(path)])
            assert result.exit_code == 0, (command, result.output)
            outputs.append(result.stdout_bytes)
        piped = runner.invoke(
            main, command[:-1] if command[-1] == "--input" else command, input=crlf.read_bytes()
        )
        assert outputs[0] == outputs[1] == piped.stdout_bytes, command
    ids = runner.invoke(main, ["encode", "--model", model, "--output_format", "id", str(crlf)])
    rows = [list(map(int, line.split())) for line in ids.stdout_bytes.decode().splitlines()]
    sp = SentencePieceProcessor(model_file=model)
    assert rows == sp.encode([line.rstrip("\r") for line in lines])
    out = tmp_path / "shards"
    made = runner.invoke(main, ["encode-corpus", "--model", model, "--output", str(out), str(crlf)])
    assert made.exit_code == 0, made.output
    _, shard = read_ids(out / "shard_00000.npy")
    assert list(shard) == [i for row in rows for i in [*row, sp.eos_id()]]


@pytest.mark.parametrize("policy", POLICIES)
def test_piece_format_round_trips_for_every_policy(
    runner: CliRunner, policy_models: dict[str, str], policy: str
) -> None:
    """encode | decode in the piece format gives each line back as read (a "\\r" ending it
    dropped), also where a cluster holds a space (grapheme: space + U+0308), a carriage return
    or a literal ▁."""
    held_out = sample("te")[-300:]
    lines = [*held_out, *ODD_LINES, " \u0308", "\u0308", "", " ", "▁", "▁ ▁"]
    text = "".join(line + "\n" for line in lines)
    pieces = runner.invoke(main, ["encode", "--model", policy_models[policy]], input=text)
    assert pieces.exit_code == 0, pieces.output
    back = runner.invoke(
        main, ["decode", "--model", policy_models[policy]], input=pieces.stdout_bytes
    )
    assert back.exit_code == 0, back.output
    expected = [unicodedata.normalize("NFC", line.rstrip("\r")) for line in [*lines, ""]]
    assert back.stdout_bytes.decode("utf-8").split("\n") == expected


def _telugu_bytes(size: int) -> bytes:
    """The Telugu sample's lines over and over: at least ``size`` bytes of real text."""
    data = Path(TE_SAMPLE).read_bytes()
    return data * -(-size // len(data))


def _temporaries(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize(
    ("sent", "status", "said"),
    [(signal.SIGTERM, 143, b""), (signal.SIGINT, 130, b"Error: interrupted\n")],
)
def test_a_signal_during_encode_leaves_no_temporary_file(
    tmp_path: Path, policy_models: dict[str, str], sent: signal.Signals, status: int, said: bytes
) -> None:
    """The input is a pipe held open until the signal is sent, so the run cannot have finished
    first (with a file, a loaded machine once let the run end before the signal: exit 0)."""
    out = tmp_path / "out"
    out.mkdir()
    args = ["encode", "--model", policy_models["fixtoken"], "--output", str(out / "ids.txt")]
    process = subprocess.Popen(
        [*MODULE, *args],
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_sigint,
    )
    assert process.stdin is not None
    process.stdin.write(_telugu_bytes(1_000_000))
    process.stdin.flush()
    deadline = time.monotonic() + 60
    while not _temporaries(out) and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.005)
    assert _temporaries(out) and process.poll() is None, "the run should be under way"
    process.send_signal(sent)
    try:
        _, stderr = process.communicate(timeout=60)  # closes the input after the signal
    except BrokenPipeError:  # it ended before the input was closed
        process.wait(timeout=60)
        stderr = process.stderr.read() if process.stderr else b""
    report = f"exit {process.returncode}, stderr {stderr!r}, left {list(out.iterdir())}"
    assert process.returncode == status, report
    assert stderr == said, report  # SIGTERM quietly, Ctrl-C in one line
    assert list(out.iterdir()) == [], report


@pytest.mark.parametrize("phase", ["scanning the corpus", "spm training"])
def test_sigterm_during_training_leaves_nothing(tmp_path: Path, phase: str) -> None:
    """Neither the rule files and corpus copy in the temporary directory nor an output file
    survive SIGTERM. (In spm's C++ training step the signal takes effect when the step
    returns: Python runs signal handlers between bytecodes only.)"""
    temporary, out = tmp_path / "tmp", tmp_path / "out"
    temporary.mkdir()
    out.mkdir()
    source = tmp_path / "big.txt"
    scanning = phase.startswith("scanning")  # (phase[0] == "s" also took "spm training")
    source.write_bytes(_telugu_bytes(21_000_000 if scanning else 5_000_000))
    process = subprocess.Popen(
        [
            *MODULE,
            "train",
            "--input",
            str(source),
            "--model_prefix",
            str(out / "m"),
            "--vocab_size",
            "3000",
        ],
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(temporary)},
    )
    deadline = time.monotonic() + 60

    def started() -> bool:
        if scanning:  # the progress display's first line
            return process.stderr is not None and bool(process.stderr.read(16))
        return any(temporary.rglob("normalize.tsv"))

    while not started() and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.01)
    assert process.poll() is None, "the run should be under way"
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 143 and b"Traceback" not in stderr
    assert list(temporary.iterdir()) == [] and list(out.iterdir()) == []


def test_a_closed_stdout_is_quiet() -> None:
    """`brahmic-pua segment big.txt | head -1`: no "Broken pipe", the status of SIGPIPE."""
    corpus = TE_SAMPLE
    process = subprocess.Popen(
        [*MODULE, "segment", "--input", corpus], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline()
    process.stdout.close()
    assert process.wait(timeout=60) == 141
    assert process.stderr.read() == b""


def test_non_utf8_input_names_the_right_line_and_offset(runner: CliRunner, tmp_path: Path) -> None:
    """The bad byte lies beyond the first read buffer: line and file offset are both exact."""
    lines = _telugu_bytes(3_000_000).split(b"\n")
    taken, size = 0, 0
    while size < 2_500_000:
        size += len(lines[taken]) + 1
        taken += 1
    bad_line = taken + 1  # 1-based: the line after those
    data = b"".join(line + b"\n" for line in lines[:taken]) + b"abc\xffdef\n" + lines[taken]
    source = tmp_path / "bad.txt"
    source.write_bytes(data)
    target = tmp_path / "out.txt"
    result = runner.invoke(main, ["segment", "--input", str(source), "--output", str(target)])
    assert result.exit_code == 1
    assert f"is not UTF-8 at line {bad_line} (byte offset {size + 3}:" in result.output
    assert data[size + 3 : size + 4] == b"\xff"
    assert result.output.count("\n") == 1 and not target.exists()


@pytest.mark.parametrize(
    "args",
    [
        ["segment", "--bogus"],
        ["segment", "--policy", "nope"],
        ["nosuchcommand"],
        ["--bogus"],
        ["encode"],
        ["train", "--input", "x.txt", "--model_prefix", "m", "--vocab_size", "abc"],
        ["train", "--input", "x", "--model_prefix", "m", "--model_type=bpe", "--vocab_size=x"],
        ["train", "--input", "x.txt", "--model_prefix", ""],
        ["train", "--input", "x.txt", "--model_prefix", "out/"],
    ],
)
def test_usage_errors_are_one_line(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(main, args)
    assert result.exit_code == 2
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1
    assert "--help" in result.output
    assert list(tmp_path.iterdir()) == []


def test_train_uses_every_input(runner: CliRunner, tmp_path: Path) -> None:
    """--input a --input b (like --input a,b) trains on both files, not on the last one."""
    telugu, hindi = tmp_path / "te.txt", tmp_path / "hi.txt"
    lines = sample("te")[:300]
    telugu.write_text("\n".join(lines) + "\n", encoding="utf-8")
    hindi.write_text("दिल्ली\n" * 50, encoding="utf-8")
    in_telugu = sum(segment(line).count("క్") for line in lines)
    prefix = tmp_path / "m"
    repeated = ["--input", str(telugu), "--input", str(hindi)]
    for inputs in (repeated, ["--input", f"{telugu},{hindi}"]):
        args = ["train", *inputs, "--model_prefix", str(prefix), "--vocab_size", "1000"]
        result = runner.invoke(main, args)
        assert result.exit_code == 0, result.output
        manifest = SentencePieceProcessor(model_file=f"{prefix}.model").manifest
        assert manifest is not None
        counts = manifest.codec.counts()
        assert (counts.get("दि"), counts.get("క్")) == (50, in_telugu)


def test_a_model_given_as_codec_is_one_clear_line(
    runner: CliRunner, policy_models: dict[str, str]
) -> None:
    result = runner.invoke(
        main, ["codec", "encode", "--codec", policy_models["fixtoken"]], input="x\n"
    )
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert "is a SentencePiece model, not a codec JSON" in result.output
    assert "brahmic-pua encode --model" in result.output


@pytest.mark.parametrize("ids", ["99999", "-1", "1 x"])
def test_bad_ids_are_one_line(
    runner: CliRunner, tmp_path: Path, policy_models: dict[str, str], ids: str
) -> None:
    target = tmp_path / "out.txt"
    args = [
        "decode",
        "--model",
        policy_models["fixtoken"],
        "--input_format",
        "id",
        "--output",
        str(target),
    ]
    result = runner.invoke(main, args, input=f"5 6\n{ids}\n")
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert "out of range" in result.output or "not a list of ids" in result.output
    assert list(tmp_path.iterdir()) == []


def test_an_internal_bug_keeps_its_traceback(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only expected errors become one line; a bug in brahmic_pua must show where it happened."""

    def broken(text: str, policy: str) -> list[str]:
        raise TypeError("a bug")

    monkeypatch.setattr(cli_main, "segment", broken)
    result = runner.invoke(main, ["segment"], input="క\n")
    assert isinstance(result.exception, TypeError)


@pytest.mark.parametrize("args", [[], ["codec"]])
def test_a_group_called_bare_shows_its_help(runner: CliRunner, args: list[str]) -> None:
    """No command is a question, not an error to squash into one line: the group's help, in
    full, exit 2 as click gives it."""
    result = runner.invoke(main, args)
    assert result.exit_code == 2
    assert result.output.startswith("Usage: ") and "Commands:" in result.output
    assert "Error" not in result.output and len(result.output.splitlines()) > 5


@pytest.mark.parametrize("command", ["segment", "codec build", "encode", "filter"])
def test_output_to_a_device_or_a_symlink_writes_through(
    runner: CliRunner, tmp_path: Path, policy_models: dict[str, str], command: str
) -> None:
    """``--output /dev/null`` run as root must not turn the null device into a regular file, and
    an output that is a symbolic link keeps the link and fills the file it names, as ``>`` does."""
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device needs root")
    real = tmp_path / "real.out"
    link = tmp_path / "link.out"
    link.symlink_to(real)
    args, text = {
        "segment": (["segment"], "క్రాంతి\n"),
        "codec build": (["codec", "build", "--input", TE_SAMPLE], ""),
        "encode": (["encode", "--model", policy_models["fixtoken"]], "క్రాంతి\n"),
        "filter": (["filter", "--model", policy_models["fixtoken"], "--filters", "mark-start"], ""),
    }[command]
    for output in (device, link):
        result = runner.invoke(main, [*args, "--output", str(output)], input=text)
        assert result.exit_code == 0, result.output
    assert stat.S_ISCHR(device.stat().st_mode), "the device must stay a device"
    assert link.is_symlink() and real.stat().st_size > 0


def test_parquet_input_errors_are_one_line(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A column the file lacks, a column of numbers, a file that is not Parquet: one line, exit
    1; --text_column on text input: a usage error (exit 2); no model file in any case."""
    require_extra("pyarrow", "arrow", "train --input x.parquet")
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = tmp_path / "c.parquet"
    pq.write_table(pa.table({"id": [1, 2], "content": ["క", "a"]}), source)
    not_parquet = tmp_path / "text.parquet"
    not_parquet.write_text("క\n", encoding="utf-8")
    prefix = str(tmp_path / "out" / "m")
    (tmp_path / "out").mkdir()
    cases = [
        ([str(source)], 1, "has no column 'text' (its columns: 'id', 'content')"),
        ([str(source), "--text_column", "id"], 1, "column 'id' holds int64, not text"),
        ([str(not_parquet)], 1, "is not a Parquet file that can be read"),
        ([TE_SAMPLE, "--text_column", "text"], 2, "no input is Parquet"),
    ]
    for args, status, message in cases:
        result = runner.invoke(main, ["train", "--input", *args, "--model_prefix", prefix])
        assert result.exit_code == status, result.output
        assert message in result.output and result.output.count("\n") == 1
        assert "Traceback" not in result.output
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)  # as without the arrow extra
    result = runner.invoke(main, ["train", "--input", str(source), "--model_prefix", prefix])
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert "pip install 'brahmic-pua[arrow]'" in result.output
    assert list((tmp_path / "out").iterdir()) == []


@pytest.mark.parametrize("damage", ["column twice", "snappy page", "page header"])
def test_a_bad_parquet_among_inputs_is_named_in_one_line(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    """``--input text,bad.parquet``: the line names the Parquet file and what to do, exit 1,
    no model and no temporary file (pyarrow's own "Corrupt snappy compressed data." or
    "Couldn't deserialize thrift" named no file, and two columns of the name a traceback)."""
    require_extra("pyarrow", "arrow", "train --input x.parquet")
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = Path(TE_SAMPLE).read_text(encoding="utf-8").split("\n")[:900]
    bad = tmp_path / "bad.parquet"
    if damage == "column twice":
        table = pa.Table.from_arrays([pa.array(rows), pa.array(rows)], names=["text", "text"])
        pq.write_table(table, bad)
    else:
        good = tmp_path / "good.parquet"
        pq.write_table(pa.table({"text": rows}), good, row_group_size=300, use_dictionary=False)
        chunk = pq.ParquetFile(good).metadata.row_group(1).column(0)
        start = chunk.data_page_offset
        at = start if damage == "page header" else start + chunk.total_compressed_size // 2
        data = bytearray(good.read_bytes())
        data[at : at + 32] = bytes(b ^ 0x5A for b in data[at : at + 32])
        bad.write_bytes(bytes(data))
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    (tmp_path / "out").mkdir()
    prefix = str(tmp_path / "out" / "m")
    arguments = ["--input", f"{TE_SAMPLE},{bad}", "--model_prefix", prefix, "--vocab_size", "1000"]
    result = runner.invoke(main, ["train", *arguments, "--progress=false"])
    assert result.exit_code == 1, result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert result.output.startswith(f"Error: {bad}")
    assert "write the file again" in result.output or "text_column" in result.output
    assert list((tmp_path / "out").iterdir()) == [] and list(temporary.iterdir()) == []


def test_start_up_imports_only_what_the_command_needs() -> None:
    """``brahmic-pua train`` starts without importing the other commands' modules, nor the
    processor, the evaluation or the integrations they need (counted in sys.modules of a fresh
    interpreter): start-up is time every training pays."""
    script = (
        "import sys, brahmic_pua.cli.main; "
        "print(' '.join(m for m in sys.modules if m.startswith('brahmic_pua.')))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    assert "brahmic_pua.cli.main" in loaded and "brahmic_pua.trainer.train" in loaded
    for module in cli_main.LAZY_COMMANDS.values():
        assert f"brahmic_pua.cli.{module[0]}" not in loaded
    for package in ("runtime", "evaluation", "integrations"):
        assert not any(name.startswith(f"brahmic_pua.{package}.") for name in loaded), package


def test_every_command_module_is_listed_and_runs_its_help(runner: CliRunner) -> None:
    """A command imported only when asked for is in ``--help`` and answers its own."""
    listed = runner.invoke(main, ["--help"])
    assert listed.exit_code == 0
    for name in cli_main.LAZY_COMMANDS:
        assert f"\n  {name} " in listed.output, name
        result = runner.invoke(main, [name, "--help"])
        assert result.exit_code == 0, (name, result.output)
        assert f"Usage: main {name}" in result.output
