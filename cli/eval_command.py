"""``brahmic-pua eval`` and ``brahmic-pua vocab``: measure a tokenizer (seed 000's E4 metrics)
and list its vocabulary with script ids. Thin shells over :mod:`brahmic_pua.evaluation.evaluate` and
:mod:`brahmic_pua.model.script_ids`; any .model works, brahmic_pua's or plain spm's."""

from __future__ import annotations

import json
from typing import Any

import click

from brahmic_pua import SentencePieceProcessor
from brahmic_pua.evaluation.evaluate import O200k, evaluate, format_table
from brahmic_pua.io.lines import file_lines
from brahmic_pua.model.script_ids import vocabulary_lines

MODEL_PATH = click.Path(exists=True, dir_okay=False)


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def _load(path: str) -> SentencePieceProcessor:
    try:
        return SentencePieceProcessor(model_file=path)
    except (ValueError, OSError, RuntimeError) as error:
        message = _one_line(error)
        raise click.ClickException(message if path in message else f"{path}: {message}") from None


def read_texts(paths: tuple[str, ...]) -> list[str]:
    """The non-blank lines of UTF-8 files, read by the one line rule (brahmic_pua.io.lines:
    line ends and a leading BOM dropped, as spm reads a corpus)."""
    try:
        texts = [line for path in paths for line in file_lines(path, skip_blank=True)]
    except ValueError as error:  # a byte that is not UTF-8: one line naming file, line, offset
        raise click.ClickException(str(error)) from None
    if not texts:
        raise click.ClickException(
            f"no text to evaluate: every line of {', '.join(paths)} is blank"
        )
    return texts


@click.command("eval")
@click.option(
    "--model", "model_path", required=True, type=MODEL_PATH, help="The .model to measure."
)
@click.option(
    "--baseline", "baseline_path", type=MODEL_PATH, help="A .model to compare with (NSL reference)."
)
@click.option(
    "--o200k", is_flag=True, help="Compare with OpenAI's o200k too (needs the bpe-openai package)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
def eval_command(
    model_path: str, baseline_path: str | None, o200k: bool, as_json: bool, files: tuple[str, ...]
) -> None:
    """Measure a tokenizer on text FILES (one text per line): fertility, tokens per character,
    bytes per token, byte fallback, orphan marks, cluster splits, UNK and round-trip rates,
    vocabulary share per script, and NSL against --baseline (else o200k)."""
    tokenizers: dict[str, Any] = {model_path: _load(model_path)}
    if baseline_path is not None:
        name = baseline_path if baseline_path != model_path else f"{baseline_path} (baseline)"
        tokenizers[name] = _load(baseline_path)
    if o200k:
        try:
            tokenizers[O200k.name] = O200k()
        except ValueError as error:
            raise click.ClickException(str(error)) from None
    texts = read_texts(files)
    reference = list(tokenizers)[1] if len(tokenizers) > 1 else None
    baseline = tokenizers[reference] if reference is not None else None
    columns = {name: evaluate(tok, texts, baseline) for name, tok in tokenizers.items()}
    if as_json:
        document = {"files": list(files), "reference": reference, "models": columns}
        click.echo(json.dumps(document, ensure_ascii=False, indent=2))
    else:
        click.echo(format_table(columns, reference))


@click.command("vocab")
@click.option("--model", "model_path", required=True, type=MODEL_PATH, help="A .model file.")
@click.option(
    "--script-ids", "with_script_ids", is_flag=True, help="Add each piece's script id and name."
)
def vocab_command(model_path: str, with_script_ids: bool) -> None:
    """Print the vocabulary, one piece per id: piece<TAB>score (as in a .vocab file), pieces
    shown as text; --script-ids adds <TAB>id<TAB>script name (brahmic_pua.model.script_ids)."""
    for line in vocabulary_lines(_load(model_path), with_script_ids):
        click.echo(line)
