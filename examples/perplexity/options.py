"""The experiment's command line: one option for each field of Config that has a help
(config.py declares the option beside the setting), and what the options make of the preset:
the Config a run uses, and the arms it trains.

Kept apart from run.py so that the script reads as the experiment; every option is documented
in config.py and README.md's table, and ``run.py --help`` prints them with run.py's docstring.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields
from pathlib import Path
from typing import NoReturn

from .config import Config
from .data import ARM_SPECS, STOCK_ARMS
from .preset import PresetError, load_preset

#: The preset a run starts from when --preset is not given.
DEFAULT_PRESET = "smoke"


def parse_args(argv: list[str] | None, description: str | None) -> argparse.Namespace:
    """The options of ``argv`` (None: the command line's), ``--help`` led by ``description``.
    An option not given is absent from the namespace (but --preset): it overrides nothing."""
    p = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    preset = {f.name: f for f in fields(Config)}["preset"]  # the base of the others: first
    p.add_argument(
        "--preset", default=DEFAULT_PRESET, help=preset.metadata["help"], **preset.metadata["how"]
    )
    groups = {
        True: p.add_argument_group("settings of a preset (each overrides the preset's value)"),
        False: p.add_argument_group("the run"),
    }
    for f in fields(Config):
        if f.metadata["help"] is None or f.name == "preset":  # no option / added above
            continue
        how = {k: v for k, v in f.metadata["how"].items() if k not in ("at_least", "above")}
        flag = "--" + f.name.replace("_", "-")
        groups[f.metadata["preset"]].add_argument(
            flag, default=argparse.SUPPRESS, help=f.metadata["help"], **how
        )
    return p.parse_args(argv)


def settings(args: argparse.Namespace) -> Config:
    """The preset with the command line's overrides. A preset that is not one (no such name or
    file, a key unknown or mistyped) stops the run in one line, with argparse's exit status for
    a bad option (2), before anything is trained."""
    try:
        preset = load_preset(args.preset)
    except PresetError as error:
        usage_error(str(error))
    given = {k: v for k, v in vars(args).items() if k != "preset"}
    for f in fields(Config):
        value, how, flag = given.get(f.name), f.metadata["how"], f.name.replace("_", "-")
        if value is None:
            continue
        if "above" in how and not value > how["above"]:
            raise SystemExit(f"--{flag} must be above {how['above']}, not {value}")
        if "at_least" in how and value < how["at_least"]:
            raise SystemExit(f"--{flag} must be {how['at_least']} or more, not {value}")
        if isinstance(value, list):  # nargs: a tuple in the frozen Config
            given[f.name] = tuple(value)
    cfg = preset.overridden(given)
    named = [str(path) for path in cfg.heldout]
    twice = sorted({path for path in named if named.count(path) > 1})
    if twice:  # its section would be reported twice, under one name
        usage_error(f"--heldout: {twice[0]} is given twice; give each held-out file once")
    if cfg.only_seeds is not None and not all(0 <= k < cfg.seeds for k in cfg.only_seeds):
        raise SystemExit(
            f"--only-seeds: each seed must be from 0 to {cfg.seeds - 1} (--seeds is {cfg.seeds})"
        )
    return cfg


def usage_error(message: str) -> NoReturn:
    """Stop as argparse does for a bad option: one line, exit status 2."""
    print(f"{Path(sys.argv[0]).name}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def arm_names(cfg: Config) -> list[str]:
    """The arms to run: --arms or the preset's, the stock pair with --stock-baseline, and the
    plain arm of every model type among them (the baseline of each difference); plain first."""
    names = list(cfg.arms)
    if cfg.stock_baseline:
        names += [n for n in STOCK_ARMS if n not in names]
    plain = list(dict.fromkeys(f"plain-{ARM_SPECS[n].model_type}" for n in names))
    for name in plain:
        if name not in names:
            print(f"adding {name}, the baseline of the arms of its type", file=sys.stderr)
    ordered = list(dict.fromkeys([n for n in [*plain, *names] if ARM_SPECS[n].kind == "plain"]))
    return ordered + [n for n in dict.fromkeys(names) if ARM_SPECS[n].kind != "plain"]
