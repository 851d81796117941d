"""fixToken repair of plain spm models: ids and vocabulary, on real text.

Small stock models are trained once for the module on the Telugu and Hindi samples: Unigram with
byte fallback (spm's default normalizer), BPE with byte fallback and the identity normalizer (so
NFD text, joiners and a literal ▁ reach the ids as written), and Unigram without byte fallback
(unknown ids). Cluster boundaries are recomputed here from :func:`brahmic_pua.segment`.
"""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Sequence
from functools import cache
from itertools import accumulate, islice
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as stock
from click.testing import CliRunner
from conftest import CORPORA, corpora, need_corpora, sample_held_out, sample_training
from hypothesis import given
from hypothesis import strategies as st
from strategies import nasty_texts, texts

from brahmic_pua import segment
from brahmic_pua.cli.main import main
from brahmic_pua.evaluation.repair import IdRepair, load_plain, repair_vocabulary
from brahmic_pua.model.display import NORMAL, UNUSED, starts_with_mark
from brahmic_pua.model.manifest import ModelFileError
from brahmic_pua.model.model_proto import BYTE, parse_model

SPACE = "\u2581"
VOCAB = 2000
HELD = 400


TRAIN = sample_training("te") + sample_training("hi")
#: Telugu and Hindi lines the models did not train on.
HELD_OUT = sample_held_out("te") + sample_held_out("hi")
NASTY_LINES = [
    "",
    " ",
    "ా",  # an orphan mark at the line start
    "ాలు వచ్చాయి",
    "కా ా ి",  # marks after spaces
    "▁ా ▁▁క్ష ▁",  # literal ▁
    "క్\u200dష క్\u200cష র\u200d্য",  # ZWJ / ZWNJ
    unicodedata.normalize("NFD", "ఫైలు ౖ కై क़िला"),
    "\ue000ా \U000f0000్",  # PUA before marks
    "విజ్ఞానం నేపాలको",
]


def _train(lines: list[str], model_type: str, **options: Any) -> bytes:
    out = io.BytesIO()
    stock.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=out,
        vocab_size=VOCAB,
        model_type=model_type,
        minloglevel=2,
        **options,
    )
    return out.getvalue()


def _models(lines: list[str]) -> dict[str, bytes]:
    return {
        "unigram": _train(lines, "unigram", byte_fallback=True),
        "bpe": _train(lines, "bpe", byte_fallback=True, normalization_rule_name="identity"),
        "unigram-no-bytes": _train(lines, "unigram"),
    }


@pytest.fixture(scope="module")
def plain_models_bytes() -> dict[str, bytes]:
    return _models(TRAIN)


@pytest.fixture(scope="module")
def repairs(plain_models_bytes: dict[str, bytes]) -> dict[str, IdRepair]:
    return {name: IdRepair(data, name) for name, data in plain_models_bytes.items()}


def _corpus_lines(name: str, count: int) -> list[str]:
    need_corpora()
    with open(CORPORA / name, encoding="utf-8") as stream:
        return [line.rstrip("\n") for line in islice(stream, count)]


@pytest.fixture(scope="module")
def corpus_plain() -> dict[str, bytes]:
    """The same models on 3,000 lines of te.train and 1,500 of ne.train: the pieces that the
    examples case by case below name (▁మ, ా, ▁క...), which the samples do not all give."""
    return _models(_corpus_lines("te.train.txt", 3000) + _corpus_lines("ne.train.txt", 1500))


@pytest.fixture(scope="module")
def corpus_repairs(corpus_plain: dict[str, bytes]) -> dict[str, IdRepair]:
    return {name: IdRepair(data, name) for name, data in corpus_plain.items()}


def _orphans(repair: IdRepair, ids: Sequence[int]) -> int:
    return sum(i in repair.orphans for i in ids)


