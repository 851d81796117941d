"""``brahmic_pua.hf``: the stable import path of the transformers tokenizer.

The code lives in :mod:`brahmic_pua.integrations.hf`; this name stays because directories
written by ``save_pretrained`` hold a module that imports ``brahmic_pua.hf`` (so that
``AutoTokenizer`` runs the installed package), and those directories must keep loading.
"""

from brahmic_pua.integrations.hf import CHAT_TEMPLATE, BrahmicPuaTokenizer

__all__ = ["CHAT_TEMPLATE", "BrahmicPuaTokenizer"]
