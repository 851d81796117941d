"""A ``.model`` is untrusted input.

The manifest's fingerprint is a hash of its own body: anyone who edits a manifest can sign it
again, so every hostile manifest here is re-signed the way brahmic_pua signs (the fingerprint
alone would otherwise refuse it, and prove nothing). Each case was found by a red team as a
traceback (KeyError, RecursionError, OverflowError) or as a model that loads and shows the
wrong pieces; each must be one line of :class:`ModelFileError` from the API, and one line
starting ``Error:`` with exit status 1 from the CLI.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import examples, slow
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brahmic_pua
from brahmic_pua.cli.main import main
from brahmic_pua.io.digest import fingerprint, json_fingerprint
from brahmic_pua.model.manifest import (
    MAX_PAYLOAD,
    Manifest,
    ModelFileError,
    extract,
)
from brahmic_pua.model.model_proto import MANIFEST, model_pb2, parse_model
from brahmic_pua.normalize.folding import MAX_FOLDING_RULES, FoldingTable, nepali_table

Body = dict[str, Any]


@pytest.fixture(scope="module")
def model_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A real model, as the trainer writes it (about a second)."""
    sample = resources.files("brahmic_pua.data").joinpath("te.sample.txt")
    prefix = tmp_path_factory.mktemp("untrusted") / "te"
    brahmic_pua.SentencePieceTrainer.train(
        input=str(sample), model_prefix=str(prefix), vocab_size=1000, progress=False
    )
    return Path(f"{prefix}.model").read_bytes()


def _body(model_bytes: bytes) -> Body:
    """The model's manifest as JSON data (a fresh copy each call)."""
    body: Body = json.loads(bytes(_message(model_bytes).Extensions[MANIFEST]))
    return body


def _signed(body: Body) -> bytes:
    """``body`` as a payload, signed as brahmic_pua signs it: the codec's fingerprint over the
    codec without it, then the manifest's over the body without it (``Manifest.to_bytes``)."""
    body = {k: v for k, v in body.items() if k != "fingerprint"}
    codec = body.get("codec")
    if isinstance(codec, dict):
        codec = {k: v for k, v in codec.items() if k != "fingerprint"}
        body["codec"] = {**codec, "fingerprint": json_fingerprint(codec)}
    body["fingerprint"] = json_fingerprint(body)
    return json.dumps(body, sort_keys=True).encode("ascii")  # ASCII: a lone surrogate too


def _with_payload(model_bytes: bytes, payload: bytes) -> bytes:
    """``model`` with its manifest field replaced by ``payload``, as ``embed`` writes it."""
    message: Any = parse_model(model_bytes)
    message.ClearExtension(MANIFEST)
    field = model_pb2.ModelProto()
    field.Extensions[MANIFEST] = payload
    return bytes(message.SerializeToString()) + bytes(field.SerializeToString())


def _no_codec(body: Body) -> bytes:
    del body["codec"]
    return _signed(body)


def _deep(body: Body) -> bytes:
    return b"[" * 200_000 + b"]" * 200_000


def _huge_code(body: Body) -> bytes:
    body["codec"]["entries"][0][0] = 10**30
    return _signed(body)


def _infinite_code(body: Body) -> bytes:
    body["codec"]["entries"][0][0] = float("inf")  # json.dumps writes Infinity
    return _signed(body).replace(b"Infinity", b"1e999")  # the same float, read back


def _swapped(body: Body) -> bytes:
    entries = body["codec"]["entries"]
    entries[0][1], entries[1][1] = entries[1][1], entries[0][1]
    return _signed(body)


#: (name, hostile payload from a real manifest, what the one-line error must say).
HOSTILE: list[tuple[str, Callable[[Body], bytes], str]] = [
    ("no-codec", _no_codec, r"damaged brahmic_pua manifest \(no 'codec' key\)"),
    ("deep-nesting", _deep, r"damaged brahmic_pua manifest \(JSON nested too deeply\)"),
    ("code-10**30", _huge_code, r"a code .* is outside the Private Use Area"),
    ("code-1e999", _infinite_code, r"a code is inf, not an integer"),
    ("swapped", _swapped, r"manifest does not match the model's rules: U\+[0-9A-F]{4} is"),
]