@cache
def _spelling_ids(repair: IdRepair) -> frozenset[int]:
    """Ids a repair may bring in: NORMAL and byte pieces (never control, unknown or UNUSED)."""
    model = parse_model(repair.processor.serialized_model_proto())
    return frozenset(i for i, p in enumerate(model.pieces) if p.type in (NORMAL, BYTE))


def _check(repair: IdRepair, ids: list[int]) -> list[int]:
    """The four promises: same text, only the model's ids, no more orphan marks, idempotent."""
    sp = repair.processor
    fixed = repair.repair(ids)
    assert sp.decode(fixed) == sp.decode(ids)
    assert all(i in ids or i in _spelling_ids(repair) for i in fixed)
    assert _orphans(repair, fixed) <= _orphans(repair, ids)
    assert repair.repair(fixed) == fixed
    return fixed


def _starts_inside_clusters(repair: IdRepair, ids: Sequence[int]) -> int:
    """Tokens (a piece, or the first of a run of byte pieces) that start inside a fixtoken
    cluster of the pieces' text: what the repair removes. For ids without control pieces."""
    sp = repair.processor
    text, starts, run = "", [], b""
    for i in [*ids, None]:
        if i is not None and sp.is_byte(i):
            run += bytes([int(sp.id_to_piece(i)[3:5], 16)])
            continue
        if run:
            starts.append(len(text))
            text += run.decode("utf-8")
            run = b""
        if i is not None:
            starts.append(len(text))
            text += sp.id_to_piece(i)
    cuts = set(accumulate(map(len, segment(text)), initial=0))
    return sum(start not in cuts for start in starts)


def _ids(repair: IdRepair, *pieces: str) -> list[int]:
    """Ids of pieces that must be in the vocabulary (each checked, so a test cannot pass on
    unknown ids)."""
    sp = repair.processor
    ids = [sp.piece_to_id(p) for p in pieces]
    assert all(sp.id_to_piece(i) == p for i, p in zip(ids, pieces, strict=True)), pieces
    return ids


# Id repair on real text.


@pytest.mark.parametrize("name", ["unigram", "bpe"])
def test_real_lines_start_every_token_at_a_cluster_boundary(
    repairs: dict[str, IdRepair], name: str
) -> None:
    repair = repairs[name]
    rows = repair.processor.encode(HELD_OUT)
    fixed = [_check(repair, ids) for ids in rows]
    assert sum(_starts_inside_clusters(repair, ids) for ids in rows) > 500
    assert sum(_starts_inside_clusters(repair, ids) for ids in fixed) == 0
    before = sum(_orphans(repair, ids) for ids in rows)
    after = sum(_orphans(repair, ids) for ids in fixed)
    assert after < before / 20


def test_without_bytes_a_span_the_vocabulary_cannot_spell_keeps_its_ids(
    repairs: dict[str, IdRepair], plain_models_bytes: dict[str, bytes]
) -> None:
    for repair in (
        IdRepair(plain_models_bytes["unigram"], use_bytes=False),
        repairs["unigram-no-bytes"],
    ):
        rows = repair.processor.encode(HELD_OUT)
        fixed = [_check(repair, ids) for ids in rows]
        byte_tokens = [sum(map(repair.processor.is_byte, i)) for i in (*rows, *fixed)]
        assert sum(byte_tokens[len(rows) :]) <= sum(byte_tokens[: len(rows)])
        before = sum(_starts_inside_clusters(repair, ids) for ids in rows if 0 not in ids)
        after = sum(_starts_inside_clusters(repair, ids) for ids in fixed if 0 not in ids)
        assert 0 < after < before
        assert sum(_orphans(repair, i) for i in fixed) < sum(_orphans(repair, i) for i in rows)


# Properties.


@pytest.mark.parametrize("name", ["unigram", "bpe", "unigram-no-bytes"])
def test_nasty_lines(repairs: dict[str, IdRepair], name: str) -> None:
    repair = repairs[name]
    for line in NASTY_LINES:
        _check(repair, repair.processor.encode(line))


