"""The perplexity experiment (run.py says what it measures and how to run it)."""
