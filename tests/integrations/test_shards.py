"""``encode_corpus`` / ``brahmic-pua encode-corpus``: id shards equal to encoding each line in
one process, whatever the shard size and the number of workers; .npy files NumPy loads; resume
after a crash or Ctrl-C; one-line errors and no partial files."""

from __future__ import annotations

import hashlib
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
import speed_reference as reference
from click.testing import CliRunner
from conftest import examples, require_extra, sample
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import parquet_rows

from brahmic_pua import SentencePieceProcessor
from brahmic_pua.cli.main import main
from brahmic_pua.integrations import shard_job
from brahmic_pua.integrations import shards as shards_module
from brahmic_pua.integrations.shards import encode_corpus
from brahmic_pua.io.lines import Span, plan_spans, read_lines
from brahmic_pua.io.npy import HEADER_BYTES, dtype_for, header, id_array, read_ids, write_ids
from brahmic_pua.trainer import train_model

#: 2,500 lines of Telugu: the sample's 1,142 over and over.
TELUGU = (sample("te") * 3)[:2500]
HINDI = sample("hi")


@pytest.fixture(scope="module")
def shard_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    prefix = tmp_path_factory.mktemp("shards") / "m"
    train_model(sentence_iterator=iter(TELUGU + HINDI), model_prefix=str(prefix), vocab_size=2000)
    return Path(f"{prefix}.model")