@given(st.one_of(texts, nasty_texts, st.sampled_from(HELD_OUT)))
def test_encoded_text_property(repairs: dict[str, IdRepair], text: str) -> None:
    for repair in repairs.values():
        _check(repair, repair.processor.encode(text))


@given(st.data())
def test_any_id_sequence_property(repairs: dict[str, IdRepair], data: st.DataObject) -> None:
    """Arbitrary ids: control and unknown pieces anywhere, byte runs that are not UTF-8."""
    for repair in repairs.values():
        ids = data.draw(st.lists(st.integers(0, repair.size - 1), max_size=30))
        _check(repair, ids)


@given(st.data())
def test_pieces_around_real_marks_property(
    repairs: dict[str, IdRepair], data: st.DataObject
) -> None:
    """Ids drawn from the pieces that matter here: marks, ▁, controls, and bytes of marks."""
    for repair in repairs.values():
        sp = repair.processor
        pool = [i for i in range(repair.size) if i in repair.orphans or sp.is_control(i)]
        pool += [sp.piece_to_id(p) for p in (SPACE, "క", "కా", "▁క", "न", "▁न")]
        pool += [i for i in range(repair.size) if sp.id_to_piece(i) in ("<0xE0>", "<0xB0>")]
        ids = data.draw(st.lists(st.sampled_from(pool), max_size=20))
        _check(repair, ids)


# Id repair, case by case.


@corpora
def test_a_mark_moves_into_the_token_before_it(corpus_repairs: dict[str, IdRepair]) -> None:
    repair = corpus_repairs["unigram"]
    sp = repair.processor
    assert repair.repair(_ids(repair, "▁మ", "ా")) == _ids(repair, "▁మా")
    bos, eos = sp.bos_id(), sp.eos_id()
    assert repair.repair([bos, *_ids(repair, "▁మ", "ా"), eos]) == [bos, *_ids(repair, "▁మా"), eos]
    # కాలుష్యం: fixToken gives ▁కా + లు, and ▁కా is no piece: the fewest pieces are ▁ + కా.
    ids = sp.encode("కాలుష్యం")
    assert ids == _ids(repair, "▁క", "ాలు", "ష్", "యం")
    assert _check(repair, ids) == _ids(repair, "▁", "కా", "లు", "ష్", "యం")


@corpora
def test_a_cluster_without_a_piece_goes_to_bytes(
    corpus_repairs: dict[str, IdRepair], corpus_plain: dict[str, bytes]
) -> None:
    """The paper's example విజ్ఞానం (§3.3): this model writes the cluster ఞా as ఞ + ా, and has
    no piece ఞా; byte pieces spell it, or without bytes the span keeps its ids."""
    repair = corpus_repairs["unigram"]
    sp = repair.processor
    ids = sp.encode("విజ్ఞానం")
    assert ids == _ids(repair, "▁వి", "జ్", "ఞ", "ా", "నం")
    spelled = [sp.piece_to_id(f"<0x{b:02X}>") for b in "ఞా".encode()]
    assert _check(repair, ids) == [*ids[:2], *spelled, ids[-1]]
    assert _check(IdRepair(corpus_plain["unigram"], use_bytes=False), ids) == ids
    assert _check(corpus_repairs["unigram-no-bytes"], ids) == ids


@corpora
def test_orphans_in_the_text_stay_where_they_are(corpus_repairs: dict[str, IdRepair]) -> None:
    """A mark after ▁ or at the start is an orphan in the text itself: its own cluster."""
    repair = corpus_repairs["unigram"]
    for pieces in (("▁", "ా"), ("ా", "▁క"), ("▁క", "▁", "ి")):
        ids = _ids(repair, *pieces)
        assert repair.repair(ids) == ids


