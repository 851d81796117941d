"""The codec compiled into SentencePiece normalizer and denormalizer rules.

SentencePiece rewrites text with longest-match string → string rules before it tokenizes, and
rewrites its output with a second rule set after it detokenizes. Giving it cluster → code as the
first and code → cluster as the second makes a ``.model`` that stock sentencepiece uses on raw
text. Escapes go in too: ▁ and U+2585 become their stand-ins, a literal code point becomes
escape + itself, so the rules invert exactly whatever longest match does with unseen clusters.

Under ``normalization="nfc"`` the normalizer also carries N: every canonically equivalent
spelling of a rule's source, and of every character NFC changes, is rewritten to what the rules
make of its NFC form, so stock spm gives brahmic_pua's ids on text that is not NFC.

A user's rules (the trainer's ``normalizer=``, sentencepiece's named rule sets) can be given
(``user``): they join the codec's rules, their targets written as the rules write text (clusters
as codes), replacing a rule of the same source, and get the same spellings, so stock on raw text
and brahmic_pua on N(text) still agree.
"""

from __future__ import annotations

import heapq
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from functools import cache
from itertools import combinations_with_replacement, product

from brahmic_pua.codec import PUACodec, cluster_script
from brahmic_pua.codec.layout import ESCAPE, ESCAPED_LITERALS, RESERVED
from brahmic_pua.normalize import Normalizer, unicode_ranges
from brahmic_pua.normalize.folding import ZWJ, LongestMatch
from brahmic_pua.normalize.spellings import (
    MAX_SPELLINGS,
    combining_characters,
    composites,
    decomposing_characters,
    longest_decomposition,
    recorded_unicode,
    spelling_floor,
    spellings,
)
from brahmic_pua.orthography.classify import indic_category, script_characters
from brahmic_pua.segment import segment

#: spm's rule compiler refuses a source with this many sources among its prefixes
#: ("number of shared prefix must be less than 32").
MAX_SHARED_PREFIXES = 32


def rule_pairs(codec: PUACodec) -> list[tuple[str, str]]:
    """(source, target) for every rule the codec itself defines, in a fixed order."""
    pairs = [(cluster, code) for code, cluster in codec.code_pairs()]
    pairs += list(ESCAPED_LITERALS.items())
    taken = [code for code, _ in codec.code_pairs()] + sorted(RESERVED)
    pairs += [(code, ESCAPE + code) for code in taken]
    return pairs


def with_user_rules(
    codec: PUACodec, normalizer: Normalizer, user: Sequence[tuple[str, str]] = ()
) -> list[tuple[str, str]]:
    """The codec's rules (:func:`rule_pairs`) with a user's rules in them: each target is what
    the codec's rules make of its N (the text spm trains on), and replaces the codec's rule of
    the same source."""
    pairs = rule_pairs(codec)
    if not user:
        return pairs
    codes = LongestMatch(dict(_kept_by_n(pairs, normalizer) if normalizer.composes else pairs))
    users = {source: codes(normalizer(target)) for source, target in user if source}
    return [(s, t) for s, t in pairs if s not in users] + list(users.items())


def normalizer_rules(
    codec: PUACodec, normalizer: Normalizer, user: Sequence[tuple[str, str]] = ()
) -> list[tuple[str, str]]:
    """The codec's rules (and ``user``'s, :func:`with_user_rules`), plus (for every mode with NFC)
    a rule for every other spelling of their sources, of every character NFC changes, of every
    folding pattern (with the marks that attach to its end, and followed by marks N moves into
    it, as a cluster is) and, under nepali-lm, of every cluster with a ZWJ inside; each
    rewritten to what the rules make of its N. Spellings that would break spm's prefix limit
    are left out."""
    base = with_user_rules(codec, normalizer, user)
    if not normalizer.composes:
        return base
    rules = dict(_kept_by_n(base, normalizer))
    fold = LongestMatch(rules)
    users = {source for source, _ in user}
    wanted, joinable = _texts_to_spell(base, rules, users, normalizer, codec)
    extra: dict[str, str] = {}
    # A user's rule for a text N changes: stock meets the text, brahmic_pua only its N, so the
    # rule gives what the rules make of N(text), as a spelling does.
    for source in users:
        if source not in rules:
            extra[source] = fold(normalizer(source))
    extra |= _respellings(wanted, spellings, rules, extra, normalizer, fold)
    if normalizer.strips_zwj:  # a ZWJ typed inside what N then composes or reorders: ळ ZWJ ़
        extra |= _respellings(joinable, _joined, rules, extra, normalizer, fold)
    sources = rules.keys() | extra.keys()
    kept = [
        (s, t)
        for s, t in extra.items()  # a source has at most as many prefixes as characters
        if len(s) < MAX_SHARED_PREFIXES or _shared_prefixes(s, sources) < MAX_SHARED_PREFIXES
    ]
    return list(rules.items()) + kept