@pytest.fixture(scope="module")
def hostile_corpus_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two files with what real files hold: a byte-order mark, CRLF, blank lines, U+2585,
    Telugu and Hindi, and a last line without a newline."""
    folder = tmp_path_factory.mktemp("corpus")
    first, second = folder / "a.txt", folder / "b.txt"
    first.write_bytes(("\ufeff" + "\r\n".join(TELUGU[:1500]) + "\r\n\n▅ x\n").encode())
    second.write_bytes(("\n".join(TELUGU[1500:] + HINDI) + "\n\nकि").encode())
    return [first, second]


def expected_ids(shard_model: Path, files: list[Path]) -> list[int]:
    """Each line (as the trainer reads it) encoded on its own, then eos."""
    sp = SentencePieceProcessor(model_file=str(shard_model))
    ids: list[int] = []
    for path in files:
        for line in reference.file_lines(str(path)):
            ids += [*sp.encode(line), sp.eos_id()]
    return ids


def shard_ids(directory: Path) -> list[int]:
    index = json.loads((directory / "index.json").read_text())
    ids: list[int] = []
    for shard in index["shards"]:
        dtype, items = read_ids(directory / shard["file"])
        assert dtype == index["dtype"] and len(items) == shard["tokens"]
        ids += items
    return ids


def encoded(
    shard_model: Path, hostile_corpus_files: list[Path], tmp_path: Path
) -> tuple[Path, list[str], dict[str, bytes], dict[str, Any]]:
    """A finished run in ``tmp_path/out`` (900-line shards): the folder, the inputs as given,
    its files and its index."""
    out = tmp_path / "out"
    inputs = [str(p) for p in hostile_corpus_files]
    index = encode_corpus(shard_model, inputs, out, shard_lines=900)
    return out, inputs, files_of(out), index


def files_of(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


# -- the .npy format ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["uint16", "uint32"])
def test_npy_files_read_back_with_and_without_numpy(tmp_path: Path, dtype: str) -> None:
    path = tmp_path / "x.npy"
    values = [0, 1, 2, 65535] + ([65536, 2**32 - 1] if dtype == "uint32" else [])
    ids = id_array(dtype)
    ids.extend(values)
    with open(path, "wb") as stream:
        stream.write(header(dtype, len(values)))
        write_ids(stream, ids)
    assert len(header(dtype, 10**18)) == HEADER_BYTES
    assert read_ids(path) == (dtype, ids)
    require_extra("numpy", "test", "shards read back by numpy")
    import numpy as np

    assert np.load(path).tolist() == values
    assert np.load(path).dtype == np.dtype(dtype)
    view = np.memmap(path, dtype=np.dtype(dtype), mode="r", offset=HEADER_BYTES)
    assert view.tolist() == values
    np.save(tmp_path / "numpy.npy", np.array(values, dtype=dtype))
    assert read_ids(tmp_path / "numpy.npy") == (dtype, ids)


def test_dtype_follows_the_vocabulary() -> None:
    assert dtype_for(8000) == dtype_for(65536) == "uint16"
    assert dtype_for(65537) == "uint32"


# -- line ranges: every line once, as the trainer reads it ---------------------------------------

LINE = st.text(st.sampled_from("అక్ష a\r\ufeff▅\x85\u2028"), max_size=12)


@given(
    lines=st.lists(LINE, max_size=30),
    final_newline=st.booleans(),
    size=st.integers(1, 80),
    count=st.integers(1, 7),
)
def test_ranges_cover_every_line_once(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[str],
    final_newline: bool,
    size: int,
    count: int,
) -> None:
    path = tmp_path_factory.mktemp("ranges") / "t.txt"
    path.write_bytes(("\n".join(lines) + ("\n" if final_newline and lines else "")).encode())
    expected = list(reference.file_lines(str(path)))
    by_bytes = plan_spans([str(path), str(path)], max_bytes=size)
    by_lines = plan_spans([str(path), str(path)], max_lines=count)
    for groups in (by_bytes, by_lines):
        spans = [span for group in groups for span in group]
        assert [line for span in spans for line in read_lines(span)] == expected * 2
        assert all(span.start < span.end for span in spans)
    assert [sum(len(list(read_lines(s))) for s in group) for group in by_lines[:-1]] == [count] * (
        len(by_lines) - 1
    )


def test_a_bad_byte_names_its_file_line_and_offset(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes("క\n".encode() * 5000 + b"ok \xff\n")
    spans = [s for group in plan_spans([str(path)], max_bytes=1000) for s in group]
    with pytest.raises(ValueError, match=r"bad.txt is not UTF-8 at line 5001 \(byte offset 20003"):
        for span in spans:
            list(read_lines(span))


# -- shards -------------------------------------------------------------------------------------


def test_shards_hold_each_lines_ids_then_eos(
    shard_model: Path, hostile_corpus_files: list[Path], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    index = encode_corpus(shard_model, [str(p) for p in hostile_corpus_files], out, shard_lines=700)
    ids = shard_ids(out)
    assert ids == expected_ids(shard_model, hostile_corpus_files)
    lines = sum(1 for p in hostile_corpus_files for _ in reference.file_lines(str(p)))
    assert index["lines"] == lines == ids.count(index["eos_id"])
    assert [s["lines"] for s in index["shards"]][:-1] == [700] * (len(index["shards"]) - 1)
    assert index["tokens"] == len(ids) and index["dtype"] == "uint16"
    assert index["bytes"] == sum(p.stat().st_size for p in hostile_corpus_files)
    assert all((out / f"{s['file']}.COMPLETE").is_file() for s in index["shards"])
    require_extra("numpy", "test", "shards read back by numpy")
    import numpy as np

    loaded = [np.load(out / s["file"], mmap_mode="r") for s in index["shards"]]
    assert np.concatenate(loaded).tolist() == ids


def test_workers_and_shard_sizes_change_nothing_but_the_cut(
    shard_model: Path, hostile_corpus_files: list[Path], tmp_path: Path
) -> None:
    inputs = [str(hostile_corpus_files[0].parent / "*.txt")]  # a glob, expanded in sorted order
    encode_corpus(shard_model, inputs, tmp_path / "one", shard_bytes=150_000)
    encode_corpus(shard_model, inputs, tmp_path / "two", shard_bytes=150_000, workers=2)
    assert files_of(tmp_path / "one") == files_of(tmp_path / "two")
    encode_corpus(shard_model, inputs, tmp_path / "big", shard_bytes=10**9)
    assert len(json.loads((tmp_path / "big" / "index.json").read_text())["shards"]) == 1
    assert shard_ids(tmp_path / "big") == shard_ids(tmp_path / "one")


def test_resume_after_a_crash_redoes_only_what_is_missing(
    shard_model: Path,
    hostile_corpus_files: list[Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out, inputs, finished, _ = encoded(shard_model, hostile_corpus_files, tmp_path)
    # A crash: shard 1 renamed but no marker, shard 2 still a temporary file, no index.
    (out / "shard_00001.npy.COMPLETE").unlink()
    (out / "shard_00002.npy").rename(out / ".shard_00002.npy.0123456789ab.tmp")
    (out / "shard_00002.npy.COMPLETE").unlink()
    (out / "index.json").unlink()
    done: list[str] = []
    real = shard_job.encode_shard

    def watched(processor: SentencePieceProcessor, job: Any) -> Any:
        done.append(job.name)
        return real(processor, job)

    monkeypatch.setattr(shards_module, "encode_shard", watched)
    encode_corpus(shard_model, inputs, out, shard_lines=900)
    assert done == ["shard_00001.npy", "shard_00002.npy"]
    assert files_of(out) == finished


def test_ctrl_c_leaves_whole_shards_and_resumes(
    shard_model: Path,
    hostile_corpus_files: list[Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "out"
    inputs = [str(p) for p in hostile_corpus_files]
    encode_corpus(shard_model, inputs, tmp_path / "reference", shard_lines=600)
    calls = {"n": 0}
    real = SentencePieceProcessor.encode

    def interrupted(self: SentencePieceProcessor, *args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 3:  # while the third shard is written (one batch a shard here)
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(SentencePieceProcessor, "encode", interrupted)
    with pytest.raises(KeyboardInterrupt):
        encode_corpus(shard_model, inputs, out, shard_lines=600)
    whole = ["shard_00000.npy", "shard_00000.npy.COMPLETE", "shard_00001.npy"]
    assert sorted(p.name for p in out.iterdir()) == [*whole, "shard_00001.npy.COMPLETE"]
    monkeypatch.undo()
    encode_corpus(shard_model, inputs, out, shard_lines=600)
    assert files_of(out) == files_of(tmp_path / "reference")


def test_resuming_with_other_settings_is_refused(
    shard_model: Path, hostile_corpus_files: list[Path], tmp_path: Path
) -> None:
    out, inputs, before, _ = encoded(shard_model, hostile_corpus_files, tmp_path)
    with pytest.raises(ValueError, match=r"another run \(shard_lines=900, now 800\)"):
        encode_corpus(shard_model, inputs, out, shard_lines=800)
    other = tmp_path / "other.model"
    other.write_bytes(shard_model.read_bytes() + b"\xa2\x01\x00")  # an unknown extension field
    with pytest.raises(ValueError, match=r"another run \(another model\)"):
        encode_corpus(other, inputs, out, shard_lines=900)
    with pytest.raises(ValueError, match=r"other input files"):
        encode_corpus(shard_model, inputs[:1], out, shard_lines=900)
    assert files_of(out) == before


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("missing", r"input file '.*nothing.txt' not found"),
        ("glob", r"input '.*\*.none' matches no file"),
        ("not_utf8", r"bad.txt is not UTF-8 at line 3 \(byte offset 4: invalid start byte\)"),
        ("foreign", r"holds files encode-corpus did not write \(notes.txt\)"),
        ("output_file", r"output .* is a file"),
        ("empty", r"the inputs are empty"),
    ],
)
def test_bad_input_is_one_line_and_leaves_no_partial_file(
    shard_model: Path, hostile_corpus_files: list[Path], tmp_path: Path, setup: str, message: str
) -> None:
    out = tmp_path / "out"
    inputs = [str(hostile_corpus_files[0])]
    if setup == "missing":
        inputs.append(str(tmp_path / "nothing.txt"))
    elif setup == "glob":
        inputs.append(str(tmp_path / "*.none"))
    elif setup == "not_utf8":
        (tmp_path / "bad.txt").write_bytes(b"ok\n\n\xffno\n")
        inputs.append(str(tmp_path / "bad.txt"))
    elif setup == "foreign":
        out.mkdir()
        (out / "notes.txt").write_text("mine")
    elif setup == "output_file":
        out.write_text("")
    else:
        (tmp_path / "empty.txt").write_bytes(b"")
        inputs = [str(tmp_path / "empty.txt")]
    with pytest.raises(ValueError, match=message) as error:
        encode_corpus(shard_model, inputs, out, shard_lines=10**6)
    assert "\n" not in str(error.value)
    left = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    assert left in ([], ["notes.txt"])


def test_a_file_that_is_not_a_model_is_named(
    hostile_corpus_files: list[Path], tmp_path: Path
) -> None:
    bogus = tmp_path / "bogus.model"
    bogus.write_bytes(b"x\n")
    with pytest.raises(ValueError, match=r"^\S*bogus.model: not a SentencePiece model") as error:
        encode_corpus(bogus, [str(hostile_corpus_files[0])], tmp_path / "out")
    assert "\n" not in str(error.value)
    assert not (tmp_path / "out").exists()


def test_a_model_without_eos_is_refused(tmp_path: Path, hostile_corpus_files: list[Path]) -> None:
    prefix = tmp_path / "no_eos"
    train_model(
        sentence_iterator=iter(TELUGU[:800]), model_prefix=str(prefix), vocab_size=900, eos_id=-1
    )
    with pytest.raises(ValueError, match=r"no eos piece"):
        encode_corpus(f"{prefix}.model", [str(hostile_corpus_files[0])], tmp_path / "out")
    assert not (tmp_path / "out").exists()


# -- the command --------------------------------------------------------------------------------


def test_command_writes_shards_and_reports(
    shard_model: Path, hostile_corpus_files: list[Path], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    args = [
        "encode-corpus",
        "--model",
        str(shard_model),
        "--output",
        str(out),
        "--shard-lines",
        "1000",
    ]
    result = CliRunner().invoke(main, [*args, *map(str, hostile_corpus_files)])
    assert result.exit_code == 0, result.output
    count = len(json.loads((out / "index.json").read_text())["shards"])
    shards = f"{count:,} shard" if count == 1 else f"{count:,} shards"
    assert f"encoded {count:,}/{shards}" in result.output
    assert f"wrote {shards}" in result.output
    assert shard_ids(out) == expected_ids(shard_model, hostile_corpus_files)
    again = CliRunner().invoke(main, [*args, *map(str, hostile_corpus_files)])
    assert again.exit_code == 0
    assert f"resuming: {count:,} of {shards} already complete" in again.output


def test_one_shard_is_said_as_one(shard_model: Path, tmp_path: Path) -> None:
    """Counts agree with their nouns: one shard is "1 shard", never "1 shards"."""
    text = tmp_path / "one.txt"
    text.write_text("క్రాంతి\nनमस्ते\n", encoding="utf-8")
    args = ["encode-corpus", "--model", str(shard_model), "--output", str(tmp_path / "out")]
    result = CliRunner().invoke(main, [*args, str(text)])
    assert result.exit_code == 0, result.output
    assert "encoded 1/1 shard, " in result.stderr
    wrote = r"^wrote 1 shard, [0-9]+ tokens \(uint16\) of 2 lines to "
    assert re.search(wrote, result.stderr, re.M), result.stderr


@pytest.mark.parametrize(
    ("extra", "code", "message"),
    [
        (["--shard-lines", "5", "--shard-bytes", "5"], 2, "not both"),
        (["--workers", "0"], 2, "--workers"),
        (["--engine", "spark"], 2, "'spark' is not one of"),
        ([], 1, "not UTF-8 at line 1"),
    ],
)
def test_command_errors_are_one_line(
    shard_model: Path, tmp_path: Path, extra: list[str], code: int, message: str
) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\n")
    args = ["encode-corpus", "--model", str(shard_model), "--output", str(tmp_path / "o"), str(bad)]
    result = CliRunner().invoke(main, [*args, *extra])
    assert result.exit_code == code
    assert message in result.output
    assert len(result.output.strip().splitlines()[-1:]) == 1
    assert not list(tmp_path.glob("o/*"))


def test_shard_spans_are_recorded(
    shard_model: Path, hostile_corpus_files: list[Path], tmp_path: Path
) -> None:
    """The index says which bytes of which file each shard holds: enough to find a line."""
    index = encode_corpus(
        shard_model, [str(p) for p in hostile_corpus_files], tmp_path / "o", shard_bytes=200_000
    )
    spans = [Span(*s) for shard in index["shards"] for s in shard["inputs"]]
    assert spans[0].start == 0 and spans[-1].end == os.path.getsize(hostile_corpus_files[-1])
    for before, after in pairwise(spans):
        assert after.start == (before.end if after.path == before.path else 0)


def test_resume_encodes_again_a_shard_whose_bytes_changed(
    shard_model: Path,
    hostile_corpus_files: list[Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Two bytes flipped inside a complete shard (same size): the marker's sha256 no longer
    matches, so a rerun encodes that shard again instead of keeping the bad ids."""
    out, inputs, finished, index = encoded(shard_model, hostile_corpus_files, tmp_path)
    for entry in index["shards"]:  # the index's digest is the file's (hashlib, not our reader)
        assert entry["sha256"] == hashlib.sha256((out / entry["file"]).read_bytes()).hexdigest()
    shard = out / "shard_00001.npy"
    data = bytearray(shard.read_bytes())
    data[HEADER_BYTES + 10] ^= 0xFF
    data[HEADER_BYTES + 11] ^= 0x01
    shard.write_bytes(bytes(data))
    encode_corpus(shard_model, inputs, out, shard_lines=900, progress=True)
    assert "encoding 1 complete shard(s) again: shard_00001.npy" in capsys.readouterr().err
    assert files_of(out) == finished


