"""Script ids, the metrics and ``brahmic-pua eval`` / ``vocab``, on small
Devanagari models: brahmic_pua's and plain spm's, trained on the Hindi sample and the Nepali lines
written for the tests, and measured on held-out lines of both."""

from __future__ import annotations

import json
import sys
import types
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sentencepiece
from click.testing import CliRunner
from conftest import NEPALI, require_extra, sample_held_out, sample_training

from brahmic_pua import SCRIPT_NAMES, SentencePieceProcessor
from brahmic_pua.cli.eval_command import eval_command, vocab_command
from brahmic_pua.evaluation.evaluate import LABELS, evaluate, expected_text, format_table
from brahmic_pua.evaluation.metrics import (
    bytes_per_token,
    cluster_split_rate,
    fertility,
    nsl,
    orphan_mark_ids,
    orphan_marks_per_1000,
    round_trip_rate,
    split_clusters,
    token_starts,
    tokens_per_char,
    unk_rate,
    vocabulary_share,
)
from brahmic_pua.evaluation.o200k import O200k
from brahmic_pua.model.display import starts_with_mark
from brahmic_pua.model.model_proto import UNUSED, parse_model
from brahmic_pua.model.script_ids import (
    DEV,
    FMT,
    LAT,
    MAL,
    MIXED,
    PUN,
    SCRIPT_ID,
    SCRIPT_ID_NAMES,
    SPECIAL,
    piece_texts,
    script_ids,
    script_of_text,
    vocabulary_lines,
)
from brahmic_pua.trainer import train_model

VOCAB = 1200
#: Nepali lines trained on; the rest are held out.
NEPALI_TRAINED = 30
TRAIN_LINES = len(sample_training("hi")) + NEPALI_TRAINED
HELD_OUT = len(sample_held_out("hi")) + len(NEPALI) - NEPALI_TRAINED


@pytest.fixture(scope="module")
def ne_lines() -> list[str]:
    """Devanagari: the Hindi sample and the written Nepali lines, the held-out lines last."""
    trained, held = NEPALI[:NEPALI_TRAINED], NEPALI[NEPALI_TRAINED:]
    return sample_training("hi") + trained + sample_held_out("hi") + held


@pytest.fixture(scope="module")
def ne_held_out(ne_lines: list[str]) -> list[str]:
    return [line for line in ne_lines[-HELD_OUT:] if line.strip()]


@pytest.fixture(scope="module")
def model_files(tmp_path_factory: pytest.TempPathFactory, ne_lines: list[str]) -> dict[str, Path]:
    """1200-piece Unigram models on the lines not held out: brahmic_pua's, and plain spm's with
    spm's defaults (nmt_nfkc, no byte fallback)."""
    work = tmp_path_factory.mktemp("eval")
    lines = ne_lines[:TRAIN_LINES]
    train_model(sentence_iterator=iter(lines), model_prefix=str(work / "bp"), vocab_size=VOCAB)
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_prefix=str(work / "plain"),
        vocab_size=VOCAB,
        minloglevel=2,
    )
    return {"brahmic": work / "bp.model", "plain": work / "plain.model"}


@pytest.fixture(scope="module")
def brahmic_processor(model_files: dict[str, Path]) -> SentencePieceProcessor:
    sp = SentencePieceProcessor(model_file=str(model_files["brahmic"]))
    assert sp.is_brahmic
    return sp


@pytest.fixture(scope="module")
def plain_processor(model_files: dict[str, Path]) -> SentencePieceProcessor:
    sp = SentencePieceProcessor(model_file=str(model_files["plain"]))
    assert not sp.is_brahmic
    return sp


# -- script ids ------------------------------------------------------------------------------


