"""Shared fixtures, the two sources of real text, and a hypothesis profile.

Every test runs anywhere on the attributed samples that ship in ``brahmic_pua/data`` (``sample``,
``TE_SAMPLE``, ``HI_SAMPLE``, and the ``models`` trained on them). Corpus-scale tests read the
corpora in ``../shared/corpora`` (or the folder ``$BRAHMIC_PUA_CORPORA`` names) through ``read``,
``corpus_files`` or ``corpus_models``, and carry the ``corpora`` marker: without the corpora they
skip with one line, under CI they fail (docs/testing.md).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import unicodedata
import warnings
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn, TypeVar

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, settings

import brahmic_pua.data

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[1]
CORPORA_VARIABLE = "BRAHMIC_PUA_CORPORA"
#: The corpora: the folder $BRAHMIC_PUA_CORPORA names, else ../shared/corpora beside the checkout.
CORPORA = Path(os.environ.get(CORPORA_VARIABLE) or ROOT.parent / "shared" / "corpora")
HAVE_CORPORA = CORPORA.is_dir() and any(CORPORA.glob("*.txt"))
#: The corpus files (SOURCES.md there): what tests parametrized by file name where they are absent.
CORPUS_NAMES = (
    "bn.sample.txt",
    "en.sample.txt",
    "gu.sample.txt",
    "hi.sample.txt",
    "kn.sample.txt",
    "ml.sample.txt",
    "mr.sample.txt",
    "ne.train.txt",
    "ta.sample.txt",
    "te.extra.txt",
    "te.train.txt",
    "te.wikisource.txt",
    "vi.sample.txt",
)
TE = str(CORPORA / "te.train.txt")
NO_CORPORA = (
    f"corpus-scale test: no corpora in {CORPORA}; put the checkout beside shared/ "
    f"(../shared/corpora) or set {CORPORA_VARIABLE} to their folder"
)

PEER_VARIABLE = "BRAHMIC_PUA_PEER_TESTS"
#: Outside test suites, unpacked from their sdists by tools/peer_tests.py: the folder
#: $BRAHMIC_PUA_PEER_TESTS names, else .ci/peer in the checkout.
PEER = Path(os.environ.get(PEER_VARIABLE) or ROOT / ".ci" / "peer")


def peer_suite(folder: str) -> Path:
    """``PEER/folder`` (an unpacked sdist); where it is absent, a skip naming the command that
    fetches it, or under CI a failure: CI must not pass with the outside suites unrun."""
    path = PEER / folder
    if path.is_dir():
        return path
    skip_or_fail(
        f"outside test suite {folder} not in {PEER}: run `python tools/peer_tests.py` "
        f"(or set {PEER_VARIABLE} to the folder it fetched into)"
    )


def skip_or_fail(reason: str) -> NoReturn:
    """Where something outside the repository (a peer suite, a runtime) is missing: a skip
    that says how to get it, or under CI a failure: CI must not pass with it untried."""
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but the {reason}", pytrace=False)
    pytest.skip(reason)


def peer_outcomes(
    folder: Path, *args: str, env: dict[str, str] | None = None
) -> list[tuple[str, str, str]]:
    """(class name, test name, outcome) of each test an outside suite runs in its own pytest
    process over ``folder`` (``args``: its files and selections; ``env``: its environment),
    from the JUnit report, our own plugins and options off. A test with a failure or an error
    among its parts (subtests) is "failed", one with only skips "skipped", else "passed"."""
    report = folder / "report.xml"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-o",
            "addopts=",
            "--rootdir",
            str(folder),
            f"--junitxml={report}",
            *args,
        ],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert report.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    found = []
    for case in ElementTree.parse(report).iter("testcase"):
        kinds = {child.tag for child in case} & {"failure", "error", "skipped"}
        outcome = "failed" if kinds - {"skipped"} else "skipped" if kinds else "passed"
        found.append((str(case.get("classname")), str(case.get("name")), outcome))
    return found


#: The samples that ship with the package (brahmic_pua/data/ATTRIBUTION.md): Telugu and Hindi
#: Wikipedia sentences, CC BY-SA 4.0.
SAMPLES = Path(brahmic_pua.data.__file__).parent
TE_SAMPLE = str(SAMPLES / "te.sample.txt")
HI_SAMPLE = str(SAMPLES / "hi.sample.txt")

#: Written for the tests: a few words of eight other Brahmic scripts, with their two-part
#: vowel signs (Bengali ো ৌ, Tamil ொ ோ ௌ, Kannada ೊ ೋ, Malayalam ൊ ോ ൌ, Odia ୋ ୌ,
#: Sinhala ො ෝ) and nuktas, conjuncts and joiners, where the samples have Telugu and Hindi only.
OTHER_SCRIPTS = [
    "বাংলা ভাষা কোন দিকে যাবো কৌশল গৌরব বোন মৌমাছি র‍্যাব ক্ষমা য়",
    "தமிழ் மொழி கொடி தோட்டம் பொருள் கௌரவம் நோக்கம் சொல் ஸ்ரீ க்ஷ",
    "ಕನ್ನಡ ಭಾಷೆ ಕೋಟೆ ಹೊಸ ಕೊಡು ಮೋಡ ಬೇರೆ ಕೈ ಹೋಗು ಕ್ಷಣ ಪ್ರೀತಿ",
    "മലയാളം കൊച്ചി പോലെ കൌതുകം മൊഴി തോട് ന്റെ ൻ ക്ഷ",
    "ଓଡ଼ିଆ ଭାଷା କୋଣ କୌଣସି ବୋଲି ଶକ୍ତି",
    "සිංහල භාෂාව කොළඹ දෝෂය ශ්‍රී ලංකා",
    "ગુજરાતી ભાષા કોઈ મોટું ક્ષેત્ર",
    "ਪੰਜਾਬੀ ਭਾਸ਼ਾ ਕੋਈ ਖ਼ਬਰ ਸ੍ਵਾਮੀ",
]

#: Written for the tests (no corpus text in it): 40 lines of Nepali with the spellings the
#: nepali-lm table folds (सँग/संग/सङ्ग, हुंदा, दु:ख, प्राय:, ।।), a ZWJ and the seed morphemes.
NEPALI = (ROOT / "tests" / "fixtures" / "ne.written.txt").read_text(encoding="utf-8").splitlines()

#: Marks a test that reads the corpora: ``@corpora`` on a test, ``pytestmark = corpora`` on a
#: module, ``pytest.param(..., marks=corpora)`` on one case of a parametrized test.
corpora = pytest.mark.corpora

#: Marks a test of the full run only (``pytest --full``, which .ci/run runs): the outside
#: suites, the experiment, Ray and process tests, the docs' examples, tests that train many models.
slow = pytest.mark.slow

#: Hypothesis examples per property: the default run, the full run, and CI's full run.
EXAMPLES = {"default": 25, "full": 150, "ci": 300}
settings.register_profile(
    "default",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    max_examples=EXAMPLES["default"],
)
settings.register_profile("full", settings.get_profile("default"), max_examples=EXAMPLES["full"])
settings.register_profile("ci", settings.get_profile("default"), max_examples=EXAMPLES["ci"])
#: Which of them this run uses; set by pytest_configure, before any test module is imported.
PROFILE = "default"


def examples(full: int) -> int:
    """A property's own example count (``@settings(max_examples=examples(400))``), given for
    the full run and scaled with the profile: the default run takes a sixth of it."""
    return max(EXAMPLES["default"], full * EXAMPLES[PROFILE] // EXAMPLES["full"])


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--full",
        action="store_true",
        help="run every test: the slow ones (marker slow) and the corpus-scale ones (corpora) "
        f"too, properties at {EXAMPLES['full']} examples ({EXAMPLES['ci']} with CI set); "
        ".ci/run runs this",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Markers of optional test groups (run one alone with ``pytest -m NAME``), and the
    hypothesis profile of this run."""
    global PROFILE
    config.addinivalue_line(
        "markers",
        "spm_patch: needs the binaries of patches/build.sh in BRAHMIC_SPM_BIN (else skips)",
    )
    config.addinivalue_line(
        "markers",
        f"corpora: reads the corpora (../shared/corpora or ${CORPORA_VARIABLE}); skips without "
        "them, fails under CI; in the full run only",
    )
    config.addinivalue_line("markers", "slow: in the full run only (pytest --full)")
    if config.getoption("--full"):
        PROFILE = "ci" if os.environ.get("CI") else "full"
    settings.load_profile(PROFILE)


