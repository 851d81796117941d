"""Runtime: the drop-in :class:`SentencePieceProcessor`, stream decoding and entropy.

Above the model file (it loads ``.model`` files and applies their rules), below the NepBPE
layer, the trainer and everything that evaluates a model.
"""