@pytest.fixture(scope="module", params=HOSTILE, ids=[name for name, _, _ in HOSTILE])
def hostile(
    request: pytest.FixtureRequest, model_bytes: bytes, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str]:
    """A hostile model file, and the pattern its error must match."""
    name, damage, pattern = request.param
    path = tmp_path_factory.mktemp("hostile") / f"{name}.model"
    path.write_bytes(_with_payload(model_bytes, damage(_body(model_bytes))))
    return path, pattern


def test_a_resigned_manifest_loads_as_before(model_bytes: bytes, tmp_path: Path) -> None:
    """The helpers sign as brahmic_pua does: an unchanged body re-signed loads and is the same."""
    path = tmp_path / "same.model"
    path.write_bytes(_with_payload(model_bytes, _signed(_body(model_bytes))))
    sp = brahmic_pua.SentencePieceProcessor(model_file=str(path))
    original = extract(model_bytes, "m")
    assert sp.manifest is not None and original is not None
    assert sp.manifest.to_bytes() == original.to_bytes()


def test_hostile_model_is_one_model_file_error(hostile: tuple[Path, str]) -> None:
    path, pattern = hostile
    with pytest.raises(ModelFileError, match=pattern) as raised:
        brahmic_pua.SentencePieceProcessor(model_file=str(path))
    assert "\n" not in str(raised.value) and str(raised.value).startswith(str(path))


@pytest.mark.parametrize(
    "command",
    [["encode", "--model"], ["vocab", "--model"], ["audit", "--model"]],
    ids=["encode", "vocab", "audit"],
)
def test_hostile_model_is_one_cli_error(hostile: tuple[Path, str], command: list[str]) -> None:
    path, pattern = hostile
    result = CliRunner().invoke(main, [*command, str(path)], input="తెలుగు భాష\n")
    assert result.exit_code == 1, result.output
    assert result.exc_info is not None and result.exc_info[0] is SystemExit  # not a traceback
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.output
    assert re.search(pattern, lines[0]), lines[0]


@pytest.mark.parametrize(
    ("damage", "pattern"),
    [
        (lambda b: b["codec"]["entries"][0].__setitem__(1, "క" * 65), "a cluster is"),
        (lambda b: b["codec"]["entries"][0].__setitem__(1, ""), "a cluster is"),
        (lambda b: b["codec"]["entries"][0].__setitem__(1, "క\ue010"), "holds a Private Use"),
        (lambda b: b["codec"]["entries"][0].__setitem__(1, "\ud800"), "holds a Private Use"),
        (lambda b: b["codec"]["entries"][0].__setitem__(2, -1), "a count is -1"),
        (lambda b: b["codec"]["entries"][0].__setitem__(2, True), "a count is True"),
        (lambda b: b["codec"]["entries"].append(b["codec"]["entries"][0]), "duplicate"),
        (lambda b: b["codec"].__setitem__("entries", {}), "entries is an object"),
        (lambda b: b["codec"].__setitem__("blocks", [[0xE100, 0xE003, "telugu"]]), "blocks"),
        (lambda b: b["codec"].__setitem__("scripts", ["klingon"]), "a script is 'klingon'"),
        (lambda b: b["codec"].__setitem__("extra", 1), "unexpected key 'extra'"),
        (lambda b: b.__setitem__("format_version", True), "version True"),
        (lambda b: b.__setitem__("normalization", ["nfc"]), "normalization is a list"),
        (
            lambda b: b.__setitem__("folding", {"rules": [["a", "b"]] * 200, "fingerprint": ""}),
            f"at most {MAX_FOLDING_RULES} rules",
        ),
        (
            lambda b: b.__setitem__("folding", {"rules": [["a" * 33, "b"]], "fingerprint": ""}),
            "a folding rule is",
        ),
        (lambda b: b.__setitem__("folding", {"rules": [[1, 2]], "fingerprint": ""}), "folding"),
        (lambda b: b.__setitem__("extra", 1), "unexpected key 'extra'"),
    ],
)
def test_schema_violations_are_named(model_bytes: bytes, damage: Any, pattern: str) -> None:
    body = _body(model_bytes)
    damage(body)
    with pytest.raises(ModelFileError, match=pattern) as raised:
        extract(_with_payload(model_bytes, _signed(body)), "x.model")
    assert "\n" not in str(raised.value)