def _texts_to_spell(
    base: list[tuple[str, str]],
    rules: dict[str, str],
    users: set[str],
    normalizer: Normalizer,
    codec: PUACodec,
) -> tuple[list[str], list[str]]:
    """The texts whose other spellings get a rule, in the order they are tried (a spelling
    gets the rule of the first text it spells), and those whose spellings with a ZWJ typed
    inside get one too (under nepali-lm)."""
    characters, letters, letters_followed = unicode_texts()
    # A user's rules (maybe a whole NFKC table) are spelled only where they can be spelled
    # otherwise; the codec's own are followed by marks and joiners as below.
    ours = [source for source in rules if source not in users]
    wanted = [*ours, *(source for source in rules if source in users and _respelled(source))]
    wanted += characters
    wanted += [
        _nfc(source) for source, _ in base if source not in users and normalizer(source) != source
    ]
    # The table's clusters and runs of marks first, each budget its own: precomposed Brahmic
    # letters of every script (ऴ, Tibetan's stacked vowels) take following marks as clusters
    # do, and must not crowd out the scripts the model was trained on. A folding pattern is
    # followed too: stock takes सँग् whole, so ़ typed after it (N moves it before the ्) must be
    # in the source, as it is after a cluster.
    folded = _folding_sources(normalizer, codec)
    followed = _followed_by_marks(ours) + _mark_runs(ours) + _followed_by_marks(folded)
    wanted += followed
    wanted += letters_followed
    wanted += folded
    if normalizer.strips_zwj:
        wanted += [ZWJ, *(text for source in [*ours, *folded] for text in _with_zwj(source))]
    return wanted, [*letters, *followed]


def _respellings(
    texts: list[str],
    variants: Callable[[str], Iterable[str]],
    rules: dict[str, str],
    extra: dict[str, str],
    normalizer: Normalizer,
    fold: LongestMatch,
) -> dict[str, str]:
    """A rule for every variant of ``texts`` (``variants``: a text's spellings, or them with
    a ZWJ typed inside) that ``rules`` and ``extra`` lack and N changes: what the rules make
    of the text's N (N begins with NFC, so every spelling of a text has the N, and the rule,
    of the text, and nepali-lm removes the ZWJ); a variant two texts share gets the first
    one's."""
    found: dict[str, str] = {}
    for text in texts:
        normal = target = None
        for spelled in variants(text):
            if spelled in rules or spelled in extra or spelled in found:
                continue
            normal = normalizer(text) if normal is None else normal
            if normal != spelled:
                target = fold(normal) if target is None else target
                found[spelled] = target
    return found


def _joined(text: str) -> Iterator[str]:
    """Each spelling of ``text`` with one ZWJ typed inside it (``ळ ZWJ ़``, ``च े ् ZWJ ़``)."""
    return (joined for spelled in spellings(text) for joined in _with_zwj(spelled))


@cache
def unicode_texts() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """:func:`compute_unicode_texts`, once per process; the letters followed by marks (most of
    a small training's rule time) are read from :mod:`~brahmic_pua.normalize.unicode_ranges`
    where it holds this Python's Unicode (tools/generate_unicode_ranges.py)."""
    followed = unicode_ranges.LETTERS_FOLLOWED if recorded_unicode() else None
    return compute_unicode_texts(decomposing_characters(), followed)


