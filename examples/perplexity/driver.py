"""How a run proceeds around the experiment: what run.py trains and scores is the experiment; this
is when and whether it does. The tokenizers and models an earlier run left in ``--out`` are
reused (resume.py), ``--so-far`` reports the checkpoints saved so far instead of training, the
calibration sizes the run (estimate.py), the models train seed-major, each under its lock, a
model another process holds is skipped under ``--only-seeds`` (and stops a report otherwise),
and ``--stop-after-steps`` or ``--only-seeds`` end the run, state saved, without a report.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import resume
from .config import Config
from .data import ARM_SPECS, Arm, Streams, line_bytes, train_arm
from .estimate import size_run
from .so_far import report_so_far

#: One model's training (run.py's run_seed with the streams bound): settings, arm, seed, its
#: steps, its state folder and the step budget; its record, or None when the budget stopped it.
TrainOne = Callable[[Config, Arm, int, int, Path, resume.Budget], dict[str, Any] | None]


def tokenizers(
    cfg: Config, names: list[str], train_text: list[str], folder: Path, request: dict[str, Any]
) -> list[Arm]:
    """Each arm's tokenizer, trained into ``folder`` or read back from an earlier run there
    begun for the same ``request`` (resume.tokenizer_request; another is refused)."""
    resume.check_request(folder / "request.json", request)
    arms = [train_arm(ARM_SPECS[n], train_text, cfg.vocab_size, folder) for n in names]
    folder.mkdir(parents=True, exist_ok=True)
    resume.write_json(folder / "request.json", {"request": request})
    return arms


def train(
    cfg: Config,
    out: Path,
    arms: list[Arm],
    data: Streams,
    request: dict[str, Any],
    started: float,
    command: list[str],
    train_one: TrainOne,
) -> tuple[Config, dict[str, list[dict[str, Any]]] | None]:
    """Every model of the run, each arm's records in seed order, with the settings it trained
    under (an earlier run's in ``out``, calibrated steps included); None instead of the records
    when the run ends without a report: --so-far (reported here), --only-seeds or the budget."""
    state = out / "state"
    stored = resume.check_request(state / "run.json", request)
    if stored is not None:  # the sizes the earlier run chose (calibration included)
        cfg = resume.stored_settings(stored, cfg)
        print(f"resuming the run in {out} ({cfg.steps} steps per model)", file=sys.stderr)
    if cfg.so_far:
        if stored is None:
            raise SystemExit(
                f"--so-far: {out} holds no run begun with these options; give "
                "the --out and options of a run in progress"
            )
        steps = cfg.arm_steps(data.tokens_per_byte)
        lines = data.checkpoint_lines
        report_so_far(out, arms, cfg, steps, line_bytes(lines), len(lines), command)
        return cfg, None
    chosen = list(range(cfg.seeds)) if cfg.only_seeds is None else sorted(set(cfg.only_seeds))
    if cfg.measures_speed():
        longest = max(len(s) + sum(map(len, data.further[n])) for n, s in data.heldout.items())
        checkpoint_tokens = max(len(a.stream(data.checkpoint_lines)) for a in arms)
        taken = resume.steps_taken(state, arms, chosen)
        cfg = size_run(cfg, data.train, started, longest, checkpoint_tokens, taken)
    state.mkdir(parents=True, exist_ok=True)
    resume.write_json(state / "run.json", {"request": request, "settings": cfg.preset_settings()})
    steps = cfg.arm_steps(data.tokens_per_byte)
    return cfg, _each_model(cfg, arms, state, chosen, steps, train_one)


def _each_model(
    cfg: Config,
    arms: list[Arm],
    state: Path,
    chosen: list[int],
    steps: dict[str, int],
    train_one: TrainOne,
) -> dict[str, list[dict[str, Any]]] | None:
    """Train the ``chosen`` seeds of every arm, seed-major, so that a stopped run has whole
    pairs first; the records, or None when the run stops without a report."""
    budget = resume.Budget(cfg.stop_after_steps)
    records: dict[str, list[dict[str, Any]]] = {arm.name: [] for arm in arms}
    skipped: list[str] = []  # with --only-seeds: models another process holds
    for seed in chosen:
        for arm in arms:
            print(f"{arm.name} seed {seed}: {steps[arm.name]} steps", file=sys.stderr)
            folder = state / arm.name / f"seed{seed}"
            try:
                with resume.model_lock(folder):
                    record = train_one(cfg, arm, seed, steps[arm.name], folder, budget)
            except resume.Busy as busy:
                if cfg.only_seeds is None:  # a report needs every model
                    raise SystemExit(f"{busy}: wait for that run to end, then report") from None
                print(f"  skipped: {busy}", file=sys.stderr)
                skipped.append(f"{arm.name} seed {seed}")
                continue
            if record is None:
                print(
                    f"stopped after --stop-after-steps {cfg.stop_after_steps} steps, "
                    f"state saved in {state}; the same command resumes",
                    file=sys.stderr,
                )
                return None
            records[arm.name].append(record)
    if cfg.only_seeds is not None:
        others = f" (except {', '.join(skipped)}, which other runs are training)" if skipped else ""
        print(
            f"seeds {', '.join(map(str, chosen))} finished{others}; the same command "
            "without --only-seeds reports every finished seed",
            file=sys.stderr,
        )
        return None
    return records