def test_payload_size_is_bounded() -> None:
    with pytest.raises(ModelFileError, match="more than"):
        Manifest.from_bytes(b" " * (MAX_PAYLOAD + 1), "x.model")


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([10**30, -1, 0, 0xE003, 0x10FFFF, 0x110000])
    | st.floats()
    | st.text(max_size=80),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


def _places(body: Body) -> list[tuple[Any, ...]]:
    """Paths to every kind of value in a manifest: top-level keys (and one it lacks), the
    codec's keys, an entry, a block, a script, and each slot of an entry and a block."""
    codec = body["codec"]
    places: list[tuple[Any, ...]] = [(key,) for key in (*body, "folding")]
    places += [("codec", key) for key in codec]
    for key in ("entries", "blocks", "scripts"):
        places += [("codec", key, 0), ("codec", key, len(codec[key]) - 1)]
    places += [("codec", key, 0, slot) for key in ("entries", "blocks") for slot in range(3)]
    return places


def _child(value: Any, key: Any) -> Any:
    """``value[key]``, or None where an earlier substitution left no such place."""
    if isinstance(value, dict):
        return value.get(key)
    if isinstance(value, list) and isinstance(key, int) and key < len(value):
        return value[key]
    return None


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_values_anywhere_are_a_model_file_error_or_load(
    model_bytes: bytes, data: Any
) -> None:
    """A JSON value put anywhere in a valid manifest (re-signed) loads or is one line of
    ModelFileError; never another exception."""
    body = _body(model_bytes)
    places = _places(body)
    for _ in range(data.draw(st.integers(1, 3))):
        *parents, last = data.draw(st.sampled_from(places))
        target: Any = body
        for key in parents:
            target = _child(target, key)
        if isinstance(target, dict):  # a JSON object's keys are text: 0 is "0" there
            target[str(last)] = data.draw(JSON_VALUES)
        elif _child(target, last) is not None:
            target[last] = data.draw(JSON_VALUES)
    try:
        extract(_with_payload(model_bytes, _signed(body)), "x.model")
    except ModelFileError as error:
        assert "\n" not in str(error)


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.lists(st.lists(st.text(max_size=6), min_size=2, max_size=2), max_size=6),
    mode=st.sampled_from(["nepali-lm", "nepali-ocr", "nfc", "none"]),
)
def test_random_folding_tables_are_a_model_file_error_or_load(
    model_bytes: bytes, rules: list[list[str]], mode: str
) -> None:
    """A folding table of random rules, with its own fingerprint right, and any mode."""
    body = _body(model_bytes)
    text = "\n".join(f"{pattern}\t{replacement}" for pattern, replacement in rules)
    body["normalization"] = mode
    body["folding"] = {"rules": rules, "fingerprint": fingerprint(text.encode("utf-8"))}
    try:
        extract(_with_payload(model_bytes, _signed(body)), "x.model")
    except ModelFileError as error:
        assert "\n" not in str(error)


# -- a re-signed manifest that its compiled rules contradict (model/rule_check.py) ------------


