"""``brahmic-pua audit``: counts on a hand-built vocabulary, on a plain spm
model and brahmic_pua models trained on the Telugu sample and measured on its held-out lines, and
on Hugging Face tokenizer.json files built here with ``tokenizers``."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import sentencepiece
from click.testing import CliRunner
from conftest import require_extra, sample_held_out, sample_training, through_fifo

from brahmic_pua.cli.main import main
from brahmic_pua.evaluation import audit as audit_module
from brahmic_pua.evaluation import metrics
from brahmic_pua.evaluation.audit import (
    FLAGS,
    SUMMARY,
    audit,
    audit_text,
    audit_vocabulary,
    format_report,
    load,
)
from brahmic_pua.evaluation.metrics import ends_in_conjunct_virama, split_conjuncts
from brahmic_pua.evaluation.tokenizer_json import HFTokenizer


def tokenizers_module() -> ModuleType:
    """The optional tokenizers package (the hf extra)."""
    require_extra("tokenizers", "hf", "auditing a tokenizer.json")
    import tokenizers

    return tokenizers


@pytest.fixture(scope="module")
def te_held_out() -> list[str]:
    """The held-out lines of the Telugu sample: Telugu that no model here was trained on."""
    return [line for line in sample_held_out("te") if line.strip()]


@pytest.fixture(scope="module")
def plain_sample_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stock spm model (Unigram, 2000 pieces, byte fallback) on the Telugu sample (its
    held-out lines aside), as people train one."""
    prefix = tmp_path_factory.mktemp("plain") / "te"
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(sample_training("te")),
        model_prefix=str(prefix),
        vocab_size=2000,
        byte_fallback=True,
        minloglevel=2,
        num_threads=1,
    )
    return Path(f"{prefix}.model")


class HandVocab:
    """The processor interface over a list of (piece, kind): a vocabulary whose counts are
    known by construction."""

    def __init__(self, pieces: list[tuple[str, str]]) -> None:
        self.pieces = pieces

    def get_piece_size(self) -> int:
        return len(self.pieces)

    def id_to_piece(self, i: int) -> str:
        return self.pieces[i][0]

    def is_byte(self, i: int) -> bool:
        return self.pieces[i][1] == "byte"

    def is_control(self, i: int) -> bool:
        return self.pieces[i][1] == "control"

    def is_unknown(self, i: int) -> bool:
        return self.pieces[i][1] == "unknown"

    def is_unused(self, i: int) -> bool:
        return self.pieces[i][1] == "unused"

    # The rest of a processor, which the vocabulary's audit never calls.

    def encode(self, input: list[str], /) -> list[list[int]]:
        raise NotImplementedError("a hand-built vocabulary encodes nothing")

    def decode(self, input: Sequence[Sequence[int]], /) -> list[str]:
        raise NotImplementedError("a hand-built vocabulary decodes nothing")

    def serialized_model_proto(self) -> bytes:
        raise NotImplementedError("a hand-built vocabulary has no model file")


HAND = [
    ("<unk>", "unknown"),
    ("<s>", "control"),
    ("\u2581ా", "unused"),
    ("<0xE0>", "byte"),
    ("\u2581క", "normal"),
    ("ా", "normal"),  # mark-start
    ("\u2581క్", "normal"),  # virama-end
    ("క్\u200c", "normal"),  # ZWNJ: the virama is meant to show, no conjunct
    ("క్\u200d", "normal"),  # ZWJ: a half form, still a conjunct
    ("కa", "normal"),  # cross-script, counted under its first letter
    ("\u2581ab", "normal"),
    ("aక", "normal"),
    ("\u2581.", "normal"),
    ("က်", "normal"),  # Myanmar asat: a pure killer, never a conjunct
    ("ក្", "normal"),  # Khmer coeng: an invisible stacker, always one
    ("ं", "normal"),
    ("क्", "normal"),
]


def test_hand_built_vocabulary_counts() -> None:
    report = audit_vocabulary(HandVocab(HAND))
    assert report["size"] == len(HAND) and report["special"] == 3
    zero = dict.fromkeys(FLAGS, 0)
    expected = {
        "telugu": zero | {"pieces": 6, "mark_start": 1, "virama_end": 2, "cross_script": 1},
        "devanagari": zero | {"pieces": 2, "mark_start": 1, "virama_end": 1},
        "latin": zero | {"pieces": 2, "cross_script": 1},
        "byte": zero | {"pieces": 1, "byte": 1},
        "khmer": zero | {"pieces": 1, "virama_end": 1},
        "myanmar": zero | {"pieces": 1},
        "punctuation": zero | {"pieces": 1},
    }
    total = {key: sum(row[key] for row in expected.values()) for key in ("pieces", *FLAGS)}
    assert report["scripts"] == expected | {"total": total}
    assert list(report["scripts"])[:2] == ["telugu", "devanagari"]  # largest first


