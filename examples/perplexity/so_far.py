"""The gap with compute from a run still in progress (``run.py --so-far``).

A long run (``--preset cpu-long``) takes hours per model and may span sessions; its checkpoints
are saved with each model's state as it goes. This reads them back, from finished models
(done.json) and from models still training (train.pt), and pairs the arms seed by seed at
every step both have scored: a step enters the table with the seeds that reached it in both
arms, so an early step may have more seeds than a late one. Nothing is trained or changed:
report_so_far writes so_far.md, so_far.json and gap_trend_so_far.png beside the run's state.
It is reached through ``run.py --so-far``, not run on its own: the run's own command with
--so-far added says which tokenizers, held-out lines and steps the saved checkpoints belong to,
and resume.check_request refuses a folder begun with other options.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch

from .config import Config
from .data import Arm
from .gpt import GPT, gpt_config, parameter_count
from .report import trend_section
from .results import plot_trend, write_results
from .trend import gap_trend

Trajectory = dict[int, dict[str, Any]]  # step -> {"tokens_seen", "lines": per-line NLL}


def saved_checkpoints(folder: Path) -> list[dict[str, Any]]:
    """One model's checkpoints so far: a finished model's record, else its saved state's,
    else none (not begun)."""
    done = folder / "done.json"
    if done.is_file():
        record: dict[str, Any] = json.loads(done.read_text(encoding="utf-8"))
        return list(record["checkpoints"])
    state = folder / "train.pt"
    if state.is_file():
        saved = torch.load(state, map_location="cpu", weights_only=True)
        return list(saved["checkpoints"])
    return []


def paired(state_dir: Path, arm: str, base: str, seeds: int) -> tuple[Trajectory, Trajectory]:
    """The two arms' trajectories, each step holding, in seed order, only the seeds that
    scored it in both arms (gap_trend pairs seeds by position)."""
    got = {
        (name, seed): {c["step"]: c for c in saved_checkpoints(state_dir / name / f"seed{seed}")}
        for name in (arm, base)
        for seed in range(seeds)
    }
    ours: Trajectory = {}
    theirs: Trajectory = {}
    steps = sorted({step for per_step in got.values() for step in per_step})
    for step in steps:
        both = [s for s in range(seeds) if step in got[arm, s] and step in got[base, s]]
        if not both:
            continue
        tokens = got[arm, both[0]][step]["tokens_seen"]
        ours[step] = {"tokens_seen": tokens, "lines": [got[arm, s][step]["lines"] for s in both]}
        theirs[step] = {
            "tokens_seen": tokens,
            "lines": [got[base, s][step]["lines"] for s in both],
        }
    return ours, theirs


def trend_so_far(
    state_dir: Path,
    arm: str,
    base: str,
    seeds: int,
    line_bytes: list[int],
    resamples: int,
    fit_from: int,
    parameters: int,
) -> dict[str, Any]:
    """gap_trend of ``arm`` against its plain arm ``base`` over the checkpoints saved so far."""
    ours, theirs = paired(state_dir, arm, base, seeds)
    return gap_trend(ours, theirs, line_bytes, resamples, fit_from, parameters) | {"baseline": base}


def report_so_far(
    out: Path,
    arms: list[Arm],
    cfg: Config,
    steps: dict[str, int],
    checkpoint_bytes: list[int],
    checkpoint_lines: int,
    command: list[str],
) -> None:
    """--so-far: the trend table and plot from the checkpoints saved so far, written as
    so_far.md, so_far.json and gap_trend_so_far.png beside the run's state."""
    trends: dict[str, Any] = {}
    for arm in arms:
        if arm.kind == "plain":
            continue
        parameters = parameter_count(GPT(gpt_config(cfg, arm.vocab_size)))
        trends[arm.name] = trend_so_far(
            out / "state",
            arm.name,
            f"plain-{arm.model_type}",
            cfg.seeds,
            checkpoint_bytes,
            cfg.bootstrap,
            cfg.warmed_up(steps[arm.name]),
            parameters,
        )
    results = {
        "command": command,
        "trend": trends,
        "settings": {
            "checkpoint_lines": checkpoint_lines,
            "checkpoint_bytes": sum(checkpoint_bytes),
            "steps": steps,
            "seeds": cfg.seeds,
        },
    }
    section = trend_section(results)
    if not section:
        section = ["", "No step has been scored by both arms of a pair yet."]
    plotted = plot_trend(trends, out / "gap_trend_so_far.png")
    table = "\n".join(
        [
            f"# The gap so far ({out}, models of {max(steps.values()):,} steps, {cfg.seeds} seeds)",
            *section,
            *(["", plotted] if plotted else []),
            "",
        ]
    )
    write_results(out, results, table, stem="so_far")
