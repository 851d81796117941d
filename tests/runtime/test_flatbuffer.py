"""``ConvertToFlatbuffer``: stock's result for a plain model; a brahmic_pua model refused in one
line, with nothing written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as stock

import brahmic_pua as spm
from brahmic_pua import sentencepiece_model_pb2


def test_a_plain_model_converts_as_in_stock(plain_hindi_model: str, tmp_path: Path) -> None:
    expected = stock.ConvertToFlatbuffer(model_file=plain_hindi_model)
    assert spm.ConvertToFlatbuffer(model_file=plain_hindi_model) == expected
    assert (
        spm.convert_to_flatbuffer(serialized_model_proto=Path(plain_hindi_model).read_bytes())
        == expected
    )
    proto = sentencepiece_model_pb2.ModelProto.FromString(Path(plain_hindi_model).read_bytes())  # type: ignore[attr-defined]
    assert spm.ConvertToFlatbuffer(model_proto=proto) == expected
    out = tmp_path / "p.spm.fb"
    spm.ConvertToFlatbuffer(model_file=Path(plain_hindi_model), output_file=out)
    assert out.read_bytes() == expected


def test_a_brahmic_model_is_refused_in_one_line(
    sample_models: dict[str, Path], tmp_path: Path
) -> None:
    model = sample_models["unigram"]
    out = tmp_path / "b.spm.fb"
    for source in (
        {"model_file": str(model)},
        {"model_file": model},
        {"serialized_model_proto": model.read_bytes()},
        {"model_proto": model.read_bytes()},
    ):
        with pytest.raises(ValueError, match="is a brahmic_pua model") as caught:
            spm.ConvertToFlatbuffer(**source, output_file=out)
        assert "\n" not in str(caught.value) and "convert a plain spm model" in str(caught.value)
        assert not out.exists()


def test_a_damaged_brahmic_model_is_refused_as_loading_refuses_it(
    sample_models: dict[str, Path], tmp_path: Path
) -> None:
    """One byte of the manifest changed: loading refuses the file, so converting must too (a
    flatbuffer of it would carry rules no manifest vouches for)."""
    data = sample_models["unigram"].read_bytes()
    at = data.rindex(b'"fingerprint": "') + len(b'"fingerprint": "')
    edited = data[:at] + (b"0" if data[at : at + 1] != b"0" else b"1") + data[at + 1 :]
    path = tmp_path / "edited.model"
    path.write_bytes(edited)
    with pytest.raises(ValueError) as loading:
        spm.SentencePieceProcessor(model_file=str(path))
    out = tmp_path / "e.spm.fb"
    for source, name in (
        ({"model_file": str(path)}, str(path)),
        ({"serialized_model_proto": edited}, "model_proto"),
    ):
        with pytest.raises(ValueError) as caught:
            spm.ConvertToFlatbuffer(**source, output_file=out)
        assert str(caught.value) == str(loading.value).replace(str(path), name)
        assert "manifest does not match" in str(caught.value) and not out.exists()


def test_bad_calls_get_stocks_errors(plain_hindi_model: str) -> None:
    calls: list[Callable[[Any], Any]] = [
        lambda module: module.ConvertToFlatbuffer(),
        lambda module: module.ConvertToFlatbuffer(
            model_file=plain_hindi_model, serialized_model_proto=b""
        ),
        lambda module: module.ConvertToFlatbuffer(serialized_model_proto="text"),
    ]
    for call in calls:
        with pytest.raises(Exception) as theirs:
            call(stock)
        with pytest.raises(type(theirs.value)):
            call(spm)
