"""A brahmic_pua model gives our ids in the other programs a model lives in, run for real.

A model is trained once and used for years elsewhere: in environments pinned to an older
sentencepiece, in ONNX graphs (onnxruntime-extensions), in llama.cpp. Each runtime runs in its
own environment (``tools/runtimes.py`` installs them into ``.ci/runtimes`` or the folder
``$BRAHMIC_PUA_RUNTIMES`` names; ``tools/runtime_worker.py`` encodes there), on held-out text it
never trained on, NFC and NFD: its ids must be ours on every line, none of its pieces may start
with a dependent mark, and the text it decodes is counted. Where a runtime is missing the tests
skip saying how to install it; under CI they fail.

The corpus rows are the table of docs/runtimes.md: the last test checks that the page shows
what these runs measured. ``$BRAHMIC_PUA_PARITY_TEXT`` may name a file of your own text (one
text per line): every line of it is checked too, against every model here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, NoReturn

import pytest
import sentencepiece as stock
from conftest import (
    NEPALI,
    ROOT,
    corpora,
    need_corpora,
    read,
    require_extra,
    sample,
    sample_training,
    skip_or_fail,
    slow,
)

import brahmic_pua
from brahmic_pua.integrations.gguf import llama_text, write_gguf
from brahmic_pua.integrations.hf_json import tokenizer_json
from brahmic_pua.model.display import starts_with_mark
from brahmic_pua.model.manifest import read as read_manifest
from brahmic_pua.model.model_proto import BYTE, parse_model
from brahmic_pua.model.text_spelling import spell_in_text
from brahmic_pua.trainer import train_model

#: The full run only: old releases and runtimes, corpus text.
pytestmark = slow

RUNTIMES_VARIABLE = "BRAHMIC_PUA_RUNTIMES"
RUNTIMES = Path(os.environ.get(RUNTIMES_VARIABLE) or ROOT / ".ci" / "runtimes")
WORKER = ROOT / "tools" / "runtime_worker.py"
PARITY_VARIABLE = "BRAHMIC_PUA_PARITY_TEXT"
#: The language column of rows on ``$BRAHMIC_PUA_PARITY_TEXT``'s lines.
OWN = "your text"
PAGE = ROOT / "docs" / "runtimes.md"
#: Where the measured table is written, for copying into the page when it changes.
MEASURED = RUNTIMES / "measured-table.md"

#: (row label, environment folder, worker kind): the Python runtimes, oldest first.
PYTHON_RUNTIMES = [
    (f"sentencepiece {v}", f"sentencepiece-{v}", "sentencepiece")
    for v in ("0.1.99", "0.2.0", "0.2.1", "0.2.2")
] + [("onnxruntime-extensions 0.15.2", "onnxruntime-extensions-0.15.2", "onnxruntime-extensions")]
LLAMA_FOLDER = "node-llama-cpp-3.21.1"
LLAMA_LABEL = "llama.cpp (node-llama-cpp 3.21.1)"
LLAMA_WORKER = ROOT / "tools" / "llama_worker.mjs"
LANGUAGES = {"te": "Telugu", "ne": "Nepali", "hi": "Hindi"}
MODEL_TYPES = ("bpe", "unigram")
#: The model column of a row on the BPE model's text-spelled file (``export --to spm``).
SPELLED = "bpe, spelled in text"
#: llama.cpp given raw (NFC) text, on the GGUF of a BPE model, with no pre-step.
LLAMA_RAW_LABEL = "llama.cpp (node-llama-cpp 3.21.1), raw text"
#: The in-process stock sentencepiece, run on the spelled file (on the model itself it is
#: brahmic_pua's own runtime: exact by construction).
STOCK_LABEL = f"sentencepiece {stock.__version__}"
#: The model column of a row on the BPE model's tokenizer.json (``export --to tokenizer.json``)
#: or on the folder ``BrahmicPuaTokenizer.save_pretrained`` writes (transformers).
TOKENIZER_JSON = "bpe, tokenizer.json"
TOKENIZERS_JS_FOLDER = "tokenizers-js-0.2.0"
TOKENIZERS_JS_LABEL = "tokenizers.js 0.2.0"
TOKENIZERS_JS_WORKER = ROOT / "tools" / "tokenizers_worker.mjs"
#: A runtime's answer: (ids per text, the text it decodes each id list to).
Coded = tuple[list[list[int]], list[str]]
#: (language, model type, model, texts)
Case = tuple[str, str, Path, list[str]]


def runtime_python(folder: str) -> Path:
    """The Python of a runtime's environment; where it is absent, a skip naming the command
    that installs it, or under CI a failure: CI must not pass with a runtime untried."""
    python = RUNTIMES / folder / "bin" / "python"
    if not python.exists():
        missing_runtime(folder)
    return python


def missing_runtime(folder: str) -> NoReturn:
    skip_or_fail(
        f"runtime {folder} not in {RUNTIMES}: run `python tools/runtimes.py` "
        f"(or set {RUNTIMES_VARIABLE} to the folder it installed into)"
    )


def run_worker(command: list[str], texts: list[str]) -> Coded:
    """(ids, decoded texts) of ``texts`` from a worker (tools/runtime_worker.py,
    tools/llama_worker.mjs): texts as JSON on stdin, ``{"ids", "texts"}`` on stdout."""
    done = subprocess.run(
        command,
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    answer = json.loads(done.stdout)
    return answer["ids"], answer["texts"]


def with_nfd(lines: list[str]) -> list[str]:
    """The lines, then their NFD forms that differ (stock sees text as it comes, not NFC)."""
    nfd = [unicodedata.normalize("NFD", line) for line in lines]
    return lines + [d for d, line in zip(nfd, lines, strict=True) if d != line]


def own_text() -> list[str]:
    """The lines of ``$BRAHMIC_PUA_PARITY_TEXT``, if it names a file."""
    path = os.environ.get(PARITY_VARIABLE)
    if not path:
        return []
    return [line for line in Path(path).read_text(encoding="utf-8").splitlines() if line]


@dataclass(frozen=True)
class Row:
    """One runtime on one model's held-out text."""

    runtime: str
    language: str
    model_type: str
    lines: int
    same_ids: int
    same_text: int
    mark_start: int
    first_difference: str

    def cells(self) -> str:
        language = LANGUAGES.get(self.language, self.language)
        return (
            f"| {self.runtime} | {language} | {self.model_type} | {self.lines:,} | "
            f"{self.same_ids:,} | {self.same_text:,} | {self.mark_start} |"
        )


