"""Valid tokens, fixToken and combine (the paper, §3.2–3.6) and their lemmas, on any text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from strategies import TELUGU, VIETNAMESE, texts, valid_tokens

from brahmic_pua.orthography import (
    STARTERS,
    can_follow,
    classify,
    combine,
    fix_token,
    is_valid_token,
)

# -- fixToken --------------------------------------------------------------------------------


def test_paper_telugu_example() -> None:
    """§3.3: candidate వి జ, remainder ్ ఞ ా → token విజ్, rest ఞా."""
    assert fix_token("\u0c35\u0c3f\u0c1c", "\u0c4d\u0c1e\u0c3e") == (
        "\u0c35\u0c3f\u0c1c\u0c4d",
        "\u0c1e\u0c3e",
    )


@given(texts, texts)
def test_fix_token_completeness(candidate: str, remainder: str) -> None:
    token, rest = fix_token(candidate, remainder)
    assert token + rest == candidate + remainder
    assert token.startswith(candidate)


@given(texts, texts)
def test_fix_token_remainder_ok(candidate: str, remainder: str) -> None:
    _, rest = fix_token(candidate, remainder)
    assert rest == "" or classify(rest[0]) in STARTERS


@given(valid_tokens(), st.data())
def test_fix_token_preserves_validity(full: str, data: st.DataObject) -> None:
    """If the candidate and candidate ++ remainder are valid tokens, so is the repaired token."""
    cut = data.draw(st.integers(1, len(full)))
    candidate, remainder = full[:cut], full[cut:]
    assert is_valid_token(candidate) and is_valid_token(full)
    token, _ = fix_token(candidate, remainder)
    assert is_valid_token(token)


@given(texts, texts)
def test_fix_token_is_idempotent(candidate: str, remainder: str) -> None:
    token, rest = fix_token(candidate, remainder)
    assert fix_token(token, rest) == (token, rest)


# -- combine, the partial semigroup ----------------------------------------------------------

short = st.text(st.sampled_from(TELUGU + VIETNAMESE + " 1"), min_size=1, max_size=5)


@given(short, short, short)
def test_combine_is_associative(x: str, y: str, z: str) -> None:
    """Orthography2.assoc: xy and (xy)z defined ⇒ yz and x(yz) defined, and equal."""
    xy = combine(x, y)
    xyz = combine(xy, z) if xy is not None else None
    if xyz is not None:
        yz = combine(y, z)
        assert yz is not None
        assert combine(x, yz) == xyz


@given(short, short)
def test_combine_is_defined_exactly_at_valid_boundaries(x: str, y: str) -> None:
    expected = x + y if can_follow(classify(x[-1]), classify(y[0])) else None
    assert combine(x, y) == expected


@given(valid_tokens(), valid_tokens())
def test_valid_tokens_form_a_semigroup(x: str, y: str) -> None:
    """§3.2: concatenation is total on valid tokens and stays valid."""
    xy = combine(x, y)
    assert xy == x + y
    assert is_valid_token(xy)


def test_combine_has_no_unit() -> None:
    assert combine("", "క") is None
    assert combine("క", "") is None
    assert combine("క", "ి") == "కి"
    assert combine(" ", "ి") is None


def test_is_valid_token_examples() -> None:
    assert is_valid_token("క్రాంతి")
    assert not is_valid_token("్క")
    assert not is_valid_token("")
    assert not is_valid_token(" ్")


@given(texts)
def test_normalization_is_idempotent(text: str) -> None:
    from brahmic_pua import normalize

    once = normalize(text)
    assert normalize(once) == once
    assert normalize(text, "none") == text
