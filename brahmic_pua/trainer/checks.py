"""Options checked against brahmic_pua's guarantees before any corpus is read.

An option that would make a guarantee false is either refused (a user-defined symbol that
starts with a dependent mark would be a usable orphan piece) or reported in one line naming the
guarantee it turns off, so nobody loses exactness without being told.

Also the one-line warnings and errors that name a fix: seeds that no chosen filter reads, a
corpus without Brahmic text, and spm's "Vocabulary size too high" in our words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from brahmic_pua.codec import PUACodec
from brahmic_pua.codec.layout import ESCAPED_LITERALS, is_private_use
from brahmic_pua.io.lists import comma_list
from brahmic_pua.io.wording import counted
from brahmic_pua.model.display import starts_with_mark
from brahmic_pua.nepbpe.filters import SEED_FILTERS
from brahmic_pua.normalize import normalize
from brahmic_pua.segment.sure_cuts import check_no_surrogates
from brahmic_pua.trainer.spm_options import SpmOptions

STAND_INS = str.maketrans(ESCAPED_LITERALS)
ROUND_TRIP = "guarantee 1, decode(encode(s)) == N(s)"
NO_ORPHANS = "guarantee 2, no piece starts with a dependent mark"


def symbol_list(value: Any) -> list[str]:
    """spm's symbol lists: a comma-separated string or a list, symbols not stripped."""
    return comma_list(value or None, strip=False)


def user_symbols(options: SpmOptions, mode: str) -> list[str]:
    """``user_defined_symbols`` as spm must see them: after N, as text (spm matches them in the
    raw input before its rules, so a symbol given as codes would catch literal codes in the
    text), ▁ and U+2585 as their stand-ins. A symbol that starts with a dependent mark is
    refused (it would be a piece that renders on a dotted circle)."""
    symbols = []
    for symbol in symbol_list(options["user_defined_symbols"]):
        try:
            check_no_surrogates(symbol)
        except ValueError as error:
            raise ValueError(f"user_defined_symbols {symbol!r}: {error}") from None
        if any(is_private_use(ch) for ch in symbol):
            raise ValueError(
                f"user_defined_symbols {symbol!r} holds a Private Use Area character, which "
                "brahmic_pua reserves for clusters; choose another symbol"
            )
        normalized = normalize(symbol, mode)
        if starts_with_mark(normalized):
            raise ValueError(
                f"user_defined_symbols {symbol!r} starts with the dependent mark "
                f"U+{ord(normalized.lstrip(chr(0x2581))[0]):04X}: it would be a piece that "
                f"renders on a dotted circle ({NO_ORPHANS}); attach it to its base, e.g. 'క"
                f"{normalized.lstrip(chr(0x2581))}', or leave it out"
            )
        # ▁ is spm's space: a literal ▁ reaches the model as its stand-in code, so must the
        # symbol, or it would decode as a space.
        symbols.append(normalized.translate(STAND_INS))
    return symbols


def weakened_guarantees(options: SpmOptions) -> list[str]:
    """One line for every option that turns a guarantee off, naming it."""
    found = []
    if not options.flag("byte_fallback"):
        found.append(
            f"byte_fallback=False turns off {ROUND_TRIP}: a character without a piece "
            "encodes to <unk> and decodes to ⁇"
        )
    if options.flag("remove_extra_whitespaces"):
        found.append(
            f"remove_extra_whitespaces=True turns off {ROUND_TRIP}: runs of spaces collapse "
            "and leading and trailing spaces are dropped"
        )
    if options.flag("treat_whitespace_as_suffix"):
        found.append(
            f"treat_whitespace_as_suffix=True turns off {ROUND_TRIP}: the ▁ spm adds to mark "
            "a word goes at its end, so every text decodes with a trailing space ('ড' → 'ড '), "
            "as in stock sentencepiece"
        )
    if options.model_type == "word":
        found.append(
            f"model_type=word turns off {ROUND_TRIP}: a word without a piece is spelled in "
            "bytes, and spm decodes the bytes of its ▁ as a literal ▁, not a space"
        )
    return found


#: The filters that read seeds (the others ignore them; see nepbpe.filters.check_filter_inputs).


def unused_seeds(filters: Iterable[str], seeds: bool) -> str | None:
    """One line when seeds are given but no chosen filter reads them (they would do nothing)."""
    if not seeds or set(filters) & set(SEED_FILTERS):
        return None
    return (
        "the seeds given (nepali_seeds, seeds_strict, seeds_ambiguous) do nothing: only the "
        "theta and seed-absorb filters read them; add filters=seed-absorb (or theta, or all), "
        "or leave the seeds out"
    )


