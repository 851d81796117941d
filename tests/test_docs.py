"""Every example in README.md and docs/ runs and prints what the page shows.

The conventions are written for contributors in docs/contributing.md:

* A ```python block runs; the blocks of one page share one namespace and run in page order. A
  block of ``>>>`` lines is a doctest (ELLIPSIS and NORMALIZE_WHITESPACE on): its output is
  compared. Any other ```python block runs as a script and must not raise.
* A ```console block runs each ``$ command`` in bash (a line ending in ``\\`` continues it on
  the next, which may start with the prompt ``> ``); the lines after a command, up to the next
  ``$``, are its output (stdout and stderr, as a terminal shows them), compared as a doctest
  compares, where the page shows any. A command must exit 0.
* Other blocks (text, bash, toml, …) are not run; a ```bash or ```sh block may call
  ``brahmic-pua`` only under a ``skip`` mark that says why (an example of the CLI is a
  ```console block, so it runs).
* ``<!-- needs: corpora -->`` (also ``ray``, ``torch``, ``hf``, ``compare``, ``arrow``,
  ``spm-patch``, or several, comma-separated) before a block: the block is skipped, saying why,
  where that is missing (a missing extra fails under CI, as in conftest.require_extra).
  ``<!-- skip: REASON -->``: never run, REASON reported.
* Each page runs in a fresh folder laid out like a checkout (brahmic_pua/, examples/, bench/, …
  linked to this one; ../shared beside it) that also holds te.model and te.vocab, made once per
  session by the README's training command (TE_MODEL).

Also checked here: the docstring examples of the public objects (``brahmic_pua.__all__``), and
that the pages hold no reference a reader cannot follow and no line over 100 characters.
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPORA, require_extra, slow

import brahmic_pua

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted([REPO / "README.md", *(REPO / "docs").rglob("*.md")])
# The README's own command for the model that every page's examples may use.
TE_MODEL = (
    "brahmic-pua train --input brahmic_pua/data/te.sample.txt --model_prefix te --vocab_size 2000"
)
LINKED = ("brahmic_pua", "examples", "bench", "patches", "tools", "pyproject.toml")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
RUN = ("python", "console")
# extra name -> (module, pip extra) for the needs: marker
EXTRAS = {
    "ray": ("ray", "distributed"),
    "torch": ("torch", "experiment"),
    "hf": ("transformers", "hf"),
    "compare": ("bpe_openai", "compare"),
    "arrow": ("pyarrow", "arrow"),
}
END = "\x1e"  # printed after each console command, with its exit status


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    needs: tuple[str, ...]
    skip: str | None

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


_FENCE = re.compile(r"^(\s*)(```+)\s*([\w-]*)")
_MARK = re.compile(r"<!--\s*(needs|skip):\s*(.*?)\s*-->")


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of a page, with the needs/skip marks of the lines just before each."""
    lines = page.read_text(encoding="utf-8").split("\n")
    found: list[Block] = []
    at = 0
    while at < len(lines):
        fence = _FENCE.match(lines[at])
        if not fence:
            at += 1
            continue
        indent, ticks, lang = fence.groups()
        end = at + 1
        while end < len(lines) and not lines[end].strip().startswith(ticks):
            end += 1
        body = [
            line[len(indent) :] if line.startswith(indent) else line for line in lines[at + 1 : end]
        ]
        needs: list[str] = []
        skip = None
        back = at - 1
        while back >= 0:  # the comments just above the fence (blank lines between allowed)
            if not lines[back].strip():
                back -= 1
                continue
            if not lines[back].rstrip().endswith("-->"):
                break
            start = back
            while start > 0 and "<!--" not in lines[start]:
                start -= 1
            comment = " ".join(line.strip() for line in lines[start : back + 1])
            for kind, value in _MARK.findall(comment):
                if kind == "skip":
                    skip = value
                else:
                    needs += [need.strip() for need in value.split(",") if need.strip()]
            back = start - 1
        found.append(Block(page, at + 1, lang, "\n".join(body) + "\n", tuple(needs), skip))
        at = end + 1
    return found


ALL = [block for page in PAGES for block in blocks(page)]
RUNNABLE = [block for block in ALL if block.lang in RUN]


# -- the run of one page ---------------------------------------------------------------------


@dataclass
class PageRun:
    folder: Path
    globs: dict[str, Any] = field(default_factory=dict)
    done: int = 0  # blocks of RUNNABLE on this page run (or skipped) so far
    failed: str | None = None


@pytest.fixture(scope="session")
def te_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """te.model and te.vocab, made by the README's command, once."""
    folder = tmp_path_factory.mktemp("te_model") / "checkout"
    _lay_out(folder)
    _bash(TE_MODEL, folder)
    return folder


