"""Streaming decode: ``"".join(chunks) + flush() == decode(ids)`` however the ids are split,
and no chunk ends inside a cluster, on brahmic_pua models and on a stock spm model."""

from __future__ import annotations

import random
from itertools import accumulate, pairwise
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as stock
from conftest import examples, require_extra, sample, sample_held_out, sample_training
from hypothesis import given, settings
from hypothesis import strategies as st

import brahmic_pua as spm
import brahmic_pua.runtime.stream as stream_module
from brahmic_pua.codec.layout import ESCAPE, RESERVED
from brahmic_pua.runtime.stream import HOLD_LIMIT, stream_decoder
from brahmic_pua.segment import POLICIES, segment
from brahmic_pua.trainer import train_model

TELUGU = sample_training("te")
#: Held out from every model here: the models train on the rest of each sample.
REAL = {"te": sample_held_out("te"), "hi": sample_held_out("hi")}


@pytest.fixture(scope="module")
def stock_stream_processor(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A stock spm model with byte fallback, loaded by stock sentencepiece."""
    prefix = tmp_path_factory.mktemp("plain") / "p"
    stock.SentencePieceTrainer.train(
        sentence_iterator=iter(TELUGU + sample_training("hi")),
        model_prefix=str(prefix),
        vocab_size=2000,
        byte_fallback=True,
        minloglevel=2,
    )
    return stock.SentencePieceProcessor(model_file=f"{prefix}.model")


@pytest.fixture(scope="module")
def escapes(tmp_path_factory: pytest.TempPathFactory) -> spm.SentencePieceProcessor:
    """A brahmic_pua model trained on Telugu with literal Private Use characters, so that
    pieces hold escapes (U+E000 + code) that its denormalizer rewrites across pieces."""
    rng = random.Random(0)
    literals = [ESCAPE, "\ue005", "\u2581", ESCAPE * 2, "\uf8ff"]
    lines = [
        " ".join(w + rng.choice(literals) if rng.random() < 0.2 else w for w in line.split())
        for line in TELUGU
    ]
    prefix = tmp_path_factory.mktemp("escapes") / "e"
    train_model(
        sentence_iterator=iter(lines), model_prefix=str(prefix), vocab_size=1500, model_type="bpe"
    )
    processor = spm.SentencePieceProcessor(model_file=f"{prefix}.model")
    raw = stock.SentencePieceProcessor(model_proto=processor.serialized_model_proto())
    assert any(raw.id_to_piece(i).endswith(ESCAPE) for i in range(len(processor)))
    return processor


@pytest.fixture(scope="module")
def processors(
    sample_models: dict[str, Path], stock_stream_processor: Any, escapes: spm.SentencePieceProcessor
) -> dict[str, Any]:
    """Each kind of processor a stream decoder takes."""
    return {
        "brahmic unigram": spm.SentencePieceProcessor(model_file=str(sample_models["unigram"])),
        "brahmic bpe": spm.SentencePieceProcessor(model_file=str(sample_models["bpe"])),
        "brahmic mixed": spm.SentencePieceProcessor(model_file=str(sample_models["mixed"])),
        "brahmic escapes": escapes,
        "stock": stock_stream_processor,
        "plain through brahmic_pua": spm.SentencePieceProcessor(
            model_proto=stock_stream_processor.serialized_model_proto()
        ),
    }


def stream(processor: Any, ids: list[int], cuts: list[int], policy: str = "akshara") -> list[str]:
    """The chunks of feeding ``ids`` split at ``cuts`` (one id fed as an int), then flush."""
    decoder = stream_decoder(processor, policy)
    bounds = [0, *sorted(cuts), len(ids)]
    chunks = [decoder.feed(ids[a] if b - a == 1 else ids[a:b]) for a, b in pairwise(bounds)]
    return [*chunks, decoder.flush()]


def check_stream(processor: Any, ids: list[int], cuts: list[int], policy: str = "akshara") -> None:
    """The stream equals decode, and every chunk but the flushed rest ends a cluster."""
    chunks = stream(processor, ids, cuts, policy)
    text = processor.decode(ids)
    assert "".join(chunks) == text
    ends = {0, *accumulate(map(len, segment(text, policy)))}
    assert set(accumulate(map(len, chunks[:-1]))) <= ends, (chunks, segment(text, policy))


def id_pools(processor: Any) -> list[list[int]]:
    """Runs of ids that exercise every rule of decode: bytes of whole and cut UTF-8 characters
    (an escape, an escaped ▁, a Private Use code, a conjunct, a 4-byte emoji) and of invalid
    ones, control, unknown and unused ids, ``▁``, and pieces that hold escapes."""
    raw = stock.SentencePieceProcessor(model_proto=processor.serialized_model_proto())
    spelled = [text.encode("utf-8") for text in (ESCAPE, "\ue001", "\ue003", "క్ర", "😀", "é")]
    spelled += [text[:-1] for text in spelled] + [b"\x80", b"\xff", b"\xed\xa0\x80"]
    runs = [[raw.piece_to_id(f"<0x{byte:02X}>") for byte in text] for text in spelled]
    special = [
        i
        for i in range(raw.get_piece_size())
        if raw.is_control(i)
        or raw.is_unknown(i)
        or raw.is_unused(i)
        or any(ch in RESERVED for ch in raw.id_to_piece(i))
    ]
    runs = [run for run in runs if all(raw.is_byte(i) for i in run)]
    return runs + [[i] for i in [*special, raw.piece_to_id("\u2581")]]


@pytest.fixture(scope="module")
def pools(processors: dict[str, Any]) -> dict[str, list[list[int]]]:
    return {kind: id_pools(processor) for kind, processor in processors.items()}


@st.composite
def id_sequences(draw: st.DrawFn, processor: Any, pools: list[list[int]]) -> list[int]:
    """Any ids, mixed with the runs that tie pieces to their neighbours."""
    size = processor.get_piece_size()
    parts = draw(
        st.lists(st.one_of(st.sampled_from(pools), st.lists(st.integers(0, size - 1))), max_size=8)
    )
    return [i for part in parts for i in part]


def cuts_of(ids: list[int]) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, len(ids)), max_size=len(ids) + 1)


KINDS = ["brahmic unigram", "brahmic escapes", "stock", "plain through brahmic_pua"]


@pytest.mark.parametrize("kind", KINDS)
@given(data=st.data())
def test_random_ids_split_anywhere(
    processors: dict[str, Any], pools: dict[str, list[list[int]]], kind: str, data: st.DataObject
) -> None:
    processor = processors[kind]
    ids = data.draw(id_sequences(processor, pools[kind]))
    check_stream(processor, ids, data.draw(cuts_of(ids)))


@pytest.mark.parametrize("policy", ["fixtoken", "syllable", "grapheme"])
@given(data=st.data())
@settings(max_examples=examples(60))
def test_other_policies(processors: dict[str, Any], policy: str, data: st.DataObject) -> None:
    for kind in ("brahmic mixed", "stock"):
        processor = processors[kind]
        line = data.draw(st.sampled_from(REAL["hi"] + REAL["te"]))
        ids = processor.encode(line)
        check_stream(processor, ids, data.draw(cuts_of(ids)), policy)


@pytest.mark.parametrize(
    ("corpus", "kind"),
    [
        ("te", "brahmic unigram"),
        ("te", "brahmic bpe"),
        ("hi", "brahmic mixed"),
        ("te", "brahmic mixed"),
        ("te", "stock"),
        ("hi", "stock"),
    ],
)
@given(data=st.data())
def test_real_lines_split_anywhere(
    processors: dict[str, Any], corpus: str, kind: str, data: st.DataObject
) -> None:
    """Real text, encoded plainly or sampled (rare segmentations), cut at random; a chunk
    shows no U+FFFD that the whole text does not have (no half of a byte-fallback character)."""
    processor = processors[kind]
    line = data.draw(st.sampled_from(REAL[corpus]))
    seed = data.draw(st.none() | st.integers(1, 2**31))
    if seed is not None:
        spm.set_random_generator_seed(seed)
        ids = processor.encode(line, enable_sampling=True, alpha=0.5, nbest_size=-1)
    else:
        ids = processor.encode(line)
    check_stream(processor, ids, data.draw(cuts_of(ids)))
    if "\ufffd" not in processor.decode(ids):
        assert not any("\ufffd" in chunk for chunk in stream(processor, ids, list(range(len(ids)))))


@pytest.mark.parametrize("kind", ["brahmic unigram", "stock"])
def test_text_waits_only_for_its_cluster(processors: dict[str, Any], kind: str) -> None:
    """Fed one id at a time, after a piece that ends cleanly the decoder has given all of the
    decoded prefix but its last cluster: nothing is held longer than it must be."""
    processor = processors[kind]
    raw = stock.SentencePieceProcessor(model_proto=processor.serialized_model_proto())
    checked = 0
    for line in REAL["te"] + sample("te")[:150]:
        ids = processor.encode(line)
        decoder, shown = stream_decoder(processor), ""
        for n, id in enumerate(ids, 1):
            shown += decoder.feed(id)
            piece = raw.id_to_piece(id)
            if raw.is_byte(id) or raw.is_control(id) or piece.endswith(ESCAPE) or piece == "▁":
                continue
            text = processor.decode(ids[:n])
            assert shown == text[: len(text) - len(segment(text, "akshara")[-1])]
            checked += 1
    assert checked > 3000


#: Runs that a model stuck in a loop emits, each one cluster however long under some policy:
#: a conjunct chain (akshara, grapheme), Vedic marks stacked on a base (every policy; spelled
#: in byte pieces), anusvaras after a vowel sign, viramas after ZWJ.
RUNS = {
    "conjunct": ("", "క్"),
    "marks": ("క", "\u0951"),
    "anusvaras": ("కి", "ం"),
    "zwj": ("क", "्\u200d"),
}


def run_ids(processor: Any, run: str, count: int) -> list[int]:
    """Ids of ``count`` copies of a run after its base, as a model emits them."""
    base, unit = RUNS[run]
    return list(processor.encode(base + unit * count))


def segmented_characters(
    processor: Any, ids: list[int], policy: str, monkeypatch: pytest.MonkeyPatch
) -> int:
    """Characters the decoder hands to ``segment`` while fed ``ids`` one at a time (memos
    fresh): the work that grows with the text it holds. The stream must still equal decode."""
    count = 0

    def counting(text: str, policy: str) -> list[str]:
        nonlocal count
        count += len(text)
        return segment(text, policy)

    with monkeypatch.context() as patch:
        patch.setattr(stream_module, "segment", counting)
        patch.setattr(stream_module, "_memos", {})
        decoder = stream_decoder(processor, policy)
        text = "".join(map(decoder.feed, ids)) + decoder.flush()
    assert text == processor.decode(ids)
    return count


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("kind", ["brahmic mixed", "stock"])
@pytest.mark.parametrize("run", list(RUNS))
def test_work_is_linear_in_a_run_without_end(
    processors: dict[str, Any], kind: str, policy: str, run: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Degenerate output, one cluster thousands of characters long: twice the ids cost at
    most about twice the segmenting (holding the whole run would cost four times)."""
    processor = processors[kind]
    counts = [
        segmented_characters(processor, run_ids(processor, run, n), policy, monkeypatch)
        for n in (400, 800)
    ]
    assert counts[1] <= 2 * counts[0] + 4 * HOLD_LIMIT, counts


@pytest.mark.parametrize("kind", ["brahmic mixed", "stock"])
@pytest.mark.parametrize("run", list(RUNS))
def test_a_run_longer_than_the_hold_limit_is_released(
    processors: dict[str, Any], kind: str, run: str
) -> None:
    """Fed one id at a time, the text shown trails the decoded prefix by at most the hold
    limit and one id's text, however long the cluster grows."""
    processor = processors[kind]
    raw = stock.SentencePieceProcessor(model_proto=processor.serialized_model_proto())
    ids = run_ids(processor, run, 300)
    longest = max(len(raw.id_to_piece(i)) for i in ids)
    decoder, shown = stream_decoder(processor), ""
    for n, id in enumerate(ids, 1):
        shown += decoder.feed(id)
        text = processor.decode(ids[:n])
        assert text.startswith(shown)
        assert len(text) - len(shown) <= HOLD_LIMIT + longest, (n, len(text), len(shown))
    assert shown + decoder.flush() == processor.decode(ids)


@st.composite
def looping_ids(draw: st.DrawFn, processor: Any) -> list[int]:
    """Ids as a model stuck in loops emits them: runs of one id or of one run's ids, up to a
    few hundred long, between random ids."""
    size = processor.get_piece_size()
    ids: list[int] = []
    for _ in range(draw(st.integers(1, 4))):
        unit = draw(
            st.one_of(
                st.lists(st.integers(0, size - 1), min_size=1, max_size=3),
                st.sampled_from(list(RUNS)).map(lambda run: run_ids(processor, run, 1)),
            )
        )
        ids += unit * draw(st.integers(1, 150))
    return ids


@pytest.mark.parametrize("policy", POLICIES)
@given(data=st.data())
@settings(max_examples=examples(40))
def test_runs_split_anywhere(processors: dict[str, Any], policy: str, data: st.DataObject) -> None:
    """Long runs split at random join to decode, and every chunk ends where a cluster does,
    or inside a cluster longer than the hold limit."""
    for kind in ("brahmic mixed", "stock"):
        processor = processors[kind]
        ids = data.draw(looping_ids(processor))
        chunks = stream(processor, ids, data.draw(cuts_of(ids)), policy)
        text = processor.decode(ids)
        assert "".join(chunks) == text
        clusters = segment(text, policy)
        starts = [0, *accumulate(map(len, clusters))]
        ends = set(starts)
        for start, cluster in zip(starts, clusters, strict=False):
            if len(cluster) > HOLD_LIMIT:
                ends.update(range(start, start + len(cluster)))
        assert set(accumulate(map(len, chunks[:-1]))) <= ends


def test_byte_fallback_character_comes_whole(processors: dict[str, Any]) -> None:
    """Characters spelled in four byte pieces show only once all four are in and their
    cluster has ended; the ▁ that starts the text is dropped as decode drops it."""
    processor = processors["stock"]
    ids = processor.encode("𝄞 కథ 😀")
    spelled = [n for n, i in enumerate(ids) if processor.is_byte(i)]
    assert len(spelled) == 8
    decoder = stream_decoder(processor)
    chunks = [decoder.feed(i) for i in ids]
    assert not any(chunks[: spelled[3] + 1])
    assert "".join(chunks) == "𝄞 కథ "
    assert decoder.flush() == "😀"
    assert processor.decode(ids) == "𝄞 కథ 😀"


def test_flush_starts_a_new_sequence(processors: dict[str, Any]) -> None:
    processor = processors["brahmic unigram"]
    ids = processor.encode("క్రమంగా తెలుగు")
    decoder = processor.stream_decoder()
    first = "".join(decoder.feed(i) for i in ids) + decoder.flush()
    again = decoder.feed(ids) + decoder.flush()
    assert first == again == processor.decode(ids) == "క్రమంగా తెలుగు"


def test_ids_in_any_integer_type(processors: dict[str, Any]) -> None:
    require_extra("numpy", "test", "ids of NumPy integer types")
    import numpy

    processor = processors["brahmic unigram"]
    ids = processor.encode("తెలుగు భాష")
    decoder = processor.stream_decoder()
    text = decoder.feed(numpy.int64(ids[0])) + decoder.feed(numpy.array(ids[1:]))
    assert text + decoder.flush() == processor.decode(ids)


@pytest.mark.parametrize("kind", ["brahmic unigram", "stock"])
def test_out_of_range_id_is_refused_whole(processors: dict[str, Any], kind: str) -> None:
    """An id out of range raises IndexError naming it, like brahmic_pua's decode, and the
    decoder keeps none of that call's ids."""
    processor = processors[kind]
    size = processor.get_piece_size()
    ids = processor.encode("తెలుగు భాష")
    decoder = stream_decoder(processor)
    for bad in (size, -1):
        with pytest.raises(IndexError, match=f"piece id {bad} is out of range"):
            decoder.feed([ids[0], bad])
    wrapped = spm.SentencePieceProcessor(model_proto=processor.serialized_model_proto())
    with pytest.raises(IndexError) as decoded:
        wrapped.decode([size])
    with pytest.raises(IndexError) as streamed:
        decoder.feed(size)
    assert str(streamed.value) == str(decoded.value)
    assert decoder.feed(ids) + decoder.flush() == processor.decode(ids)


def test_unknown_policy() -> None:
    with pytest.raises(ValueError, match="unknown policy 'word'"):
        stream_decoder(None, "word")  # type: ignore[arg-type]  # refused before it is read


def test_model_with_its_own_denormalizer_is_refused(tmp_path: Path) -> None:
    """Rules the decoder cannot read could span pieces: it says so instead of guessing."""
    rules = tmp_path / "denormalize.tsv"
    rules.write_text("61 62\t63\n", encoding="utf-8")
    stock.SentencePieceTrainer.train(
        sentence_iterator=iter(TELUGU[:300]),
        model_prefix=str(tmp_path / "d"),
        vocab_size=300,
        denormalization_rule_tsv=str(rules),
        minloglevel=2,
    )
    processor = stock.SentencePieceProcessor(model_file=str(tmp_path / "d.model"))
    with pytest.raises(ValueError, match="its own denormalization rules"):
        stream_decoder(processor)
