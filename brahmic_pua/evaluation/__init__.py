"""Evaluation and tools for existing models: metrics, ``eval``, ``audit``, ``repair`` and the
spm patch's dependent-mark table. Above the runtime and the trainer; only integrations and the
CLI import it.
"""
