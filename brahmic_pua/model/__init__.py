"""The model file: a standard SentencePiece ModelProto that carries brahmic_pua inside it."""
