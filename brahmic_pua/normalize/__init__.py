"""N, the normalization applied before segmentation (stage 3 of the pipeline).

``modes`` holds the modes (nfc, none, nepali-lm, nepali-ocr) and the :class:`Normalizer` the
trainer, the runtime and the CLI share; ``folding`` the folding tables and their validator;
``spellings`` the canonically equivalent spellings that N must treat alike; ``nfc`` the NFC
every mode applies, exactly unicodedata's but linear in the text.
"""

from brahmic_pua.normalize.modes import MODES, Normalizer, check_mode, normalize, normalizer

__all__ = ["MODES", "Normalizer", "check_mode", "normalize", "normalizer"]
