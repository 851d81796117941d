"""transformers' own tokenizer test suite passes on BrahmicPuaTokenizer wherever it passes on
transformers' own SentencePiece tokenizer: every test, none failing.

``TokenizerTesterMixin`` (``tests/test_tokenization_common.py`` of the transformers 5.24.0
sdist, fetched by ``tools/peer_tests.py``, never committed here) is the suite every
transformers tokenizer runs. It runs unchanged, in a separate pytest process, twice over the
same text: on BrahmicPuaTokenizer with a brahmic_pua model, and on transformers'
``SentencePieceBackend`` with a stock spm model, both trained on the same English (the
sentencepiece sdist's ``botchan.txt``, the suite's own English test strings need it) and
Telugu (the shipped sample). Nobody here wrote its assertions. Each pair of models is
trained twice: as spm trains by default, without a pad piece (the suite then skips its padding
tests), and with one (``pad_id=3``), which runs them.

The suite's folder holds no ``fixtures/sample_text.txt`` (it reads the file and never uses it)
and no ``__init__.py`` (its modules import each other relatively): the copy gets both, and,
where the ``parameterized`` package is not installed, a stand-in for the one decorator it
uses (``parameterized.expand``, as that package names the cases).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import installed, peer_outcomes, peer_suite, require_extra, sample, slow

#: The full run only: an outside suite.
pytestmark = slow

#: The test classes over the mixin: ours and transformers' SentencePieceBackend, per model pair.
SUITE = """import unittest

from transformers.tokenization_utils_sentencepiece import SentencePieceBackend

from brahmic_pua.hf import BrahmicPuaTokenizer

from .test_tokenization_common import TokenizerTesterMixin
"""
CLASSES = """

class {ours}(TokenizerTesterMixin, unittest.TestCase):
    tokenizer_class = BrahmicPuaTokenizer
    from_pretrained_id = {ours_folder!r}
    from_pretrained_kwargs = {{"trust_remote_code": True}}


class {theirs}(TokenizerTesterMixin, unittest.TestCase):
    tokenizer_class = SentencePieceBackend
    from_pretrained_id = {theirs_folder!r}
"""
#: ``parameterized.expand`` as the suite uses it: one method per case, named as that package
#: names them (``test_x_0_True``), in the class body being defined.
PARAMETERIZED = """import sys


class parameterized:
    @staticmethod
    def expand(cases):
        def decorate(function):
            namespace = sys._getframe(1).f_locals
            for index, case in enumerate(cases):
                arguments = tuple(case)

                def method(self, _arguments=arguments, _function=function):
                    return _function(self, *_arguments)

                method.__name__ = f"{function.__name__}_{index}_{arguments[0]}"
                namespace[method.__name__] = method
            return None

        return decorate
"""
VOCAB = 2000
#: The model pairs: spm's default (no pad piece), and with a pad piece.
PADS = {"": -1, "Padded": 3}
#: The tests the mixin holds (a changed sdist is noticed here).
TOTAL = 58


def ours(pad: str) -> str:
    return f"TestBrahmicPuaTokenizer{pad}"


def theirs(pad: str) -> str:
    return f"TestSentencePieceBackend{pad}"


def _run(folder: Path) -> dict[str, dict[str, str]]:
    """Each test's outcome (passed, failed, skipped), by class, in a pytest process (a test
    one of whose subtests skipped is "skipped" here; the terminal says passed)."""
    environment = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_MODULES_CACHE": str(folder / "modules"),
    }
    outcomes: dict[str, dict[str, str]] = {}
    for cls, name, outcome in peer_outcomes(folder, "tests/test_mixin_on_both.py", env=environment):
        outcomes.setdefault(cls.rsplit(".", 1)[-1], {})[name] = outcome
    return outcomes


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    require_extra("transformers", "hf", "the Hugging Face tokenizer")
    import sentencepiece as stock
    from transformers.tokenization_utils_sentencepiece import SentencePieceBackend

    import brahmic_pua
    from brahmic_pua.hf import BrahmicPuaTokenizer

    suite = peer_suite("transformers-5.24.0") / "tests"
    english = peer_suite("sentencepiece-0.2.3") / "test" / "botchan.txt"
    work = tmp_path_factory.mktemp("mixin")
    folder = work / "run"
    shutil.copytree(suite, folder / "tests")
    (folder / "tests" / "__init__.py").write_text("", encoding="utf-8")
    lines = english.read_text(encoding="utf-8").splitlines() + sample("te")
    (folder / "tests" / "fixtures").mkdir()
    (folder / "tests" / "fixtures" / "sample_text.txt").write_text(
        "\n".join(lines[:100]) + "\n", encoding="utf-8"
    )
    if not installed("parameterized"):
        (folder / "parameterized.py").write_text(PARAMETERIZED, encoding="utf-8")
    text = work / "train.txt"
    text.write_text("\n".join(lines) + "\n", encoding="utf-8")
    suite_text = SUITE
    for pad, pad_id in PADS.items():
        brahmic, plain = work / f"brahmic{pad}", work / f"plain{pad}"
        brahmic_pua.SentencePieceTrainer.train(
            input=str(text),
            model_prefix=str(brahmic),
            vocab_size=VOCAB,
            pad_id=pad_id,
            progress=False,
        )
        stock.SentencePieceTrainer.train(
            input=str(text),
            model_prefix=str(plain),
            vocab_size=VOCAB,
            pad_id=pad_id,
            minloglevel=2,
        )
        BrahmicPuaTokenizer(f"{brahmic}.model").save_pretrained(brahmic)
        SentencePieceBackend(
            vocab_file=f"{plain}.model",
            unk_token="<unk>",
            bos_token="<s>",
            eos_token="</s>",
            pad_token="<pad>" if pad_id >= 0 else None,
        ).save_pretrained(plain)
        suite_text += CLASSES.format(
            ours=ours(pad),
            theirs=theirs(pad),
            ours_folder=str(brahmic),
            theirs_folder=str(plain),
        )
    (folder / "tests" / "test_mixin_on_both.py").write_text(suite_text, encoding="utf-8")
    return _run(folder)


def test_transformers_own_tokenizer_passes_its_suite(
    outcomes: dict[str, dict[str, str]],
) -> None:
    """The baseline: a failure here is the environment's or the sdist's, not ours."""
    for pad in PADS:
        assert len(outcomes[theirs(pad)]) == TOTAL
        failed = [name for name, outcome in outcomes[theirs(pad)].items() if outcome == "failed"]
        assert not failed, f"SentencePieceBackend fails its own suite here: {failed}"


@pytest.mark.parametrize("pad", list(PADS), ids=["no-pad-piece", "pad-piece"])
def test_every_test_transformers_passes_passes_on_brahmic_pua(
    outcomes: dict[str, dict[str, str]], pad: str
) -> None:
    mine, baseline = outcomes[ours(pad)], outcomes[theirs(pad)]
    assert set(mine) == set(baseline)
    passed = {name for name, outcome in mine.items() if outcome == "passed"}
    wanted = {name for name, outcome in baseline.items() if outcome == "passed"}
    failed = sorted(name for name, outcome in mine.items() if outcome == "failed")
    assert wanted <= passed, f"ours passes {len(passed)}, theirs {len(wanted)}: {wanted - passed}"
    assert not failed, f"{len(failed)} fail on BrahmicPuaTokenizer: {failed}"