def _left_for_the_full_run(config: pytest.Config) -> bool:
    """Whether the run leaves out slow and corpus-scale tests: the default run does; --full or
    a marker expression (``-m corpora``: the user chose) keeps them."""
    return not config.getoption("--full") and not config.option.markexpr


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The default run deselects the tests marked slow or corpora (said at the end)."""
    if not _left_for_the_full_run(config):
        return
    full_only = [
        i for i in items if i.get_closest_marker("slow") or i.get_closest_marker("corpora")
    ]
    if full_only:
        left = {id(item) for item in full_only}
        items[:] = [item for item in items if id(item) not in left]
        config.hook.pytest_deselected(items=full_only)
    _LEFT_OUT[0] = len(full_only)
    if hasattr(config, "workeroutput"):  # an xdist worker: the controller says it
        config.workeroutput["left_for_the_full_run"] = len(full_only)


#: How many tests this run left for the full run (under xdist, as the workers said).
_LEFT_OUT = [0]


@pytest.hookimpl(optionalhook=True)  # xdist's hook: unknown where xdist is not loaded
def pytest_testnodedown(node: Any, error: Any) -> None:
    """(xdist's controller) Every worker collects every test: each one's count is the run's."""
    left = getattr(node, "workeroutput", {}).get("left_for_the_full_run", 0)
    _LEFT_OUT[0] = max(_LEFT_OUT[0], left)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """One line saying what the default run left out, and how to run it."""
    deselected = _LEFT_OUT[0]
    if deselected and _left_for_the_full_run(config):
        terminalreporter.write_line(
            f"{deselected} slow or corpus-scale tests left for the full run: pytest --full"
        )


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test marked ``corpora`` skips (fails under CI) before its fixtures are set up."""
    if item.get_closest_marker("corpora") is not None:
        need_corpora()


def need_corpora() -> None:
    """Skip, with the one line that says how to get them, where the corpora are absent; fail
    instead under CI, which must not pass with the corpus-scale tests unrun. Every skip is
    raised here, so that ``-rs`` folds them into one line."""
    if HAVE_CORPORA:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but the corpora are missing: {NO_CORPORA}", pytrace=False)
    pytest.skip(NO_CORPORA, allow_module_level=True)


def installed(module: str) -> bool:
    """Whether the optional ``module`` can be imported: the one test of it, for a test that
    draws its cases from what is installed (:func:`require_extra` skips or fails instead)."""
    return importlib.util.find_spec(module) is not None


def require_extra(module: str, extra: str, untested: str) -> None:
    """Tests of an optional part: a visible skip (reason and a warning) where ``module`` is
    missing, a failure under CI, which installs every extra and must not pass untested."""
    if installed(module):
        return
    install = f"pip install -e '.[{extra}]'"
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {module} is not installed ({untested} untested): {install}")
    reason = f"{module} is not installed (optional extra: {install})"
    warnings.warn(f"{untested} not tested: {reason}", stacklevel=2)
    pytest.skip(reason, allow_module_level=True)  # in a test, or at a module's top


def through_fifo(path: Path, chunks: Iterable[bytes], read: Callable[[Path], T]) -> T:
    """``read(path)`` of a FIFO made at ``path`` that a thread fills with ``chunks``, as
    ``<(cat file)`` or an endless producer gives a path; the writer stops where the reader goes
    away. After: a writer no reader came for is let go (a FIFO's open waits for both ends), the
    thread joined and the FIFO removed."""
    os.mkfifo(path)

    def feed() -> None:
        try:
            with open(path, "wb", buffering=0) as sink:  # each chunk to the pipe as it comes
                for chunk in chunks:
                    sink.write(chunk)
        except BrokenPipeError:  # the reader stopped: what a bounded reader does
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        return read(path)
    finally:
        if writer.is_alive():
            with contextlib.suppress(OSError):
                os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        writer.join(timeout=30)
        path.unlink()


def default_sigint() -> None:
    """A child process's ``preexec_fn``: Ctrl-C as in a terminal. A shell starts a background
    job (``cmd &``, CI in the background) with SIGINT ignored; a child inherits that and Python
    keeps it, so a test that sends SIGINT would see the run go on and finish (exit 0)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def corpus_files() -> list[Path]:
    """The corpus files, for parametrizing a test marked ``corpora``: where the corpora are
    absent, the names they would have (the test skips before it reads one)."""
    if not HAVE_CORPORA:
        return [CORPORA / name for name in CORPUS_NAMES]
    return sorted(CORPORA.glob("*.txt"))


def read(name: str) -> str:
    """A corpus file (``te.train.txt``, ``ne.train.txt``...): for tests marked ``corpora``."""
    need_corpora()
    return (CORPORA / name).read_text(encoding="utf-8")


@cache
def _sample_text(language: str) -> str:
    return (SAMPLES / f"{language}.sample.txt").read_text(encoding="utf-8")


def sample(language: str) -> list[str]:
    """The lines of a shipped sample: ``"te"`` (1,142 lines of Telugu) or ``"hi"`` (665 of
    Hindi), a new list on each call."""
    return _sample_text(language).splitlines()


#: The last lines of each sample, which ``models`` does not train on.
HELD_OUT = 150


def sample_held_out(language: str) -> list[str]:
    """The last ``HELD_OUT`` lines of a sample: text the sample ``models`` never saw."""
    return sample(language)[-HELD_OUT:]


def sample_training(language: str) -> list[str]:
    """A sample without its held-out lines: what the sample ``models`` train on."""
    return sample(language)[:-HELD_OUT]


def with_words(lines: list[str], extra: str, share: float, seed: int) -> list[str]:
    """``lines`` with ``extra`` after about ``share`` of their words (seeded): literal ▁, or a
    vowel sign on a space (" ా"), in otherwise real text."""
    rng = random.Random(seed)
    return [
        " ".join(word + (extra if rng.random() < share else "") for word in line.split(" "))
        for line in lines
    ]


@pytest.fixture(scope="session")
def plain_hindi_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A plain spm model on Hindi (the sample's held-out lines aside), trained by stock
    sentencepiece: no brahmic_pua in it."""
    import sentencepiece

    prefix = tmp_path_factory.mktemp("plain") / "p"
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(sample_training("hi")),
        model_prefix=str(prefix),
        vocab_size=1000,
        minloglevel=2,
    )
    return f"{prefix}.model"


#: Any Private Use character, written out here (not taken from the code under test).
PRIVATE_USE = re.compile("[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]")
#: A cluster whose prefix (शृ) never stands alone in :func:`mixed_bpe_model`'s training text.
RARE = "शृं"


@pytest.fixture(scope="session")
def mixed_bpe_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A BPE model on Telugu, Hindi and Nepali text (held-out lines aside), with a cluster whose
    prefix never stands alone (:data:`RARE`): what a text-spelled model must rebuild."""
    from brahmic_pua.trainer import train_model

    prefix = tmp_path_factory.mktemp("mixed_bpe") / "mixed"
    lines = sample_training("te") + sample_training("hi") + NEPALI[:20] + [f"{RARE}खला"] * 30
    train_model(
        sentence_iterator=iter(lines), model_prefix=str(prefix), vocab_size=3000, model_type="bpe"
    )
    return Path(f"{prefix}.model")


def mixed_held_out() -> list[str]:
    """Text :func:`mixed_bpe_model` and the sample models did not train on (:data:`RARE` among
    it), and its NFD form."""
    lines = sample_held_out("te") + sample_held_out("hi") + NEPALI[20:] + [RARE, f"{RARE}ग"]
    return lines + [unicodedata.normalize("NFD", line) for line in lines]


@pytest.fixture(scope="session")
def grapheme_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The grapheme policy, on Telugu where a vowel sign sits on a space: one cluster " ా"."""
    from brahmic_pua.trainer import train_model

    lines = with_words(sample("te"), " ా", 0.1, 1)
    prefix = tmp_path_factory.mktemp("grapheme") / "g"
    train_model(
        sentence_iterator=iter(lines),
        model_prefix=str(prefix),
        vocab_size=1500,
        policy="grapheme",
    )
    return f"{prefix}.model"


@pytest.fixture(scope="session")
def te_train() -> str:
    """te.train.txt: for tests marked ``corpora``."""
    return read("te.train.txt")


#: Pieces of the sample models (the Telugu sample gives a Unigram model at most ~2,990).
SAMPLE_VOCAB = 2500
#: Pieces of the corpus models.
CORPUS_VOCAB = 8000


@pytest.fixture(scope="session")
def sample_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Unigram and BPE models on the Telugu sample, and a Unigram model on the Telugu and
    Hindi samples ("mixed"), all but the held-out lines, trained once for every test module."""
    from brahmic_pua.trainer import train_model

    work = tmp_path_factory.mktemp("models")
    out: dict[str, Path] = {}
    for model_type in ("unigram", "bpe"):
        prefix = work / f"te_{model_type}"
        train_model(
            sentence_iterator=iter(sample_training("te")),
            model_prefix=str(prefix),
            vocab_size=SAMPLE_VOCAB,
            model_type=model_type,
        )
        out[model_type] = Path(f"{prefix}.model")
    prefix = work / "mixed"
    lines = sample_training("te") + sample_training("hi")
    train_model(sentence_iterator=iter(lines), model_prefix=str(prefix), vocab_size=4000)
    out["mixed"] = Path(f"{prefix}.model")
    return out


@pytest.fixture(scope="session")
def no_unknown_models(
    sample_models: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    """The Unigram sample model with no unknown piece, as a hand-edited file has it: its
    ``<unk>`` made a normal piece ("retyped", ids unchanged) or removed ("removed", every id
    one lower). Stock loads both (byte fallback stands in for the unknown piece) with
    ``unk_id() == -1``."""
    from brahmic_pua.model.model_proto import model_pb2, parse_model

    work = tmp_path_factory.mktemp("no_unknown")
    unknown = model_pb2.ModelProto.SentencePiece.UNKNOWN
    out: dict[str, Path] = {}
    for name in ("retyped", "removed"):
        message = parse_model(sample_models["unigram"].read_bytes())
        (at,) = [i for i, piece in enumerate(message.pieces) if piece.type == unknown]
        if name == "retyped":
            message.pieces[at].type = model_pb2.ModelProto.SentencePiece.NORMAL
        else:
            del message.pieces[at]
        out[name] = work / f"{name}.model"
        out[name].write_bytes(message.SerializeToString())
    return out


@pytest.fixture(scope="session")
def corpus_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """8000-piece Unigram and BPE models on te.train, and one on Telugu + Devanagari text, for
    tests marked ``corpora``."""
    from brahmic_pua.trainer import train_model

    need_corpora()
    work = tmp_path_factory.mktemp("corpus_models")
    out: dict[str, Path] = {}
    for model_type in ("unigram", "bpe"):
        prefix = work / f"te_{model_type}"
        train_model(
            input=TE, model_prefix=str(prefix), vocab_size=CORPUS_VOCAB, model_type=model_type
        )
        out[model_type] = Path(f"{prefix}.model")
    mixed = read("te.train.txt").splitlines()[:6000] + read("ne.train.txt").splitlines()[:3000]
    mixed += read("hi.sample.txt").splitlines()[:3000]
    prefix = work / "mixed"
    train_model(sentence_iterator=iter(mixed), model_prefix=str(prefix), vocab_size=CORPUS_VOCAB)
    out["mixed"] = Path(f"{prefix}.model")
    return out


@pytest.fixture(scope="session")  # set up before any model is trained: a skip trains none
def hf() -> ModuleType:
    """brahmic_pua.hf; a visible skip without transformers, a failure under CI."""
    require_extra("transformers", "hf", "the Hugging Face tokenizer")
    import brahmic_pua.hf

    return brahmic_pua.hf


@pytest.fixture
def runner() -> CliRunner:
    """A click test runner for the ``brahmic-pua`` commands."""
    return CliRunner()


def only_thread() -> None:
    """For a test whose code forks: it forks only with no other thread in the process (forking
    beside one is unsafe), so a thread another test left behind (a pool's manager finishing) is
    given a few seconds to end, else the test is skipped, saying which threads run."""
    deadline = time.monotonic() + 10
    while threading.active_count() > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    if threading.active_count() > 1:
        names = ", ".join(thread.name for thread in threading.enumerate())
        pytest.skip(f"other threads run in this test process ({names}): it may not fork")


def child_states(pid: int) -> dict[int, str]:
    """The processes whose parent is ``pid``, with their state letter (``R``, ``S``, ``T``
    stopped, ``Z`` a zombie...), read from Linux's /proc."""
    found: dict[int, str] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, parent = stat.read_text().rsplit(")", 1)[1].split()[:2]
        except (OSError, IndexError):
            continue
        if int(parent) == pid:
            found[int(stat.parent.name)] = state
    return found


def ended_by(signum: int) -> Callable[..., Any]:
    """A stand-in for a count that ends its process by ``signum``, as the kernel (SIGKILL of
    the out-of-memory killer) or a user would: for a test of a worker that dies."""

    def count(*args: Any, **kwargs: Any) -> Any:
        os.kill(os.getpid(), signum)
        time.sleep(60)  # not reached: the signal ends the process
        raise AssertionError(f"signal {signum} did not end the process")

    return count
