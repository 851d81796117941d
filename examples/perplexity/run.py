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
per arm and seed (run_seed) → statistics → results. Beside it, each with one job: config.py
(every setting, its default and its option), presets/*.toml (overrides of it) and preset.py
(reads them), options.py (the command line), driver.py (when and whether models train: resume,
--so-far, --only-seeds, the budget), resume.py (what a resumed run keeps), estimate.py (its
finish time), measures.py, results.py (results.json and .md, plots), so_far.py, ngram.py,
attribution.py, trend.py, stats.py, gpt.py, data.py, report.py.
"""

from __future__ import annotations

import math
import sys
import tempfile
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

# Run as a file (``python examples/perplexity/run.py``), this folder is sys.path[0]: the
# repository root goes first, so that the experiment's modules import as one package,
# examples.perplexity, as tests and tools import them.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch

from examples.perplexity import driver, resume
from examples.perplexity.attribution import attribute_pairs
from examples.perplexity.composed import composition
from examples.perplexity.config import Config
from examples.perplexity.data import (
    Arm,
    Streams,
    heldout_texts,
    line_bytes,
    per_line,
    text_size,
    training_text,
)
from examples.perplexity.gpt import (
    GPT,
    Trainer,
    gpt_config,
    parameter_count,
    sample,
    score,
    train_config,
)
from examples.perplexity.measures import sample_metrics, tokenizer_table
from examples.perplexity.ngram import ngram_table
from examples.perplexity.options import arm_names, parse_args, settings
from examples.perplexity.regularize import SampledPasses
from examples.perplexity.report import UNDERTRAINED, markdown, ngram_markdown
from examples.perplexity.results import (
    arm_entry,
    data_settings,
    difference,
    heldout_files,
    plot_results,
    provenance,
    run_settings,
    score_arm,
    write_results,
)
from examples.perplexity.trend import checkpoint_steps, gap_trend


def main(argv: list[str] | None = None) -> None:
    """The experiment with the options in ``argv`` (None: the command line's)."""
    started = time.perf_counter()
    # --- settings: Config's defaults (the paper's), the preset's, then the command line's
    cfg = settings(parse_args(argv, __doc__))
    command = [sys.argv[0], *(sys.argv[1:] if argv is None else argv)]  # as typed
    torch.set_num_threads(cfg.threads)
    if cfg.device.startswith("cuda"):
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    names = arm_names(cfg)

    # --- data: held-out lines no tokenizer or model trains on, and the training text
    texts = heldout_texts(list(cfg.heldout), cfg.heldout_lines)  # one per --heldout file
    heldout = texts[0]  # the text of the main tables, the checkpoints and the attribution
    news_tail = 0 if cfg.heldout else cfg.heldout_lines
    every_heldout_line = [line for text in texts for line in text]
    train_text, train_sources = training_text(
        cfg.train_lines, cfg.train_extra, every_heldout_line, news_tail, cfg.train
    )
    train_bytes = text_size(train_text)[0]
    # made once the texts are read: a held-out file or corpus that is not there leaves no folder
    out = cfg.out or Path(tempfile.mkdtemp(prefix="perplexity_"))
    out.mkdir(parents=True, exist_ok=True)

    # --- tokenizers: one per arm, all at one vocabulary size on the same text (kept in --out)
    tokenizers_seen = resume.tokenizer_request(cfg, train_sources, train_bytes)
    arms = driver.tokenizers(cfg, names, train_text, out / "tokenizers", tokenizers_seen)
    tokenizers_on = [  # their own numbers on each held-out text
        tokenizer_table(arms, text, train_text, cfg.vocab_size, out / "tokenizers")
        for text in texts
    ]
    tokenizers, o200k = tokenizers_on[0]
    recorded = data_settings(cfg, names, train_sources, train_text, heldout, o200k)
    ngrams_on: list[dict[str, Any]] | None = None
    if cfg.ngram or cfg.ngram_only:  # Kneser–Ney models: a converged comparator
        ngrams_on = ngram_table(arms, train_text, texts, list(cfg.ngram_orders), cfg.bootstrap)
    ngrams = None if ngrams_on is None else ngrams_on[0]
    results: dict[str, Any] = {"command": command}
    if cfg.ngram_only:  # no GPT: the tokenizers' and the n-grams' tables are the report
        results |= {"settings": recorded, "tokenizers": tokenizers, "ngram": ngrams}
        if len(texts) > 1:
            results["heldout_files"] = heldout_files(cfg, texts, arms, tokenizers_on, ngrams_on)
        results |= {**provenance(), "wall_seconds": time.perf_counter() - started}
        write_results(out, results, ngram_markdown(results))
        return

    # --- train: one model per arm and seed (run_seed); driver.py resumes the run in --out,
    # sizes it, and ends it without a report under --so-far, --only-seeds or the budget
    data = Streams.of(arms, train_text, texts, cfg.checkpoint_lines)
    request = resume.run_request(cfg, tokenizers_seen, len(data.checkpoint_lines), names)
    # issue 30's levers, given to every arm alike: composed embeddings, sampled segmentations
    compositions = {a.name: composition(a, cfg.composed) for a in arms} if cfg.composed else {}
    train_one = partial(run_seed, data=data, train_text=train_text, compositions=compositions)
    cfg, records = driver.train(cfg, out, arms, data, request, started, command, train_one)
    if records is None:  # the run ended without a report (driver.py said why)
        return

    # --- statistics: each arm over seeds; each arm against the plain arm of its type
    steps = cfg.arm_steps(data.tokens_per_byte)
    results |= statistics(cfg, arms, records, steps, data, texts, train_text, tokenizers, ngrams)
    if len(texts) > 1:  # every file on its own, the first included (checked: the same numbers)
        files = heldout_files(cfg, texts, arms, tokenizers_on, ngrams_on, records)
        results["heldout_files"] = files

    # --- results: results.json (every number, the settings, the command), results.md, plots
    checkpoint_bytes = line_bytes(data.checkpoint_lines)
    results["settings"] = run_settings(recorded, cfg, names, checkpoint_bytes, out)
    results |= {**provenance(), "undertrained": UNDERTRAINED}
    results["plot_note"] = plot_results(results, out)
    results["wall_seconds"] = time.perf_counter() - started
    write_results(out, results, markdown(results))
    for name, t in results["trend"].items():
        if t["fit"]["points"] >= 3:
            print(f"trend of {name} − {t['baseline']}: {t['fit']['verdict']}", file=sys.stderr)


def statistics(
    cfg: Config,
    arms: list[Arm],
    records: dict[str, list[dict[str, Any]]],
    steps: dict[str, int],
    data: Streams,
    texts: list[list[str]],
    train_text: list[str],
    tokenizers: dict[str, dict[str, float]],
    ngrams: dict[str, Any] | None,
) -> dict[str, Any]:
    """The finished models' numbers on the first held-out text (``texts[0]``): each arm's entry
    over its seeds (``records``), each non-plain arm's difference from the plain arm of its type
    and its trend over the checkpoints, where the bits go, the n-gram table (``ngrams``, when
    fitted) and the check that bits per byte equal the identity's right-hand side."""
    heldout = texts[0]
    checkpoint_bytes = line_bytes(data.checkpoint_lines)
    n_bytes, n_chars = text_size(heldout)
    scores = {a.name: score_arm(a, records[a.name], heldout, n_bytes, n_chars) for a in arms}
    entries = {
        a.name: arm_entry(
            scores[a.name],
            tokenizers[a.name],
            data.tokens_per_byte[a.name],
            steps[a.name],
            len(data.train[a.name]),
            checkpoint_bytes,
        )
        for a in arms
    }
    pairs = [a for a in arms if a.kind != "plain"]
    results: dict[str, Any] = {"arms": entries}
    results["differences"] = {
        a.name: difference(a, scores, line_bytes(heldout), cfg.bootstrap)
        | {"round_trip_rate": tokenizers[a.name]["round_trip_rate"]}
        for a in pairs
    }
    results["trend"] = {  # the gap against tokens seen, over the checkpoints
        a.name: gap_trend(
            scores[a.name].trajectory,
            scores[f"plain-{a.model_type}"].trajectory,
            checkpoint_bytes,
            cfg.bootstrap,
            cfg.warmed_up(steps[a.name]),
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
    return results


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
    cfg: Config,
    arm: Arm,
    seed: int,
    steps: int,
    folder: Path,
    budget: resume.Budget,
    *,
    data: Streams,
    train_text: list[str],
    compositions: dict[str, torch.Tensor],
) -> dict[str, Any] | None:
    """Train, score and sample one model of ``steps`` steps; the final model is scored. Its
    state is saved in ``folder`` at every checkpoint, every ``--save-every`` steps and when the
    budget stops it; a later call resumes from the last save, and a finished model's record
    (done.json) is read back (resume.py). Returns None when the budget stopped it.
    ``compositions``: each arm's composed embeddings (composed.py; none without --composed);
    with --sampling, each pass over ``train_text`` is sampled anew (regularize.py)."""
    saved = resume.ModelState(folder)
    finished = saved.finished()
    if finished is not None:
        print(f"  {arm.name} seed {seed}: finished earlier, read back", file=sys.stderr)
        return finished
    stream, device = data.train[arm.name], cfg.device
    scoring = Scoring(
        data.heldout[arm.name],
        arm.stream(data.checkpoint_lines, lead=True),
        arm.encode(data.checkpoint_lines),
        checkpoint_steps(steps, cfg.checkpoint_from, cfg.checkpoints),
        data.further[arm.name],
    )
    passes = None
    if cfg.sampling is not None:
        pass_steps = len(stream) // (cfg.batch * cfg.context)
        passes = SampledPasses(arm, train_text, cfg.sampling, seed, pass_steps, folder)
    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    model = GPT(gpt_config(cfg, arm.vocab_size), compositions.get(arm.name)).to(device)
    trainer = Trainer(model, stream, train_config(cfg, steps), seed, device)
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
        elif step % cfg.save_every == 0 and step < steps:
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
    train_bpt = 1 / data.tokens_per_byte[arm.name]
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