@corpora
def test_nothing_moves_across_a_barrier(corpus_repairs: dict[str, IdRepair]) -> None:
    repair = corpus_repairs["unigram"]
    sp = repair.processor
    space = [sp.piece_to_id(f"<0x{b:02X}>") for b in SPACE.encode("utf-8")]  # a literal ▁
    broken = [sp.piece_to_id("<0xE0>")]  # not UTF-8
    for barrier in ([sp.eos_id()], [sp.unk_id()], space, broken):
        ids = [*_ids(repair, "▁క"), *barrier, *_ids(repair, "ా")]
        assert _check(repair, ids) == ids


def test_a_span_whose_spelling_adds_an_orphan_keeps_its_ids(
    plain_models_bytes: dict[str, bytes],
) -> None:
    """``,ా`` + ZWJ has no orphan-mark token (ZWJ is no mark); its fixToken token ``,ా‍`` is
    spelled ``,`` + ``ా‍``, an orphan-mark token: the span keeps its ids. Made with pieces
    given to a real model in place of rare ones."""
    model = parse_model(plain_models_bytes["unigram"])
    missing = [t for t in (",ా", "ా\u200d", "\u200d") if t not in {p.piece for p in model.pieces}]
    rare = [p for p in model.pieces if p.type == NORMAL][-len(missing) :]
    for piece, text in zip(rare, missing, strict=True):
        piece.piece = text
    repair = IdRepair(model.SerializeToString(), use_bytes=False)
    ids = _ids(repair, ",ా", "\u200d")
    assert _orphans(repair, _ids(repair, ",", "ా\u200d")) == 1
    assert _check(repair, ids) == ids


def test_ids_outside_the_vocabulary_are_an_index_error(repairs: dict[str, IdRepair]) -> None:
    repair = repairs["unigram"]
    for bad in (repair.size, -1):
        with pytest.raises(IndexError, match="out of range"):
            repair.repair([5, bad])


def test_only_plain_models_are_repaired(sample_models: dict[str, Path]) -> None:
    with pytest.raises(ModelFileError, match="is a brahmic_pua model"):
        IdRepair(sample_models["unigram"].read_bytes(), "ours.model")
    for data in (b"", b"not a model at all"):
        with pytest.raises(ModelFileError, match="not a SentencePiece model"):
            load_plain(data, "x.model")


# Vocabulary repair.


@pytest.mark.parametrize("name", ["unigram", "bpe"])
def test_vocabulary_repair_disables_mark_start_pieces(
    plain_models_bytes: dict[str, bytes], name: str
) -> None:
    data = plain_models_bytes[name]
    fixed, report = repair_vocabulary(data)
    before, after = parse_model(data), parse_model(fixed)
    disabled = {i for i, p in enumerate(after.pieces) if p.type != before.pieces[i].type}
    assert [p.piece for p in after.pieces] == [
        " " + p.piece if i in disabled else p.piece for i, p in enumerate(before.pieces)
    ], "a disabled piece is spelled after a space, out of reach in every runtime"
    assert disabled == {
        i for i, p in enumerate(before.pieces) if p.type == NORMAL and starts_with_mark(p.piece)
    }
    assert all(after.pieces[i].type == UNUSED for i in disabled)
    assert len(report.disabled) == len(disabled) and not report.kept
    old, new = load_plain(data), load_plain(fixed)
    rows = new.encode(HELD_OUT)
    assert not any(i in disabled for ids in rows for i in ids)
    assert new.decode(rows) == old.decode(old.encode(HELD_OUT))
    orphans = IdRepair(fixed).orphans
    assert not any(i in orphans for ids in rows for i in ids)


def test_lone_marks_stay_when_asked_or_without_byte_fallback(
    plain_models_bytes: dict[str, bytes],
) -> None:
    for data, keep in (
        (plain_models_bytes["unigram"], True),
        (plain_models_bytes["unigram-no-bytes"], False),
    ):
        fixed, report = repair_vocabulary(data, keep_lone_marks=keep)
        model = parse_model(fixed)
        lone = [p for p in model.pieces if len(p.piece) == 1 and starts_with_mark(p.piece)]
        assert lone and all(p.type == NORMAL for p in lone)
        assert sorted(report.kept) == sorted(p.piece for p in lone)
        assert not any(
            p.type == NORMAL and len(p.piece) > 1 and starts_with_mark(p.piece)
            for p in model.pieces
        )
        why = "asked to keep them" if keep else "no byte fallback"
        assert why in report.lines()[1]


