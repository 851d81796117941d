"""patches/: the SentencePiece patch's header, and the patched spm_train on real text.

The header tests always run: the checked-in header must be what brahmic_pua's classes generate
now, and it must mean General_Category M plus ZWJ/ZWNJ. The ``spm_patch`` tests need the binaries
of ``patches/build.sh DIR`` (a minute or two with cmake and g++) and skip, saying so, without them:

    patches/build.sh /tmp/spm
    BRAHMIC_SPM_BIN=/tmp/spm/bin pytest -m spm_patch tests/evaluation/test_patch_table.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sentencepiece as spm
from click.testing import CliRunner
from conftest import TE_SAMPLE, corpora, read

from brahmic_pua.cli.main import main
from brahmic_pua.evaluation.metrics import (
    byte_fallback_per_1000,
    fertility,
    orphan_marks_per_1000,
    round_trip_rate,
)
from brahmic_pua.evaluation.patch_table import (
    HEADER_NAME,
    dependent_ranges,
    header_is_current,
    mark_start_pieces,
    render_header,
)

PATCHES = Path(__file__).resolve().parents[2] / "patches"
HEADER = PATCHES / HEADER_NAME
BIN_ENV = "BRAHMIC_SPM_BIN"
SWITCH = "--dependents_via_byte_fallback"


DEPENDENT = frozenset(cp for a, b, _ in dependent_ranges() for cp in range(a, b + 1))


def _dependent(cp: int) -> bool:
    return cp in DEPENDENT


def test_header_is_current() -> None:
    """The checked-in header is exactly what the character classes generate now."""
    assert header_is_current(HEADER), (
        f"{HEADER} drifted from brahmic_pua's character classes; regenerate it with "
        f"`brahmic-pua patch-table --output patches/{HEADER_NAME}` and commit it"
    )


def test_header_is_marks_and_joiners() -> None:
    """Dependent = General_Category Mn/Mc/Me, ZWJ and ZWNJ, on every code point Python's own
    Unicode data assigns (the tables are newer; newer characters are checked by the tables)."""
    wrong = []
    for cp in range(0x110000):
        category = unicodedata.category(chr(cp))
        if category in ("Cn", "Cs"):
            continue
        expected = category in ("Mn", "Mc", "Me") or cp in (0x200C, 0x200D)
        if _dependent(cp) != expected:
            wrong.append(f"U+{cp:04X} {category}")
    assert not wrong, wrong[:20]
    # the paper's hard-coded ranges missed these Telugu signs: ఀ ఁ ం ః ఄ ఼ ౢ ౣ
    assert all(_dependent(cp) for cp in (0x0C00, 0x0C01, 0x0C02, 0x0C03, 0x0C04, 0x0C3C, 0x0C62))


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_header_compiles_and_agrees(tmp_path: Path) -> None:
    """The C++ predicate answers as Python does at every range edge and its neighbours."""
    points = sorted({cp for a, b, _ in dependent_ranges() for cp in (a - 1, a, b, b + 1)})
    source = tmp_path / "check.cc"
    source.write_text(
        f'#include <cstdio>\n#include "{HEADER}"\n'
        'int main() { unsigned c; while (std::scanf("%x", &c) == 1)\n'
        '  std::printf("%d", sentencepiece::brahmic::IsDependent(c) ? 1 : 0); }\n'
    )
    binary = tmp_path / "check"
    subprocess.run(["g++", "-std=c++17", "-O1", str(source), "-o", str(binary)], check=True)
    done = subprocess.run(
        [str(binary)],
        input=" ".join(f"{cp:x}" for cp in points),
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == "".join("1" if _dependent(cp) else "0" for cp in points)


def test_patch_table_command(tmp_path: Path) -> None:
    """--check passes on the checked-in header and fails in one line on a stale copy."""
    runner = CliRunner()
    assert runner.invoke(main, ["patch-table", "--check", str(HEADER)]).exit_code == 0
    stale = tmp_path / HEADER_NAME
    stale.write_text(render_header().replace("0x0C3C", "0x0C3D"), encoding="utf-8")
    result = runner.invoke(main, ["patch-table", "--check", str(stale)])
    assert result.exit_code == 1
    assert "out of date" in result.output and len(result.output.strip().splitlines()) == 1
    written = tmp_path / "out.h"
    assert runner.invoke(main, ["patch-table", "--output", str(written)]).exit_code == 0
    assert written.read_text(encoding="utf-8") == render_header()


def test_patch_and_build_script_are_whole() -> None:
    """The patch is one unified diff over the sdist's files, and build.sh parses."""
    patch = (PATCHES / "sentencepiece-0.2.1-brahmic.patch").read_text(encoding="utf-8")
    touched = {
        line.split()[1].split("/", 1)[1] for line in patch.splitlines() if line[:4] == "+++ "
    }
    assert touched == {
        f"sentencepiece/src/{name}"
        for name in (
            "bpe_model_trainer.cc",
            "spm_train_main.cc",
            "trainer_interface.cc",
            "trainer_interface.h",
            "unigram_model_trainer.cc",
        )
    }
    assert f'#include "{HEADER_NAME}"' in patch
    build = PATCHES / "build.sh"
    assert os.access(build, os.X_OK)
    subprocess.run(["bash", "-n", str(build)], check=True)