def test_numbering_starts_with_seed_000s_and_names_every_script() -> None:
    assert (DEV, LAT, PUN, FMT, MAL) == (0, 1, 2, 3, 4)  # NepBPE: 0=DEV 1=LAT 2=PUN 3=FMT 4=MAL
    assert SCRIPT_ID_NAMES[:7] == (
        "devanagari",
        "latin",
        "punctuation",
        "format",
        "byte",
        "special",
        "other",
    )
    assert len(set(SCRIPT_ID_NAMES)) == len(SCRIPT_ID_NAMES) == 7 + len(SCRIPT_NAMES)
    assert set(SCRIPT_NAMES) < set(SCRIPT_ID)
    assert SCRIPT_ID_NAMES[MIXED] == "mixed" and len(SCRIPT_ID_NAMES) - 1 == MIXED
    assert [SCRIPT_ID[s] for s in SCRIPT_NAMES if s != "devanagari"] == list(range(7, MIXED))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("▁नेपाल", "devanagari"),
        ("हैं।", "devanagari"),  # punctuation joins the letters' script: a punct-join matter
        ("२०८०", "devanagari"),  # Devanagari digits are Script=Devanagari
        ("▁क्‌", "devanagari"),  # ZWNJ inside a cluster
        ("the", "latin"),
        ("Mr.", "latin"),
        ("।", "punctuation"),
        ("॥", "punctuation"),
        ("2024", "punctuation"),
        ("▁", "punctuation"),
        ("\u200c", "format"),
        ("▁\u200d", "format"),
        ("క్ర", "telugu"),
        ("ক্ষ", "bengali"),
        ("Привет", "other"),
        ("\ue123", "other"),
        ("नab", "mixed"),
        ("नక", "mixed"),
        ("▁a-क", "mixed"),
    ],
)
def test_script_of_text(text: str, expected: str) -> None:
    assert SCRIPT_ID_NAMES[script_of_text(text)] == expected


@pytest.mark.parametrize("kind", ["brahmic", "plain", "stock"])
def test_script_ids_align_with_the_vocabulary(
    kind: str,
    model_files: dict[str, Path],
    brahmic_processor: SentencePieceProcessor,
    plain_processor: SentencePieceProcessor,
) -> None:
    processors: dict[str, Any] = {
        "brahmic": brahmic_processor,
        "plain": plain_processor,
        "stock": sentencepiece.SentencePieceProcessor(model_file=str(model_files["plain"])),
    }
    sp = processors[kind]
    ids = script_ids(sp)
    assert len(ids) == sp.get_piece_size()
    for i, s in enumerate(ids):
        special = sp.is_control(i) or sp.is_unknown(i) or sp.is_unused(i)
        assert (s == SPECIAL) == special
        assert (s == MAL) == (sp.is_byte(i) and not special)
    assert ids[sp.piece_to_id("।")] == PUN
    assert ids[sp.piece_to_id("a")] == LAT
    assert ids[sp.piece_to_id("को")] == DEV
    assert ids[sp.piece_to_id("▁")] == PUN
    if kind == "brahmic":
        assert ids[sp.piece_to_id("<0xE0>")] == MAL
        assert sp.script_ids() == sp.ScriptIds() == ids
        unused = sum(1 for i in range(sp.get_piece_size()) if sp.is_unused(i))
        assert unused > 0 and ids.count(SPECIAL) == 3 + unused  # <unk> <s> </s> + disabled


def test_brahmic_piece_texts_are_the_shown_pieces_decoded(
    brahmic_processor: SentencePieceProcessor,
) -> None:
    """Pieces are classified from their text: the codec's clusters, no Private Use code."""
    texts = piece_texts(brahmic_processor)
    for i, text in enumerate(texts):
        shown = brahmic_processor.id_to_piece(i)
        # a disabled piece is spelled after a space (model.display.DISABLED_PREFIX), shown as is
        assert "<U+" in shown or text.replace(" ", "▁") == shown.replace(" ", "▁")
        if not brahmic_processor.is_unused(i):
            assert not any(unicodedata.category(ch) == "Co" for ch in text)


