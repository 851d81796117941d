"""``brahmic-pua audit`` on valid tokenizer.json files of unusual shape: ids with gaps, an
``unk_token`` missing from the vocabulary. Needs the optional ``hf`` extra (tokenizers): where it
is missing the tests skip visibly, and fail under CI (see ``require_extra`` in conftest.py)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import require_extra

from brahmic_pua.cli.main import main
from brahmic_pua.evaluation.audit import audit, audit_text, audit_vocabulary, load


def run_audit(*args: str) -> Any:
    return CliRunner().invoke(main, ["audit", *args])


def tokenizers_module() -> ModuleType:
    """The optional tokenizers package (the hf extra)."""
    require_extra("tokenizers", "hf", "auditing a tokenizer.json")
    import tokenizers

    return tokenizers


def word_level(tmp_path: Path, vocab: dict[str, int], unk: str) -> Path:
    """A WordLevel tokenizer.json on whitespace-split words, saved by ``tokenizers`` itself
    (so a file ``tokenizers`` accepts)."""
    tk = tokenizers_module()
    tokenizer = tk.Tokenizer(tk.models.WordLevel(vocab=vocab, unk_token=unk))
    tokenizer.pre_tokenizer = tk.pre_tokenizers.WhitespaceSplit()
    path = tmp_path / "tokenizer.json"
    tokenizer.save(str(path))
    return path


def test_audit_word_level_vocabulary_with_gaps_in_its_ids(tmp_path: Path) -> None:
    """Ids 0, 1, 4, 7: the ids no token has are unused pieces, not an IndexError when the
    text's tokens (ids 4 and 7) are looked up."""
    path = word_level(tmp_path, {"<unk>": 0, "తెలుగు": 1, "భాష": 4, "చాలా": 7}, "<unk>")
    tokenizer = load(path)
    assert tokenizer.get_piece_size() == 8
    assert [i for i in range(8) if tokenizer.is_unused(i)] == [2, 3, 5, 6]
    assert tokenizer.is_unknown(0) and tokenizer.id_to_piece(4) == "భాష"
    report = audit(tokenizer, ["తెలుగు భాష చాలా", "ఇంగ్లీషు భాష"], model=str(path))
    vocabulary = report["vocabulary"]
    assert (vocabulary["size"], vocabulary["special"]) == (8, 5)  # <unk> and 4 unused ids
    assert vocabulary["scripts"]["telugu"]["pieces"] == 3
    assert report["text"]["tokens"] == 5 and report["text"]["unk_rate"] > 0
    text = tmp_path / "text.txt"
    text.write_text("తెలుగు భాష చాలా\n", encoding="utf-8")
    result = run_audit("--model", str(path), "--input", str(text))
    assert result.exit_code == 0, result.output
    assert "8 pieces (3 usable, 5 control/unknown/unused)" in result.output


def test_audit_word_level_vocabulary_without_its_unk_token(tmp_path: Path) -> None:
    """The vocabulary is audited; encoding a word outside it (which ``tokenizers`` cannot do
    without the unk token) is one line naming the fault, not a bare Exception."""
    path = word_level(tmp_path, {"తెలుగు": 0, "భాష": 1}, "<unk>")
    tokenizer = load(path)
    assert audit_vocabulary(tokenizer)["scripts"]["telugu"]["pieces"] == 2
    assert audit_text(tokenizer, ["తెలుగు భాష"])["tokens"] == 2  # words it has: no unk needed
    with pytest.raises(ValueError, match="unk_token '<unk>' is not in its vocabulary"):
        audit_text(tokenizer, ["తెలుగు చాలా"])
    assert run_audit("--model", str(path)).exit_code == 0  # the vocabulary alone
    text = tmp_path / "text.txt"
    text.write_text("తెలుగు చాలా\n", encoding="utf-8")
    result = run_audit("--model", str(path), "--input", str(text))
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert str(path) in result.output and "unk_token '<unk>' is not in" in result.output