# ---- the built binaries ---------------------------------------------------------------------


def _bin_dir() -> Path:
    value = os.environ.get(BIN_ENV)
    if not value:
        pytest.skip(
            f"{BIN_ENV} is not set: build with `patches/build.sh /tmp/spm` and run "
            f"`{BIN_ENV}=/tmp/spm/bin pytest -m spm_patch tests/evaluation/test_patch_table.py`"
        )
    path = Path(value)
    if not (path / "spm_train").is_file():
        pytest.fail(f"{BIN_ENV}={value} has no spm_train; run patches/build.sh DIR first")
    return path


#: Raw text of two scripts; every 20th line held out. Enough lines for > 100 mark-start pieces
#: in stock spm, few enough to train 12 models in a few minutes.
LANGUAGES = {"telugu": ("te.train.txt", 12000), "devanagari": ("hi.sample.txt", 6000)}
MODEL_TYPES = ("unigram", "bpe")
OPTIONS: dict[str, Any] = {
    "vocab_size": 8000,
    "byte_fallback": True,
    "split_digits": True,
    "remove_extra_whitespaces": False,
    "normalization_rule_name": "identity",
    "num_threads": 1,
    "minloglevel": 2,
}


@dataclass
class Trained:
    """One model and its numbers on the held-out lines, through stock sentencepiece."""

    language: str
    model_type: str
    trainer: str
    path: Path
    multi: int
    single: int
    orphans: float
    byte_fallback: float
    fertility: float
    round_trip: float


def _spm_train(bin_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(bin_dir / "spm_train"), *args], capture_output=True, text=True, check=False
    )