def test_conjunct_virama_and_conjunct_splits() -> None:
    assert ends_in_conjunct_virama("క్") and ends_in_conjunct_virama("क्\u200d")
    assert not ends_in_conjunct_virama("క్\u200c") and not ends_in_conjunct_virama("က်")
    assert not ends_in_conjunct_virama("కా") and not ends_in_conjunct_virama("")
    text = "ప్రపంచం"  # one conjunct: ప్ + ర
    assert split_conjuncts(text, [0, 2, 3]) == (1, 1)
    assert split_conjuncts(text, [0, 3]) == (0, 1)
    assert split_conjuncts("क्\u200dष", [0, 3]) == (1, 1)
    assert split_conjuncts("क्\u200cष", [0, 3]) == (0, 0)
    assert split_conjuncts("క్ष", [0, 2]) == (0, 0)  # two scripts: no conjunct


def check_text_report(report: dict[str, Any]) -> None:
    """The per-script rows add up to the total row, and the total row agrees with the metrics
    of brahmic_pua.evaluation.metrics: one definition of each count."""
    rows = report["scripts"]
    total = rows.pop("total")
    for key in ("tokens", *FLAGS):
        assert sum(row[key] for row in rows.values()) == total[key]
    assert total["tokens"] == report["tokens"]
    per_1000 = 1000 / report["tokens"]
    assert total["mark_start"] * per_1000 == pytest.approx(report["orphan_marks_per_1000"])
    assert total["byte"] * per_1000 == pytest.approx(report["byte_fallback_per_1000"])


def test_plain_model_starts_pieces_with_marks(
    plain_sample_model: Path, te_held_out: list[str]
) -> None:
    processor = load(plain_sample_model)
    vocabulary = audit_vocabulary(processor)
    telugu = vocabulary["scripts"]["telugu"]
    assert telugu["mark_start"] > 0 and telugu["virama_end"] > 0
    assert vocabulary["scripts"]["byte"]["pieces"] == 256
    report = audit_text(processor, te_held_out)
    assert report["orphan_marks_per_1000"] > 10
    assert report["cluster_split_rate"] > 0.05 and report["conjunct_split_rate"] > 0.05
    rows, texts = processor.encode(te_held_out), te_held_out
    assert report["fertility"] == metrics.fertility(rows, texts)
    check_text_report(report)


def test_brahmic_pua_models_have_no_mark_start_piece(
    sample_models: dict[str, Path], te_held_out: list[str]
) -> None:
    for model_type in ("unigram", "bpe"):
        processor = load(sample_models[model_type])
        vocabulary = audit_vocabulary(processor)["scripts"]
        assert vocabulary["total"]["mark_start"] == 0
        # Pieces are judged as the text their PUA codes stand for, not as code points.
        assert next(iter(vocabulary)) == "telugu" and "other" not in list(vocabulary)[:3]
        report = audit_text(processor, te_held_out)
        assert report["orphan_marks_per_1000"] == 0
        assert report["round_trip_rate"] == 1.0
        assert report["cluster_split_rate"] < 0.01
        check_text_report(report)


def test_byte_tokens_count_under_the_script_they_spell(plain_sample_model: Path) -> None:
    report = audit_text(
        load(plain_sample_model), ["ਪੰਜਾਬ ਤੇਲੁਗੂ"]
    )  # Gurmukhi: no piece of a Telugu model
    gurmukhi = report["scripts"]["gurmukhi"]
    assert gurmukhi["tokens"] == gurmukhi["byte"] == 3 * len("ਪੰਜਾਬਤੇਲੁਗੂ")
    assert report["round_trip_rate"] == 1.0


def run(*args: str) -> Any:
    return CliRunner().invoke(main, ["audit", *args])