@cache
def _ours(model: Path, texts: tuple[str, ...]) -> tuple[Any, list[list[int]], list[str]]:
    """(our processor, our ids, our decoded texts): once per model, whatever the runtime."""
    ours = brahmic_pua.SentencePieceProcessor(model_file=str(model))
    ids = ours.encode(list(texts))
    return ours, ids, ours.decode(ids)


def compare(
    runtime: str,
    language: str,
    model_type: str,
    model: Path,
    texts: list[str],
    theirs: Callable[[Path, list[str]], Coded],
) -> Row:
    """Our ids and text against a runtime's, line by line."""
    ours, our_ids, our_texts = _ours(model, tuple(texts))
    their_ids, their_texts = theirs(model, texts)
    proto = parse_model(model.read_bytes())
    mark_start = sum(
        1
        for ids in their_ids
        for i in ids
        if proto.pieces[i].type != BYTE and starts_with_mark(ours.id_to_piece(i))
    )
    same = [a == b for a, b in zip(our_ids, their_ids, strict=True)]
    first = ""
    if not all(same):
        at = same.index(False)
        first = (
            f"{texts[at]!r}: ours {ours.id_to_piece(our_ids[at])} "
            f"theirs {ours.id_to_piece(their_ids[at])}"
        )
    return Row(
        runtime,
        language,
        model_type,
        len(texts),
        sum(same),
        sum(a == b for a, b in zip(our_texts, their_texts, strict=True)),
        mark_start,
        first,
    )


