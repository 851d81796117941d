"""A pickled processor comes back as it was: its class, a subclass's own attributes, its
options and its model, as stock's does; and a state holding only the serialized model (what
older versions pickled) loads."""

from __future__ import annotations

import copy
import pickle
import unicodedata
from pathlib import Path
from typing import Any

from conftest import sample_held_out

import brahmic_pua as spm

LINES = [unicodedata.normalize("NFC", line) for line in sample_held_out("te")[:20] if line]


class Tagged(spm.SentencePieceProcessor):
    """A user's subclass with an attribute of its own."""

    def __init__(self, tag: str, **options: Any) -> None:
        super().__init__(**options)
        self.tag = tag


def test_a_subclass_keeps_its_class_attributes_and_options(sample_models: dict[str, Path]) -> None:
    sp = Tagged("mine", model_file=str(sample_models["unigram"]), add_bos=True, out_type=str)
    expected = sp.encode(LINES)
    for again in (pickle.loads(pickle.dumps(sp)), copy.deepcopy(sp)):
        assert type(again) is Tagged and again.tag == "mine"
        assert again.encode(LINES) == expected
        assert again.manifest is not None and sp.manifest is not None
        assert again.manifest.to_bytes() == sp.manifest.to_bytes()


def test_a_model_only_state_loads(sample_models: dict[str, Path], plain_hindi_model: str) -> None:
    for model in (str(sample_models["bpe"]), plain_hindi_model):
        sp = spm.SentencePieceProcessor(model_file=model)
        fresh = spm.SentencePieceProcessor.__new__(spm.SentencePieceProcessor)
        fresh.__setstate__(sp.serialized_model_proto())
        assert fresh.encode(LINES) == sp.encode(LINES)
        assert fresh.encode(LINES, out_type=str) == sp.encode(LINES, out_type=str)


def test_an_empty_processor_pickles() -> None:
    again = pickle.loads(pickle.dumps(Tagged("t")))
    assert again.tag == "t" and again.manifest is None
