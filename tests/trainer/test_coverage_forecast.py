"""spm's alphabet, forecast while spm trains, lets the model's rules be built once for the
clusters spm keeps: the forecast holds where spm's coverage drops codes, and the model is the
one built without a forecast (byte for byte) whether the forecast holds or not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import sample

from brahmic_pua.codec import PUACodec
from brahmic_pua.model.loader import load_model
from brahmic_pua.trainer import coverage_forecast, train_model
from brahmic_pua.trainer import train as train_module
from brahmic_pua.trainer.coverage_forecast import as_float, spm_alphabet
from brahmic_pua.trainer.fit import fit
from brahmic_pua.trainer.spm_options import SpmOptions

#: Telugu and Hindi samples at a vocab_size whose alphabet plan leaves out rare
#: symbols: spm's coverage then drops some codes planned to be kept.
LINES = [*sample("te")[:500], *sample("hi")[:300], "  a  b ", "", "x\u2581y \ue000"]
OPTIONS: dict[str, Any] = {"model_type": "bpe", "vocab_size": 900, "num_threads": 1}


def trained(folder: Path, monkeypatch: pytest.MonkeyPatch, **extra: Any) -> list[Any]:
    """The model and vocab bytes, and the clusters: (planned, built for, in the model)."""
    folder.mkdir()
    monkeypatch.chdir(folder)
    Path("c.txt").write_text("\n".join(LINES) + "\n", encoding="utf-8")
    seen: list[tuple[int, int | None]] = []

    def watched(corpus: Any, codec: PUACodec, *rest: Any, **named: Any) -> Any:
        model, too_long, built = fit(corpus, codec, *rest, **named)
        seen.append((len(codec), None if built is None else len(built.codec)))
        return model, too_long, built

    with monkeypatch.context() as patched:
        patched.setattr(train_module, "fit", watched)
        train_model(input="c.txt", model_prefix="m", **{**OPTIONS, **extra})
    data = Path("m.model").read_bytes()
    manifest = load_model(data).manifest
    assert manifest is not None
    return [data, Path("m.vocab").read_bytes(), (*seen[0], len(manifest.codec))]


def test_the_forecast_holds_where_spm_drops_codes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_forecast = trained(tmp_path / "forecast", monkeypatch)
    planned, built, kept = with_forecast[2]
    assert kept < planned  # spm dropped codes here
    assert built == kept  # and the rules were built for exactly those it kept
    monkeypatch.setattr(coverage_forecast, "forecast_alphabet", lambda *_: None)
    monkeypatch.setattr(train_module, "forecast_alphabet", lambda *_: None)
    without = trained(tmp_path / "none", monkeypatch)
    assert without[2] == (planned, planned, kept)  # built for the plan, then again
    assert with_forecast[:2] == without[:2]


@pytest.mark.parametrize("wrong", ["one more kept", "one more dropped", "all kept"])
def test_a_wrong_forecast_makes_the_same_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wrong: str
) -> None:
    """A forecast that misses costs a second build, never a different model."""
    right = trained(tmp_path / "right", monkeypatch)
    original = coverage_forecast.forecast_alphabet

    def missed(*args: Any) -> set[str] | None:
        kept = original(*args)
        assert kept is not None
        codes = sorted(ch for ch in kept if 0xE000 <= ord(ch) <= 0xF8FF)
        if wrong == "one more kept":
            return kept | {chr(max(map(ord, codes)) + 1)}
        if wrong == "one more dropped":
            return kept - {codes[-1]}
        return {chr(cp) for cp in range(0xE000, 0xF900)} | kept

    monkeypatch.setattr(train_module, "forecast_alphabet", missed)
    assert trained(tmp_path / "wrong", monkeypatch)[:2] == right[:2]


def test_no_forecast_for_user_symbols_or_full_coverage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert trained(tmp_path / "symbols", monkeypatch, user_defined_symbols="కా")[2][1] in (
        None,
        trained(tmp_path / "plain", monkeypatch)[2][0],
    )
    forecast = coverage_forecast.forecast_alphabet
    full = SpmOptions({"character_coverage": 1.0})
    assert forecast({"a": 1}, 1, "x", full, False) is None
    assert forecast(None, 1, "x", SpmOptions(), False) is None  # no pieces counted
    assert forecast({"a": 1}, 1, "x", SpmOptions(), True) is None  # a user's rules


def test_the_coverage_loop_is_spms() -> None:
    """spm keeps characters, most frequent first and then by code point, while the share
    covered so far (a float) is below the coverage: a tie at the cut goes to the lower code
    point, and the boundary character is counted but never kept."""
    counts: Any = {"b": 5, "a": 5, "c": 3, "\u2586": 4, "d": 1}  # 18 in all
    assert spm_alphabet(counts, as_float(0.0)) == set()
    assert spm_alphabet(counts, as_float(0.27)) == {"a"}  # b would start at 5/18 = 0.28
    assert spm_alphabet(counts, as_float(0.3)) == {"a", "b"}
    assert spm_alphabet(counts, as_float(0.56)) == {"a", "b"}  # the boundary's 4 are counted
    assert spm_alphabet(counts, as_float(0.8)) == {"a", "b", "c"}
    assert spm_alphabet(counts, as_float(0.99)) == {"a", "b", "c", "d"}
    # The share is a float: 0.299999999 is below 0.3, but as a float it is 0.3's float
    close: Any = {"a": 299_999_999, "b": 250_000_000, "c": 250_000_000, "d": 200_000_001}
    assert spm_alphabet(close, as_float(0.3)) == {"a"}


def test_the_forecast_says_nothing_at_the_trainings_log_level(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """spm's normalizer logs as it is built: the forecast builds it at the training's level
    (quiet by default), whatever level spm was left at before."""
    import sentencepiece

    (tmp_path / "c.txt").write_text("\n".join(LINES) + "\n", encoding="utf-8")
    sentencepiece.SetMinLogLevel(0)
    try:
        train_model(input=str(tmp_path / "c.txt"), model_prefix=str(tmp_path / "m"), **OPTIONS)
    finally:
        sentencepiece.SetMinLogLevel(2)
    assert "builder.cc" not in capfd.readouterr().err