@pytest.fixture(scope="session")
def page_runs() -> dict[Path, PageRun]:
    return {}


def _lay_out(folder: Path) -> None:
    """A folder that reads like a checkout beside shared/, where examples write their files."""
    folder.mkdir(parents=True)
    for name in LINKED:
        (folder / name).symlink_to(REPO / name)
    shared = folder.parent / "shared"
    if not shared.exists():
        shared.symlink_to(CORPORA.parent)


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONUNBUFFERED"] = "1"  # stdout and stderr interleave as in a terminal
    env["COLUMNS"] = "100"
    return env


def _bash(script: str, folder: Path) -> str:
    done = subprocess.run(
        ["bash", "-c", f"set -eo pipefail\n{script}"],
        cwd=folder,
        env=_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
    )
    if done.returncode:
        pytest.fail(f"exit {done.returncode}: {script}\n{done.stdout}")
    return done.stdout


def _missing(block: Block) -> str | None:
    """Why the block cannot run here, or None."""
    if block.skip is not None:
        return block.skip
    for need in block.needs:
        if need == "corpora":
            if not (CORPORA / "ne.train.txt").exists():
                return f"needs the corpora in {CORPORA}"
        elif need == "spm-patch":
            if not os.environ.get("BRAHMIC_SPM_BIN"):
                return "needs the patched spm of patches/build.sh in BRAHMIC_SPM_BIN"
        elif need in EXTRAS:
            module, extra = EXTRAS[need]
            require_extra(module, extra, f"the example at {block.name}")
        else:
            raise AssertionError(f"{block.name}: unknown need {need!r}")
    return None


# -- running blocks --------------------------------------------------------------------------


def run_python(block: Block, run: PageRun, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(run.folder)
    if ">>>" not in block.text:
        exec(compile(block.text, block.name, "exec"), run.globs)
        return
    test = doctest.DocTestParser().get_doctest(block.text, run.globs, block.name, None, 0)
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, out=report.append, clear_globs=False)
    if runner.failures:
        pytest.fail("".join(report), pytrace=False)


@dataclass(frozen=True)
class Command:
    text: str
    want: str


def commands(block: Block) -> list[Command]:
    """The ``$`` commands of a console block and the output shown after each."""
    found: list[Command] = []
    lines = block.text.rstrip("\n").split("\n")
    at = 0
    while at < len(lines):
        if not lines[at].startswith("$ "):
            raise AssertionError(f"{block.name}: output before the first '$ ' command")
        command = [lines[at][2:]]
        while command[-1].endswith("\\") and at + 1 < len(lines):
            at += 1
            command.append(lines[at].removeprefix("> "))  # the shell's continuation prompt
        at += 1
        want: list[str] = []
        while at < len(lines) and not lines[at].startswith("$ "):
            want.append(lines[at])
            at += 1
        found.append(Command("\n".join(command), "\n".join(want).strip("\n")))
    return found


def run_console(block: Block, run: PageRun) -> None:
    shown = commands(block)
    script = "".join(
        f"{c.text}\n__rc=$?; printf '{END}%d\\n' $__rc; [ $__rc -eq 0 ] || exit $__rc\n"
        for c in shown
    )
    done = subprocess.run(
        ["bash", "-c", f"set -o pipefail\n{script}"],
        cwd=run.folder,
        env=_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
    )
    outputs = done.stdout.split(END)
    checker = doctest.OutputChecker()
    for at, command in enumerate(shown):
        if at + 1 >= len(outputs):
            pytest.fail(
                f"$ {command.text}\nexited {done.returncode}:\n{outputs[-1]}", pytrace=False
            )
        got = outputs[at]
        if at:  # drop the status line printed after the previous command
            got = got.split("\n", 1)[1] if "\n" in got else ""
        status = outputs[at + 1].split("\n", 1)[0]
        if status != "0":
            pytest.fail(f"$ {command.text}\nexited {status}:\n{got}", pytrace=False)
        if command.want and not checker.check_output(command.want + "\n", got, FLAGS):
            pytest.fail(
                f"$ {command.text}\n--- shown\n{command.want}\n--- printed\n{got}", pytrace=False
            )


def _run_block(block: Block, run: PageRun, monkeypatch: pytest.MonkeyPatch) -> None:
    if block.lang == "python":
        run_python(block, run, monkeypatch)
    else:
        run_console(block, run)