@pytest.fixture(scope="module")
def modes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """A model of each normalization mode, on real Hindi text (Devanagari: the Nepali folds
    and ZWJ apply), and one with stock's nmt_nfkc rules besides N."""
    sample = resources.files("brahmic_pua.data").joinpath("hi.sample.txt")
    folder = tmp_path_factory.mktemp("modes")
    found = {}
    for name, options in [
        ("nfc", {"normalization": "nfc"}),
        ("none", {"normalization": "none"}),
        ("nepali-lm", {"normalization": "nepali-lm"}),
        ("nepali-ocr", {"normalization": "nepali-ocr"}),
        ("nmt_nfkc", {"normalization_rule_name": "nmt_nfkc"}),
    ]:
        prefix = folder / name
        brahmic_pua.SentencePieceTrainer.train(
            input=str(sample),
            model_prefix=str(prefix),
            vocab_size=1000,
            progress=False,
            **options,
        )
        found[name] = Path(f"{prefix}.model").read_bytes()
    return found


def _load(data: bytes, tmp_path: Path, name: str = "m") -> brahmic_pua.SentencePieceProcessor:
    path = tmp_path / f"{name}.model"
    path.write_bytes(data)
    return brahmic_pua.SentencePieceProcessor(model_file=str(path))


@slow  # trains a model of each normalization mode
def test_every_mode_loads_and_round_trips_to_its_n(modes: dict[str, bytes], tmp_path: Path) -> None:
    lines = resources.files("brahmic_pua.data").joinpath("hi.sample.txt").read_text("utf-8")
    text = [*lines.splitlines()[:200], "सङ्ग दु:ख ।।", "क\u200dष", "e\u0301 \u0958"]
    for mode, data in modes.items():
        sp = _load(data, tmp_path, mode)
        assert sp.manifest is not None
        assert sp.manifest.user_rules == (mode == "nmt_nfkc")
        if mode != "nmt_nfkc":
            n = sp.manifest.normalizer
            assert [sp.decode(ids) for ids in sp.encode(text)] == [n(line) for line in text]


