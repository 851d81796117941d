"""Training SentencePiece models on clusters: ``SentencePieceTrainer.train(**spm_options)``."""

from brahmic_pua.trainer.train import SentencePieceTrainer, TrainReport, train_model

__all__ = ["SentencePieceTrainer", "TrainReport", "train_model"]
