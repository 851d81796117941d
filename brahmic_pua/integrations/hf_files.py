"""The files of a tokenizer directory: what ``save_pretrained`` writes, and how a prefixed
save is read back.

transformers resolves only unprefixed names (``tokenizer_config.json``), so a directory that
``save_pretrained(dir, filename_prefix=P)`` wrote is read here (:func:`prefixed_files`); and a
file that only some saves write would be read back as the next save's own, so a save removes
an earlier one first (:func:`remove_earlier`).
"""

from __future__ import annotations

from pathlib import Path

from transformers.utils import CHAT_TEMPLATE_DIR, CHAT_TEMPLATE_FILE

from brahmic_pua.integrations.hf_fast import FAST_FILE

MODEL_FILE = "brahmic_pua.model"
#: Not ``tokenizer.model``: generic loaders would pick that up and decode it to PUA codes.
VOCAB_FILES_NAMES = {"vocab_file": MODEL_FILE}
AUTO_MODULE = "tokenization_brahmic_pua"
AUTO_MODULE_TEXT = '''"""For AutoTokenizer.from_pretrained(dir, trust_remote_code=True): the
tokenizer from the installed brahmic_pua (pip install 'brahmic-pua[hf]')."""

from brahmic_pua.hf import {name}

__all__ = ["{name}"]
'''
#: What ``save_pretrained(dir, filename_prefix=P)`` writes as ``P-<name>``, by the key under
#: which ``from_pretrained`` resolves the unprefixed file (it never looks for prefixed ones).
PREFIXED = {
    "vocab_file": MODEL_FILE,
    "tokenizer_config_file": "tokenizer_config.json",
    "added_tokens_file": "added_tokens.json",
    "special_tokens_map_file": "special_tokens_map.json",
    "chat_template_file": CHAT_TEMPLATE_FILE,
}
#: What ``save_pretrained`` writes only where the tokenizer has it (added tokens beyond the
#: model, a chat template; the named templates go under ``CHAT_TEMPLATE_DIR``), and
#: ``from_pretrained`` reads back wherever it is: a copy an earlier save left is removed first.
WRITTEN_IF_SET = ("added_tokens.json", CHAT_TEMPLATE_FILE, FAST_FILE)


def remove_earlier(directory: Path, prefix: str | None) -> None:
    """The files of :data:`WRITTEN_IF_SET` under ``prefix`` in ``directory``, and the named
    chat templates (``*.jinja`` of its ``CHAT_TEMPLATE_DIR``, the folder too once empty)."""
    start = f"{prefix}-" if prefix else ""
    for name in WRITTEN_IF_SET:
        (directory / f"{start}{name}").unlink(missing_ok=True)
    named = directory / f"{start}{CHAT_TEMPLATE_DIR}"
    if named.is_dir():
        for template in named.glob("*.jinja"):
            template.unlink()
        if not any(named.iterdir()):
            named.rmdir()


def prefixed_files(directory: Path, prefix: str | None) -> dict[str, str | None]:
    """The files ``save_pretrained(directory, filename_prefix=prefix)`` wrote, by the keys
    ``from_pretrained`` resolves (``None`` where one was not written); without ``prefix``, the
    one prefix of a ``*-brahmic_pua.model`` in the directory. A missing or ambiguous model is
    one line saying so, not the processor's "cannot read model None"."""
    if prefix is None:
        found = sorted(
            path.name[: -len(MODEL_FILE) - 1] for path in directory.glob(f"?*-{MODEL_FILE}")
        )
        if not found:
            raise ValueError(
                f"{directory} holds no {MODEL_FILE}: not a directory that "
                "BrahmicPuaTokenizer.save_pretrained wrote"
            )
        if len(found) > 1:
            raise ValueError(
                f"{directory} holds {len(found)} prefixed models ({', '.join(found)}): "
                "pass filename_prefix= to from_pretrained to choose one"
            )
        prefix = found[0]
    files = {key: directory / f"{prefix}-{name}" for key, name in PREFIXED.items()}
    for template in (directory / f"{prefix}-{CHAT_TEMPLATE_DIR}").glob("*.jinja"):
        files[f"chat_template_{template.stem}"] = template  # the keys transformers reads
    if not files["vocab_file"].is_file():
        raise ValueError(f"{directory} holds no {prefix}-{MODEL_FILE}")
    return {key: str(path) if path.is_file() else None for key, path in files.items()}
