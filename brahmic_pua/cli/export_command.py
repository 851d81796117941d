"""``brahmic-pua export``: a model in another program's format (text-spelled spm, llama.cpp's
GGUF); and
``brahmic-pua llama-text``, the text on either side of llama.cpp's tokenizer."""

from __future__ import annotations

from typing import BinaryIO

import click

from brahmic_pua.integrations.gguf import llama_text, write_gguf
from brahmic_pua.integrations.hf_json import tokenizer_json
from brahmic_pua.io.atomic import check_writable, write_atomic
from brahmic_pua.model.text_spelling import NotSpellable, spell_in_text

from .common import (
    INPUT,
    MODEL,
    OUTPUT,
    SETTINGS,
    Command,
    OutputFile,
    load_model,
    one_line_errors,
    transform_lines,
)

FORMATS = ("spm", "gguf", "tokenizer.json")


@click.command("export", cls=Command, context_settings=SETTINGS)
@MODEL
@click.option(
    "--to",
    "target",
    required=True,
    type=click.Choice(FORMATS),
    help="spm: the BPE model spelled in text (the same ids in stock sentencepiece, no Private "
    "Use pieces); gguf: a vocabulary-only GGUF for llama.cpp, which takes raw text for a BPE "
    "model (needs pip install gguf); tokenizer.json: a BPE model for Hugging Face tokenizers, "
    "transformers' fast tokenizers and tokenizers.js (docs/runtimes.md).",
)
@click.option("--output", required=True, type=OutputFile(), help="File to write.")
def export_command(model_path: str, target: str, output: str) -> None:
    """Write the model's tokenizer for another runtime (docs/runtimes.md says what each gives).

    A BPE model is written spelled in text: stock sentencepiece (spm), llama.cpp (gguf) and
    Hugging Face tokenizers (tokenizer.json) give our ids on raw text; llama.cpp needs it in
    the model's normalization first (NFC, or what llama-text --to llama writes). A Unigram
    model's GGUF needs llama-text (or brahmic_pua.integrations.gguf's llama_input and
    llama_output) on either side of llama.cpp; spm and tokenizer.json refuse it."""
    with one_line_errors():
        check_writable(output)
        data = load_model(model_path).serialized_model_proto()
        if target in ("spm", "tokenizer.json"):
            try:
                made = _text_spelled(data, model_path, target)
            except NotSpellable as error:
                raise click.ClickException(str(error)) from None
            write_atomic(output, made[0])
            click.echo(f"wrote {output} ({target}) from {model_path}: {made[1]}", err=True)
            return
        try:
            write_gguf(data, output)  # whole or not at all
        except ImportError as error:
            raise click.ClickException(str(error)) from None
    click.echo(f"wrote {output} ({target}) from {model_path}", err=True)


def _text_spelled(data: bytes, source: str, target: str) -> tuple[bytes, str]:
    """(the file's bytes, what it holds in one line) for ``--to spm`` or ``--to tokenizer.json``."""
    if target == "spm":
        spelled = spell_in_text(data, source)
        return spelled.data, spelled.summary()
    made = tokenizer_json(data, source)
    return made.text.encode("utf-8"), made.summary()


@click.command("llama-text", cls=Command, context_settings=SETTINGS)
@MODEL
@click.option(
    "--to",
    "target",
    required=True,
    type=click.Choice(("llama", "text")),
    help="llama: each line as llama.cpp's tokenizer must be given it (our ids come out); "
    "text: each line of llama.cpp's detokenized output as our decode gives it.",
)
@INPUT
@OUTPUT
def llama_text_command(model_path: str, target: str, input_: BinaryIO, output: str | None) -> None:
    """The text on either side of llama.cpp, for a GGUF written by export --to gguf.

    Any program around llama.cpp can call the same steps: llama_input and llama_output in
    brahmic_pua.integrations.gguf."""
    with one_line_errors():
        route = llama_text(load_model(model_path))
        transform_lines(input_, output, route.input if target == "llama" else route.output)
