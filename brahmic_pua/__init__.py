"""brahmic_pua: tokenization that never splits a Brahmic cluster.

Pipeline: orthography (classes, ⊸, fixToken) → segment (clusters) → codec (cluster ↔ PUA)
→ model file (rules + manifest) → trainer / processor (drop-ins for sentencepiece's).
"""

# sentencepiece's module-level names, so that ``import brahmic_pua as spm`` is a drop-in: the
# random seed (sampling) and the log level are global to the C++ library both modules share.
from sentencepiece import (
    SetMinLogLevel,
    SetNBestTimeout,
    SetRandomGeneratorSeed,
    ThreadPool,
    set_min_log_level,
    set_nbest_timeout,
    set_random_generator_seed,
)

from brahmic_pua.codec import CodecFileError, PUACodec
from brahmic_pua.model.manifest import ModelFileError
from brahmic_pua.normalize import normalize
from brahmic_pua.normalize.folding import FoldingTable, validate_folding_rules
from brahmic_pua.orthography import (
    SCRIPT_NAMES,
    UNICODE_VERSION,
    CharClass,
    can_follow,
    classify,
    combine,
    fix_token,
    is_valid_token,
)
from brahmic_pua.runtime.processor import SentencePieceProcessor
from brahmic_pua.segment import POLICIES, asr_normalize, segment
from brahmic_pua.trainer import SentencePieceTrainer

__version__ = "0.1.0"

__all__ = [
    "POLICIES",
    "SCRIPT_NAMES",
    "UNICODE_VERSION",
    "CharClass",
    "CodecFileError",
    "FoldingTable",
    "ModelFileError",
    "PUACodec",
    "SentencePieceProcessor",
    "SentencePieceTrainer",
    "SetMinLogLevel",
    "SetNBestTimeout",
    "SetRandomGeneratorSeed",
    "ThreadPool",
    "asr_normalize",
    "can_follow",
    "classify",
    "combine",
    "fix_token",
    "is_valid_token",
    "normalize",
    "segment",
    "set_min_log_level",
    "set_nbest_timeout",
    "set_random_generator_seed",
    "validate_folding_rules",
]
