"""spm's training input as the corpus's words with their counts (``input_format=tsv``), where
that trains the model its lines train: spm then reads and normalizes each distinct word once
instead of every line.

Why the models are the same. spm's BPE trainer reads its sentences, normalizes each, counts their
characters (weighted by a sentence's count) for the alphabet, and then, before anything else
looks at them, splits them into words (``SplitSentencesByWhitespace``: each "▁" starts a word)
and sums equal words' counts, sorted by count and then by the word. With spm's defaults as
brahmic_pua sets them (``remove_extra_whitespaces=false``, a dummy prefix, whitespace as a
prefix, no whitespace-only pieces), a line's words are "▁" + each of ``line.split(" ")``: so a
line of k spaces is k + 1 words, a space-only stretch gives "▁" words, and an empty line gives
none (spm skips it before normalizing). Each word is written here as " " + word with its
count, and spm reads them with ``add_dummy_prefix=false``, so " w" normalizes to "▁w" and " " to
"▁": the same words, the same counts, the same characters and character counts, so the same
alphabet and merges. That holds while spm's normalizer cannot join or split text across a space
(no rule of the training rules holds U+0020) and nothing else in spm looks at a whole sentence:
:func:`words_train_alike` lists the options that keep it so, and anything else trains on lines.

spm sums a word written twice (a count let go in windows writes a word once per window), so the
file needs no second pass. A word holding a tab or a line feed cannot be a row of the file: the
training then reads lines, as it does where a line is longer than ``max_sentence_length`` (spm
skips the whole line, which word counts cannot say). The model's specs are put back as a line
training leaves them (:func:`restored`): ``bench/identity.py`` and the tests compare the bytes.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, BinaryIO

from brahmic_pua.codec.layout import ESCAPED_LITERALS
from brahmic_pua.io.leftovers import owned_prefix
from brahmic_pua.io.lists import comma_list
from brahmic_pua.model.model_proto import ModelProto
from brahmic_pua.trainer.spm_options import SpmOptions

BLOCK = "\u2585"  # spm silently drops every training line that contains it
ESCAPED_BLOCK = ESCAPED_LITERALS[BLOCK]
SPACE = "\u2581"

#: Rows of the word file built at once from an Arrow table (their text is held twice meanwhile).
ROWS_AT_ONCE = 1 << 16

#: spm options whose value does not matter to the equivalence: they act on pieces inside words,
#: on the alphabet's counts (equal both ways), or after training.
_ANY_VALUE = frozenset(
    {
        "vocab_size",
        "character_coverage",
        "byte_fallback",
        "split_digits",
        "split_by_unicode_script",
        "split_by_number",
        "max_sentencepiece_length",
        "num_threads",
        "minloglevel",
        "logstream",
        "max_sentence_length",
        "unk_id",
        "bos_id",
        "eos_id",
        "pad_id",
        "unk_surface",
        "hard_vocab_limit",
        "use_all_vocab",
        "vocabulary_output_piece_score",
        "required_chars",
        "shuffle_input_sentence",
        "normalization_rule_name",
        "normalization_rule_tsv",
        "denormalization_rule_tsv",
        "model_prefix",
        "model_writer",
        "train_extremely_large_corpus",
    }
)
#: spm options that must have this value (spm's default where absent).
_REQUIRED = {
    "model_type": "bpe",
    "split_by_whitespace": True,
    "treat_whitespace_as_suffix": False,
    "allow_whitespace_only_pieces": False,
    "remove_extra_whitespaces": False,
    "add_dummy_prefix": True,
    "escape_whitespaces": True,
    "enable_differential_privacy": False,
}
#: spm options that must be empty or zero: each makes spm look at whole sentences.
_EMPTY = ("input_sentence_size", "self_test_sample_size", "pretokenization_delimiter")
#: Options naming pieces spm finds in its normalized sentences (meta pieces): one that holds
#: "▁" past its first character could match across two words of a line.
_PIECES = (
    "user_defined_symbols",
    "control_symbols",
    "unk_piece",
    "bos_piece",
    "eos_piece",
    "pad_piece",
)


def words_train_alike(options: SpmOptions) -> bool:
    """Whether spm trained with ``options`` (its own, as the trainer passes them) on the corpus's
    word counts makes the model that its lines make (see the module's text)."""
    for name, value in options.items():
        if name in _ANY_VALUE or name in _PIECES:
            continue
        if name in _EMPTY:
            if value:
                return False
        elif name not in _REQUIRED:
            return False  # an option not thought through here: lines, to be sure
    for name, wanted in _REQUIRED.items():
        if isinstance(wanted, bool):
            if options.flag(name) != wanted:
                return False
        elif str(options[name]).lower() != wanted:
            return False
    for name in _PIECES:
        for piece in comma_list(options[name] or None, strip=False):
            if SPACE in piece[1:] or " " in piece:
                return False
    return True


def rules_split_alike(forward_rules: str) -> bool:
    """Whether no rule of spm's training rules (``U+XXXX U+YYYY<TAB>…`` lines) reads a space:
    such a rule could join a space to its neighbours, which word counts cannot show."""
    for line in forward_rules.splitlines():
        source = line.partition("\t")[0]
        if "U+0020" in source.split():
            return False
    return True


class WordFile:
    """The word counts spm trains on, written as the count lets them go: a row ``" " + word
    <TAB> count`` each (U+2585 escaped as in the line file); the empty word (a space next to a
    space, or at a line's end) is summed and written last, less one per empty line."""

    def __init__(self, path: str | None = None) -> None:
        """A new temporary file, or ``path`` (a part that a worker process writes)."""
        self.path = Path(path if path is not None else _temporary())
        self._file: BinaryIO | None = open(self.path, "wb")  # noqa: SIM115 (closed in finish)
        self.usable = True  # no word held a tab or a line feed
        self.finished = False
        self.total = 0  # the words handed over, each as often as it occurs
        self._empty = 0
        self._parts: list[Path] = []  # parts written by worker processes, to gather in order

    def part(self) -> str:
        """A new temporary file for a worker process's words (:meth:`gather` joins them); a
        worker removes its part if a word cannot be a row."""
        name = _temporary()
        self._parts.append(Path(name))
        return name

    def gather(self) -> None:
        """The parts, each a finished word file, joined in order into this one (finished);
        unusable if any part was removed."""
        assert self._file is not None
        self.usable = all(part.exists() for part in self._parts)
        if self.usable:
            for part in self._parts:
                with open(part, "rb") as source:
                    shutil.copyfileobj(source, self._file)
        self._drop_parts()
        self._file.close()
        self._file = None
        self.finished = True

    def counted(self, words: Counter[str]) -> None:
        """Words and their counts (from the pure count)."""
        if not self._open(words.get("", 0), sum(words.values())):
            return
        joined = "".join(words)
        if "\t" in joined or "\n" in joined:
            self._unusable()
            return
        rows = "".join([f" {word}\t{n}\n" for word, n in words.items() if word])
        self._write(rows.replace(BLOCK, ESCAPED_BLOCK).encode("utf-8"))

    def counted_table(self, table: Any) -> None:
        """Words and their counts (from the Arrow count): a table of ``word`` and ``n``,
        written :data:`ROWS_AT_ONCE` at a time (each slice's rows are built whole)."""
        for start in range(0, max(table.num_rows, 1), ROWS_AT_ONCE):
            self._counted_slice(table.slice(start, ROWS_AT_ONCE))

    def _counted_slice(self, table: Any) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc

        words, counts = table.column("word"), table.column("n")
        empty = pc.equal(words, "")
        total = pc.sum(counts).as_py() or 0
        if not self._open(pc.sum(pc.if_else(empty, counts, 0)).as_py() or 0, total):
            return
        if pc.any(pc.match_substring_regex(words, "[\t\n]")).as_py():
            self._unusable()
            return
        kept = pc.invert(empty)
        words = pc.replace_substring(pc.filter(words, kept), BLOCK, ESCAPED_BLOCK)
        counts = pc.cast(pc.filter(counts, kept), pa.string())
        # each row " word\tn\n", so the rows' bytes, back to back, are the file's
        rows = pc.binary_join_element_wise(" ", words, "\t", counts, "\n", "")
        for chunk in rows.chunks:
            _, offsets, data = chunk.buffers()
            if data is None or not len(chunk):
                continue
            wide = pa.types.is_large_string(chunk.type)
            ends = pa.Array.from_buffers(
                pa.int64() if wide else pa.int32(), len(chunk) + 1, [None, offsets], 0, chunk.offset
            )
            self._write(memoryview(data)[ends[0].as_py() : ends[-1].as_py()])

    def finish(self, lines: int, empty_lines: int, spaces: int) -> None:
        """The last row (the empty word's count, each empty line's taken out: spm skips an empty
        line) written and the file closed; unusable unless the words handed over are every word
        of the count's ``lines`` (``empty_lines`` of them empty) with their ``spaces``: a line
        of k spaces is k + 1 words, so a count that lost or doubled words is caught here."""
        if self._file is None:
            return
        if self.total != lines + spaces:
            self._unusable()
        spaces = self._empty - empty_lines
        if spaces > 0 and self.usable:
            self._write(f" \t{spaces}\n".encode())
        self._file.close()
        self._file = None
        self.finished = True

    def written(self, usable: bool) -> None:
        """The file as another process (that forked with it) wrote and finished it: this
        process's handle closed unwritten."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self.usable = usable
        self.finished = True

    def close(self) -> None:
        """The file (and any part) closed and removed."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self.path.unlink(missing_ok=True)
        self._drop_parts()

    def _drop_parts(self) -> None:
        for part in self._parts:
            part.unlink(missing_ok=True)
        self._parts.clear()

    def _open(self, empty: int, total: int) -> bool:
        self._empty += empty
        self.total += total
        return self.usable and self._file is not None

    def _unusable(self) -> None:
        self.usable = False
        if self._file is not None:
            self._file.truncate(0)

    def _write(self, data: bytes | memoryview) -> None:
        assert self._file is not None
        self._file.write(data)


def _temporary() -> str:
    handle, name = tempfile.mkstemp(prefix=owned_prefix("spm_words"), suffix=".tsv")
    os.close(handle)
    return name


def word_options(options: SpmOptions) -> SpmOptions:
    """``options`` for training on a word file: tsv rows, no dummy prefix (each word brings its
    space), and no row skipped as too long (a word of a line at the limit is one byte longer
    with its space; the lines were checked against the limit already)."""
    limit = options.integer("max_sentence_length")
    return options.replace(
        input_format="tsv",
        add_dummy_prefix=False,
        max_sentence_length=min(limit + 1, 1 << 30),
    )


def restored(model: ModelProto, options: SpmOptions) -> None:
    """``model`` (spm's, trained on a word file), its specs as the same training on lines
    leaves them: the input format, the dummy prefix and the line limit as ``options`` gave."""
    spec, normalizer = model.trainer_spec, model.normalizer_spec
    spec.ClearField("input_format")
    if "max_sentence_length" in options:
        spec.max_sentence_length = options.integer("max_sentence_length")
    else:
        spec.ClearField("max_sentence_length")
    normalizer.ClearField("add_dummy_prefix")
    if "add_dummy_prefix" in options:
        normalizer.add_dummy_prefix = options.flag("add_dummy_prefix")


__all__ = [
    "WordFile",
    "restored",
    "rules_split_alike",
    "word_options",
    "words_train_alike",
]
