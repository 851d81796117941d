"""The perplexity experiment of "Type-Driven Tokenization for Brahmic Scripts", measured honestly.

    python examples/perplexity/run.py --preset smoke           # < 20 s, the test runs this
    python examples/perplexity/run.py --preset cpu             # 4 arms × 3 seeds, ≤ 30 min
    python examples/perplexity/run.py --preset cpu-long --out DIR   # ≥ 20M tokens per model,
                                                               # resumable, gap vs compute
    python examples/perplexity/run.py --preset cpu --ngram-only     # Kneser–Ney n-grams only
    python examples/perplexity/run.py --preset paper --device cuda

Four tokenizers at one vocabulary size (plain spm Unigram and BPE with lossless options,
brahmic_pua Unigram and BPE; --stock-baseline adds spm with its default options), one small GPT
per tokenizer and seed, all scored on the same NFC held-out text (--heldout FILE…: each file
on its own, the models trained once): per-token perplexity as the paper reports it, and bits
per byte, which the conclusion rests on (per-token perplexity is not comparable across
tokenizers), with a paired bootstrap over held-out lines beside the seed intervals; NSL vs
o200k (GPT-4o's tokenizer) when the optional bpe-openai package is installed (pip install
'brahmic-pua[compare]'); orphan-mark tokens in the held-out encoding and in text each model
generates. With --arms, variants of the brahmic_pua trainer (policy=akshara,
character_coverage=0.9995, complete_word_starts off). Log-spaced checkpoints give the gap against
tokens seen (trend.py), the final models' bits are split by token class (attribution.py), and
--ngram adds interpolated modified Kneser–Ney models (ngram.py) as a converged comparator. Every
run keeps its tokenizers and its per-model training state in --out, so an interrupted run resumes,
--only-seeds lets two processes share one run, and --so-far reports the checkpoints saved so far.
Writes results.json, results.md, bits_per_byte.png, training_curves.png (and gap_trend.png).

This file is the experiment, top to bottom: main() goes settings → data → tokenizers → one model
per arm and seed (run_seed) → statistics → results. Beside it, each with one job: presets/*.toml
(every setting by name) and preset.py (reads them), options.py (the options), resume.py (what a
resumed run keeps), estimate.py (its finish time), measures.py, results.py (results.json and .md,
plots), so_far.py, ngram.py, attribution.py, trend.py, stats.py, gpt.py, data.py, report.py.
"""

from __future__ import annotations

import math
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import resume
import torch
from attribution import attribute_pairs
from composed import composition
from data import (
    ARM_SPECS,
    Arm,
    heldout_texts,
    line_bytes,
    per_line,
    text_size,
    train_arm,
    training_text,
)
from estimate import size_run
from gpt import GPT, TrainConfig, Trainer, gpt_config, parameter_count, sample, score
from measures import sample_metrics, tokenizer_table
from ngram import ngram_table
from options import arm_names, parse_args, settings
from preset import Preset
from regularize import SampledPasses
from report import UNDERTRAINED, markdown, ngram_markdown
from results import (
    arm_entry,
    data_settings,
    difference,
    heldout_file,
    plot_results,
    provenance,
    run_settings,
    score_arm,
    write_results,
)
from so_far import report_so_far
from trend import checkpoint_steps, gap_trend