@pytest.mark.parametrize("kind", ["brahmic", "plain"])
def test_vocabulary_lines_are_the_vocab_file(
    kind: str,
    model_files: dict[str, Path],
    brahmic_processor: SentencePieceProcessor,
    plain_processor: SentencePieceProcessor,
) -> None:
    sp = brahmic_processor if kind == "brahmic" else plain_processor
    vocab = model_files[kind].with_suffix(".vocab").read_text(encoding="utf-8").splitlines()
    assert list(vocabulary_lines(sp)) == vocab
    with_ids = [line.split("\t") for line in vocabulary_lines(sp, with_script_ids=True)]
    assert [f"{p}\t{s}" for p, s, _, _ in with_ids] == vocab
    assert [(int(i), name) for _, _, i, name in with_ids] == [
        (s, SCRIPT_ID_NAMES[s]) for s in script_ids(sp)
    ]


# -- metrics on hand-made cases --------------------------------------------------------------


def test_length_metrics_by_hand() -> None:
    assert fertility([[1, 2, 3]], ["ab  cd"]) == 1.5
    assert tokens_per_char([[1, 2]], ["abcd"]) == 0.5
    assert bytes_per_token([[1, 2]], ["कख"]) == 3.0  # 6 UTF-8 bytes, 2 tokens
    assert nsl([[1, 2, 3]], [[1], [2, 3, 4, 5, 6]]) == 0.5
    assert round_trip_rate(["a", "b"], ["a", "c"]) == 0.5


class _Vocabulary:
    """A hand-made vocabulary with the methods the metrics read."""

    def __init__(self, pieces: list[str]) -> None:
        self.pieces = pieces

    def get_piece_size(self) -> int:
        return len(self.pieces)

    def id_to_piece(self, i: int) -> str:
        return self.pieces[i]

    def is_byte(self, i: int) -> bool:
        return self.pieces[i].startswith("<0x")

    def is_control(self, i: int) -> bool:
        return self.pieces[i] in ("<s>", "</s>")

    def is_unknown(self, i: int) -> bool:
        return self.pieces[i] == "<unk>"

    def is_unused(self, i: int) -> bool:
        return False


def test_orphan_marks_by_hand() -> None:
    """Mark-initial after any leading ▁, by Unicode category (U+0CF3 is Unicode 15: newer
    than Python 3.11's unicodedata); byte pieces are not orphans."""
    vocab = _Vocabulary(["<unk>", "▁ा", "ा", "\u0cf3", "▁▁ि", "का", "▁", "<0xE0>", "\u200c", "ँ"])
    assert orphan_mark_ids(vocab) == {1, 2, 3, 4, 9}
    assert orphan_marks_per_1000([[1, 5], [5, 6, 7, 8]], vocab) == pytest.approx(1000 / 6)
    assert [SCRIPT_ID_NAMES[s] for s in script_ids(vocab)] == [
        "special",
        "devanagari",
        "devanagari",
        "kannada",
        "devanagari",
        "devanagari",
        "punctuation",
        "byte",
        "format",
        "devanagari",
    ]


def test_split_clusters_by_hand() -> None:
    # किताब: कि | ता | ब; ब has one character and is not counted
    assert split_clusters("किताब", [0, 2, 4]) == (0, 2)
    assert split_clusters("किताब", [0, 1, 2, 3, 4]) == (2, 2)
    assert split_clusters("किताब", [0, 3]) == (1, 2)  # a token start inside ता
    assert split_clusters("ab cd", [0, 1, 2]) == (0, 0)  # no Brahmic cluster


def test_token_starts_group_the_bytes_of_a_character(
    brahmic_processor: SentencePieceProcessor,
) -> None:
    """ఝ is not in a Nepali model: three byte pieces spell one character (one unit); ఝా is
    spelled character by character, so the cluster is split."""
    assert brahmic_processor.encode("ఝ", out_type=str) == ["▁", "<0xE0>", "<0xB0>", "<0x9D>"]
    assert token_starts(brahmic_processor, ["ఝ", "ఝా", "नेपाल"]) == [[0], [0, 1], [0]]
    assert split_clusters("ఝా", [0, 1]) == (1, 1)