# The models and their held-out text ------------------------------------------------------


def _train(prefix: Path, lines: list[str], model_type: str, vocab_size: int) -> Path:
    train_model(
        sentence_iterator=iter(lines),
        model_prefix=str(prefix),
        vocab_size=vocab_size,
        model_type=model_type,
        num_threads=1,
    )
    return Path(f"{prefix}.model")


@cache
def _corpus_split(language: str) -> tuple[list[str], list[str]]:
    """(training lines, held-out lines) per language: Telugu trains on te.train and is checked
    on te.extra (other sources, news among them); Nepali and Hindi hold out their last lines."""
    if language == "te":
        held = [s for s in read("te.extra.txt").splitlines() if s.strip()][:2000]
        return read("te.train.txt").splitlines(), held
    lines = [
        s
        for s in read(f"{language}.{'train' if language == 'ne' else 'sample'}.txt").splitlines()
        if s.strip()
    ]
    train, held = (
        (lines[:20000], lines[-1800:]) if language == "ne" else (lines[:-1500], lines[-1500:])
    )
    return train, held


@pytest.fixture(scope="module")
def sample_cases(
    tmp_path_factory: pytest.TempPathFactory,
) -> list[Case]:
    """(language, model type, model, texts) on the samples that ship: a model per type on the
    Telugu and Hindi samples and the written Nepali lines, checked on their held-out lines."""
    work = tmp_path_factory.mktemp("runtime_samples")
    lines = sample_training("te") + sample_training("hi") + NEPALI[:20]
    held = sample("te")[-150:] + sample("hi")[-150:] + NEPALI[20:]
    cases = [
        ("te+hi+ne", model_type, _train(work / model_type, lines, model_type, 2000), with_nfd(held))
        for model_type in MODEL_TYPES
    ]
    # N beyond NFC: a nepali-lm model (llama.cpp given N(text); the spelled model; the
    # tokenizer.json with the folding as Replace normalizers)
    folded = work / "nepali-lm"
    train_model(
        sentence_iterator=iter(sample_training("hi") + NEPALI[:20]),
        model_prefix=str(folded),
        vocab_size=2000,
        model_type="bpe",
        normalization="nepali-lm",
        num_threads=1,
    )
    nepali = sample("hi")[-150:] + NEPALI[20:]
    cases.append(("hi+ne, nepali-lm", "bpe", Path(f"{folded}.model"), with_nfd(nepali)))
    return cases + with_own_text(cases)


def with_own_text(cases: list[Case]) -> list[Case]:
    """A case on ``$BRAHMIC_PUA_PARITY_TEXT``'s lines (NFC and NFD) per model, if set: checked,
    but not a row of the page's table, and held to what the runtime promises on any text."""
    own = own_text()
    if not own:
        return []
    return [
        (f"{language} model, {OWN}", kind, model, with_nfd(own))
        for language, kind, model, _ in cases
    ]


@pytest.fixture(scope="module")
def corpus_cases(
    tmp_path_factory: pytest.TempPathFactory,
) -> list[Case]:
    """(language, model type, model, held-out texts NFC and NFD) on the corpora: 8,000 pieces
    for Telugu and Nepali, 4,000 for Hindi (a 3 MB sample)."""
    need_corpora()
    work = tmp_path_factory.mktemp("runtime_corpora")
    cases = []
    for language in LANGUAGES:
        train, held = _corpus_split(language)
        size = 4000 if language == "hi" else 8000
        for model_type in MODEL_TYPES:
            model = _train(work / f"{language}-{model_type}", train, model_type, size)
            cases.append((language, model_type, model, with_nfd(held)))
    return cases + with_own_text(cases)


