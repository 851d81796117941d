"""A training error that names a vocab_size names one that trains: followed once, the advice
works. The oracle is the training itself, run again with the advised size.

Too high: spm's "Please set it to a value <= M" is how many pieces it made for the size asked,
and at M it makes fewer again, so M alone is advice that fails (2000 → 1900 → 1874 → ... on
the Hindi sample kept in aksharas). Too small: the alphabet must fit, with or without byte
fallback."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import SAMPLES, slow

from brahmic_pua.cli.main import main
from brahmic_pua.trainer import train_model

TOO_HIGH = re.compile(
    r"vocab_size=(\d+) is too high for this corpus: spm made only ([\d,]+) pieces? for it; "
    r"use vocab_size=(\d+) \(it trains\) or hard_vocab_limit=false"
)
AT_LEAST = re.compile(r"use vocab_size >= (\d+)|the smallest vocab_size that trains is (\d+)")


def train(tmp_path: Path, language: str, vocab_size: int, **options: Any) -> Path:
    prefix = tmp_path / f"m{vocab_size}"
    train_model(
        input=str(SAMPLES / f"{language}.sample.txt"),
        model_prefix=str(prefix),
        vocab_size=vocab_size,
        num_threads=1,
        **options,
    )
    return Path(f"{prefix}.model")


@pytest.mark.parametrize(
    ("language", "vocab_size", "options"),
    [
        ("hi", 2000, {"policy": "akshara"}),  # spm's own number fails three times over
        ("te", 30000, {}),
    ],
)
@slow  # trains at every size advised
def test_too_high_advice_trains(
    tmp_path: Path, language: str, vocab_size: int, options: dict[str, Any]
) -> None:
    with pytest.raises(ValueError, match="too high") as error:
        train(tmp_path, language, vocab_size, **options)
    message = str(error.value)
    assert "\n" not in message and not list(tmp_path.iterdir())
    found = TOO_HIGH.search(message)
    assert found is not None, message
    asked, made, advised = (int(group.replace(",", "")) for group in found.groups())
    assert asked == vocab_size and advised <= made < vocab_size
    assert train(tmp_path, language, advised, **options).is_file()


def test_too_high_advice_on_the_command_line(tmp_path: Path) -> None:
    """The CLI's one line carries the same advice, and it trains there too."""
    base = [
        "train",
        "--input",
        str(SAMPLES / "hi.sample.txt"),
        "--policy",
        "akshara",
        "--num_threads=1",
        "--progress=false",
    ]
    first = CliRunner().invoke(
        main, [*base, "--model_prefix", str(tmp_path / "a"), "--vocab_size", "1900"]
    )
    assert first.exit_code == 1 and first.output.count("\n") == 1, first.output
    found = TOO_HIGH.search(first.output)
    assert found is not None, first.output
    again = CliRunner().invoke(
        main, [*base, "--model_prefix", str(tmp_path / "b"), "--vocab_size", found[3]]
    )
    assert again.exit_code == 0, again.output
    assert (tmp_path / "b.model").is_file()


@pytest.mark.parametrize(
    ("language", "vocab_size", "options"),
    [
        ("te", 100, {"byte_fallback": False}),
        ("te", 300, {"byte_fallback": False, "policy": "akshara"}),
        ("te", 300, {"byte_fallback": True}),
        ("te", 50, {}),  # byte fallback by default, dropped where it cannot fit
        ("hi", 200, {"byte_fallback": False}),
    ],
)
@slow  # trains at every size advised
def test_too_small_advice_trains(
    tmp_path: Path, language: str, vocab_size: int, options: dict[str, Any]
) -> None:
    with pytest.raises(ValueError) as error:
        train(tmp_path, language, vocab_size, **options)
    message = str(error.value)
    found = AT_LEAST.search(message)
    assert found is not None, message
    advised = int(found[1] or found[2])
    assert advised > vocab_size and "\n" not in message
    assert train(tmp_path, language, advised, **options).is_file()