def test_token_starts_are_the_processors_tokens(model_files: dict[str, Path]) -> None:
    sp = SentencePieceProcessor(model_file=str(model_files["brahmic"]), add_bos=True)
    with pytest.raises(ValueError, match="text 0: stock sentencepiece and the processor"):
        token_starts(sp, ["नेपाल"])


def test_token_starts_agree_with_decoding_growing_prefixes(
    brahmic_processor: SentencePieceProcessor,
    plain_processor: SentencePieceProcessor,
    ne_held_out: list[str],
) -> None:
    """spm's alignment against an independent reading: a token boundary is where the decoded
    prefix is a prefix of N(s) (a prefix cut inside a character's bytes decodes to U+FFFD)."""
    for sp in (brahmic_processor, plain_processor):
        normalized = [expected_text(sp, text) for text in ne_held_out[:200]]
        compared = 0
        for text, starts, row in zip(
            normalized, token_starts(sp, normalized), sp.encode(ne_held_out[:200]), strict=True
        ):
            if sp.decode(row) != text:  # plain spm's nmt_nfkc changed the text
                continue
            prefixes = sp.decode([row[:k] for k in range(1, len(row))])
            decoded = {len(p) for p in prefixes if text.startswith(p)} - {0, len(text)}
            assert decoded == set(starts) - {0}
            compared += 1
        assert compared > 100


def test_unk_rate_by_hand(
    plain_processor: SentencePieceProcessor, brahmic_processor: SentencePieceProcessor
) -> None:
    assert unk_rate([[plain_processor.unk_id(), 5], [6, 7]], plain_processor) == 0.25
    text = ["ఝ नेपाल"]  # Telugu is not in the models' alphabet
    assert unk_rate(plain_processor.encode(text), plain_processor) > 0
    assert unk_rate(brahmic_processor.encode(text), brahmic_processor) == 0


def test_round_trip_by_hand(
    plain_processor: SentencePieceProcessor, brahmic_processor: SentencePieceProcessor
) -> None:
    texts = ["क  ख ", "\u0958"]  # spm's defaults collapse spaces and decompose the nukta letter
    assert evaluate(plain_processor, texts)["round_trip_rate"] == 0.0
    assert evaluate(brahmic_processor, texts)["round_trip_rate"] == 1.0


def test_n_is_the_models_own(
    tmp_path: Path,
    ne_lines: list[str],
    ne_held_out: list[str],
    brahmic_processor: SentencePieceProcessor,
) -> None:
    """On a nepali-lm model N folds spellings, and the round trip is measured against that."""
    prefix = tmp_path / "lm"
    train_model(
        sentence_iterator=iter(ne_lines[:TRAIN_LINES]),
        model_prefix=str(prefix),
        vocab_size=1000,
        normalization="nepali-lm",
    )
    lm = SentencePieceProcessor(model_file=f"{prefix}.model")
    assert expected_text(lm, "सँग‍") == "संग" and expected_text(brahmic_processor, "सँग") == "सँग"
    folded = [
        text
        for text in ne_held_out
        if expected_text(lm, text) != expected_text(brahmic_processor, text)
    ]
    assert folded  # the held-out text has spellings to fold
    assert evaluate(lm, folded)["round_trip_rate"] == 1.0


# -- metrics on held-out Nepali --------------------------------------------------------------


