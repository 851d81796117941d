"""The NepBPE layer (docs/nepali.md): seed morphemes and post-training vocabulary filters.

Filters are transforms of a model file; the trainer applies them after spm trains, and
``brahmic-pua filter`` applies them to a model that exists.
"""
