"""Shared fixtures: the real corpora in ../shared/corpora and a hypothesis profile."""

from __future__ import annotations

import importlib.util
import os
import random
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

CORPORA = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"
TE = str(CORPORA / "te.train.txt")

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=150
)
settings.register_profile("ci", parent=settings.get_profile("default"), max_examples=300)
settings.load_profile("ci" if os.environ.get("CI") else "default")


def pytest_configure(config: pytest.Config) -> None:
    """Markers of optional test groups; run one alone with ``pytest -m NAME``."""
    config.addinivalue_line(
        "markers",
        "spm_patch: needs the binaries of patches/build.sh in BRAHMIC_SPM_BIN (else skips)",
    )


def require_extra(module: str, extra: str, untested: str) -> None:
    """Tests of an optional part: a visible skip (reason and a warning) where ``module`` is
    missing, a failure under CI, which installs every extra and must not pass untested."""
    if importlib.util.find_spec(module) is not None:
        return
    install = f"pip install -e '.[{extra}]'"
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {module} is not installed ({untested} untested): {install}")
    reason = f"{module} is not installed (optional extra: {install})"
    warnings.warn(f"{untested} not tested: {reason}", stacklevel=2)
    pytest.skip(reason)


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


def with_words(lines: list[str], extra: str, share: float, seed: int) -> list[str]:
    """``lines`` with ``extra`` after about ``share`` of their words (seeded): literal ▁, or a
    vowel sign on a space (" ా"), in otherwise real text."""
    rng = random.Random(seed)
    return [
        " ".join(word + (extra if rng.random() < share else "") for word in line.split(" "))
        for line in lines
    ]


@pytest.fixture(scope="session")
def plain(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A plain spm model on Hindi, trained by stock sentencepiece: no brahmic_pua in it."""
    import sentencepiece

    lines = read("hi.sample.txt").splitlines()[:3000]
    prefix = tmp_path_factory.mktemp("plain") / "p"
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_prefix=str(prefix), vocab_size=1000, minloglevel=2
    )
    return f"{prefix}.model"


@pytest.fixture(scope="session")
def grapheme_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The grapheme policy, on Telugu where a vowel sign sits on a space: one cluster " ా"."""
    from brahmic_pua.trainer import train_model

    lines = with_words(read("te.train.txt").splitlines()[:2000], " ా", 0.1, 1)
    prefix = tmp_path_factory.mktemp("grapheme") / "g"
    train_model(
        sentence_iterator=iter(lines), model_prefix=str(prefix), vocab_size=1500,
        policy="grapheme",
    )  # fmt: skip
    return f"{prefix}.model"


@pytest.fixture(scope="session")
def te_train() -> str:
    return read("te.train.txt")


@pytest.fixture(scope="session")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """8000-piece Unigram and BPE models on te.train, and one on Telugu + Devanagari text,
    trained once for every test module."""
    from brahmic_pua.trainer import train_model

    work = tmp_path_factory.mktemp("models")
    out: dict[str, Path] = {}
    for model_type in ("unigram", "bpe"):
        prefix = work / f"te_{model_type}"
        train_model(input=TE, model_prefix=str(prefix), vocab_size=8000, model_type=model_type)
        out[model_type] = Path(f"{prefix}.model")
    mixed = read("te.train.txt").splitlines()[:6000] + read("ne.train.txt").splitlines()[:3000]
    mixed += read("hi.sample.txt").splitlines()[:3000]
    prefix = work / "mixed"
    train_model(sentence_iterator=iter(mixed), model_prefix=str(prefix), vocab_size=8000)
    out["mixed"] = Path(f"{prefix}.model")
    return out
