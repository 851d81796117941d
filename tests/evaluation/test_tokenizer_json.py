"""``brahmic-pua audit`` on a hostile Hugging Face tokenizer.json: a file that makes tokenizers
panic (a Rust panic, which Python sees as a BaseException) or a pre-tokenizer regex that
backtracks is one line and exit 1, never a traceback or Rust's panic report, and the time spent
encoding is bounded. The files are written here, small, by hand."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import require_extra

from brahmic_pua.evaluation import tokenizer_json as adapter
from brahmic_pua.evaluation.audit import load
from brahmic_pua.evaluation.tokenizer_json import HFTokenizer

MODULE = [sys.executable, "-m", "brahmic_pua.cli.main"]


@pytest.fixture(autouse=True)
def _tokenizers() -> None:
    require_extra("tokenizers", "hf", "auditing a hostile tokenizer.json")


def tokenizer_json(model: dict[str, Any], pre_tokenizer: Any = None) -> dict[str, Any]:
    """A whole tokenizer.json around ``model``, as tokenizers saves one."""
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": None,
        "model": model,
    }


def merge_outside_vocabulary() -> dict[str, Any]:
    """A BPE whose merge a + b makes "ab", a token its vocabulary lacks: tokenizers panics."""
    return tokenizer_json(
        {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": {"a": 0, "b": 1},
            "merges": [["a", "b"]],
        }
    )


def backtracking_split(pattern: str = "(a+)+$") -> dict[str, Any]:
    """A WordLevel behind a Split pre-tokenizer whose regex backtracks exponentially."""
    return tokenizer_json(
        {"type": "WordLevel", "vocab": {"a": 0, "c": 1, "[UNK]": 2}, "unk_token": "[UNK]"},
        {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False},
    )


def write(path: Path, spec: dict[str, Any]) -> Path:
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def run_audit(*args: str) -> subprocess.CompletedProcess[str]:
    """The real CLI in a child process: Rust writes its panic report to file descriptor 2,
    which only a separate process shows (RUST_BACKTRACE=1 makes that report long)."""
    env = {**os.environ, "RUST_BACKTRACE": "1"}
    return subprocess.run(
        [*MODULE, "audit", *args], capture_output=True, text=True, env=env, timeout=120
    )


def assert_one_line(done: subprocess.CompletedProcess[str], message: str) -> None:
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert (
        message in lines[0] and "Traceback" not in done.stderr and "panicked at" not in done.stderr
    )


def test_a_merge_outside_the_vocabulary_is_one_line(tmp_path: Path) -> None:
    path = write(tmp_path / "tokenizer.json", merge_outside_vocabulary())
    done = run_audit("--model", str(path))
    assert_one_line(done, f"{path} is not a Hugging Face tokenizer.json")
    assert "BPE merge" in done.stderr
    with pytest.raises(ValueError, match=r"not a Hugging Face tokenizer\.json") as error:
        load(path)
    assert "\n" not in str(error.value)


def test_a_backtracking_regex_is_one_line(tmp_path: Path) -> None:
    path = write(tmp_path / "tokenizer.json", backtracking_split())
    text = tmp_path / "text.txt"
    text.write_text("a" * 30 + "c\n", encoding="utf-8")
    started = time.monotonic()
    done = run_audit("--model", str(path), "--input", str(text))
    assert time.monotonic() - started < 60
    assert_one_line(done, "pre-tokenizer's regex")
    assert "nested quantifiers" in done.stderr
    with pytest.raises(ValueError, match="regex") as error:
        HFTokenizer(path).encode(["a" * 30 + "c"])
    assert "\n" not in str(error.value)


def test_encoding_time_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A regex whose every match stays under Oniguruma's retry limit is slow, not stopped: the
    time bound (a grace plus a rate per character) stops the waiting, in one line."""
    path = write(tmp_path / "tokenizer.json", backtracking_split())
    tokenizer = HFTokenizer(path)
    slow = ("a" * 20 + "c ") * 40  # about 2^20 steps per run of a: not over the limit
    monkeypatch.setattr(adapter, "ENCODE_GRACE_SECONDS", 0.05)
    started = time.monotonic()
    with pytest.raises(ValueError, match=r"took over .* s to encode .* regex likely backtracks"):
        tokenizer.encode([slow])
    assert time.monotonic() - started < 5


def test_a_sound_tokenizer_json_still_audits(tmp_path: Path) -> None:
    """The panic guard changes nothing for a file that works: its report, exit 0."""
    path = write(tmp_path / "tokenizer.json", backtracking_split(r"\s+"))
    text = tmp_path / "text.txt"
    text.write_text("a c a\n\u0c15\u0c4d\u0c37\n", encoding="utf-8")
    done = run_audit("--model", str(path), "--input", str(text), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["kind"] == "tokenizer.json WordLevel" and report["text"]["lines"] == 2