@slow  # each page's examples run in a copy of the checkout, training models
@pytest.mark.parametrize("block", RUNNABLE, ids=lambda b: b.name)
def test_example(
    block: Block,
    page_runs: dict[Path, PageRun],
    te_model: Path,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The block runs and prints what the page shows, after the page's earlier blocks."""
    run = page_runs.get(block.page)
    if run is None:
        folder = tmp_path_factory.mktemp(block.page.stem) / "checkout"
        _lay_out(folder)
        for made in ("te.model", "te.vocab"):
            shutil.copy(te_model / made, folder / made)
        run = page_runs[block.page] = PageRun(folder)
    mine = [b for b in RUNNABLE if b.page == block.page]
    index = mine.index(block)
    while run.done <= index:  # the earlier blocks first, as a reader runs them
        current = mine[run.done]
        run.done += 1
        if run.failed is not None:
            pytest.skip(f"an earlier example of this page failed ({run.failed})")
        reason = _missing(current)
        if reason is not None:
            if current is block:
                pytest.skip(reason)
            continue
        try:
            _run_block(current, run, monkeypatch)
        except BaseException:
            run.failed = current.name
            raise


# -- what the pages may contain --------------------------------------------------------------


def test_cli_examples_are_console_blocks() -> None:
    """An example of the CLI in a block that is not run would go stale unnoticed: it is a
    ```console block, or it says why it is not run (install steps, say)."""
    for block in ALL:
        if block.lang in ("bash", "sh", "shell", "") and block.skip is None:
            assert "brahmic-pua " not in block.text, f"{block.name}: make it a ```console block"


def test_console_blocks_parse() -> None:
    for block in ALL:
        if block.lang == "console":
            assert commands(block), block.name


_UNFOLLOWABLE = re.compile(r"issue\s*#?\d|(?<![\w&/])#\d+\b|\bseed \d{3}\b|NepBPE v\d", re.I)


def _prose(page: Path) -> Iterator[tuple[int, str, bool]]:
    """(line number, line, inside a code block) for every line of a page."""
    inside = False
    for number, line in enumerate(page.read_text(encoding="utf-8").split("\n"), 1):
        fence = line.strip().startswith("```")
        yield number, line, inside or fence
        if fence:
            inside = not inside


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_references_a_reader_can_follow(page: Path) -> None:
    """No issue numbers or private design documents by number: a reader has neither."""
    bad = [f"{n}: {line}" for n, line, code in _prose(page) if _UNFOLLOWABLE.search(line)]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_lines_fit(page: Path) -> None:
    """Lines of at most 100 characters, tables and links aside."""
    long = [
        f"{n}: {line}"
        for n, line, _ in _prose(page)
        if len(line) > 100 and not line.lstrip().startswith("|") and "](" not in line
    ]
    assert not long, "\n".join(long)


def test_the_readme_reads_at_one_sitting() -> None:
    """At most 200 lines: what goes past that belongs on a page of docs/ it links to."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 200, f"README.md has {lines} lines: move detail to docs/"


def test_readme_links_resolve() -> None:
    """The README is read on its own (the repository page): its relative links must exist."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" not in target:
            assert (REPO / target).exists(), target


def test_readme_makes_the_shared_model() -> None:
    """The model every page may use is the one the README's command makes."""
    assert TE_MODEL in (REPO / "README.md").read_text(encoding="utf-8")


# -- docstring examples of the public objects ------------------------------------------------

# Public names with no docstring example: sentencepiece's own functions and ThreadPool keep
# sentencepiece's docstrings; the constants and errors have no docstring of their own.
WITHOUT_EXAMPLE = {
    "CodecFileError",
    "ModelFileError",
    "POLICIES",
    "SCRIPT_NAMES",
    "SetDataDir",
    "SetMinLogLevel",
    "SetNBestTimeout",
    "SetRandomGeneratorSeed",
    "ThreadPool",
    "set_data_dir",
    "set_min_log_level",
    "set_nbest_timeout",
    "set_random_generator_seed",
}


def _docstring_tests() -> list[tuple[str, doctest.DocTest]]:
    finder = doctest.DocTestFinder(recurse=False)
    found = []
    for name in brahmic_pua.__all__:
        obj = getattr(brahmic_pua, name)
        for test in finder.find(obj, f"brahmic_pua.{name}", globs={"brahmic_pua": brahmic_pua}):
            if test.examples:
                found.append((name, test))
    return found


DOCSTRING_TESTS = _docstring_tests()


@slow  # the examples train models
@pytest.mark.parametrize("test", [t for _, t in DOCSTRING_TESTS], ids=lambda t: t.name)
def test_docstring_example(test: doctest.DocTest) -> None:
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, out=report.append)
    assert not runner.failures, "".join(report)


def test_public_names_with_examples() -> None:
    """Which public names carry a docstring example is a choice, written down above."""
    covered = {name for name, _ in DOCSTRING_TESTS}
    assert set(brahmic_pua.__all__) - covered == WITHOUT_EXAMPLE


def test_needs_are_known() -> None:
    """A misspelt need would otherwise only show when its block runs."""
    for block in ALL:
        for need in block.needs:
            assert need in (*EXTRAS, "corpora", "spm-patch"), f"{block.name}: {need}"
