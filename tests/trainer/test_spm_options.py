"""spm's options as one frozen value: spm's defaults read from its own descriptors, brahmic_pua's
given on top, and steps that change options returning new values.

The oracle for spm's defaults is stock sentencepiece itself: a model it trains with no option
but the input records, in its trainer_spec and normalizer_spec, the value of every option.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest
import sentencepiece as stock
from conftest import TE_SAMPLE
from hypothesis import given
from hypothesis import strategies as st

from brahmic_pua.model.model_proto import model_pb2
from brahmic_pua.trainer.spm_options import DEFAULTS, SPM_DEFAULTS, SpmOptions

NAMES = sorted(SPM_DEFAULTS)


@pytest.fixture(scope="module")
def stock_model(tmp_path_factory: pytest.TempPathFactory) -> object:
    folder = tmp_path_factory.mktemp("stock")
    stock.SentencePieceTrainer.train(
        input=TE_SAMPLE, model_prefix=str(folder / "m"), vocab_size=300, minloglevel=2
    )
    model = model_pb2.ModelProto()
    model.ParseFromString(Path(folder / "m.model").read_bytes())
    return model


def test_spms_defaults_are_what_stock_trains_with(stock_model: object) -> None:
    """Every scalar option stock records in a model trained with nothing but the input, the
    model prefix and the vocab_size, is SPM_DEFAULTS' value (floats as the .proto writes them)."""
    given = {"input", "model_prefix", "vocab_size", "name", "precompiled_charsmap"}
    compared = 0
    for spec in (stock_model.trainer_spec, stock_model.normalizer_spec):  # type: ignore[attr-defined]
        for field in spec.DESCRIPTOR.fields:
            if field.name in given or field.is_repeated:
                continue
            recorded = getattr(spec, field.name)
            if field.enum_type is not None:
                recorded = field.enum_type.values_by_number[recorded].name.lower()
            expected = SPM_DEFAULTS[field.name]
            if isinstance(recorded, float):
                assert math.isclose(recorded, expected, rel_tol=1e-6), field.name
            else:
                assert recorded == expected, field.name
            compared += 1
    assert compared > 30
    assert SPM_DEFAULTS["character_coverage"] == 0.9995  # the decimal, not the float32
    assert SPM_DEFAULTS["model_type"] == "unigram"


def test_an_option_not_given_reads_as_spms_default_and_is_not_passed() -> None:
    options = SpmOptions({"vocab_size": 1000})
    assert options.vocab_size == 1000
    assert options.model_type == "unigram" and options.integer("num_threads") == 16
    assert "model_type" not in options and "vocab_size" in options
    assert options.keywords() == {"vocab_size": 1000}
    assert options.text("model_prefix") == ""


def test_brahmic_puas_defaults_are_given_to_spm() -> None:
    options = SpmOptions.with_defaults({"byte_fallback": False})
    assert options.keywords() == {**DEFAULTS, "byte_fallback": False}
    assert options.minloglevel == 2 and not options.flag("remove_extra_whitespaces")
    assert not options.flag("byte_fallback")


def test_the_options_are_frozen_and_a_step_gets_new_ones() -> None:
    options = SpmOptions({"vocab_size": 1000})
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.given = {}  # type: ignore[misc]
    with pytest.raises(TypeError):
        options.given["vocab_size"] = 1  # type: ignore[index]
    changed = options.replace(vocab_size=10).setdefault(character_coverage=1.0, vocab_size=5)
    assert changed.keywords() == {"vocab_size": 10, "character_coverage": 1.0}
    assert options.keywords() == {"vocab_size": 1000}
    assert "vocab_size" not in changed.without("vocab_size")


def test_a_given_dict_changed_later_changes_nothing() -> None:
    source = {"vocab_size": 1000}
    options = SpmOptions(source)
    source["vocab_size"] = 1
    assert options.vocab_size == 1000


@given(
    st.dictionaries(st.sampled_from(NAMES), st.integers(0, 9)),
    st.dictionaries(st.sampled_from(NAMES), st.integers(0, 9)),
    st.lists(st.sampled_from(NAMES)),
)
def test_replace_setdefault_without_are_dict_updates(
    base: dict[str, int], changes: dict[str, int], dropped: list[str]
) -> None:
    """Oracle: the same updates on a plain dict."""
    options = SpmOptions(base)
    assert options.replace(**changes).keywords() == {**base, **changes}
    assert options.setdefault(**changes).keywords() == {**changes, **base}
    assert options.without(*dropped).keywords() == {
        k: v for k, v in base.items() if k not in dropped
    }
    for name in NAMES:
        assert options[name] == (base[name] if name in base else SPM_DEFAULTS[name])
