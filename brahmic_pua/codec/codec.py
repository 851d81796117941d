"""``PUACodec``: every orthographic cluster ↔ one Private Use Area code point, exactly.

SentencePiece cannot split a code point, so once each cluster is one code point no piece it
learns can cut a consonant from its vowel sign. Why ``decode(encode(s)) == s`` for every str,
and where ``decode`` differs from a model's denormalizer: see brahmic_pua.model.decoding.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import regex

from brahmic_pua.codec.closed_set import valid_clusters
from brahmic_pua.codec.layout import (
    ESCAPE,
    ESCAPED_LITERALS,
    RESERVED,
    allocate,
    is_private_use,
)
from brahmic_pua.codec.table_file import (
    CodecFileError,
    CodecTable,
    read_table,
    table_document,
    table_from_document,
    write_table,
)
from brahmic_pua.io.atomic import atomic_output
from brahmic_pua.io.bounded import TooLarge, read_bounded
from brahmic_pua.orthography.classify import script_of_char
from brahmic_pua.orthography.unicode_tables import SCRIPT_NAMES
from brahmic_pua.segment.counting import count_corpus, lookup_pattern
from brahmic_pua.segment.patterns import POLICIES
from brahmic_pua.segment.sure_cuts import (
    PieceMemo,
    check_no_surrogates,
    passthrough_map,
    split_pieces,
)

_CACHE_LIMIT = 1 << 18
#: The largest codec file read: every one of the 137,465 Private Use codes with a cluster of
#: ``table_file.MAX_FILE_CLUSTER`` code points and an int64 count is about 40 MB as JSON, and
#: the tables brahmic_pua writes are far smaller (8,990 Telugu clusters: 0.2 MB). A file past
#: this is no codec (``codec decode --codec /dev/zero`` grew to a MemoryError at 2.6 GB).
MAX_CODEC_BYTES = 64 << 20

#: Longer clusters get no code (they pass through): marks stacked without limit ("హాాాా…")
#: would make prefix chains SentencePiece's rule compiler refuses (32 or more shared prefixes).
#: The longest cluster in the corpora here has 5 code points.
MAX_CLUSTER_LENGTH = 16


def cluster_script(cluster: str) -> str | None:
    """Script of the first character of ``cluster`` that belongs to a Brahmic script."""
    for ch in cluster:
        script = script_of_char(ch)
        if script is not None:
            return script
    return None


class PUACodec:
    """A deterministic cluster ↔ PUA table for one segmentation policy.

    Build one with :meth:`build` from a corpus, or :meth:`load` a saved one.

    >>> from brahmic_pua import PUACodec
    >>> codec = PUACodec.build(["క్రాంతి వచ్చాడు"], scripts=["telugu"])
    >>> encoded = codec.encode("క్రాంతి")
    >>> len(encoded), all(0xE000 <= ord(ch) <= 0xF8FF for ch in encoded)  # one code a cluster
    (3, True)
    >>> codec.decode(encoded)
    'క్రాంతి'
    """

    def __init__(self, table: CodecTable) -> None:
        self._table = table
        self.policy = table.policy
        self.scripts = table.scripts
        self.unicode_version = table.unicode_version
        self._encode_map = {cluster: chr(code) for code, cluster, _ in table.entries}
        self._cluster_by_code = {code: cluster for code, cluster, _ in table.entries}
        self._decode_map: dict[int, str] = passthrough_map()  # translate is faster on hits
        self._decode_map.update(self._cluster_by_code)
        self._decode_map.update({ord(v): k for k, v in ESCAPED_LITERALS.items()})
        self._block_starts = [first for first, _, _ in table.blocks]
        self._escape_map: dict[int, str] = {ord(k): v for k, v in ESCAPED_LITERALS.items()}
        for taken in (*self._encode_map.values(), *RESERVED):
            self._escape_map[ord(taken)] = ESCAPE + taken
        self._piece_map = PieceMemo(self._encode_slow)
        self._word_map: dict[str, str] = {}
        self._pattern = lookup_pattern(self.policy)

    @property
    def fingerprint(self) -> str:
        """The table's content fingerprint (as its file records it)."""
        return self._table.fingerprint

    # -- building -----------------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        texts: Iterable[str],
        policy: str = "fixtoken",
        scripts: Iterable[str] | None = None,
    ) -> PUACodec:
        """Build a table from a corpus: clusters by frequency, ties by code point order.

        ``scripts`` limits the table to clusters of those Brahmic scripts (lower-case Unicode
        names such as ``"telugu"``); by default, every Brahmic script seen in ``texts``. For
        ``fixtoken`` the table also holds every canonical valid cluster of those scripts.
        """
        return cls.from_counts(count_corpus(texts, policy).clusters, policy, scripts)

    @classmethod
    def from_counts(
        cls,
        counts: Mapping[str, int],
        policy: str,
        scripts: Iterable[str] | None = None,
        closed_set: bool = True,
    ) -> PUACodec:
        """Build a table from cluster counts (see :func:`count_corpus`); for ``fixtoken`` with
        every canonical valid cluster of its scripts too, unless ``closed_set`` is false (the
        trainer's table, which keeps only the clusters it counted: building 22,700 clusters of
        the closed sets to drop them again took 0.07 s of a training on te.train, 0.16 s on
        a mix of five scripts)."""
        if policy not in POLICIES:
            raise ValueError(f"unknown policy {policy!r}: choose one of {', '.join(POLICIES)}")
        wanted = _check_scripts(scripts)
        ranked: dict[str, tuple[int, str]] = {}
        for cluster, count in counts.items():
            script = cluster_script(cluster)
            if (
                script is not None
                and len(cluster) <= MAX_CLUSTER_LENGTH
                and (wanted is None or script in wanted)
                and not any(is_private_use(ch) or ch in ESCAPED_LITERALS for ch in cluster)
            ):
                ranked[cluster] = (count, script)
        chosen = wanted if wanted is not None else {s for _, s in ranked.values()}
        if policy == "fixtoken" and closed_set:
            for script in sorted(chosen):
                for cluster in valid_clusters(script):
                    ranked.setdefault(cluster, (0, script))
        order = sorted(ranked, key=lambda c: (-ranked[c][0], c))
        codes, blocks = allocate([(c, ranked[c][1]) for c in order])
        entries = [(codes[c], c, ranked[c][0]) for c in order]
        return cls(CodecTable.create(policy, tuple(sorted(chosen)), entries, blocks))

    # -- mapping ------------------------------------------------------------------------------

    def encode(self, text: str) -> str:
        """Map every cluster with a code to it; escape what would be ambiguous. Total on str
        except lone surrogates (ValueError naming the index)."""
        check_no_surrogates(text)
        if self.policy == "grapheme":  # a space can carry marks: no cheap cut points
            return self._encode_slow(text)
        # Every policy but grapheme has a boundary at each space, and words repeat: look
        # whole words up first, then encode the words not seen yet in one batch.
        # Thread-safe without a lock: a full cache is replaced, never cleared, so another
        # thread's lookups keep the dict they filled.
        cache = self._word_map
        words = text.split(" ")
        distinct = dict.fromkeys(words)
        if len(cache) + len(distinct) > _CACHE_LIMIT:
            cache = self._word_map = {}
        unknown = [w for w in distinct if w not in cache]
        if unknown:
            encoded = self._encode_pieces(" ".join(unknown)).split(" ")
            cache.update(zip(unknown, encoded, strict=True))
        return " ".join(map(cache.__getitem__, words))

    def _encode_pieces(self, text: str) -> str:
        pieces = split_pieces(text, self.policy)
        if pieces is None:
            return self._encode_slow(text)
        memo = self._piece_map
        if len(memo) > _CACHE_LIMIT:
            memo = self._piece_map = PieceMemo(self._encode_slow)
        return "".join(map(memo.__getitem__, pieces))  # lookups stay in C

    def _encode_slow(self, text: str) -> str:
        return self._pattern.sub(self._replace, text)

    def _replace(self, match: re.Match[str] | regex.Match[str]) -> str:
        cluster: str = match.group()
        code = self._encode_map.get(cluster)
        return code if code is not None else self._escape(cluster)

    def _escape(self, passthrough: str) -> str:
        """A cluster without a code, with ▁, U+2585 and literal codes made unambiguous."""
        return passthrough.translate(self._escape_map)

    def decode(self, text: str) -> str:
        """Inverse of :meth:`encode`; characters that are not codes pass through, and an escape
        makes any next character literal (brahmic_pua.model.decoding, path 4). A lone
        surrogate is no code and passes through too (no encode gives one, so nothing decodes
        wrongly): a check here would cost each piece a vocabulary shows about a sixth more."""
        if ESCAPE not in text:
            return text.translate(self._decode_map)
        parts = _ESCAPED.split(text)
        # split() alternates plain runs and the single literal after each escape
        return "".join(
            part.translate(self._decode_map) if i % 2 == 0 else (part or ESCAPE)
            for i, part in enumerate(parts)
        )

    # -- the table ----------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._encode_map)

    def code_of(self, cluster: str) -> str | None:
        """The code point standing for ``cluster``, or None."""
        return self._encode_map.get(cluster)

    def cluster_of(self, code: str) -> str | None:
        """The cluster a code point stands for, or None."""
        return self._cluster_by_code.get(ord(code)) if len(code) == 1 else None

    def script_of(self, ch: str) -> str | None:
        """The script of the block holding code ``ch``, or None if it is not a table code."""
        i = bisect_right(self._block_starts, ord(ch)) - 1
        if i >= 0:
            first, last, script = self._table.blocks[i]
            if first <= ord(ch) <= last:
                return script
        return None

    def code_pairs(self) -> list[tuple[str, str]]:
        """(code, cluster) for every table entry, in code order."""
        return [(chr(code), cluster) for code, cluster, _ in sorted(self._table.entries)]

    def restricted(self, keep: Iterable[str]) -> PUACodec:
        """The table cut down to the clusters in ``keep``; every kept code stays the same."""
        wanted = set(keep)
        entries = [e for e in self._table.entries if e[1] in wanted]
        table = self._table
        return PUACodec(CodecTable.create(table.policy, table.scripts, entries, list(table.blocks)))

    def counts(self) -> Mapping[str, int]:
        """Corpus frequency of every cluster in the table (0 for closed-set additions)."""
        return {cluster: count for _, cluster, count in self._table.entries}

    # -- files --------------------------------------------------------------------------------

    def to_json(self) -> str:
        return write_table(self._table)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document as Python data."""
        return table_document(self._table)

    @classmethod
    def from_json(cls, document: str, source: str = "codec") -> PUACodec:
        """The codec in a JSON document (untrusted: its schema is checked, see
        :func:`~brahmic_pua.codec.table_file.check_document`); else one CodecFileError."""
        return cls(read_table(document, source))

    @classmethod
    def from_dict(cls, document: object, source: str = "codec") -> PUACodec:
        """:meth:`from_json` on a document already parsed, as a model's manifest holds it,
        without writing it out and parsing it again."""
        return cls(table_from_document(document, source))

    def save(self, path: str | Path) -> None:
        """Write the table as JSON (atomically: a temporary file, then a rename)."""
        with atomic_output(path) as stream:
            stream.write(self.to_json())

    @classmethod
    def load(cls, path: str | Path) -> PUACodec:
        """Read a table written by :meth:`save` (at most :data:`MAX_CODEC_BYTES` of the file);
        raises CodecFileError if it is not one."""
        try:
            data = read_bounded(path, MAX_CODEC_BYTES, "codec file")
        except TooLarge as error:
            raise CodecFileError(str(error)) from None
        return cls.from_json(data.decode("utf-8"), str(path))

    def __repr__(self) -> str:
        return (
            f"PUACodec(policy={self.policy!r}, scripts={list(self.scripts)!r}, "
            f"clusters={len(self)}, unicode={self.unicode_version})"
        )


_ESCAPED = re.compile(f"{ESCAPE}(.?)", re.DOTALL)


def _check_scripts(scripts: Iterable[str] | None) -> set[str] | None:
    if scripts is None:
        return None
    chosen = {s.lower() for s in ([scripts] if isinstance(scripts, str) else scripts)}
    unknown = sorted(chosen - set(SCRIPT_NAMES))
    if unknown:
        raise ValueError(
            f"unknown script(s) {', '.join(unknown)}: choose from {', '.join(SCRIPT_NAMES)}"
        )
    return chosen


__all__ = ["PUACodec", "cluster_script"]
