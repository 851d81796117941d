"""Encode texts with one outside runtime, inside that runtime's own environment.

Run by ``tests/peers/test_runtimes.py`` with the Python of an environment that
``tools/runtimes.py`` made (it imports nothing of brahmic_pua, which is not installed there):

    <env>/bin/python tools/runtime_worker.py sentencepiece MODEL < texts.json
    <env>/bin/python tools/runtime_worker.py onnxruntime-extensions MODEL < texts.json

It reads a JSON list of texts on stdin and writes one JSON object: the runtime's ``version``,
``ids`` (a list of id lists, one per text) and ``texts`` (what the runtime decodes each id list
back to). A version can differ from brahmic_pua's own
sentencepiece only by what it does with the same file, so the file and the texts are all it is
given.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

#: (encode texts to id lists, decode id lists to texts)
Coder = tuple[Callable[[list[str]], list[list[int]]], Callable[[list[list[int]]], list[str]]]


def sentencepiece_encoder(model: bytes) -> tuple[str, Coder]:
    import sentencepiece

    processor = sentencepiece.SentencePieceProcessor()
    processor.LoadFromSerializedProto(model)  # the spelling 0.1.99 already has
    return sentencepiece.__version__, (
        lambda texts: [processor.EncodeAsIds(t) for t in texts],
        lambda ids: [processor.DecodeIds(i) for i in ids],
    )


def ort_extensions_encoder(model: bytes) -> tuple[str, Coder]:
    """onnxruntime-extensions' ``SentencepieceTokenizer`` and ``SentencepieceDecoder`` ops, each
    in a one-node graph, run by onnxruntime as an exported model would be (no sampling, no
    BOS/EOS)."""
    import numpy as np
    import onnxruntime
    import onnxruntime_extensions
    from onnx import TensorProto, helper

    opsets = [helper.make_operatorsetid("", 17), helper.make_operatorsetid("ai.onnx.contrib", 1)]
    options = onnxruntime.SessionOptions()
    options.register_custom_ops_library(onnxruntime_extensions.get_library_path())

    def session(op: str, inputs: dict[str, int], outputs: dict[str, int]) -> Any:
        node = helper.make_node(
            op, list(inputs), list(outputs), model=model, domain=opsets[1].domain
        )
        graph = helper.make_graph(
            [node],
            op,
            [helper.make_tensor_value_info(n, k, [None]) for n, k in inputs.items()],
            [helper.make_tensor_value_info(n, k, [None]) for n, k in outputs.items()],
        )
        graph_model = helper.make_model(graph, opset_imports=opsets)
        return onnxruntime.InferenceSession(
            graph_model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )

    flags = dict.fromkeys(("add_bos", "add_eos", "reverse"), TensorProto.BOOL)
    encoder = session(
        "SentencepieceTokenizer",
        {"inputs": TensorProto.STRING, "nbest_size": TensorProto.INT64, "alpha": TensorProto.FLOAT}
        | flags,
        {"tokens": TensorProto.INT32, "indices": TensorProto.INT64},
    )
    decoder = session(
        "SentencepieceDecoder",
        {"ids": TensorProto.INT64, "fairseq": TensorProto.BOOL},
        {"str": TensorProto.STRING},
    )
    fixed: dict[str, Any] = {
        "nbest_size": np.array([0], dtype=np.int64),
        "alpha": np.array([0.0], dtype=np.float32),
        "add_bos": np.array([False]),
        "add_eos": np.array([False]),
        "reverse": np.array([False]),
    }

    def encode(texts: list[str]) -> list[list[int]]:
        out = []
        for text in texts:
            tokens, _ = encoder.run(None, {"inputs": np.array([text], dtype=object), **fixed})
            out.append([int(t) for t in tokens])
        return out

    def decode(ids: list[list[int]]) -> list[str]:
        fairseq = np.array([False])
        return [
            str(decoder.run(None, {"ids": np.array(i, dtype=np.int64), "fairseq": fairseq})[0][0])
            for i in ids
        ]

    return onnxruntime_extensions.__version__, (encode, decode)


RUNTIMES = {
    "sentencepiece": sentencepiece_encoder,
    "onnxruntime-extensions": ort_extensions_encoder,
}


def main() -> int:
    kind, model_path = sys.argv[1], sys.argv[2]
    with open(model_path, "rb") as stream:
        model = stream.read()
    version, (encode, decode) = RUNTIMES[kind](model)
    ids = encode(json.load(sys.stdin))
    json.dump({"version": version, "ids": ids, "texts": decode(ids)}, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
