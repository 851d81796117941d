"""brahmic_pua: tokenization that never splits a Brahmic cluster.

Pipeline: orthography (classes, ⊸, fixToken) → segment (clusters) → codec (cluster ↔ PUA)
→ model file (rules + manifest) → trainer / processor (drop-ins for sentencepiece's).

The top level is deliberately small: what a program needs to use the library, nothing it only
needs to study it. It holds two lists, and ``__all__`` is exactly their union.

**sentencepiece's module-level names**, so that ``import brahmic_pua as spm`` is a drop-in for
sentencepiece 0.2.3:

* ``SentencePieceProcessor``, ``SentencePieceTrainer``: brahmic_pua's, on brahmic_pua and plain
  models alike.
* ``SentencePieceNormalizer``: brahmic_pua's (``brahmic_pua.runtime.normalizer``). Stock's, on a
  brahmic_pua model, returns the Private Use codes its compiled rules map clusters to; this one
  applies the model's N and gives the clusters back, and is stock's on a plain model.
* ``ThreadPool``, ``SetRandomGeneratorSeed`` (``set_random_generator_seed``),
  ``SetMinLogLevel`` (``set_min_log_level``), ``SetNBestTimeout`` (``set_nbest_timeout``),
  ``SetDataDir`` (``set_data_dir``): stock's own objects, because the pool, the random seed
  (sampling), the log level, the n-best timeout and the data directory belong to the C++ library
  both modules share; a copy could only disagree with it.

* ``ConvertToFlatbuffer`` (``convert_to_flatbuffer``): stock's converter for a plain model; a
  brahmic_pua model is refused in one line (``brahmic_pua.runtime.flatbuffer``): a flatbuffer
  keeps its Private Use rules but not its manifest, so every reader would see Private Use codes.
* ``sentencepiece_pb2``, ``sentencepiece_model_pb2``: stock's protobuf modules (the types of
  ``return_type="proto"`` and of a ``.model`` file), so ``from brahmic_pua import
  sentencepiece_pb2`` works where ``from sentencepiece import sentencepiece_pb2`` did.

**brahmic_pua's own entry points**:

* ``segment``, ``POLICIES``: text to clusters, and the cluster policies a model can use.
* ``normalize``: N, the normalization a model applies before encoding.
* ``PUACodec``, ``CodecFileError``: the cluster ↔ code table, and its file's error.
* ``FoldingTable``, ``validate_folding_rules``: the Nepali folding rules N may apply.
* ``ModelFileError``: what loading a damaged or foreign model raises.
* ``SCRIPT_NAMES``: the scripts a model can be trained on (``scripts=``), as the CLI lists them.

The paper's formal model (``CharClass``, ``classify``, ``can_follow``, ``combine``,
``fix_token``, ``is_valid_token``, ``UNICODE_VERSION``) is imported from
``brahmic_pua.orthography``: it is the specification the library is tested against, not an API
a tokenizing program calls. ``asr_normalize`` (lossy, for comparing ASR transcripts) is imported
from ``brahmic_pua.segment``. Everything else lives in its package (see ``tests/test_layers.py``
for the order of the layers).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # sentencepiece's module-level names: state of the C++ library both modules share.
    from sentencepiece import (
        SetDataDir,
        SetMinLogLevel,
        SetNBestTimeout,
        SetRandomGeneratorSeed,
        ThreadPool,
        set_data_dir,
        set_min_log_level,
        set_nbest_timeout,
        set_random_generator_seed,
    )
    from sentencepiece import sentencepiece_model_pb2 as sentencepiece_model_pb2
    from sentencepiece import sentencepiece_pb2 as sentencepiece_pb2

    from brahmic_pua.codec import CodecFileError, PUACodec
    from brahmic_pua.model.manifest import ModelFileError
    from brahmic_pua.normalize.folding import FoldingTable, validate_folding_rules
    from brahmic_pua.orthography import SCRIPT_NAMES
    from brahmic_pua.runtime.flatbuffer import ConvertToFlatbuffer, convert_to_flatbuffer
    from brahmic_pua.runtime.normalizer import SentencePieceNormalizer
    from brahmic_pua.runtime.processor import SentencePieceProcessor
    from brahmic_pua.trainer import SentencePieceTrainer

# Imported now: each shares its name with its package, which importing any module of the
# package would bind here in its place (brahmic_pua.normalize the package, not the function).
from brahmic_pua.normalize import normalize
from brahmic_pua.segment import POLICIES, segment

#: Where each other top-level name lives. They are imported on first use (PEP 562): a program that
#: imports one part (``brahmic-pua train`` needs the trainer, not the processor, the flatbuffer
#: converter or the normalizer) does not pay for every other part's start-up.
_SOURCES = {
    **dict.fromkeys(
        [
            "SetDataDir",
            "SetMinLogLevel",
            "SetNBestTimeout",
            "SetRandomGeneratorSeed",
            "ThreadPool",
            "set_data_dir",
            "set_min_log_level",
            "set_nbest_timeout",
            "set_random_generator_seed",
        ],
        "sentencepiece",
    ),
    "sentencepiece_model_pb2": "sentencepiece",
    "sentencepiece_pb2": "sentencepiece",
    "CodecFileError": "brahmic_pua.codec",
    "PUACodec": "brahmic_pua.codec",
    "ModelFileError": "brahmic_pua.model.manifest",
    "FoldingTable": "brahmic_pua.normalize.folding",
    "validate_folding_rules": "brahmic_pua.normalize.folding",
    "SCRIPT_NAMES": "brahmic_pua.orthography",
    "ConvertToFlatbuffer": "brahmic_pua.runtime.flatbuffer",
    "convert_to_flatbuffer": "brahmic_pua.runtime.flatbuffer",
    "SentencePieceNormalizer": "brahmic_pua.runtime.normalizer",
    "SentencePieceProcessor": "brahmic_pua.runtime.processor",
    "SentencePieceTrainer": "brahmic_pua.trainer",
}


def __getattr__(name: str) -> Any:
    """A top-level name, imported from its module the first time it is asked for."""
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module 'brahmic_pua' has no attribute {name!r}")
    if name.endswith("_pb2"):  # stock's protobuf modules, submodules of sentencepiece
        value = importlib.import_module(f"sentencepiece.{name}")
    else:
        value = getattr(importlib.import_module(source), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_SOURCES})


__version__ = "0.1.0"

__all__ = [
    "POLICIES",
    "SCRIPT_NAMES",
    "CodecFileError",
    "ConvertToFlatbuffer",
    "FoldingTable",
    "ModelFileError",
    "PUACodec",
    "SentencePieceNormalizer",
    "SentencePieceProcessor",
    "SentencePieceTrainer",
    "SetDataDir",
    "SetMinLogLevel",
    "SetNBestTimeout",
    "SetRandomGeneratorSeed",
    "ThreadPool",
    "convert_to_flatbuffer",
    "normalize",
    "segment",
    "set_data_dir",
    "set_min_log_level",
    "set_nbest_timeout",
    "set_random_generator_seed",
    "validate_folding_rules",
]