# The command.


def test_command_writes_the_repaired_model(
    runner: CliRunner, plain_models_bytes: dict[str, bytes], tmp_path: Path
) -> None:
    source = tmp_path / "plain.model"
    source.write_bytes(plain_models_bytes["unigram"])
    held = tmp_path / "held.txt"
    held.write_text("\n".join(HELD_OUT) + "\n", encoding="utf-8")
    out = tmp_path / "fixed.model"
    args = ["repair", "--model", str(source), "--output", str(out), "--input", str(held)]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == repair_vocabulary(plain_models_bytes["unigram"])[0]
    assert (tmp_path / "fixed.vocab").exists()
    lines = result.stdout.splitlines()
    assert "mark-start pieces set UNUSED" in lines[0]
    before, after = (line.split() for line in lines[-2:])
    assert before[0] == "before" and after[0] == "after"
    assert float(before[-1]) > 0 and float(after[-1]) == 0  # orphan marks per 1000


def test_command_repairs_ids(
    runner: CliRunner, plain_models_bytes: dict[str, bytes], tmp_path: Path
) -> None:
    source = tmp_path / "plain.model"
    source.write_bytes(plain_models_bytes["bpe"])
    repair = IdRepair(plain_models_bytes["bpe"])
    rows = repair.processor.encode(HELD_OUT[:50])
    text = "".join(" ".join(map(str, ids)) + "\n" for ids in rows)
    result = runner.invoke(main, ["repair", "--model", str(source), "--ids", "-"], input=text)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [" ".join(map(str, repair.repair(i))) for i in rows]
    assert "50 lines" in result.stderr and "orphan-mark tokens" in result.stderr
    out = tmp_path / "fixed.ids"
    args = ["repair", "--model", str(source), "--ids", "-", "--no-bytes", "--output", str(out)]
    result = runner.invoke(main, args, input=text)
    assert result.exit_code == 0 and result.stdout == ""
    fixed = IdRepair(plain_models_bytes["bpe"], use_bytes=False)
    assert out.read_text().splitlines() == [" ".join(map(str, fixed.repair(i))) for i in rows]


@pytest.mark.parametrize(
    ("args", "stdin", "message", "code"),
    [
        (["--output", "{out}"], "", "not a SentencePiece model", 1),
        (["--output", "{out}"], "", "is a brahmic_pua model", 1),
        (["--ids", "-"], "1 2 x\n", "stdin line 1: not a list of ids", 1),
        (["--ids", "-"], "3\n1 99999\n", "stdin line 2: piece id 99999 is out of range", 1),
        ([], "", "give --output for the repaired model, or --ids", 2),
        (["--ids", "-", "--input", "{model}"], "", "repair a vocabulary, not --ids", 2),
    ],
)
def test_command_errors_are_one_line(
    runner: CliRunner,
    plain_models_bytes: dict[str, bytes],
    sample_models: dict[str, Path],
    tmp_path: Path,
    args: list[str],
    stdin: str,
    message: str,
    code: int,
) -> None:
    source = tmp_path / "m.model"
    if "not a SentencePiece" in message:
        source.write_text("ఇది మోడల్ కాదు\n", encoding="utf-8")
    elif "brahmic_pua" in message:
        source.write_bytes(sample_models["unigram"].read_bytes())
    else:
        source.write_bytes(plain_models_bytes["unigram"])
    out = tmp_path / "out.model"
    filled = [a.format(out=out, model=source) for a in args]
    result = runner.invoke(main, ["repair", "--model", str(source), *filled], input=stdin)
    assert result.exit_code == code
    assert message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
    assert not out.exists()