def main(argv: list[str] | None = None) -> None:
    """The experiment with the options in ``argv`` (None: the command line's)."""
    started = time.perf_counter()
    # --- settings: the preset (presets/NAME.toml) with the command line's overrides
    args = parse_args(argv, __doc__)
    command = [sys.argv[0], *(sys.argv[1:] if argv is None else argv)]  # as typed
    cfg = settings(args)
    torch.set_num_threads(args.threads)
    if str(args.device).startswith("cuda"):
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    names = arm_names(args, cfg)

    # --- data: held-out lines no tokenizer or model trains on, and the training text
    texts = heldout_texts(args.heldout, cfg.heldout_lines)  # one per --heldout file
    heldout = texts[0]  # the text of the main tables, the checkpoints and the attribution
    news_tail = 0 if args.heldout else cfg.heldout_lines
    every_heldout_line = [line for text in texts for line in text]
    train_text, train_sources = training_text(
        cfg.train_lines, args.train_extra, every_heldout_line, news_tail, args.train
    )
    n_bytes, n_chars = text_size(heldout)
    heldout_line_bytes = line_bytes(heldout)
    train_bytes = text_size(train_text)[0]
    # made once the texts are read: a held-out file or corpus that is not there leaves no folder
    out = args.out or Path(tempfile.mkdtemp(prefix="perplexity_"))
    out.mkdir(parents=True, exist_ok=True)

    # --- tokenizers: one per arm, all at one vocabulary size on the same text
    tokenizers_seen = resume.tokenizer_request(cfg, args, train_sources, train_bytes)
    resume.check_request(out / "tokenizers" / "request.json", tokenizers_seen)
    arms = [train_arm(ARM_SPECS[n], train_text, cfg.vocab_size, out / "tokenizers") for n in names]
    (out / "tokenizers").mkdir(parents=True, exist_ok=True)
    resume.write_json(out / "tokenizers" / "request.json", {"request": tokenizers_seen})
    tokenizers_on = [  # their own numbers on each held-out text
        tokenizer_table(arms, text, train_text, cfg.vocab_size, out / "tokenizers")
        for text in texts
    ]
    tokenizers, o200k = tokenizers_on[0]
    recorded = data_settings(args, cfg, names, train_sources, train_text, heldout, o200k)
    ngrams_on: list[dict[str, Any]] | None = None
    if args.ngram or args.ngram_only:  # Kneser–Ney models: a converged comparator
        ngrams_on = ngram_table(arms, train_text, texts, args.ngram_orders, cfg.bootstrap)
    ngrams = None if ngrams_on is None else ngrams_on[0]
    sources = [str(path) for path in args.heldout or []]
    if args.ngram_only:
        results: dict[str, Any] = {"command": command, "settings": recorded}
        results |= {"tokenizers": tokenizers, "ngram": ngrams}
        if len(texts) > 1:
            results["heldout_files"] = [
                heldout_file(
                    sources[k],
                    text,
                    arms,
                    tokenizers_on[k][0],
                    cfg.bootstrap,
                    ngram=None if ngrams_on is None else ngrams_on[k],
                )
                for k, text in enumerate(texts)
            ]
        results |= provenance()
        results["wall_seconds"] = time.perf_counter() - started
        write_results(out, results, ngram_markdown(results))
        return

    # --- what every model trains on and is scored on; an earlier run in --out resumes
    streams = {a.name: torch.tensor(a.stream(train_text), dtype=torch.long) for a in arms}
    heldout_streams = {a.name: a.stream(heldout, lead=True) for a in arms}
    further = {a.name: [a.stream(t, lead=True) for t in texts[1:]] for a in arms}  # other files
    tokens_per_byte = {name: len(s) / train_bytes for name, s in streams.items()}
    checkpoint_lines = heldout[: args.checkpoint_lines]
    request = resume.run_request(cfg, args, tokenizers_seen, len(checkpoint_lines), names)
    if len(texts) > 1:  # each file scored on its own (not concatenated, as before)
        request["heldout_each"] = True
    state_dir = out / "state"
    stored = resume.check_request(state_dir / "run.json", request)
    if stored is not None:  # the sizes the earlier run chose (calibration included)
        cfg = resume.stored_settings(stored, cfg)
        print(f"resuming the run in {out} ({cfg.steps} steps per model)", file=sys.stderr)
    if args.so_far:
        if stored is None:
            raise SystemExit(
                f"--so-far: {out} holds no run begun with these options; give "
                "the --out and options of a run in progress"
            )
        steps = arm_steps(cfg, args.regime, tokens_per_byte)
        report_so_far(
            out, arms, cfg, steps, line_bytes(checkpoint_lines), len(checkpoint_lines), command
        )
        return
    chosen = sorted(set(args.only_seeds)) if args.only_seeds is not None else list(range(cfg.seeds))
    if cfg.calibrate or cfg.budget_minutes is not None or cfg.estimate:
        longest = max(len(s) + sum(map(len, further[n])) for n, s in heldout_streams.items())
        ckpt_tokens = max(len(a.stream(checkpoint_lines)) for a in arms)
        taken = resume.steps_taken(state_dir, arms, chosen)
        cfg = size_run(cfg, args, streams, started, longest, ckpt_tokens, taken)
    state_dir.mkdir(parents=True, exist_ok=True)
    resume.write_json(state_dir / "run.json", {"request": request, "settings": asdict(cfg)})
    steps = arm_steps(cfg, args.regime, tokens_per_byte)

    # --- one model per arm and seed, seed-major: a stopped run has whole pairs first
    budget = resume.Budget(args.stop_after_steps)
    # issue 30's levers, given to every arm alike: composed embeddings, sampled segmentations
    compositions = {a.name: composition(a, args.composed) for a in arms} if args.composed else {}
    pass_steps = {n: len(s) // (cfg.batch * cfg.context) for n, s in streams.items()}
    records: dict[str, list[dict[str, Any]]] = {arm.name: [] for arm in arms}
    skipped: list[str] = []  # with --only-seeds: models another process holds
    for seed in chosen:
        for arm in arms:
            rows = arm.encode(checkpoint_lines)
            scoring = Scoring(
                heldout_streams[arm.name],
                arm.stream(checkpoint_lines, lead=True),
                rows,
                checkpoint_steps(steps[arm.name], cfg.checkpoint_from, args.checkpoints),
                further[arm.name],
            )
            print(f"{arm.name} seed {seed}: {steps[arm.name]} steps", file=sys.stderr)
            folder = state_dir / arm.name / f"seed{seed}"
            passes = None
            if args.sampling is not None:
                passes = SampledPasses(
                    arm, train_text, args.sampling, seed, pass_steps[arm.name], folder
                )
            try:
                with resume.model_lock(folder):
                    record = run_seed(
                        arm,
                        seed,
                        cfg,
                        steps[arm.name],
                        streams[arm.name],
                        scoring,
                        1 / tokens_per_byte[arm.name],
                        args.device,
                        folder,
                        budget,
                        args.save_every,
                        compositions.get(arm.name),
                        passes,
                    )
            except resume.Busy as busy:
                if args.only_seeds is None:  # a report needs every model
                    raise SystemExit(f"{busy}: wait for that run to end, then report") from None
                print(f"  skipped: {busy}", file=sys.stderr)
                skipped.append(f"{arm.name} seed {seed}")
                continue
            if record is None:
                print(
                    f"stopped after --stop-after-steps {args.stop_after_steps} steps, "
                    f"state saved in {state_dir}; the same command resumes",
                    file=sys.stderr,
                )
                return
            records[arm.name].append(record)
    if args.only_seeds is not None:
        others = f" (except {', '.join(skipped)}, which other runs are training)" if skipped else ""
        print(
            f"seeds {', '.join(map(str, chosen))} finished{others}; the same command "
            "without --only-seeds reports every finished seed",
            file=sys.stderr,
        )
        return

    # --- statistics: each arm over seeds; each arm against the plain arm of its type
    checkpoint_bytes = line_bytes(checkpoint_lines)
    scores = {a.name: score_arm(a, records[a.name], heldout, n_bytes, n_chars) for a in arms}
    entries = {
        a.name: arm_entry(
            scores[a.name],
            tokenizers[a.name],
            tokens_per_byte[a.name],
            steps[a.name],
            len(streams[a.name]),
            checkpoint_bytes,
        )
        for a in arms
    }
    pairs = [a for a in arms if a.kind != "plain"]
    results = {"command": command, "arms": entries}
    results["differences"] = {
        a.name: difference(a, scores, heldout_line_bytes, cfg.bootstrap)
        | {"round_trip_rate": tokenizers[a.name]["round_trip_rate"]}
        for a in pairs
    }
    results["trend"] = {  # the gap against tokens seen, over the checkpoints
        a.name: gap_trend(
            scores[a.name].trajectory,
            scores[f"plain-{a.model_type}"].trajectory,
            checkpoint_bytes,
            cfg.bootstrap,
            min(cfg.warmup, steps[a.name]),
            entries[a.name]["compute"]["parameters"],
        )
        | {"baseline": f"plain-{a.model_type}"}
        for a in pairs
    }
    mean_nll = {name: s.mean_nll for name, s in scores.items()}
    results["attribution"] = attribute_pairs(arms, heldout, train_text, mean_nll)
    if ngrams is not None:
        results["ngram"] = ngrams
    results["identity_check"] = all(
        math.isclose(s["bits_per_byte"], s["identity_rhs"], rel_tol=1e-9)
        for arm_scores in scores.values()
        for s in arm_scores.scored
    )
    if len(texts) > 1:  # every file on its own, the first included (checked: the same numbers)
        results["heldout_files"] = [
            heldout_file(
                sources[k],
                text,
                arms,
                tokenizers_on[k][0],
                cfg.bootstrap,
                {a.name: [file_nll(r, k) for r in records[a.name]] for a in arms},
                None if ngrams_on is None else ngrams_on[k],
            )
            for k, text in enumerate(texts)
        ]

    # --- results: results.json (every number, the settings, the command), results.md, plots
    results["settings"] = run_settings(recorded, args, cfg, names, checkpoint_bytes, out)
    results |= {**provenance(), "undertrained": UNDERTRAINED}
    results["plot_note"] = plot_results(results, out)
    results["wall_seconds"] = time.perf_counter() - started
    write_results(out, results, markdown(results))
    for name, t in results["trend"].items():
        if t["fit"]["points"] >= 3:
            print(f"trend of {name} − {t['baseline']}: {t['fit']['verdict']}", file=sys.stderr)


def file_nll(record: dict[str, Any], k: int) -> list[float]:
    """A finished model's NLL per token of held-out file ``k`` (0: the first, its "nll")."""
    return list(record["nll"]) if k == 0 else list(record["nll_further"][k - 1])


def arm_steps(cfg: Preset, regime: str, tokens_per_byte: dict[str, float]) -> dict[str, int]:
    """Steps per arm: equal, or proportional to tokens per byte so bytes seen are equal."""
    if regime == "tokens":
        return dict.fromkeys(tokens_per_byte, cfg.steps)
    mean = math.fsum(tokens_per_byte.values()) / len(tokens_per_byte)
    return {name: max(1, round(cfg.steps * tpb / mean)) for name, tpb in tokens_per_byte.items()}


@dataclass
class Scoring:
    """What a run scores: the whole held-out stream at the end, the first lines at checkpoints,
    and, at the end, the stream of every further --heldout file."""

    heldout: list[int]
    checkpoint: list[int]
    checkpoint_rows: list[list[int]]
    marks: list[int] = field(default_factory=list)
    further: list[list[int]] = field(default_factory=list)


def run_seed(
    arm: Arm,
    seed: int,
    cfg: Preset,
    steps: int,
    stream: torch.Tensor,
    scoring: Scoring,
    train_bpt: float,
    device: str,
    folder: Path,
    budget: resume.Budget,
    save_every: int,
    composition: torch.Tensor | None = None,
    passes: SampledPasses | None = None,
) -> dict[str, Any] | None:
    """Train, score and sample one model; the final model is scored. Its state is saved in
    ``folder`` at every checkpoint, every ``save_every`` steps and when the budget stops it; a
    later call resumes from the last save, and a finished model's record (done.json) is read
    back (resume.py). Returns None when the budget stopped it. ``composition``: composed
    embeddings (composed.py); ``passes``: each pass over the training text sampled anew
    (regularize.py)."""
    saved = resume.ModelState(folder)
    finished = saved.finished()
    if finished is not None:
        print(f"  {arm.name} seed {seed}: finished earlier, read back", file=sys.stderr)
        return finished
    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    model = GPT(gpt_config(cfg, arm.vocab_size), composition).to(device)
    tcfg = TrainConfig(steps, cfg.batch, cfg.lr, cfg.min_lr, min(cfg.warmup, steps))
    trainer = Trainer(model, stream, tcfg, seed, device)
    checkpoints: list[dict[str, Any]] = []
    seconds = 0.0
    restored = saved.restore(trainer)
    if restored is not None:
        checkpoints, seconds = restored
        print(f"  {arm.name} seed {seed}: resumed at step {trainer.step}", file=sys.stderr)
    every = max(steps // 10, 1)
    step_tokens = cfg.batch * cfg.context
    while trainer.step < steps:
        if not budget.spend():
            saved.save(trainer, checkpoints, seconds, steps)
            return None
        start = time.perf_counter()
        if passes is not None:
            trainer.stream = passes.at(trainer.step)
        loss = trainer.take_step()
        seconds += time.perf_counter() - start
        step = trainer.step
        if (step - 1) % every == 0 or step == steps:
            print(f"  {arm.name} seed {seed}: step {step}/{steps} loss {loss:.3f}", file=sys.stderr)
        if step in scoring.marks and step < steps:
            nll = score(model, scoring.checkpoint, device)
            checkpoints.append(
                {
                    "step": step,
                    "tokens_seen": step * step_tokens,
                    "lines": per_line(nll, scoring.checkpoint_rows),
                }
            )
            saved.save(trainer, checkpoints, seconds, steps)
        elif step % save_every == 0 and step < steps:
            saved.save(trainer, checkpoints, seconds, steps)
    nll = score(model, scoring.heldout, device)
    lines = len(scoring.checkpoint_rows)
    first = sum(len(row) + 1 for row in scoring.checkpoint_rows)  # the checkpoint lines' tokens
    checkpoints.append(
        {
            "step": steps,
            "tokens_seen": steps * step_tokens,
            "lines": per_line(nll[:first], scoring.checkpoint_rows)[:lines],
        }
    )
    generated = sample(model, int(arm.processor.eos_id()), cfg.sample_tokens, seed, device)
    tokens_seen = steps * step_tokens
    # sampled passes are longer than the best segmentation's stream: bytes per token fewer
    if passes is not None:
        train_bpt *= len(stream) / passes.mean_tokens(steps)
    record = {
        "seed": seed,
        "steps": steps,
        "nll": nll,
        "samples": sample_metrics(arm, generated),
        "train_seconds": seconds,
        "loss_curve": trainer.losses,
        "parameters": parameter_count(model),
        "tokens_seen": tokens_seen,
        "bytes_seen": tokens_seen * train_bpt,
        "flops": 6 * parameter_count(model) * tokens_seen,
        "checkpoints": checkpoints,
    }
    if scoring.further:  # several --heldout files: each further one scored on its own
        record["nll_further"] = [score(model, s, device) for s in scoring.further]
    if passes is not None:
        record["sampled_pass_tokens"] = {str(k): v for k, v in sorted(passes.tokens.items())}
    saved.finish(model, record)
    return record


if __name__ == "__main__":
    main()