def test_json_report_schema(
    plain_sample_model: Path, tmp_path: Path, te_held_out: list[str]
) -> None:
    text = tmp_path / "held_out.txt"
    text.write_text("\n".join(te_held_out[:50]) + "\n", encoding="utf-8")
    result = run("--model", str(plain_sample_model), "--input", str(text), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert set(report) == {"model", "kind", "vocabulary", "text"}
    assert report["model"] == str(plain_sample_model) and report["kind"] == "sentencepiece"
    vocabulary = report["vocabulary"]
    assert set(vocabulary) == {"size", "special", "scripts"} and vocabulary["size"] == 2000
    for row in vocabulary["scripts"].values():
        assert set(row) == {"pieces", *FLAGS} and all(type(v) is int for v in row.values())
    body = report["text"]
    assert set(body) == {"files", "scripts", *SUMMARY} and body["files"] == [str(text)]
    assert body["lines"] == 50 and type(body["tokens"]) is int
    for row in body["scripts"].values():
        assert set(row) == {"tokens", *FLAGS}
    table = run("--model", str(plain_sample_model), "--input", str(text))
    assert table.exit_code == 0 and "orphan-mark tokens per 1000" in table.output
    head = f"{plain_sample_model}: sentencepiece, 2,000 pieces (1,997 usable"
    assert table.output.startswith(head)


def test_bad_input_is_one_line(plain_sample_model: Path, tmp_path: Path) -> None:
    text = tmp_path / "not_a_model.txt"
    text.write_text("తెలుగు\n", encoding="utf-8")
    blank = tmp_path / "blank.txt"
    blank.write_text("\n  \n", encoding="utf-8")
    broken = tmp_path / "tokenizer.json"
    broken.write_text('{"model": 1}', encoding="utf-8")
    cases = [
        (["--model", str(tmp_path / "missing.model")], 2, "does not exist"),
        (["--model", str(text)], 1, "neither a SentencePiece .model nor"),
        (["--model", str(plain_sample_model), "--input", str(blank)], 1, "every line of"),
        (
            ["--model", str(plain_sample_model), "--input", str(tmp_path / "gone.txt")],
            2,
            "does not exist",
        ),
    ]
    if _importable("tokenizers"):
        cases.append((["--model", str(broken)], 1, "is not a Hugging Face tokenizer.json"))
    for args, code, message in cases:
        result = run(*args)
        assert result.exit_code == code, (args, result.output)
        assert message in result.output and len(result.output.strip().splitlines()) == 1
        assert "Traceback" not in result.output


def _importable(name: str) -> bool:
    try:
        __import__(name)
    except ImportError:
        return False
    return True


def test_missing_tokenizers_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "tokenizer.json"
    path.write_text("{}", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "tokenizers", None)  # import tokenizers fails
    result = run("--model", str(path))
    assert result.exit_code == 1
    assert "pip install 'brahmic-pua[hf]'" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_byte_level_bpe_tokenizer_json(tmp_path: Path, te_held_out: list[str]) -> None:
    """A GPT-2 style tokenizer trained here: pieces are read back from its byte alphabet."""
    tk = tokenizers_module()
    tokenizer = tk.Tokenizer(tk.models.BPE())
    tokenizer.pre_tokenizer = tk.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = tk.decoders.ByteLevel()
    trainer = tk.trainers.BpeTrainer(
        vocab_size=1000,
        initial_alphabet=tk.pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"],
        show_progress=False,
    )
    lines = sample_training("te")
    tokenizer.train_from_iterator(lines, trainer)
    path = tmp_path / "tokenizer.json"
    tokenizer.save(str(path))

    hf = load(path)
    assert isinstance(hf, HFTokenizer) and hf.kind == "tokenizer.json BPE (byte-level)"
    space = tokenizer.token_to_id("Ġ")
    assert hf.id_to_piece(space) == "\u2581"
    assert (
        hf.is_byte(tokenizer.token_to_id("à"))
        and hf.id_to_piece(tokenizer.token_to_id("à")) == "<0xE0>"
    )
    assert hf.is_control(tokenizer.token_to_id("<|endoftext|>"))
    report = audit(hf, te_held_out, model=str(path))
    scripts = report["vocabulary"]["scripts"]
    assert scripts["byte"]["pieces"] >= 128  # the bytes 0x80-0xFF at least: no whole character
    assert scripts["telugu"]["mark_start"] > 0
    text = report["text"]
    assert text["round_trip_rate"] == 1.0  # byte-level BPE loses nothing
    assert text["orphan_marks_per_1000"] > 100
    # GPT-2's pre-tokenizer regex takes letters (\p{L}+) apart from marks (\p{M}): every
    # cluster of two or more characters is cut before its first mark.
    assert text["cluster_split_rate"] == 1.0
    check_text_report(text)
    assert "tokenizer.json BPE (byte-level)" in format_report(report)


def test_wordpiece_and_byte_fallback_tokenizer_json(tmp_path: Path) -> None:
    """Hand-built WordPiece (``##`` continues a word) and Metaspace BPE with byte fallback."""
    tk = tokenizers_module()
    wordpiece = tk.Tokenizer(
        tk.models.WordPiece(
            {"[UNK]": 0, "[CLS]": 1, "క": 2, "##ా": 3, "ా": 4, "##క్": 5, "##ర": 6, "a": 7},
            unk_token="[UNK]",
        )
    )
    wordpiece.add_special_tokens(["[CLS]"])
    wordpiece.pre_tokenizer = tk.pre_tokenizers.WhitespaceSplit()
    wordpiece.decoder = tk.decoders.WordPiece()
    path = tmp_path / "wordpiece.json"
    wordpiece.save(str(path))
    hf = load(path)
    assert [hf.id_to_piece(i) for i in (2, 3, 4, 5)] == ["\u2581క", "ా", "\u2581ా", "క్"]
    scripts = audit_vocabulary(hf)["scripts"]
    assert scripts["telugu"] == {
        "pieces": 5,
        "mark_start": 2,
        "virama_end": 1,
        "cross_script": 0,
        "byte": 0,
    }
    assert audit_vocabulary(hf)["special"] == 2  # [UNK] and [CLS]
    report = audit_text(hf, ["కా కక్ర"])
    assert report["tokens"] == 5 and report["conjunct_split_rate"] == 1.0

    bpe = tk.Tokenizer(
        tk.models.BPE(
            {"<unk>": 0, "<0xE0>": 1, "<0xB0>": 2, "<0x95>": 3, "\u2581": 4, "a": 5, "\u2581a": 6},
            [("\u2581", "a")],
            unk_token="<unk>",
            byte_fallback=True,
        )
    )
    bpe.pre_tokenizer = tk.pre_tokenizers.Metaspace()
    bpe.decoder = tk.decoders.Sequence(
        [tk.decoders.Replace("\u2581", " "), tk.decoders.ByteFallback(), tk.decoders.Fuse()]
    )
    path = tmp_path / "bytefallback.json"
    bpe.save(str(path))
    hf = load(path)
    assert [hf.is_byte(i) for i in range(4)] == [False, True, True, True]
    report = audit_text(hf, ["a క"])  # క is U+0C15: the bytes E0 B0 95
    assert report["scripts"]["telugu"] == {
        "tokens": 3,
        "mark_start": 0,
        "virama_end": 0,
        "cross_script": 0,
        "byte": 3,
    }


def test_a_pipe_is_audited_as_the_file_it_carries(
    tmp_path: Path, plain_sample_model: Path, te_held_out: list[str]
) -> None:
    """``--model <(cat x)``: the pipe is read once (its head told the kind, then nothing was
    left to load, or the second open waited for a writer forever) and audited as the file."""
    tk = tokenizers_module()
    tokenizer = tk.Tokenizer(tk.models.WordPiece({"[UNK]": 0, "క": 1, "##ా": 2}, unk_token="[UNK]"))
    json_path = tmp_path / "tokenizer.json"
    tokenizer.save(str(json_path))
    lines = te_held_out[:50]
    for path in (json_path, plain_sample_model):
        piped = through_fifo(
            tmp_path / "pipe", [path.read_bytes()], lambda fifo: audit(load(fifo), lines, model="x")
        )
        assert piped == audit(load(path), lines, model="x")


def test_an_endless_pipe_is_refused_at_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tokenizer.json that never ends is read no further than the bound, then refused in
    one line (it was read whole: a MemoryError, or a hang)."""
    bound = 1 << 20
    monkeypatch.setattr(audit_module, "MAX_TOKENIZER_JSON", bound)
    sent = [0]

    def endless() -> Iterator[bytes]:
        yield b'{"model": "'
        while sent[0] < 64 * bound:  # a stop for the test, far past the bound
            sent[0] += 1 << 16
            yield b"x" * (1 << 16)

    with pytest.raises(ValueError, match=r"more than a model or tokenizer\.json may have") as e:
        through_fifo(tmp_path / "pipe", endless(), load)
    assert "\n" not in str(e.value)
    assert sent[0] <= bound + (4 << 20)  # the bound, a chunk and what the pipe buffered