def test_a_marker_without_a_digest_is_encoded_again(
    shard_model: Path, hostile_corpus_files: list[Path], tmp_path: Path
) -> None:
    out, inputs, finished, _ = encoded(shard_model, hostile_corpus_files, tmp_path)
    marker = out / "shard_00000.npy.COMPLETE"
    record = json.loads(marker.read_text())
    del record["sha256"]
    marker.write_text(json.dumps(record))
    (out / "shard_00000.npy").write_bytes(b"\0" * (out / "shard_00000.npy").stat().st_size)
    encode_corpus(shard_model, inputs, out, shard_lines=900)
    assert files_of(out) == finished


# -- markers are untrusted input ----------------------------------------------------------------

Edit = Callable[[dict[str, Any]], Any]


def _cli(shard_model: Path, inputs: list[str], out: Path) -> Any:
    args = ["encode-corpus", "--model", str(shard_model), "--output", str(out), *inputs]
    return CliRunner().invoke(main, [*args, "--shard_lines", "900", "--progress=false"])


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (lambda r: b"[" * 100_000, r"100,000 bytes, more than the [\d,]+ a marker may have"),
        (lambda r: b"[" * 2_000, "nested too deeply"),
        (lambda r: b"\xff{}", "not JSON"),
        (lambda r: [r], "not a JSON object"),
        (lambda r: {**r, "settings": 5}, "settings is not an object"),
        (lambda r: {**r, "tokens": "many"}, "tokens is not a count"),
        (lambda r: {**r, "lines": -1}, "lines is not a count"),
        (lambda r: {**r, "npy_bytes": True}, "npy_bytes is not a count"),
        (lambda r: {**r, "inputs": 7}, "inputs is not a list"),
        (lambda r: {**r, "sha256": 7}, "sha256 is not a string"),
        (lambda r: {**r, "file": "shard_00000.npy"}, "its file is not shard_00001.npy"),
    ],
)
def test_a_marker_that_is_no_marker_is_refused_in_one_line(
    shard_model: Path,
    hostile_corpus_files: list[Path],
    tmp_path: Path,
    content: Edit,
    reason: str,
) -> None:
    out, inputs, _, _ = encoded(shard_model, hostile_corpus_files, tmp_path)
    marker = out / "shard_00001.npy.COMPLETE"
    made = content(json.loads(marker.read_text()))
    marker.write_bytes(made if isinstance(made, bytes) else json.dumps(made).encode())
    before = files_of(out)
    result = _cli(shard_model, inputs, out)
    assert result.exit_code == 1
    assert "Traceback" not in result.output and len(result.output.splitlines()) == 1
    pattern = rf"^Error: {marker} is damaged \({reason}\): delete it to encode its shard again$"
    assert re.fullmatch(pattern, result.output.strip()), result.output
    assert files_of(out) == before


