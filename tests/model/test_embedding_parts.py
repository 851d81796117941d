"""What every piece is made of (model/embedding_parts.py), the index a composed embedding needs.

Oracles: a piece's parts spell its text as the processor shows it (``id_to_piece``, spm's ▁ as
a space), which reaches the text by another road (the display table, not the codec's decode);
the cluster parts of a cluster-safe piece are whole clusters, told by ``can_follow`` one
character at a time; and the shared-part counts of two Telugu suffix variants, by hand.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest
import sentencepiece
from hypothesis import given
from hypothesis import strategies as st

import brahmic_pua
from brahmic_pua.model.embedding_parts import index_parts, parts_of, piece_parts
from brahmic_pua.orthography import can_follow, classify

NASTY = st.text(
    alphabet=st.sampled_from(
        [*"కగనాిీ్ంఁ ▁a", "\u2585", "\u200c", "\u200d", "\ue000", "\r", "\ufeff", "\u0301"]
    ),
    max_size=30,
)


@given(NASTY)
def test_the_parts_spell_the_text_with_the_space_mark_as_a_space(text: str) -> None:
    spelled = text.replace("\u2581", " ")
    for unit in ("char", "cluster"):
        parts = parts_of(text, unit)
        assert "".join(parts) == spelled
        assert all(parts)
        assert all(part == " " or " " not in part for part in parts)


def test_suffix_variants_share_the_parts_of_the_suffix() -> None:
    texts = ["కానికి", "గానికి", "▁ఇంటికి"]
    index = index_parts(texts, [False, False, False], "char")
    assert index.shared(0, 1) == 5  # ా న ి క ి; క and గ differ
    index = index_parts(texts, [False, False, False], "cluster")
    assert index.shared(0, 1) == 2  # ని కి; కా and గా differ
    assert index.parts[:4] == ("కా", "ని", "కి", "గా")
    assert index.rows[2][0] == index.parts.index(" ")


def test_special_pieces_have_no_parts() -> None:
    index = index_parts(["<s>", "ab", "<0x41>"], [True, False, True], "char")
    assert index.rows == ((), (0, 1), ())
    assert index.parts == ("a", "b")


def test_an_unknown_unit_is_refused() -> None:
    with pytest.raises(ValueError, match="unit must be one of char, cluster"):
        parts_of("ab", "byte")  # type: ignore[arg-type]


@pytest.mark.parametrize("model_type", ["unigram", "bpe"])
def test_a_brahmic_pua_models_parts_spell_its_shown_pieces_in_whole_clusters(
    sample_models: dict[str, Path], model_type: str
) -> None:
    processor = brahmic_pua.SentencePieceProcessor(model_file=str(sample_models[model_type]))
    chars, clusters = piece_parts(processor, "char"), piece_parts(processor, "cluster")
    assert len(chars.rows) == processor.get_piece_size()
    spelled = 0
    for i in range(processor.get_piece_size()):
        if not chars.rows[i]:
            specials = (processor.is_control, processor.is_unknown, processor.is_unused)
            assert any(special(i) for special in (*specials, processor.is_byte))
            continue
        shown = processor.id_to_piece(i).replace("\u2581", " ")
        assert "".join(chars.parts[p] for p in chars.rows[i]) == shown
        for p in clusters.rows[i]:
            cluster = clusters.parts[p]
            if cluster != " ":  # a cluster: each character may follow the one before it
                kinds = [classify(ch) for ch in cluster]
                assert all(can_follow(a, b) for a, b in pairwise(kinds))
        spelled += 1
    assert spelled > processor.get_piece_size() // 2


def test_a_stock_models_parts_are_its_pieces_characters(plain_hindi_model: str) -> None:
    processor = sentencepiece.SentencePieceProcessor(model_file=plain_hindi_model)
    index = piece_parts(processor)
    for i in range(processor.get_piece_size()):
        if index.rows[i]:
            want = list(processor.id_to_piece(i).replace("\u2581", " "))
            assert [index.parts[p] for p in index.rows[i]] == want
    assert not index.rows[processor.unk_id()]