def no_brahmic_text(codec: PUACodec) -> str | None:
    """One line when the corpus has no cluster of a Brahmic script (English only, or none of
    the scripts chosen): spm still trains, but nothing is kept whole."""
    if any(codec.counts().values()):
        return None
    where = (
        f"the scripts chosen ({', '.join(codec.scripts)})"
        if codec.scripts
        else "any Brahmic script brahmic_pua covers (`brahmic-pua scripts` lists them)"
    )
    return (
        f"the corpus has no text in {where}: training goes on, and the model is plain "
        "SentencePiece with no cluster to keep whole"
    )


_TOO_HIGH = re.compile(r"Vocabulary size too high \((\d+)\)\. Please set it to a value <= (\d+)")

#: How many trainings :func:`size_that_trains` may run to find a vocab_size that trains.
MAX_VOCAB_PROBES = 8


def spm_vocab_limit(message: str) -> tuple[int, int] | None:
    """spm's "Vocabulary size too high (V). Please set it to a value <= M" (an INTERNAL error
    with its source line, after the whole training) as ``(V, M)``, or None for any other
    message. M is how many pieces spm made for V, not the largest size that trains: spm prunes
    toward 1.1 × vocab_size, and brahmic_pua plans the alphabet from vocab_size, so at M it
    makes fewer pieces again (2000 → 1900 → 1874 → 1868 → 1866 on the Hindi sample)."""
    found = _TOO_HIGH.search(message)
    if found is None:
        return None
    return int(found[1]), int(found[2])


#: byte_fallback's pieces.
BYTE_PIECES = 256


def most_pieces(options: SpmOptions, reserved: int, symbols: int, characters: int) -> int:
    """An upper bound on the pieces spm can make from a corpus of ``characters`` characters
    (spaces included) and ``symbols`` distinct symbols, beside ``reserved`` meta and user
    pieces and the byte pieces.

    Why: spm runs a loop as long as vocab_size before it says the size is too high (2·10⁹
    pieces took 35 s for BPE on a 220 kB sample, and as long again for each size tried after
    it; unigram was still running at 100 s; a char model, which spm writes at any size, 90 s),
    so a size no corpus of this length can reach is refused at once, or cut to the bound
    where spm would make what it can anyway. The bound is loose but sure: a char model's
    pieces are its symbols, each BPE merge shortens the corpus by at least one symbol, a word
    model's words are fewer than its characters, and unigram keeps at most its seed pieces,
    substrings of at most max_sentencepiece_length symbols."""
    model_type = options.model_type
    grown = 0 if model_type == "char" else characters
    if model_type == "unigram":
        seeds = options.integer("seed_sentencepiece_size")
        longest = options.integer("max_sentencepiece_length")
        grown = min(seeds, characters * max(1, longest))
    return reserved + BYTE_PIECES + symbols + grown


def beyond_corpus(vocab_size: int, most: int, characters: int) -> str:
    """The one line for a vocab_size over :func:`most_pieces`'s bound."""
    return (
        f"vocab_size={vocab_size} is more than this corpus can give: its "
        f"{counted(characters, 'character makes', 'characters make')} at most "
        f"{counted(most, 'piece')}; give a smaller vocab_size, or "
        "hard_vocab_limit=false for as many pieces as spm finds"
    )


def size_that_trains(most: int, made_at: Callable[[int], int | None]) -> int | None:
    """The first vocab_size that trains, following spm's own numbers down from ``most``:
    ``made_at(size)`` trains at ``size`` and gives None when it trains, else the pieces spm
    made (its new "<= M"). None when no size trained within :data:`MAX_VOCAB_PROBES` trainings
    or spm's number stops falling. The corpus's limit is known only once spm has found its
    pieces, so it cannot be checked before, and the size advised is one seen to train."""
    size = most
    for _ in range(MAX_VOCAB_PROBES):
        made = made_at(size)
        if made is None:
            return size
        if made >= size:
            return None
        size = made
    return None


def vocab_too_large(message: str, trains: int | None = None) -> str | None:
    """spm's "Vocabulary size too high" in our words, or None for any other message: the
    advice is ``trains`` (a vocab_size seen to train, from :func:`size_that_trains`) or, when
    none was found, hard_vocab_limit=false, which always trains."""
    found = spm_vocab_limit(message)
    if found is None:
        return None
    size, most = found
    head = (
        f"SentencePiece could not train: vocab_size={size} is too high for this corpus: spm "
        f"made only {counted(most, 'piece')} for it"
    )
    if trains is None:
        return f"{head}; use hard_vocab_limit=false (the model then has the pieces spm finds)"
    return f"{head}; use vocab_size={trains} (it trains) or hard_vocab_limit=false"
