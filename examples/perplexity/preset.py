"""The experiment's sizes and settings, one named file per preset (presets/NAME.toml).

A preset file spells every setting by name beside a comment that says what it is, so a reader
sees what a run did without counting positions in a tuple. This module reads one and refuses,
in one line naming the file and the key, a file that is not a whole preset: an unknown key (a
typo would otherwise be ignored), a missing one or a value of the wrong type, before anything
is trained.
"""

from __future__ import annotations

import tomllib
import types
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, get_type_hints

from data import ARM_SPECS

PRESET_DIR = Path(__file__).resolve().parent / "presets"

# TOML has no null: the word a file writes for a setting that is None.
NONE_WORDS = {"train_lines": "all", "budget_minutes": "none", "checkpoint_from": "none"}


@dataclass(frozen=True)
class Preset:
    vocab_size: int
    layers: int
    heads: int
    width: int
    context: int
    dropout: float
    batch: int
    lr: float
    min_lr: float
    warmup: int
    steps: int  # for cpu: the most steps; calibration may choose fewer to fit the budget
    seeds: int
    train_lines: int | None  # None: the whole of te.train.txt
    heldout_lines: int
    budget_minutes: float | None
    calibrate: bool
    sample_tokens: int  # generated per model, for orphan marks in what the model writes
    bootstrap: int  # resamples of held-out lines
    arms: tuple[str, ...]  # the arms run when --arms is not given
    checkpoint_from: int | None  # first log-spaced checkpoint (then ×2); None: last only
    estimate: bool  # calibrate tokens/s and print the finish time before training


class PresetError(ValueError):
    """A preset that cannot be used; the message is one line naming the file and the key."""


def preset_names() -> list[str]:
    """The presets that ship with the experiment, by name."""
    return sorted(p.stem for p in PRESET_DIR.glob("*.toml"))


def preset_path(preset: str | Path) -> Path:
    """The file of a preset given by name (presets/NAME.toml) or as a path to a file."""
    named = PRESET_DIR / f"{preset}.toml"
    if isinstance(preset, str) and "/" not in preset and named.is_file():
        return named
    if Path(preset).is_file():
        return Path(preset)
    raise PresetError(
        f"--preset {preset}: neither a preset ({', '.join(preset_names())}) nor a preset file"
    )


def load_preset(preset: str | Path) -> Preset:
    """The preset of that name or file, every key checked against the Preset's fields."""
    path = preset_path(preset)
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise PresetError(f"{path}: not a readable TOML file: {error}") from None
    keys = [f.name for f in fields(Preset)]
    for key in table:
        if key not in keys:
            raise PresetError(f"{path}: unknown key {key!r} (a preset's keys: {', '.join(keys)})")
    for key in keys:
        if key not in table:
            raise PresetError(f"{path}: missing key {key!r}")
    hints = get_type_hints(Preset)
    values: dict[str, Any] = {key: _value(path, key, table[key], hints[key]) for key in keys}
    return Preset(**values)  # each value checked against its field's type


def _value(path: Path, key: str, value: object, hint: object) -> object:
    """``value`` checked against the field's type ``hint``: an int is not a bool (TOML keeps
    them apart; Python would not), a float may be written as an int and is kept as written
    (so a preset file gives exactly the values the code once held), None is the NONE_WORDS
    word, and arms are known arm names."""
    wanted = hint
    if isinstance(hint, types.UnionType):  # X | None
        if value == NONE_WORDS[key]:
            return None
        (wanted,) = (t for t in hint.__args__ if t is not type(None))
    if wanted is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if wanted is float and isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if wanted is bool and isinstance(value, bool):
        return value
    if key == "arms" and isinstance(value, list) and value:
        unknown = [a for a in value if a not in ARM_SPECS]
        if not unknown:
            return tuple(value)
        raise PresetError(
            f"{path}: key 'arms' names unknown arms {unknown} (known: {', '.join(ARM_SPECS)})"
        )
    expected: dict[object, str] = {
        int: "an integer",
        float: "a number",
        bool: "true or false",
        tuple[str, ...]: "a non-empty list of arm names",
    }
    wording = expected[wanted] + (f' or "{NONE_WORDS[key]}"' if key in NONE_WORDS else "")
    raise PresetError(f"{path}: key {key!r} must be {wording}, not {value!r}")