def test_orphan_marks(
    brahmic_processor: SentencePieceProcessor,
    plain_processor: SentencePieceProcessor,
    ne_held_out: list[str],
) -> None:
    assert orphan_marks_per_1000(plain_processor.encode(ne_held_out), plain_processor) > 50
    assert orphan_marks_per_1000(brahmic_processor.encode(ne_held_out), brahmic_processor) == 0
    # the audit finds no mark-initial piece: brahmic_pua disabled them, and spelled each after
    # a space, which no text reaches (model.display.DISABLED_PREFIX)
    assert not orphan_mark_ids(brahmic_processor)
    disabled = [
        p.piece
        for p in parse_model(brahmic_processor.serialized_model_proto()).pieces
        if p.type == UNUSED
    ]
    assert disabled and all(p.startswith(" ") for p in disabled)
    codec = brahmic_processor.codec
    assert codec is not None and any(starts_with_mark(codec.decode(p[1:])) for p in disabled)


def test_cluster_splits(
    brahmic_processor: SentencePieceProcessor,
    plain_processor: SentencePieceProcessor,
    ne_held_out: list[str],
) -> None:
    """Plain spm cuts clusters; brahmic_pua only where a cluster without a piece is spelled in
    bytes."""
    assert cluster_split_rate(plain_processor, ne_held_out) > 0.05
    normalized = [expected_text(brahmic_processor, text) for text in ne_held_out]
    rows = brahmic_processor.encode(ne_held_out)
    starts = token_starts(brahmic_processor, normalized)
    split_lines = [n for n, text in enumerate(normalized) if split_clusters(text, starts[n])[0]]
    assert split_lines  # 1200 pieces leave some clusters without a piece
    assert all(any(brahmic_processor.is_byte(i) for i in rows[n]) for n in split_lines)
    assert (
        0
        < cluster_split_rate(brahmic_processor, normalized)
        < cluster_split_rate(plain_processor, ne_held_out) / 2
    )


def test_eval_reports_conjunct_splits_and_akshara_keeps_conjuncts(
    brahmic_processor: SentencePieceProcessor,
    ne_lines: list[str],
    ne_held_out: list[str],
    tmp_path: Path,
) -> None:
    """eval's table has the conjunct-split rate: the default policy cuts conjuncts at their
    virama, the akshara policy keeps them whole (the metric is metrics.split_conjuncts)."""
    prefix = tmp_path / "akshara"
    train_model(
        sentence_iterator=iter(ne_lines[:TRAIN_LINES]),
        model_prefix=str(prefix),
        vocab_size=VOCAB,
        policy="akshara",
    )
    akshara = SentencePieceProcessor(model_file=f"{prefix}.model")
    default, kept = evaluate(brahmic_processor, ne_held_out), evaluate(akshara, ne_held_out)
    assert "conjunct-split rate" in format_table({"fixtoken": default, "akshara": kept})
    # 545 lines and 1,200 pieces leave many conjuncts without a piece, spelled in bytes (on
    # held-out Telugu at 8,000 pieces akshara's rate is 0.008 against 0.24: README)
    assert default["conjunct_split_rate"] > 0.05
    assert kept["conjunct_split_rate"] < default["conjunct_split_rate"] / 1.5


def test_vocabulary_share(
    brahmic_processor: SentencePieceProcessor, plain_processor: SentencePieceProcessor
) -> None:
    for sp in (brahmic_processor, plain_processor):
        share = vocabulary_share(sp)
        assert sum(share.values()) == pytest.approx(1.0)
        assert max(share, key=share.__getitem__) == "devanagari"
        assert "special" not in share
        assert list(share) == sorted(share, key=SCRIPT_ID.__getitem__)
    usable = sum(1 for s in script_ids(brahmic_processor) if s != SPECIAL)
    assert vocabulary_share(brahmic_processor)["byte"] == 256 / usable
    assert "byte" not in vocabulary_share(plain_processor)


