"""``brahmic-pua filter``: disable vocabulary pieces of an existing model by named filters."""

from __future__ import annotations

from collections.abc import Iterator

import click

from brahmic_pua.io.lines import file_lines
from brahmic_pua.io.lists import comma_list
from brahmic_pua.model.model_file import read_model_file
from brahmic_pua.nepbpe.filters import (
    DEFAULT_THETA,
    FILTERS,
    apply_filters,
    check_filter_inputs,
    check_filters,
)
from brahmic_pua.nepbpe.seeds import load_seeds
from brahmic_pua.trainer.checks import unused_seeds

from .common import (
    FILE,
    MODEL,
    SETTINGS,
    Command,
    OutputFile,
    bool_option,
    check_model_output,
    one_line_errors,
    write_model,
)


def corpus_lines(paths: tuple[str, ...]) -> Iterator[str]:
    """The corpus's lines, read by the one line rule (brahmic_pua.io.lines)."""
    for path in paths:
        yield from file_lines(path)


@click.command("filter", cls=Command, context_settings=SETTINGS)
@MODEL
@click.option(
    "--output",
    required=True,
    type=OutputFile(),
    help="The filtered .model to write (its .vocab is written beside it).",
)
@click.option(
    "--filters",
    "names",
    required=True,
    help=f"Comma-separated, applied in order: {','.join(FILTERS)}.",
)
@click.option("--seeds_strict", type=FILE, help="Seed file: V_strict, one seed per line.")
@click.option("--seeds_ambiguous", type=FILE, help="Seed file: V_ambiguous, one seed per line.")
@bool_option("--nepali_seeds", "Add the shipped Nepali seeds [default: false].", "nepali")
@click.option(
    "--corpus",
    multiple=True,
    type=FILE,
    help="Corpus for the theta filter's counts, usually the training text (repeatable).",
)
@click.option("--theta", type=float, default=DEFAULT_THETA, show_default=True, help="θ as a count.")
@click.option(
    "--theta_per_million",
    type=float,
    default=None,
    help="θ per million corpus words instead of a count.",
)
def filter_command(
    model_path: str,
    output: str,
    names: str,
    seeds_strict: str | None,
    seeds_ambiguous: str | None,
    nepali: bool | None,
    corpus: tuple[str, ...],
    theta: float,
    theta_per_million: float | None,
) -> None:
    """Disable pieces by filter (UNUSED: ids stay); print how many each filter disabled."""
    with one_line_errors():
        chosen = check_filters(comma_list(names))
        if not chosen:
            raise ValueError(f"--filters names no filter: choose from {', '.join(FILTERS)}")
        given = bool(seeds_strict or seeds_ambiguous or nepali)
        check_filter_inputs(
            chosen,
            seeds=given,
            corpus=bool(corpus),
            give_corpus="--corpus",
            give_seeds="--seeds_strict, --seeds_ambiguous or --nepali_seeds",
        )
        if (unused := unused_seeds(chosen, given)) is not None:
            click.echo(f"brahmic_pua: {unused}", err=True)
        seeds = load_seeds(seeds_strict, seeds_ambiguous, bool(nepali)) if given else None
        check_model_output(output)
        data = read_model_file(model_path)
        filtered, report = apply_filters(
            data,
            chosen,
            seeds=seeds,
            corpus=corpus_lines(corpus) if corpus else None,
            theta=theta,
            theta_per_million=theta_per_million,
            source=model_path,
        )
        write_model(output, filtered)
    for line in report.lines():
        click.echo(line)
