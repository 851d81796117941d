"""PUACodec: exact round trips on every input, deterministic tables, safe files."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import OTHER_SCRIPTS, corpora, corpus_files, read, sample
from hypothesis import given
from hypothesis import strategies as st
from strategies import nasty_texts

from brahmic_pua import POLICIES, CodecFileError, PUACodec, segment
from brahmic_pua.codec.closed_set import valid_clusters
from brahmic_pua.codec.layout import BMP_CAPACITY, CAPACITY, ESCAPE, allocate
from brahmic_pua.orthography import is_valid_token, script_of_char
from brahmic_pua.segment.counting import count_corpus, lookup_pattern

SAMPLE = [
    "క్రాంతి విజ్ఞానం తెలుగు భాష",
    "नेपाल क्षेत्रमा व्यक्तित्वमा प्रभाव",
    "Việt Nam ▁ \u2585 \ue000 \ue003",
]


@pytest.fixture(scope="module")
def codecs() -> dict[str, PUACodec]:
    lines = sample("te") + sample("hi")
    return {policy: PUACodec.build(lines, policy) for policy in POLICIES}


def reference_encode(codec: PUACodec, text: str) -> str:
    """encode() by its definition: segment, then map each cluster to its code, or write its
    characters with ▁ and U+2585 as their stand-ins and a literal code or stand-in escaped."""
    stand_ins = {"\u2581": "\ue001", "\u2585": "\ue002"}
    literal = {code for code, _ in codec.code_pairs()} | {ESCAPE, *stand_ins.values()}
    out = []
    for cluster in segment(text, codec.policy):
        code = codec.code_of(cluster)
        if code is not None:
            out.append(code)
        else:
            out.extend(stand_ins.get(c, ESCAPE + c if c in literal else c) for c in cluster)
    return "".join(out)


@pytest.mark.parametrize("policy", POLICIES)
@given(text=nasty_texts)
def test_round_trip_on_any_text(codecs: dict[str, PUACodec], policy: str, text: str) -> None:
    codec = codecs[policy]
    encoded = codec.encode(text)
    assert codec.decode(encoded) == text
    assert "\u2581" not in encoded and "\u2585" not in encoded


@pytest.mark.parametrize("policy", POLICIES)
@given(text=nasty_texts)
def test_encode_is_segment_then_map(codecs: dict[str, PUACodec], policy: str, text: str) -> None:
    codec = codecs[policy]
    assert codec.encode(text) == reference_encode(codec, text)


@given(a=nasty_texts, b=nasty_texts)
def test_encode_is_injective(codecs: dict[str, PUACodec], a: str, b: str) -> None:
    codec = codecs["fixtoken"]
    assert (codec.encode(a) == codec.encode(b)) == (a == b)


def test_escapes(codecs: dict[str, PUACodec]) -> None:
    codec = codecs["fixtoken"]
    taken = codec.code_of("క")
    assert taken is not None
    text = f"{taken}\u2581\u2585{ESCAPE}\ue001\ue002\U0010fffd\ufdd0"
    encoded = codec.encode(text)
    assert encoded.startswith(ESCAPE + taken)  # a literal code is escaped, not decoded
    assert "\u2581" not in encoded and "\u2585" not in encoded
    assert "\U0010fffd" in encoded  # an unused PUA code point passes through as itself
    assert codec.decode(encoded) == text
    assert codec.decode(ESCAPE) == ESCAPE  # a dangling escape decodes to itself


def test_every_sentinel_in_the_text_takes_the_slow_path(codecs: dict[str, PUACodec]) -> None:
    text = "".join(chr(cp) for cp in range(0xFDD0, 0xFDF0)) + " క్రాంతి"
    for codec in codecs.values():
        assert codec.decode(codec.encode(text)) == text
        assert codec.encode(text) == reference_encode(codec, text)


def test_lone_surrogate_names_its_index(codecs: dict[str, PUACodec]) -> None:
    with pytest.raises(ValueError, match=r"lone surrogate U\+D800 at index 3"):
        codecs["fixtoken"].encode("కిa\ud800")
    with pytest.raises(ValueError, match=r"text 2: lone surrogate U\+DFFF at index 0"):
        PUACodec.build(["క", "\udfff"])


def test_clusters_become_single_code_points(codecs: dict[str, PUACodec]) -> None:
    codec = codecs["fixtoken"]
    encoded = codec.encode("క్రాంతి")
    assert len(encoded) == 3
    assert [codec.cluster_of(ch) for ch in encoded] == ["క్", "రాం", "తి"]
    assert [codec.script_of(ch) for ch in encoded] == ["telugu"] * 3
    assert codec.script_of(codec.encode("क")) == "devanagari"
    assert codec.script_of("a") is None and codec.cluster_of("a") is None


def test_closed_set_covers_unseen_valid_clusters() -> None:
    codec = PUACodec.build(["క"], scripts=["telugu"])
    for cluster in ("ఝౌం", "ఙ్\u200c", "ఱ\u0c3cి", "ఔః"):
        assert codec.code_of(cluster) is not None, cluster
    clusters = list(valid_clusters("telugu"))
    assert len(clusters) == len(set(clusters)) > 8000
    for cluster in clusters:
        assert is_valid_token(cluster)
        assert segment(cluster) == [cluster]
    assert len(codec) == len(clusters)


def test_without_the_closed_set_the_table_holds_the_counted_clusters() -> None:
    """closed_set=False (the trainer's table): every counted cluster of a mapped script and
    nothing else, ranked as with the closed set (the codes only move)."""
    counts = count_corpus(sample("te")[:200] + sample("hi")[:100], "fixtoken").clusters
    full = PUACodec.from_counts(counts, "fixtoken")
    counted = PUACodec.from_counts(counts, "fixtoken", closed_set=False)
    mapped = {c for c in counts if full.code_of(c) is not None}
    assert {cluster for _, cluster in counted.code_pairs()} == mapped
    assert len(full) > len(counted) + 8000
    assert counted.scripts == full.scripts
    for script in counted.scripts:  # in a script's block, most frequent first
        order = sorted(
            (c for c in mapped if full.script_of(full.code_of(c) or "") == script),
            key=lambda c: (-counts[c], c),
        )
        codes = [ord(counted.code_of(c) or "") for c in order]
        assert codes == sorted(codes) and order, script
    assert (
        counted.to_json() == PUACodec.from_counts(dict(counts), "fixtoken", None, False).to_json()
    )


def test_build_is_deterministic_and_ranks_by_frequency() -> None:
    lines = ["తి తి తి కి కి గి", "గి", "ప"]
    first = PUACodec.build(lines, scripts=["telugu"])
    assert first.to_json() == PUACodec.build(list(lines), scripts=["telugu"]).to_json()
    codes = [ord(first.code_of(c) or "") for c in ("తి", "కి", "గి", "ప")]
    assert codes[0] < codes[1] < codes[2] < codes[3]  # 3, 2, 2 (tie: కి < గి), then 1
    assert first.counts()["తి"] == 3 and first.counts()["ఝౌం"] == 0


def test_scripts_are_detected_or_chosen() -> None:
    mixed = ["క్రాంతి नेपाल"]
    assert PUACodec.build(mixed, "akshara").scripts == ("devanagari", "telugu")
    only = PUACodec.build(mixed, "akshara", scripts=["telugu"])
    assert only.scripts == ("telugu",)
    assert only.encode("नेपाल") == "नेपाल"  # other scripts pass through
    with pytest.raises(ValueError, match=r"unknown script.*klingon.*choose from"):
        PUACodec.build(mixed, scripts=["klingon"])
    with pytest.raises(ValueError, match="unknown policy"):
        PUACodec.build(mixed, "words")


def test_codes_fill_the_bmp_first_in_script_blocks() -> None:
    ranked = [(f"c{i}", "telugu" if i % 3 else "devanagari") for i in range(BMP_CAPACITY + 10)]
    codes, blocks = allocate(ranked)
    assert max(codes[c] for c, _ in ranked[:BMP_CAPACITY]) <= 0xF8FF
    assert min(codes[c] for c, _ in ranked[BMP_CAPACITY:]) >= 0xF0000
    assert [s for _, _, s in blocks] == ["devanagari", "telugu", "telugu", "devanagari"]
    with pytest.raises(ValueError, match="do not fit"):
        allocate([(str(i), "telugu") for i in range(CAPACITY + 1)])


def test_save_and_load(tmp_path: Path, codecs: dict[str, PUACodec]) -> None:
    codec = codecs["akshara"]
    path = tmp_path / "codec.json"
    codec.save(path)
    loaded = PUACodec.load(path)
    assert loaded.to_json() == codec.to_json()
    assert loaded.fingerprint == codec.fingerprint and loaded.policy == "akshara"
    for line in SAMPLE:
        assert loaded.encode(line) == codec.encode(line)
    assert [p.name for p in tmp_path.iterdir()] == ["codec.json"]


def edit(document: str, **changes: object) -> str:
    return json.dumps({**json.loads(document), **changes})


def edit_a_count(document: str) -> str:
    body = json.loads(document)
    body["entries"][0][2] += 1
    return json.dumps(body)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda s: s[: len(s) // 2], "corrupt or truncated JSON"),
        (lambda s: "", "corrupt or truncated JSON"),
        (lambda s: edit(s, format_version=2), "format version 2"),
        (lambda s: edit(s, unicode_version="9.0.0"), "Unicode '9.0.0'"),
        (lambda s: s.replace('"brahmic_pua.codec"', '"other"'), "not a brahmic_pua codec file"),
        (edit_a_count, "does not match its fingerprint"),
        (lambda s: json.dumps({**json.loads(s), "entries": [[1, "x", 0]]}), "outside the Private"),
    ],
)
def test_bad_files_raise_one_clear_error(
    tmp_path: Path, codecs: dict[str, PUACodec], damage: object, message: str
) -> None:
    path = tmp_path / "codec.json"
    path.write_text(damage(codecs["fixtoken"].to_json()), encoding="utf-8")  # type: ignore[operator]
    with pytest.raises(CodecFileError, match=message) as raised:
        PUACodec.load(path)
    assert "rebuild it" in str(raised.value)
    assert "\n" not in str(raised.value)


def _check_every_line(codec: PUACodec, text: str) -> None:
    encoded = codec.encode(text)
    assert codec.decode(encoded) == text
    lines = text.split("\n")
    assert [codec.decode(codec.encode(line)) for line in lines] == lines
    # every cluster was seen while building, so no character of a mapped script is left
    leftover = {ch for ch in encoded if script_of_char(ch) in codec.scripts}
    assert not leftover, sorted(leftover)[:10]


def test_every_sample_line_round_trips() -> None:
    texts = ["\n".join(sample("te")), "\n".join(sample("hi")), "\n".join(OTHER_SCRIPTS)]
    codec = PUACodec.build(line for text in texts for line in text.splitlines())
    for text in texts:
        _check_every_line(codec, text)


@pytest.fixture(scope="module")
def corpus_codec() -> PUACodec:
    return PUACodec.build(line for path in corpus_files() for line in read(path.name).splitlines())


@corpora
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_every_corpus_line_round_trips(corpus_codec: PUACodec, path: Path) -> None:
    _check_every_line(corpus_codec, read(path.name))


@pytest.mark.parametrize("policy", ["akshara", "syllable", "grapheme"])
def test_other_policies_round_trip_real_text(policy: str) -> None:
    text = "\n".join(sample("te") + sample("hi") + OTHER_SCRIPTS)
    codec = PUACodec.build(text.splitlines(), policy)
    encoded = codec.encode(text)
    assert codec.decode(encoded) == text
    assert not any(script_of_char(ch) for ch in encoded)  # every Brahmic cluster is a code


@pytest.mark.parametrize("policy", POLICIES)
@given(lines=st.lists(nasty_texts, max_size=6))
def test_counting_equals_one_pass_per_line(policy: str, lines: list[str]) -> None:
    """count_corpus's shortcuts (pieces counted once, weighted) change no count."""
    pattern = lookup_pattern(policy)
    clusters: Counter[str] = Counter()
    characters: Counter[str] = Counter()
    for line in lines:
        clusters.update(pattern.findall(line))
        characters.update(line)
    counts = count_corpus(lines, policy)
    assert counts.clusters == clusters
    assert +counts.characters == +characters


@pytest.mark.parametrize("policy", POLICIES)
def test_counting_real_text(policy: str) -> None:
    lines = sample("hi") + sample("te")
    pattern = lookup_pattern(policy)
    expected: Counter[str] = Counter()
    for line in lines:
        expected.update(pattern.findall(line))
    assert count_corpus(lines, policy).clusters == expected
