"""The closure a text-spelled BPE model needs (codec/closed_set.py): a cluster keeps its code
only if each of its prefixes of two or more characters keeps one.

The oracle removes, until nothing changes, every cluster with a prefix missing from what is
left: a fixed point computed another way than the code's single pass by length.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from brahmic_pua.codec.closed_set import closed_under_prefixes


def fixed_point(clusters: list[str]) -> set[str]:
    left = set(clusters)
    while True:
        missing = {c for c in left if any(c[:k] not in left for k in range(2, len(c)))}
        if not missing:
            return left
        left -= missing


@given(st.lists(st.text("కాంిృ్ష\u200d", min_size=1, max_size=5), max_size=40))
def test_the_kept_clusters_are_the_largest_closed_set_in_the_given_order(
    clusters: list[str],
) -> None:
    kept = closed_under_prefixes(clusters)
    assert set(kept) == fixed_point(clusters)
    assert kept == [c for c in clusters if c in set(kept)]


def test_a_cluster_without_its_prefix_loses_its_code_and_so_do_its_extensions() -> None:
    given_ = ["క", "కా", "కాం", "శృం", "శృంా", "శ"]
    assert closed_under_prefixes(given_) == ["క", "కా", "కాం", "శ"]