def python_runtime(folder: str, kind: str) -> Callable[[Path, list[str]], Coded]:
    python = runtime_python(folder)
    return lambda model, texts: run_worker([str(python), str(WORKER), kind, str(model)], texts)


def spelled_file(model: Path) -> Path:
    """The BPE model's text-spelled file, as ``brahmic-pua export --to spm`` writes it."""
    out = model.with_suffix(".spelled.model")
    if not out.exists():
        out.write_bytes(spell_in_text(model.read_bytes()).data)
    return out


def on_spelled(theirs: Callable[[Path, list[str]], Coded]) -> Callable[[Path, list[str]], Coded]:
    return lambda model, texts: theirs(spelled_file(model), texts)


def stock_runtime(model: Path, texts: list[str]) -> Coded:
    processor = stock.SentencePieceProcessor(model_file=str(model))
    ids = processor.encode(texts)
    return ids, processor.decode(ids)


def llama_script() -> Path:
    """The llama.cpp worker, copied beside node-llama-cpp (ESM finds it from there)."""
    folder = RUNTIMES / LLAMA_FOLDER
    if not (folder / "node_modules" / "node-llama-cpp").is_dir() or shutil.which("node") is None:
        missing_runtime(LLAMA_FOLDER)
    script = folder / LLAMA_WORKER.name
    shutil.copyfile(LLAMA_WORKER, script)
    return script


def llama_runtime() -> Callable[[Path, list[str]], Coded]:
    """llama.cpp through node-llama-cpp, on the GGUF ``write_gguf`` writes, by the documented
    route: ``llama_input`` before its tokenizer, ``llama_output`` after its detokenizer."""
    script = llama_script()

    def run(model: Path, texts: list[str]) -> Coded:
        data = model.read_bytes()
        route = llama_text(data)
        gguf_file = model.with_suffix(".gguf")
        write_gguf(data, gguf_file)
        ids, shown = run_worker(
            ["node", str(script), str(gguf_file)], [route.input(t) for t in texts]
        )
        return ids, [route.output(t) for t in shown]

    return run


def llama_raw_runtime() -> Callable[[Path, list[str]], Coded]:
    """llama.cpp on a BPE model's GGUF given each text in the model's N (NFC, or the Nepali
    folding) with no pre-step, its detokenization taken as it is: what llama-server or any C++
    program does with text normalized as docs/runtimes.md says."""
    script = llama_script()

    def run(model: Path, texts: list[str]) -> Coded:
        gguf_file = model.with_suffix(".gguf")
        data = model.read_bytes()
        write_gguf(data, gguf_file)
        manifest = read_manifest(data, str(model))[1]
        assert manifest is not None
        given = [manifest.normalizer(t) for t in texts]
        return run_worker(["node", str(script), str(gguf_file)], given)

    return run


def tokenizer_file(model: Path) -> Path:
    """The BPE model's tokenizer.json, as ``brahmic-pua export --to tokenizer.json`` writes it."""
    out = model.with_suffix(".tokenizer.json")
    if not out.exists():
        out.write_text(tokenizer_json(model.read_bytes()).text, encoding="utf-8")
    return out