def test_evaluate_both_kinds(
    brahmic_processor: SentencePieceProcessor,
    plain_processor: SentencePieceProcessor,
    ne_held_out: list[str],
) -> None:
    ours = evaluate(brahmic_processor, ne_held_out, baseline=plain_processor)
    theirs = evaluate(plain_processor, ne_held_out, baseline=plain_processor)
    assert set(ours) == set(theirs) == {*LABELS, "vocab_share"}
    assert ours["round_trip_rate"] == 1.0 and theirs["round_trip_rate"] < 1.0
    assert ours["orphan_marks_per_1000"] == 0 < theirs["orphan_marks_per_1000"]
    assert theirs["nsl"] == 1.0
    assert ours["nsl"] == ours["tokens"] / theirs["tokens"]
    assert ours["byte_fallback_per_1000"] > 0 == theirs["byte_fallback_per_1000"]
    assert ours["unk_rate"] == 0
    assert evaluate(brahmic_processor, ne_held_out, baseline=brahmic_processor)["nsl"] == 1.0
    stock = sentencepiece.SentencePieceProcessor(
        model_proto=plain_processor.serialized_model_proto()
    )
    assert (
        evaluate(stock, ne_held_out, baseline=plain_processor) == theirs
    )  # stock's processor works too
    assert "nsl" not in evaluate(brahmic_processor, ne_held_out[:10])
    with pytest.raises(ValueError, match="no text"):
        evaluate(brahmic_processor, [])


# -- the o200k baseline (optional) -----------------------------------------------------------


class _ByteEncoding:
    """Stands in for bpe-openai's o200k: one token per UTF-8 byte."""

    def encode_ordinary(self, text: str) -> list[int]:
        return list(text.encode("utf-8"))

    def decode(self, tokens: list[int]) -> str:
        return bytes(tokens).decode("utf-8")


@pytest.fixture
def fake_bpe_openai(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    names: list[str] = []

    def get_encoding(name: str) -> _ByteEncoding:
        names.append(name)
        return _ByteEncoding()

    module = types.ModuleType("bpe_openai")
    module.get_encoding = get_encoding  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bpe_openai", module)
    yield
    assert set(names) == {"o200k_base"}


@pytest.mark.usefixtures("fake_bpe_openai")
def test_o200k_baseline(brahmic_processor: SentencePieceProcessor, ne_held_out: list[str]) -> None:
    o200k = O200k()
    size = sum(len(text.encode("utf-8")) for text in ne_held_out)
    result = evaluate(o200k, ne_held_out, baseline=brahmic_processor)
    assert result["tokens"] == size and result["bytes_per_token"] == 1.0
    assert result["round_trip_rate"] == 1.0
    assert "vocab_share" not in result and "cluster_split_rate" not in result
    assert evaluate(brahmic_processor, ne_held_out, baseline=o200k)["nsl"] == pytest.approx(
        evaluate(brahmic_processor, ne_held_out)["tokens"] / size
    )


def test_o200k_missing_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "bpe_openai", None)  # import fails
    with pytest.raises(ValueError, match=r"pip install 'brahmic-pua\[compare\]'"):
        O200k()


def test_real_o200k(ne_held_out: list[str]) -> None:
    require_extra("bpe_openai", "compare", "evaluating o200k")
    result = evaluate(O200k(), ne_held_out[:100])
    assert result["round_trip_rate"] == 1.0 and result["tokens"] > 100


# -- the commands ----------------------------------------------------------------------------


