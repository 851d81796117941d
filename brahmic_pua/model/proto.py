"""SentencePiece's ModelProto classes (generated code without type information)."""

from __future__ import annotations

import importlib
from typing import Any

model_pb2: Any = importlib.import_module("sentencepiece.sentencepiece_model_pb2")


def parse_model(data: bytes) -> Any:
    """A ModelProto from serialized bytes."""
    model = model_pb2.ModelProto()
    model.ParseFromString(data)
    return model


def model_type(data: bytes) -> str:
    """ "unigram", "bpe", "word" or "char"."""
    spec = parse_model(data).trainer_spec
    return str(model_pb2.TrainerSpec.ModelType.Name(spec.model_type)).lower()
