"""Training SentencePiece models on clusters: ``SentencePieceTrainer.train(**spm_options)``."""

from brahmic_pua.trainer.train import SentencePieceTrainer, train_model
from brahmic_pua.trainer.train_report import TrainReport

__all__ = ["SentencePieceTrainer", "TrainReport", "train_model"]