@pytest.fixture
def held_out_file(tmp_path: Path, ne_held_out: list[str]) -> Path:
    path = tmp_path / "held.txt"
    path.write_text("\n".join(ne_held_out[:300]) + "\n\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("model", "baseline"), [("brahmic", "plain"), ("plain", "brahmic")])
def test_eval_table(
    model: str, baseline: str, model_files: dict[str, Path], held_out_file: Path
) -> None:
    a, b = str(model_files[model]), str(model_files[baseline])
    result = CliRunner().invoke(eval_command, ["--model", a, "--baseline", b, str(held_out_file)])
    assert result.exit_code == 0, result.output
    count = str(len(held_out_file.read_text(encoding="utf-8").splitlines()) - 1)
    lines = result.output.splitlines()
    assert lines[0].split() == ["metric", a, b]
    assert len({len(line) for line in lines}) == 1  # aligned
    rows = {label: values for label, *values in (line.rsplit(None, 2) for line in lines[1:])}
    assert rows["lines"] == [count, count]
    assert rows[f"NSL (tokens ÷ {b}'s)"][1] == "1.0000"
    assert set(rows) >= set(LABELS.values()) - {"NSL"}
    ours = 0 if model == "brahmic" else 1
    assert rows["orphan-mark tokens per 1000"][ours] == "0.0000"
    assert rows["round-trip rate"][ours] == "1.0000"


@pytest.mark.parametrize("kind", ["brahmic", "plain"])
def test_eval_json(
    kind: str, model_files: dict[str, Path], held_out_file: Path, ne_held_out: list[str]
) -> None:
    model = str(model_files[kind])
    result = CliRunner().invoke(eval_command, ["--model", model, "--json", str(held_out_file)])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["files"] == [str(held_out_file)] and document["reference"] is None
    expected = evaluate(SentencePieceProcessor(model_file=model), ne_held_out[:300])
    assert document["models"] == {model: expected}


@pytest.mark.usefixtures("fake_bpe_openai")
def test_eval_o200k_column(model_files: dict[str, Path], held_out_file: Path) -> None:
    model = str(model_files["brahmic"])
    result = CliRunner().invoke(eval_command, ["--model", model, "--o200k", str(held_out_file)])
    assert result.exit_code == 0, result.output
    header, *rows = result.output.splitlines()
    assert header.split() == ["metric", model, "o200k"]
    assert next(r for r in rows if r.startswith("NSL (tokens ÷ o200k's)")).endswith("1.0000")
    assert next(r for r in rows if r.startswith("cluster-split rate")).endswith("-")


def test_eval_errors(
    model_files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = str(model_files["brahmic"])
    bad = tmp_path / "bad.txt"
    bad.write_bytes("नेपाल\n".encode() + b"caf\xe9\n")
    blank = tmp_path / "blank.txt"
    blank.write_text("\n  \n", encoding="utf-8")
    not_model = tmp_path / "x.model"
    not_model.write_text("hello", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "bpe_openai", None)
    runner = CliRunner()
    cases = {
        ("--model", model, str(bad)): f"{bad} is not UTF-8 at line 2",
        ("--model", model, str(blank)): "every line of",
        ("--model", str(not_model), str(blank)): "x.model",
        ("--model", model, "--o200k", str(blank)): "bpe-openai",
    }
    for args, message in cases.items():
        result = runner.invoke(eval_command, list(args))
        assert result.exit_code == 1
        assert result.output.startswith("Error: ") and message in result.output
        assert len(result.output.splitlines()) == 1


@pytest.mark.parametrize("kind", ["brahmic", "plain"])
def test_vocab_command(kind: str, model_files: dict[str, Path]) -> None:
    model = str(model_files[kind])
    sp = SentencePieceProcessor(model_file=model)
    # stdout: a plain model's run also says on stderr that it is plain (cli.common.Command)
    plain_lines = CliRunner().invoke(vocab_command, ["--model", model]).stdout.splitlines()
    assert plain_lines == list(vocabulary_lines(sp))
    result = CliRunner().invoke(vocab_command, ["--model", model, "--script-ids"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert len(lines) == sp.get_piece_size() == VOCAB
    assert all(len(line.split("\t")) == 4 for line in lines)
    assert [int(line.split("\t")[2]) for line in lines] == sp.script_ids()


def test_format_table_marks_what_does_not_apply() -> None:
    table = format_table({"a": {"tokens": 10, "unk_rate": 0.5}, "b": {"tokens": 7}})
    assert table.splitlines() == [
        "metric         a  b",
        "tokens        10  7",
        "UNK rate  0.5000  -",
    ]
