"""What makes an interrupted run resume: the options a folder was begun with, each model's saved
state, the lock that keeps two processes off one model, and the step budget of one invocation.

A long run (``--preset cpu-long``: hours per model) outlives a session, so ``--out`` holds
everything needed to continue it: tokenizers/request.json and state/run.json record the options
whose change would make the saved tokenizers or models another run's (check_request refuses
them), and state/ARM/seedN holds one model: train.pt while it trains (model, optimizer, step,
losses, generators, checkpoint scores), progress.json (its step), then done.json (its record)
and model.pt once finished. The same command resumes a model from its last save and reads a
finished one back, which on the same machine gives the result of a run never stopped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch

from brahmic_pua.io.lock import Held, exclusive

from .config import Config
from .data import Arm
from .gpt import GPT, Trainer

Checkpoints = list[dict[str, Any]]  # {"step", "tokens_seen", "lines": per-line NLL}


def write_json(path: Path, value: Any) -> None:
    """Write ``path`` whole or not at all (a killed run leaves the last complete file)."""
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(value, ensure_ascii=False) + "\n", encoding="utf-8")
    part.replace(path)


def tokenizer_request(
    cfg: Config, train_sources: dict[str, Any], train_bytes: int
) -> dict[str, Any]:
    """What the saved tokenizers depend on: a folder's tokenizers are reused only for these."""
    return {
        "vocab_size": cfg.vocab_size,
        "train_lines": cfg.train_lines,
        "train_extra": sorted(cfg.train_extra),
        "train_sources": train_sources,
        "train_bytes": train_bytes,
    }


#: Options that change every model's training (issue 30's levers); recorded only when given, so
#: a folder begun before they existed still resumes.
LEVERS = ("sampling", "composed")


def run_request(
    cfg: Config,
    tokenizers: dict[str, Any],
    checkpoint_lines: int,
    names: list[str],
) -> dict[str, Any]:
    """What the saved models depend on. Seeds, resamples and the budget may change between
    invocations (a --seeds 1 run extends to --seeds 3); the arms too, except under --regime
    bytes, where every arm's steps depend on the others' tokens per byte."""
    return {
        "preset": cfg.preset,
        "regime": cfg.regime,
        **{
            k: v
            for k, v in cfg.preset_settings().items()
            if k not in ("seeds", "bootstrap", "budget_minutes", "arms")
        },
        "tokenizers": tokenizers,
        "heldout": [str(p) for p in cfg.heldout],
        # a list, as run.json reads it back (a tuple would never equal it)
        "checkpoints": None if cfg.checkpoints is None else list(cfg.checkpoints),
        "checkpoint_lines": checkpoint_lines,
        "arms": sorted(names) if cfg.regime == "bytes" else None,
        **{lever: getattr(cfg, lever) for lever in LEVERS if getattr(cfg, lever) is not None},
        # each of several --heldout files scored on its own (not concatenated, as before)
        **({"heldout_each": True} if len(cfg.heldout) > 1 else {}),
    }


def check_request(path: Path, request: dict[str, Any]) -> dict[str, Any] | None:
    """The stored record of an earlier run in this output folder (None for a new folder),
    refusing one made with other options: its tokenizers and states would not be this run's."""
    if not path.is_file():
        return None
    stored: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if stored["request"] != request:
        keys = sorted(
            k for k in {*stored["request"], *request} if stored["request"].get(k) != request.get(k)
        )
        raise SystemExit(
            f"{path.parent.parent} holds a run with other options ({', '.join(keys)}: "
            f"{[stored['request'].get(k) for k in keys]} there, {[request.get(k) for k in keys]} "
            "now); give a new --out, or the same options to resume it"
        )
    return stored


def stored_settings(stored: dict[str, Any], cfg: Config) -> Config:
    """The settings an earlier run in this folder chose (a calibrated step count included),
    with this invocation's arms, seeds, resamples and budget, which may change."""
    kept = ("arms", "seeds", "bootstrap", "budget_minutes")
    chosen = {k: v for k, v in stored["settings"].items() if k not in kept}
    return replace(cfg, **{**chosen, "calibrate": False})


@dataclass
class Budget:
    """Training steps this invocation may still take (``--stop-after-steps``; None: no limit)."""

    left: int | None
    stopped: bool = False

    def spend(self) -> bool:
        """Whether one more step may be taken."""
        if self.left is None:
            return True
        if self.left <= 0:
            self.stopped = True
            return False
        self.left -= 1
        return True


class ModelState:
    """One model's folder (state/ARM/seedN): its training state while it trains, its record
    once finished. Saved at every checkpoint, every ``--save-every`` steps and when the budget
    stops the run (not on Ctrl-C, which may fall inside an optimizer step)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.done = folder / "done.json"
        self.state = folder / "train.pt"

    def finished(self) -> dict[str, Any] | None:
        """A finished model's record, read back instead of trained again."""
        if not self.done.is_file():
            return None
        record: dict[str, Any] = json.loads(self.done.read_text(encoding="utf-8"))
        return record

    def steps_taken(self) -> int | None:
        """Steps a model still to finish has taken (0: not begun); None once finished."""
        if self.done.is_file():
            return None
        progress = self.folder / "progress.json"
        return int(json.loads(progress.read_text())["step"]) if progress.is_file() else 0

    def restore(self, trainer: Trainer) -> tuple[Checkpoints, float] | None:
        """Load the saved state into ``trainer``: its checkpoints and training seconds so far,
        or None when the model has no saved state (it starts from step 0)."""
        if not self.state.is_file():
            return None
        state = torch.load(self.state, map_location="cpu", weights_only=True)
        trainer.load_state_dict(state)
        return list(state["checkpoints"]), float(state["train_seconds"])

    def save(self, trainer: Trainer, checkpoints: Checkpoints, seconds: float, steps: int) -> None:
        """The trainer's state with the checkpoints and seconds so far (train.pt, written whole
        or not at all), and its step for the finish-time estimate (progress.json)."""
        part = self.state.with_name(self.state.name + ".part")
        torch.save(
            trainer.state_dict() | {"checkpoints": checkpoints, "train_seconds": seconds}, part
        )
        part.replace(self.state)
        write_json(self.folder / "progress.json", {"step": trainer.step, "steps": steps})

    def finish(self, model: GPT, record: dict[str, Any]) -> None:
        """Keep the final model and its record; the training state is no longer needed."""
        torch.save(model.state_dict(), self.folder / "model.pt")
        write_json(self.done, record)
        self.state.unlink(missing_ok=True)


def steps_taken(state_dir: Path, arms: list[Arm], seeds: list[int]) -> list[int]:
    """The steps taken by each model still to finish (0 for one not begun), for the estimate."""
    folders = [state_dir / arm.name / f"seed{seed}" for arm in arms for seed in seeds]
    taken = [ModelState(folder).steps_taken() for folder in folders]
    return [t for t in taken if t is not None]


class Busy(Exception):
    """Another process holds a model's lock (the message names it)."""


@contextmanager
def model_lock(folder: Path) -> Iterator[None]:
    """Hold ``folder``'s lock while one model trains in it (brahmic_pua/io/lock.py), or raise
    Busy naming the process that holds it: two processes training one model would overwrite
    each other's saved state."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with exclusive(folder / "lock"):
            yield
    except Held as held:
        raise Busy(f"{folder} is being trained by {held.holder}") from None