def test_a_manifest_without_half_its_codes_is_refused(model_bytes: bytes, tmp_path: Path) -> None:
    """The denormalizer still maps the dropped codes: shown and decoded through the manifest,
    those pieces would come out as Private Use codes."""
    body = _body(model_bytes)
    entries = body["codec"]["entries"]
    body["codec"]["entries"] = entries[: len(entries) // 2]
    with pytest.raises(ModelFileError, match=r"U\+[0-9A-F]{4} is missing from the manifest, "):
        _load(_with_payload(model_bytes, _signed(body)), tmp_path)


def test_a_manifest_with_a_code_the_rules_lack_is_refused(
    model_bytes: bytes, tmp_path: Path
) -> None:
    body = _body(model_bytes)
    entries = body["codec"]["entries"]
    unused = max(entry[0] for entry in entries) + 1
    entries.append([unused, *entries[0][1:]])
    entries[-1][1] = "ఀ"  # a cluster the table does not hold
    message = rf"U\+{unused:04X} is 'ఀ' in the manifest, '\\U000{unused:05x}'|U\+{unused:04X} is"
    with pytest.raises(ModelFileError, match=message):
        _load(_with_payload(model_bytes, _signed(body)), tmp_path)


@pytest.mark.parametrize(
    ("trained", "claimed", "said"),
    [
        ("nepali-lm", "nfc", "its rules make '\\u200d' ''"),
        ("nfc", "nepali-lm", "normalization=nepali-lm with its folding table makes it"),
        ("nfc", "none", "normalization=none makes it"),
        ("none", "nfc", "normalization=nfc makes it"),
        ("nepali-ocr", "nfc", "its rules make '।।' '॥'"),
    ],
)
@slow  # trains a model of each normalization mode
def test_a_manifest_that_claims_another_normalization_is_refused(
    modes: dict[str, bytes], tmp_path: Path, trained: str, claimed: str, said: str
) -> None:
    """Relabelled and re-signed, the model would load and round-trip to another N than the
    one it claims (nepali-lm's folds and ZWJ deletion are in its rules, whatever it says)."""
    body = _body(modes[trained])
    body["normalization"] = claimed
    body.pop("folding", None)
    if claimed == "nepali-lm":
        table = nepali_table("lm")
        rules = [list(rule) for rule in table.rules]
        body["folding"] = {"rules": rules, "fingerprint": table.fingerprint}
    with pytest.raises(ModelFileError, match=re.escape(said)) as raised:
        _load(_with_payload(modes[trained], _signed(body)), tmp_path)
    assert "manifest does not match the model's rules" in str(raised.value)


@pytest.mark.parametrize("trained", ["nfc", pytest.param("nmt_nfkc", marks=slow)])
def test_a_user_rules_manifest_must_still_hold_its_n(
    request: pytest.FixtureRequest, model_bytes: bytes, tmp_path: Path, trained: str
) -> None:
    """``user_rules`` does not excuse the rules from N: a manifest that claims nepali-lm with
    user rules and a folding rule the rules lack would fold in our processor and not in stock
    ("తెలుగు" decoding as "లులుగు" from ours, one id from stock's)."""
    data = model_bytes if trained == "nfc" else request.getfixturevalue("modes")[trained]
    body = _body(data)
    body["normalization"] = "nepali-lm"
    body["user_rules"] = True
    table = FoldingTable((("తె", "లు"), ("मे", "मो")))
    body["folding"] = {
        "rules": [list(rule) for rule in table.rules],
        "fingerprint": table.fingerprint,
    }
    with pytest.raises(ModelFileError, match=r"its rules \(a user's besides N\) code '") as raised:
        _load(_with_payload(data, _signed(body)), tmp_path)
    assert "manifest does not match the model's rules" in str(raised.value)


@slow  # trains a model of each normalization mode
def test_a_user_rules_model_loads_and_agrees_with_stock(
    modes: dict[str, bytes], tmp_path: Path
) -> None:
    """The check that refuses the case above passes a real model with a user's rules."""
    import sentencepiece as stock

    sp = _load(modes["nmt_nfkc"], tmp_path)
    path = str(tmp_path / "m.model")
    theirs = stock.SentencePieceProcessor(model_file=path)
    lines = resources.files("brahmic_pua.data").joinpath("hi.sample.txt").read_text("utf-8")
    text = [*lines.splitlines()[:100], "क\u200dष ｆｕｌｌ", "e\u0301 \u0958", "सङ्ग"]
    assert sp.encode(text) == theirs.encode(text)


def test_user_rules_must_be_true_when_given(model_bytes: bytes, tmp_path: Path) -> None:
    body = _body(model_bytes)
    body["user_rules"] = 1
    with pytest.raises(ModelFileError, match=r"user_rules is 1, not true"):
        _load(_with_payload(model_bytes, _signed(body)), tmp_path)


def test_a_normalizer_writing_a_code_the_manifest_lacks_is_refused(
    model_bytes: bytes, tmp_path: Path
) -> None:
    """Check 2 alone: the normalizer's rules (recompiled by spm's own compiler) write a code
    neither the manifest nor the denormalizer has."""
    from brahmic_pua.model.compile import compile_rules
    from brahmic_pua.model.rules import rule_files

    manifest = extract(model_bytes, "m")
    assert manifest is not None
    forward, backward = rule_files(manifest.codec, manifest.normalizer)
    forward += "U+0041 U+0042\tU+F8FE\n"  # "AB" → a code no table entry has
    normalize, denormalize = compile_rules(forward, backward, tmp_path)
    message = parse_model(model_bytes)
    message.normalizer_spec.precompiled_charsmap = normalize
    message.denormalizer_spec.precompiled_charsmap = denormalize
    with pytest.raises(ModelFileError, match=r"its normalizer writes U\+F8FE, a code the"):
        _load(message.SerializeToString(), tmp_path)


def _message(data: bytes) -> Any:
    """The raw protobuf message, for tests that read its extensions."""
    return parse_model(data)