def compute_unicode_texts(
    decomposing: Iterable[str], followed: tuple[str, ...] | None = None
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """NFC of every character NFC changes (of ``decomposing``), those of them that are Brahmic
    letters, and those letters followed by marks (``followed`` where given). They depend on
    the Unicode tables alone, not on the codec or the mode."""
    characters = tuple(sorted({_nfc(ch) for ch in decomposing}))
    letters = tuple(text for text in characters if cluster_script(text))
    if followed is None:
        followed = tuple(_followed_by_marks(list(letters)))
    return characters, letters, followed


def _respelled(text: str) -> bool:
    """Whether ``text`` may have another canonically equivalent spelling: a test that is
    cheaper than :func:`spellings` and never says no where it has one (a character that
    decomposes, a mark, a character that composes with the one before it, or one that a
    singleton decomposes to, as Ω is U+2126's)."""
    if not (unicodedata.is_normalized("NFD", text) and _is_nfc(text)):
        return True
    return _respelling().search(text) is not None


@cache
def _respelling() -> re.Pattern[str]:
    """Any character with a combining class, one that composes with the character before it,
    or one of the NFC forms of the characters NFC changes."""
    found = set(combining_characters())
    found |= _ending_characters() | set("".join(unicode_texts()[0]))
    return re.compile("[" + "".join(map(re.escape, sorted(found))) + "]")


def _kept_by_n(pairs: list[tuple[str, str]], normalizer: Normalizer) -> list[tuple[str, str]]:
    """The rules whose source N keeps. A table entry that N changes (the closed set spells र +
    nukta, NFC has ऱ) never matches N's output; its spelling is rewritten like any other."""
    return [(s, t) for s, t in pairs if normalizer(s) == s]


def _folding_sources(normalizer: Normalizer, codec: PUACodec) -> list[str]:
    """Each folding pattern, alone and followed by the marks that join the last cluster of its
    replacement into a longer cluster of the table (सँग + ै is संगै: the ै joins ग)."""
    clusters = [cluster for _, cluster in codec.code_pairs()]
    found = []
    for pattern, replacement in normalizer.folding.rules:
        found.append(pattern)
        last = segment(replacement, codec.policy)[-1]
        found += [pattern + c[len(last) :] for c in clusters if c.startswith(last) and c != last]
    return found


def _with_zwj(text: str) -> list[str]:
    """``text`` with one ZWJ inside it, at each place (nepali-lm removes it again)."""
    return [text[:i] + ZWJ + text[i:] for i in range(1, len(text))]


#: How many marks after a cluster are followed: Kannada ೋ typed as ೆ ೂ ೕ takes three.
MARKS_AFTER = 3
#: How many spellings of cluster + marks texts get rules at most, nearest first: Tibetan's
#: stacked vowel signs alone would give 400,000; every other script needs a few hundred.
MAX_FOLLOWED = 10_000


def _followed_by_marks(clusters: list[str]) -> list[str]:
    """NFC of a cluster followed by marks that N moves into it or composes with it (న + U+0C46
    U+0C4D U+0C56 is నై + ్; ಡ + ೆ ೂ ೕ is ಡೋ; క్ + ఼ is క఼్), up to ``MARKS_AFTER`` marks:
    their spellings need rules even when the result is not a cluster of the table."""
    found: dict[str, None] = {}
    frontier = clusters
    budget = MAX_FOLLOWED
    for _ in range(MARKS_AFTER):
        step = {
            _nfc(text + mark): None
            for text in frontier
            for mark in _interacting(text, _reordering_marks(cluster_script(text)))
        }
        # Cheapest first, so that one script's many stacked marks cannot starve the others.
        frontier = []
        for text in cheapest_first([t for t in step if t not in found]):
            budget -= len(spellings(text))
            if budget < 0:
                break
            found[text] = None
            frontier.append(text)
    return list(found)


#: The longest run of marks after a cluster that holds none of them that gets rules.
MARK_RUN = 4
#: Runs up to this long get rules in every order of their marks; longer ones in one order of
#: the marks of each combining class (see :func:`_mark_runs`).
ORDERED_RUN = 3


def _mark_runs(clusters: list[str]) -> list[str]:
    """NFC of every run of marks with a combining class, one to ``MARK_RUN`` of them, alone or
    after a vowel sign that NFC decomposes (Telugu ై is ె + ౖ), of each script of
    ``clusters``: typed in another order after a cluster that holds none of them (ౙ + ౖ + ౕ is
    ౙౕౖ; ఢ + ై + ౖ ఼ ్ is ఢై఼్ౖ), stock spm takes the cluster, then must find the run as a
    source. Telugu's four such marks and its one such sign give about 140 runs; a cluster that
    holds the first mark of a run is followed by :func:`_followed_by_marks` instead.

    Marks of one combining class keep their order under NFC, so a run's NFC depends on the
    order of each class's marks: Thai ู ุ (both class 103) after ฺ (class 9) is ฺ ู ุ, not
    ฺ ุ ู, and Myanmar's asat and virama share class 9. Runs up to ``ORDERED_RUN`` marks are
    taken in every order (a script whose marks all differ in class gets nothing more: its
    orders have one NFC); longer ones, one order a class (Tibetan's 19 marks would give 19,000
    runs)."""
    scripts = sorted({script for script in map(cluster_script, clusters) if script})
    runs: dict[str, None] = {}
    for script in scripts:
        marks = [mark for mark in _reordering_marks(script) if unicodedata.combining(mark)]
        signs = [ch for ch in script_characters(script) if _decomposing_sign(ch)]
        for size in range(1, MARK_RUN + 1):
            orders = product(marks, repeat=size) if size <= ORDERED_RUN else None
            for run in orders or combinations_with_replacement(marks, size):
                for sign in ["", *signs] if size < MARK_RUN else [""]:
                    if size > 1 or sign:
                        runs[_nfc(sign + "".join(run))] = None
    return list(runs)


def _decomposing_sign(ch: str) -> bool:
    """A vowel sign whose canonical decomposition ends with a mark that has a combining class."""
    decomposed = unicodedata.normalize("NFD", ch)
    return (
        unicodedata.category(ch)[0] == "M"
        and len(decomposed) > 1
        and bool(unicodedata.combining(decomposed[-1]))
    )


def cheapest_first(texts: list[str]) -> Iterator[str]:
    """``texts`` in the order of ``sorted(texts, key=lambda t: len(spellings(t)))``, spelling
    a text only once every text before it in that order is known: a text is yielded when its
    count is below every unspelled text's :func:`spelling_floor` (ties: the earlier text)."""
    floors = sorted((spelling_floor(text), i) for i, text in enumerate(texts))
    known: list[tuple[int, int]] = []
    for bound in [*floors, (MAX_SPELLINGS + 1, len(texts))]:
        while known and known[0] < bound:
            yield texts[heapq.heappop(known)[1]]
        if bound[1] < len(texts):
            heapq.heappush(known, (len(spellings(texts[bound[1]])), bound[1]))


@cache
def _reordering_marks(script: str | None) -> tuple[str, ...]:
    """The script's marks that N can move or compose: those with a non-zero combining class
    (canonical ordering moves them) but not Vedic cantillation marks (18 of them in Devanagari
    would add 50,000 rules), and those that end a precomposed character (Bengali ৗ of ৌ)."""
    chars = script_characters(script) if script else []
    ending = _ending_characters()
    return tuple(
        ch
        for ch in chars
        if (unicodedata.combining(ch) and indic_category(ch) != "CANTILLATIONMARK") or ch in ending
    )


@cache
def _ending_characters() -> frozenset[str]:
    """Characters that follow the first in some character's decomposition."""
    return frozenset(ch for key in composites() for ch in key[1:])


def _interacting(cluster: str, marks: tuple[str, ...]) -> list[str]:
    """The marks N can move into ``cluster`` (the marks ending it have another combining
    class) or compose with something there (ফ + ় is U+095E, which NFC itself never writes,
    but text does)."""
    decomposed = unicodedata.normalize("NFD", cluster)
    end = len(decomposed)
    while end and unicodedata.combining(decomposed[end - 1]):
        end -= 1
    classes = {unicodedata.combining(x) for x in decomposed[end:]}
    table = composites()
    # only an ending shorter than the longest decomposition can compose with one more mark
    first = max(0, len(decomposed) - longest_decomposition() + 1)
    endings = [decomposed[i:] for i in range(first, len(decomposed))]
    return [
        mark
        for mark in marks
        if classes - {unicodedata.combining(mark)}
        or any(ending + mark in table for ending in endings)
        or not _is_nfc(cluster + mark)
    ]


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _is_nfc(text: str) -> bool:
    return unicodedata.is_normalized("NFC", text)


def _shared_prefixes(source: str, sources: AbstractSet[str]) -> int:
    """Members of ``sources`` that are prefixes of ``source`` (itself included)."""
    return sum(source[:k] in sources for k in range(1, len(source) + 1))


def rule_files(
    codec: PUACodec, normalizer: Normalizer, user: Sequence[tuple[str, str]] = ()
) -> tuple[str, str]:
    """The normalizer and denormalizer rule files (``U+XXXX U+YYYY<TAB>U+ZZZZ`` lines), with
    ``user`` (a user's rules) in the normalizer's.

    Tens of thousands of rules: every string is spelled by one ``str.translate`` over all.
    """
    forward = rule_lines(normalizer_rules(codec, normalizer, user))
    backward = rule_lines([(target, source) for source, target in rule_pairs(codec)])
    return forward, backward


def training_rule_files(
    codec: PUACodec, normalizer: Normalizer, user: Sequence[tuple[str, str]] = ()
) -> tuple[str, str]:
    """Rule files for text that is already N's output, as the trainer's lines are: the codec's
    own rules alone (with ``user``'s). The other spellings' rules (:func:`rule_files`) never
    match such text, since each of their sources is a spelling N changes, so spm's training text
    comes out the same; they cost most of the rules' time, so the trainer builds them while spm
    trains."""
    pairs = rule_pairs(codec)
    users = with_user_rules(codec, normalizer, user)
    forward = rule_lines(_kept_by_n(users, normalizer) if normalizer.composes else users)
    return forward, rule_lines([(target, source) for source, target in pairs])


#: Rules spelled in one ``str.translate``: all 44,675 of a te.train model's at once took 16 MB
#: beside their 1.7 MB of lines; 4,096 at a time, 3 MB, as fast.
SPELLED_AT_ONCE = 4096


def rule_lines(pairs: list[tuple[str, str]]) -> str:
    """spm's rule file for ``pairs``: one ``U+XXXX U+YYYY<TAB>U+ZZZZ`` line per (source,
    target), code points spelled in hexadecimal."""
    if any("\n" in source or "\n" in target for source, target in pairs):  # a user's rule
        return "".join(f"{_spelled(source)}\t{_spelled(target)}\n" for source, target in pairs)
    return "".join(
        _spell_lines(pairs[i : i + SPELLED_AT_ONCE]) for i in range(0, len(pairs), SPELLED_AT_ONCE)
    )


def _spell_lines(pairs: list[tuple[str, str]]) -> str:
    """Rule lines for pairs without a line feed (at least one pair)."""
    joined = "\n".join(text for pair in pairs for text in pair)
    names = {ord(ch): f"U+{ord(ch):04X} " for ch in set(joined) - {"\n"}}
    spelled = joined.translate(names).replace(" \n", "\n").removesuffix(" ").split("\n")
    return "".join(f"{a}\t{b}\n" for a, b in zip(spelled[0::2], spelled[1::2], strict=True))


def _spelled(text: str) -> str:
    return " ".join(f"U+{ord(ch):04X}" for ch in text)