def _under_limits(
    shard_model: Path, inputs: list[str], out: Path
) -> subprocess.CompletedProcess[str]:
    """The command in a process of at most 1.2 GB that may run 60 s: an endless marker read
    whole would grow until one of them ends it."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1_200_000_000, 1_200_000_000))

    args = ["--model", str(shard_model), "--output", str(out), *inputs, "--shard_lines", "900"]
    return subprocess.run(
        [sys.executable, "-m", "brahmic_pua.cli.main", "encode-corpus", *args],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limit,
    )


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
@pytest.mark.parametrize("kind", ["/dev/zero", "fifo"])
def test_a_marker_that_never_ends_is_refused_unread(
    shard_model: Path, hostile_corpus_files: list[Path], tmp_path: Path, kind: str
) -> None:
    """A marker linked to /dev/zero was read until memory ran out (MemoryError at 2.7 GB), and
    a FIFO blocked the run for good; neither is a regular file, as every marker is."""
    out, inputs, _, _ = encoded(shard_model, hostile_corpus_files, tmp_path)
    marker = out / "shard_00001.npy.COMPLETE"
    marker.unlink()
    if kind == "fifo":
        os.mkfifo(marker)
    else:
        marker.symlink_to(kind)
    result = _under_limits(shard_model, inputs, out)
    assert result.returncode == 1, result.stderr[-2000:]
    assert result.stderr == (
        f"Error: {marker} is damaged (not a regular file): delete it to encode its shard again\n"
    )


@pytest.mark.parametrize(
    "edit",
    [
        lambda r: {**r, "tokens": 10**30},
        lambda r: {**r, "lines": 10**30},
        lambda r: {**r, "lines": r["lines"] - 1},
        lambda r: {**r, "tokens": r["tokens"] - 1, "npy_bytes": r["npy_bytes"] - 2},
        lambda r: {**r, "bytes": r["bytes"] + 1},
        lambda r: {**r, "inputs": []},
    ],
    ids=["tokens", "lines", "one line less", "one id less", "bytes", "inputs"],
)
def test_a_marker_whose_counts_are_not_its_shards_is_encoded_again(
    shard_model: Path,
    hostile_corpus_files: list[Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Edit,
) -> None:
    """The shard's bytes and sha256 intact, the marker's counts edited: they went into
    index.json as they were (10**30 tokens); now the shard is checked against them (size,
    header, eos ids, input ranges) and encoded again, the index made of true counts."""
    out, inputs, finished, _ = encoded(shard_model, hostile_corpus_files, tmp_path)
    marker = out / "shard_00001.npy.COMPLETE"
    marker.write_text(json.dumps(edit(json.loads(marker.read_text()))))
    encode_corpus(shard_model, inputs, out, shard_lines=900, progress=True)
    assert "encoding 1 complete shard(s) again: shard_00001.npy" in capsys.readouterr().err
    assert files_of(out) == finished
    assert json.loads((out / "index.json").read_text())["tokens"] == len(shard_ids(out))


# -- Parquet input ------------------------------------------------------------------------------


def write_parquet(path: Path, rows: list[str | None], group: int, column: str = "text") -> None:
    require_extra("pyarrow", "arrow", "encode-corpus of Parquet")
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({column: pa.array(rows, pa.string())}), path, row_group_size=group)


@settings(max_examples=examples(25), deadline=None)
@given(
    rows=parquet_rows(30),
    group=st.integers(1, 7),
    cut=st.sampled_from([(None, 1), (None, 5), (40, None), (None, None)]),
)
def test_parquet_rows_give_the_ids_of_the_text_file_they_make(
    shard_model: Path, rows: list[str | None], group: int, cut: tuple[int | None, int | None]
) -> None:
    """A Parquet file's column encodes to the ids of the text file of its rows (one a line,
    a null as nothing) read as the trainer reads it, then eos, whatever its row groups and the
    shard size: nulls, rows with line feeds and CRLF, a BOM (twice), empty rows."""
    size, lines = cut
    with tempfile.TemporaryDirectory() as folder:
        source, text = Path(folder, "c.parquet"), Path(folder, "c.txt")
        write_parquet(source, rows, group)
        text.write_text("".join(f"{row or ''}\n" for row in rows), encoding="utf-8", newline="")
        if not rows:  # no lines at all: both refused alike
            for given in (source, text):
                with pytest.raises(ValueError, match="the inputs are empty"):
                    encode_corpus(
                        shard_model,
                        [str(given)],
                        Path(folder, "out"),
                        shard_bytes=size,
                        shard_lines=lines,
                    )
            return
        encode_corpus(
            shard_model, [str(source)], Path(folder, "out"), shard_bytes=size, shard_lines=lines
        )
        assert shard_ids(Path(folder, "out")) == expected_ids(shard_model, [text])


def test_mixed_inputs_are_the_text_files_they_make(
    shard_model: Path, hostile_corpus_files: list[Path], tmp_path: Path
) -> None:
    """Text, Parquet (column ``body``, three row groups) and text again, on two worker
    processes: the ids of the three text files, the Parquet's shards cut at row groups (its
    units listed as row groups in the index); a run with another column is another run."""
    rows: list[str | None] = [*TELUGU[:700], None, "\ufeffక\r\nఖ", *HINDI[:300]]
    source = tmp_path / "b.parquet"
    write_parquet(source, rows, 400, column="body")
    text = tmp_path / "b.txt"
    text.write_text("".join(f"{row or ''}\n" for row in rows), encoding="utf-8", newline="")
    first, last = map(str, hostile_corpus_files)
    out = tmp_path / "out"
    index = encode_corpus(
        shard_model,
        [first, str(source), last],
        out,
        shard_lines=500,
        workers=2,
        text_column="body",
    )
    assert shard_ids(out) == expected_ids(shard_model, [Path(first), text, Path(last)])
    units = [unit for shard in index["shards"] for unit in shard["inputs"]]
    assert [unit for unit in units if unit[0] == str(source)] == [
        [str(source), 0, 2, "row groups"],
        [str(source), 2, 3, "row groups"],
    ]
    assert index["settings"]["text_column"] == "body"
    parquet_shards = [s["file"] for s in index["shards"] if s["inputs"][0][0] == str(source)]
    written = files_of(out)
    (out / parquet_shards[1]).unlink()  # a crash: resumed, that shard alone is written again
    encode_corpus(shard_model, [first, str(source), last], out, shard_lines=500, text_column="body")
    assert files_of(out) == written
    with pytest.raises(ValueError, match="holds shards of another run"):
        write_parquet(source, rows, 400, column="text")
        encode_corpus(shard_model, [first, str(source), last], out, shard_lines=500)


def test_parquet_errors_are_one_line_and_leave_nothing(
    shard_model: Path, tmp_path: Path, runner: CliRunner
) -> None:
    """A column the file lacks, a damaged page, --text_column with no Parquet input, an empty
    Parquet file: one line, exit 1 (2 for the flag), no output directory."""
    good = tmp_path / "good.parquet"
    write_parquet(good, [f"line {i} క" * 20 for i in range(600)], 200)
    import pyarrow.parquet as pq

    chunk = pq.ParquetFile(good).metadata.row_group(1).column(0)
    data = bytearray(good.read_bytes())
    at = chunk.data_page_offset
    data[at : at + 32] = bytes(b ^ 0x5A for b in data[at : at + 32])
    damaged = tmp_path / "damaged.parquet"
    damaged.write_bytes(bytes(data))
    empty = tmp_path / "empty.parquet"
    write_parquet(empty, [], 1)
    text = tmp_path / "t.txt"
    text.write_text("క\n", encoding="utf-8")
    out = tmp_path / "out"
    cases = [
        ([str(good), "--text_column", "body"], 1, f"{good} has no column 'body'"),
        ([str(damaged)], 1, f"{damaged} is damaged: its column 'text' cannot be read"),
        ([str(text), "--text_column", "text"], 2, "no input is Parquet"),
        ([str(empty)], 1, "the inputs are empty"),
    ]
    for args, status, message in cases:
        result = runner.invoke(
            main, ["encode-corpus", "--model", str(shard_model), "--output", str(out), *args]
        )
        assert result.exit_code == status, result.output
        assert message in result.output and "Traceback" not in result.output
        assert not out.exists()
