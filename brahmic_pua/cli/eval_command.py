"""``brahmic-pua eval`` and ``brahmic-pua vocab``: measure a tokenizer (NepBPE's E4 metrics)
and list its vocabulary with script ids. Thin shells over :mod:`brahmic_pua.evaluation.evaluate` and
:mod:`brahmic_pua.model.script_ids`; any .model works, brahmic_pua's or plain spm's."""

from __future__ import annotations

from typing import Any

import click

from brahmic_pua.evaluation.evaluate import evaluate, format_table
from brahmic_pua.evaluation.o200k import O200k
from brahmic_pua.model.script_ids import vocabulary_lines

from .common import (
    FILE,
    MODEL,
    SETTINGS,
    TEXT_COLUMN,
    Command,
    bool_option,
    checked_text_column,
    json_option,
    load_model,
    model_option,
    read_texts,
    to_json,
)


@click.command("eval", cls=Command, context_settings=SETTINGS)
# No notice for a plain model, as --model or as --baseline: eval measures any tokenizer, the
# plain one a user already has included (docs/evaluate.md), and its orphan-mark and
# cluster-split rows show what a notice would say.
@model_option("The .model to measure.", plain_expected=True)
@click.option(
    "--baseline", "baseline_path", type=FILE, help="A .model to compare with (NSL reference)."
)
@bool_option(
    "--o200k", "Compare with OpenAI's o200k too (needs the bpe-openai package) [default: false]."
)
@json_option("Print the results as JSON.")
@TEXT_COLUMN
@click.argument("files", nargs=-1, required=True, type=FILE)
def eval_command(
    model_path: str,
    baseline_path: str | None,
    o200k: bool,
    as_json: bool,
    text_column: str | None,
    files: tuple[str, ...],
) -> None:
    """Measure a tokenizer on FILES, text (one text per line) or Parquet (*.parquet: the rows
    of --text_column, as train reads them): fertility, tokens per character,
    bytes per token, byte fallback, orphan marks, cluster splits, UNK and round-trip rates,
    vocabulary share per script, and NSL against --baseline (else o200k)."""
    column = checked_text_column(text_column, files)
    tokenizers: dict[str, Any] = {model_path: load_model(model_path)}
    if baseline_path is not None:
        name = baseline_path if baseline_path != model_path else f"{baseline_path} (baseline)"
        tokenizers[name] = load_model(baseline_path)
    if o200k:
        try:
            tokenizers[O200k.name] = O200k()
        except ValueError as error:
            raise click.ClickException(str(error)) from None
    texts = read_texts(files, parquet=True, column=column)
    reference = list(tokenizers)[1] if len(tokenizers) > 1 else None
    baseline = tokenizers[reference] if reference is not None else None
    columns = {name: evaluate(tok, texts, baseline) for name, tok in tokenizers.items()}
    document = {"files": list(files), "reference": reference, "models": columns}
    click.echo(to_json(document) if as_json else format_table(columns, reference))


@click.command("vocab", cls=Command, context_settings=SETTINGS)
@MODEL
@bool_option(
    "--script_ids", "Add each piece's script id and name [default: false].", "with_script_ids"
)
def vocab_command(model_path: str, with_script_ids: bool | None) -> None:
    """Print the vocabulary, one piece per id: piece<TAB>score (as in a .vocab file), pieces
    shown as text; --script_ids adds <TAB>id<TAB>script name (brahmic_pua.model.script_ids)."""
    for line in vocabulary_lines(load_model(model_path), bool(with_script_ids)):
        click.echo(line)
