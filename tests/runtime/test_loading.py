"""What a load builds and what a pickle carries in its place (brahmic_pua.runtime.loading): a
pickled state reads back as the attributes and model it was written from, the states older
versions wrote read too, and a load that asks for another normalization than the model's is
refused before anything is built."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brahmic_pua.model.manifest import ModelFileError
from brahmic_pua.model.model_proto import parse_model
from brahmic_pua.runtime.loading import (
    LOADED,
    build,
    pickled,
    serialized,
    unpickled,
    without_model,
)
from brahmic_pua.runtime.signatures import StockOptions

OPTIONS: StockOptions = {
    "out_type": str,
    "add_bos": True,
    "add_eos": False,
    "reverse": False,
    "emit_unk_piece": False,
    "enable_sampling": False,
    "nbest_size": -1,
    "alpha": 0.1,
    "num_threads": -1,
    "return_type": None,
}
#: Names a state gives a meaning of its own (the model, and the options under older names).
STATE_KEYS = {"model_proto", "options", "normalization"}
attribute_names = st.text(min_size=1, max_size=12).filter(lambda k: k not in STATE_KEYS)


@given(
    st.dictionaries(attribute_names, st.integers() | st.text(), max_size=6),
    st.none() | st.binary(max_size=40),
)
def test_a_pickled_state_reads_back_as_its_attributes_and_model(
    attributes: dict[str, object], model: bytes | None
) -> None:
    built = {"_sp": object(), "_shown": object(), "_encoder": None, "manifest": object()}
    given = {**built, **attributes, "_options": OPTIONS, "_normalization": "nfc"}
    read = unpickled(pickled(given, model))
    assert read.model == model
    assert read.options == OPTIONS and read.normalization == "nfc"
    kept = {**attributes, "_options": OPTIONS, "_normalization": "nfc"}
    assert read.attributes == {k: v for k, v in kept.items() if k not in built}
    assert set(built) <= set(LOADED)


def test_older_states_read() -> None:
    """sentencepiece and early brahmic_pua pickled the serialized model alone; some brahmic_pua
    versions named the options ``options`` and ``normalization``."""
    alone = unpickled(b"model bytes")
    assert (alone.model, alone.options, alone.normalization, alone.attributes) == (
        b"model bytes",
        {},
        None,
        {},
    )
    old = unpickled({"options": OPTIONS, "normalization": "none", "model_proto": b"m", "tag": 1})
    assert (old.model, old.options, old.normalization, old.attributes) == (
        b"m",
        OPTIONS,
        "none",
        {"tag": 1},
    )


def test_a_model_proto_or_its_bytes_are_the_same_model(sample_models: dict[str, Path]) -> None:
    data = sample_models["unigram"].read_bytes()
    assert serialized(data) == data
    assert parse_model(serialized(parse_model(data))) == parse_model(data)


def test_from_file_options_name_no_model() -> None:
    assert without_model({"add_bos": True}) == {"add_bos": True}
    for key in ("model_file", "model_proto"):
        with pytest.raises(ValueError, match="take the model as their first argument"):
            without_model({key: "x"})  # type: ignore[misc]


def test_a_load_that_expects_another_normalization_is_refused(
    sample_models: dict[str, Path], plain_hindi_model: str
) -> None:
    data = sample_models["unigram"].read_bytes()
    assert build(data, "te.model", OPTIONS, "nfc").manifest is not None
    said = "te.model was trained with normalization=nfc, not none"
    with pytest.raises(ModelFileError, match=re.escape(said)):
        build(data, "te.model", OPTIONS, "none")
    plain_data = Path(plain_hindi_model).read_bytes()
    plain = build(plain_data, "plain.model", OPTIONS, None)
    assert (plain.shown, plain.encoder, plain.decoder, plain.manifest) == (None,) * 4
    with pytest.raises(ModelFileError, match="trained with normalization=none, not nfc"):
        build(plain_data, "plain.model", OPTIONS, "nfc")
