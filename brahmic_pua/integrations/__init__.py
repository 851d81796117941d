"""Integrations: the transformers tokenizer, Ray actors for id shards, and the id shards
(``encode-corpus``). The top of the library; only the CLI is above it.
"""
