"""The experiment's presets, one named file each (presets/NAME.toml): overrides of Config.

Config's defaults (config.py) are the paper's settings; a preset file sets by name, beside a
comment that says what it is, each setting in which it differs from them (presets/paper.toml
sets none). This module reads one and refuses, in one line naming the file and the key, a file
that is not a preset: an unknown key (a typo would otherwise be ignored) or a value of the wrong
type, before anything is trained.
"""

from __future__ import annotations

import tomllib
import types
from dataclasses import fields, replace
from pathlib import Path
from typing import Any, get_type_hints

from .config import PRESET_KEYS, Config
from .data import ARM_SPECS

PRESET_DIR = Path(__file__).resolve().parent / "presets"

# TOML has no null: the word a file writes for a setting that is None (config.py names it).
NONE_WORDS = {f.name: f.metadata["none"] for f in fields(Config) if f.metadata.get("none")}


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


def load_preset(preset: str | Path) -> Config:
    """Config with the preset of that name or file (recorded as given) over its defaults, every
    key checked against Config's preset fields."""
    path = preset_path(preset)
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise PresetError(f"{path}: not a readable TOML file: {error}") from None
    for key in table:
        if key not in PRESET_KEYS:
            raise PresetError(
                f"{path}: unknown key {key!r} (a preset's keys: {', '.join(PRESET_KEYS)})"
            )
    hints = get_type_hints(Config)
    values: dict[str, Any] = {key: _value(path, key, table[key], hints[key]) for key in table}
    return replace(Config(), preset=str(preset), **values)  # each value checked for its type


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