def _flags(options: dict[str, Any]) -> list[str]:
    return [f"--{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in options.items()]


def _measure(language: str, model_type: str, trainer: str, path: Path, held: list[str]) -> Trained:
    """Load in the pip sentencepiece (stock) and measure: every model must load there."""
    processor = spm.SentencePieceProcessor(model_file=str(path))
    rows = processor.encode(held)
    multi, single = mark_start_pieces(processor)
    return Trained(
        language,
        model_type,
        trainer,
        path,
        multi,
        single,
        orphan_marks_per_1000(rows, processor),
        byte_fallback_per_1000(rows, processor),
        fertility(rows, held),
        round_trip_rate(held, processor.decode(rows)),
    )


@pytest.fixture(scope="module")
def trained(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[list[Trained]]:
    """Stock (the pip package), patched, and patched with the switch, for both scripts and
    both model types; the table is printed at the end of the module, whatever the outcome."""
    bin_dir = _bin_dir()
    work = tmp_path_factory.mktemp("spm_patch")
    results: list[Trained] = []
    for language, (name, count) in LANGUAGES.items():
        lines = read(name).split("\n")[:count]
        held = [line for i, line in enumerate(lines) if i % 20 == 0 and line.strip()]
        train = work / f"{language}.txt"
        train.write_text("\n".join(line for i, line in enumerate(lines) if i % 20) + "\n")
        for model_type in MODEL_TYPES:
            options = {**OPTIONS, "model_type": model_type}
            prefix = work / f"{language}_{model_type}"
            spm.SentencePieceTrainer.train(
                input=str(train), model_prefix=f"{prefix}_stock", **options
            )
            for trainer, extra in (("patched", []), ("patched+switch", [SWITCH])):
                out = f"{prefix}_{trainer.replace('+', '_')}"
                args = [f"--input={train}", f"--model_prefix={out}", *_flags(options), *extra]
                done = _spm_train(bin_dir, *args)
                assert done.returncode == 0, done.stderr[-2000:]
            for trainer in ("stock", "patched", "patched+switch"):
                path = Path(f"{prefix}_{trainer.replace('+', '_')}.model")
                results.append(_measure(language, model_type, trainer, path, held))
    yield results
    _report(request, results)


def _report(request: pytest.FixtureRequest, results: list[Trained]) -> None:
    """Print the measured table even under output capture (the issue asks for the numbers)."""
    lines = [
        f"\npatched vs stock spm_train (stock = sentencepiece {spm.__version__}; all loaded "
        "there); held-out lines:",
        f"{'script':11}{'model':9}{'trainer':16}{'multi':>7}{'single':>8}{'orphans/1000':>14}"
        f"{'bytes/1000':>12}{'fertility':>11}{'round trip':>12}",
        *(
            f"{r.language:11}{r.model_type:9}{r.trainer:16}{r.multi:7}{r.single:8}"
            f"{r.orphans:14.1f}{r.byte_fallback:12.1f}{r.fertility:11.3f}{r.round_trip:12.4f}"
            for r in results
        ),
    ]
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None:
        print("\n".join(lines))
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line("\n".join(lines))


def _pick(results: list[Trained], trainer: str) -> list[Trained]:
    return [r for r in results if r.trainer == trainer]


@corpora
@pytest.mark.spm_patch
def test_patch_removes_every_multi_character_mark_start_piece(trained: list[Trained]) -> None:
    """Stock spm learns > 100 pieces such as ంగా and ాలు in each script; patched spm none."""
    for stock, patched in zip(_pick(trained, "stock"), _pick(trained, "patched"), strict=True):
        assert stock.multi > 100, stock
        assert patched.multi == 0, patched
        # The patch alone leaves the single marks, so orphan marks remain at encode time.
        assert patched.single > 0 and patched.orphans > 0, patched


@corpora
@pytest.mark.spm_patch
def test_switch_leaves_no_mark_start_piece_and_no_orphan(trained: list[Trained]) -> None:
    """--dependents_via_byte_fallback: no mark-start piece at all, so 0 orphan marks, and byte
    fallback keeps decoding exact."""
    for r in _pick(trained, "patched+switch"):
        assert (r.multi, r.single, r.orphans) == (0, 0, 0.0), r


@corpora
@pytest.mark.spm_patch
def test_every_model_loads_and_round_trips_in_stock_sentencepiece(trained: list[Trained]) -> None:
    """Patched models are plain models: stock sentencepiece loads them and decodes exactly."""
    assert len(trained) == len(LANGUAGES) * len(MODEL_TYPES) * 3
    for r in trained:
        assert r.round_trip == 1.0, r


@pytest.mark.spm_patch
def test_switch_refuses_without_byte_fallback(tmp_path: Path) -> None:
    """Without byte fallback a lone mark would become <unk>: one line, exit 1, no model."""
    bin_dir = _bin_dir()
    corpus = tmp_path / "c.txt"
    corpus.write_text("తెలుగు\n", encoding="utf-8")
    done = _spm_train(bin_dir, f"--input={corpus}", f"--model_prefix={tmp_path}/m", SWITCH)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "spm_train: --dependents_via_byte_fallback needs --byte_fallback "
        "(a lone mark would become <unk>)"
    )
    assert not (tmp_path / "m.model").exists()


@pytest.mark.spm_patch
def test_default_normalizer_is_built_in(tmp_path: Path) -> None:
    """The SPM_DISABLE_EMBEDDED_DATA pitfall: with it ON, nmt_nfkc (the default) is missing."""
    bin_dir = _bin_dir()
    done = _spm_train(
        bin_dir,
        f"--input={TE_SAMPLE}",
        f"--model_prefix={tmp_path}/m",
        "--vocab_size=1000",
        "--minloglevel=2",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    model = spm.SentencePieceProcessor(model_file=f"{tmp_path}/m.model")
    assert model.encode("తెలుగు")
