"""Shared fixtures: the real corpora in ../shared/corpora and a hypothesis profile."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

CORPORA = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=150
)
settings.register_profile("ci", parent=settings.get_profile("default"), max_examples=300)
settings.load_profile("ci" if os.environ.get("CI") else "default")


def corpus_files() -> list[Path]:
    files = sorted(CORPORA.glob("*.txt"))
    if not files:
        raise RuntimeError(
            f"no corpora under {CORPORA}: the tests read the real text in ../shared/corpora; "
            "run them from a checkout that sits beside shared/"
        )
    return files


def read(name: str) -> str:
    return (CORPORA / name).read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def te_train() -> str:
    return read("te.train.txt")
