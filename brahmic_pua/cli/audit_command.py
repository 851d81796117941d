"""``brahmic-pua audit``: where a tokenizer someone already has breaks Brahmic clusters. A thin
shell over :mod:`brahmic_pua.evaluation.audit`; any SentencePiece .model or Hugging Face
tokenizer.json."""

from __future__ import annotations

import click

from brahmic_pua.evaluation.audit import Audited, audit, format_report, load
from brahmic_pua.model.manifest import model_beside

from .common import SETTINGS, Command, inputs_option, json_option, model_option, read_texts, to_json


def _load(path: str) -> Audited:
    """The tokenizer, or one line saying what the file is, with the .model beside it if any."""
    try:
        return load(path)
    except ValueError as error:
        beside = model_beside(path)
        if beside is None or beside in str(error):
            raise
        raise ValueError(f"{error}; use {beside}, beside it") from None


@click.command("audit", cls=Command, context_settings=SETTINGS)
# No notice for a plain model: judging the tokenizer someone already has, plain spm's above
# all, is what audit is for, and its report counts the clusters the model breaks.
@model_option(
    "A SentencePiece .model (plain or brahmic_pua) or a Hugging Face tokenizer.json.",
    plain_expected=True,
)
@inputs_option("Also audit the encoding of this UTF-8 text file, one text per line (repeatable).")
@json_option("Print the report as JSON.")
def audit_command(model_path: str, inputs: tuple[str, ...], as_json: bool) -> None:
    """Count, per script, the usable pieces that start with a combining mark, end in a
    conjunct-forming virama, join two scripts, or are byte pieces; with --input, the same per
    1000 tokens of the encoded text, plus orphan marks, cluster and conjunct splits, byte
    fallback, fertility and the round-trip rate (a tokenizer.json needs the tokenizers package:
    pip install 'brahmic-pua[hf]')."""
    tokenizer = _load(model_path)
    texts = read_texts(inputs) if inputs else None
    report = audit(tokenizer, texts, files=inputs, model=model_path)
    click.echo(to_json(report) if as_json else format_report(report))