def hf_runtimes() -> list[tuple[str, Callable[[Path, list[str]], Coded]]]:
    """tokenizers (Rust) on the tokenizer.json, transformers' AutoTokenizer on the folder
    save_pretrained writes (no remote code), tokenizers.js on the tokenizer.json in Node."""
    require_extra("tokenizers", "hf", "the runtimes of tokenizer.json")
    import tokenizers
    import transformers

    def rust(model: Path, texts: list[str]) -> Coded:
        loaded = tokenizers.Tokenizer.from_file(str(tokenizer_file(model)))
        ids = [e.ids for e in loaded.encode_batch(texts, add_special_tokens=False)]
        return ids, loaded.decode_batch(ids, skip_special_tokens=False)

    def auto(model: Path, texts: list[str]) -> Coded:
        from brahmic_pua.hf import BrahmicPuaTokenizer

        folder = model.with_suffix(".hf")
        BrahmicPuaTokenizer(model).save_pretrained(folder)
        loaded = transformers.AutoTokenizer.from_pretrained(folder)
        assert loaded.is_fast
        ids = loaded(texts, add_special_tokens=False)["input_ids"]
        return ids, loaded.batch_decode(ids, skip_special_tokens=False)

    folder = RUNTIMES / TOKENIZERS_JS_FOLDER
    if not (folder / "node_modules" / "@huggingface" / "tokenizers").is_dir():
        missing_runtime(TOKENIZERS_JS_FOLDER)
    script = folder / TOKENIZERS_JS_WORKER.name
    shutil.copyfile(TOKENIZERS_JS_WORKER, script)

    def javascript(model: Path, texts: list[str]) -> Coded:
        return run_worker(["node", str(script), str(tokenizer_file(model))], texts)

    return [
        (f"tokenizers {tokenizers.__version__}", rust),
        (f"transformers {transformers.__version__} AutoTokenizer, no remote code", auto),
        (TOKENIZERS_JS_LABEL, javascript),
    ]


def rows(cases: list[Case]) -> Iterator[Row]:
    runtimes = [(label, python_runtime(folder, kind)) for label, folder, kind in PYTHON_RUNTIMES]
    runtimes.append((LLAMA_LABEL, llama_runtime()))
    for label, theirs in runtimes:
        for language, model_type, model, texts in cases:
            yield compare(label, language, model_type, model, texts, theirs)
    spelled = [(label, on_spelled(theirs)) for label, theirs in runtimes[:-1]]
    spelled.insert(len(spelled) - 1, (STOCK_LABEL, on_spelled(stock_runtime)))
    spelled.append((LLAMA_RAW_LABEL, llama_raw_runtime()))
    for label, theirs in spelled:
        for language, model_type, model, texts in cases:
            if model_type == "bpe":
                yield compare(label, language, SPELLED, model, texts, theirs)
    for label, theirs in hf_runtimes():
        for language, model_type, model, texts in cases:
            if model_type == "bpe":
                yield compare(label, language, TOKENIZER_JSON, model, texts, theirs)


def check(row: Row) -> None:
    if row.runtime == LLAMA_LABEL and row.model_type == "unigram":
        return  # measured for the page: llama.cpp's Unigram has no byte fallback
    if row.runtime == LLAMA_RAW_LABEL and OWN in row.language:
        # your lines may hold what only the pre-step gives exactly (a literal ▁, U+2585 or
        # Private Use character): measured, printed, not promised
        print(f"{row.cells()} {row.first_difference}")
        return
    assert row.mark_start == 0, f"{row.runtime}: {row.mark_start} mark-start pieces"
    assert row.same_ids == row.lines, (
        f"{row.runtime}, {row.language} {row.model_type}: our ids on {row.same_ids} of "
        f"{row.lines} lines; first: {row.first_difference}"
    )


def test_every_runtime_gives_our_ids_on_the_samples(
    sample_cases: list[Case],
) -> None:
    for row in rows(sample_cases):
        check(row)


@pytest.fixture(scope="module")
def corpus_rows(corpus_cases: list[Case]) -> list[Row]:
    return list(rows(corpus_cases))


@corpora
def test_every_runtime_gives_our_ids_on_held_out_corpus_text(corpus_rows: list[Row]) -> None:
    for row in corpus_rows:
        check(row)


@corpora
def test_the_runtimes_page_shows_what_was_measured(corpus_rows: list[Row]) -> None:
    """docs/runtimes.md's table is these runs' table, so the page cannot claim what the
    runtimes no longer do; the measured table is written beside the runtimes to copy in."""
    table = "\n".join(row.cells() for row in corpus_rows if row.language in LANGUAGES)
    MEASURED.write_text(table + "\n", encoding="utf-8")
    page = PAGE.read_text(encoding="utf-8")
    assert table in page, f"docs/runtimes.md's table is not what was measured: see {MEASURED}"
