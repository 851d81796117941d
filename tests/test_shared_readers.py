"""One rule per fact: each fact that several modules need is read by one function, and each
test here checks that every caller gets that function's answer (two copies disagreed before)."""

from __future__ import annotations

import io
import re
import tempfile
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from brahmic_pua.cli.common import input_lines, read_texts
from brahmic_pua.cli.filter_command import corpus_lines as filter_corpus
from brahmic_pua.cli.main import main
from brahmic_pua.io.lines import file_lines, stream_lines
from brahmic_pua.io.progress import Progress
from brahmic_pua.normalize.folding import read_table
from brahmic_pua.trainer.options import (
    build_options,
    check_model_prefix,
    parse_flag_args,
    parse_flag_string,
    read_bool,
)

SAMPLE = str(resources.files("brahmic_pua.data").joinpath("te.sample.txt"))
TRUE_WORDS = ("true", "TRUE", "True", " yes ", "1", "on", "y", "t")
FALSE_WORDS = ("false", "FALSE", "False", "no", "0", "off", "n", "f")


def _options(**given: object) -> object:
    return build_options(None, {"input": SAMPLE, "model_prefix": "out/te", **given}, False)


@pytest.mark.parametrize("word", TRUE_WORDS)
def test_true_words(word: str) -> None:
    assert read_bool("x", word) is True


@pytest.mark.parametrize("word", FALSE_WORDS)
def test_false_words(word: str) -> None:
    assert read_bool("x", word) is False


@given(st.text(max_size=8).filter(lambda w: w.strip().lower() not in TRUE_WORDS + FALSE_WORDS))
def test_anything_else_is_one_line_naming_the_option(word: str) -> None:
    words = {w.strip().lower() for w in TRUE_WORDS + FALSE_WORDS}
    if word.strip().lower() in words:
        return
    with pytest.raises(ValueError, match=r"^progress=.* is not true or false") as error:
        read_bool("progress", word)
    assert "\n" not in str(error.value).replace(repr(word), "")


@pytest.mark.parametrize("name", ["progress", "complete_word_starts", "byte_fallback"])
def test_every_boolean_option_reads_false_as_false(name: str) -> None:
    """``progress="false"`` was ``bool("false")``, so true."""
    options = _options(**{name: "false"})
    value = options.spm[name] if name == "byte_fallback" else getattr(options, name)  # type: ignore[attr-defined]
    assert value is False


@pytest.mark.parametrize("name", ["progress", "nepali_seeds", "complete_word_starts"])
def test_a_typo_is_an_error_for_every_boolean_option(name: str) -> None:
    """``nepali_seeds="ture"`` was silently false."""
    with pytest.raises(ValueError, match=f"^{name}='ture' is not true or false"):
        _options(**{name: "ture"})


def test_argv_and_string_forms_read_alike() -> None:
    argv = parse_flag_args(["--progress=false", "--vocab_size", "900", "--byte_fallback"])
    assert argv == {"progress": "false", "vocab_size": "900", "byte_fallback": "true"}
    string = parse_flag_string("--progress=false --vocab_size=900 --byte_fallback=true")
    assert string == argv
    with pytest.raises(ValueError, match="look like --name=value"):
        parse_flag_args(["stray"])
    with pytest.raises(ValueError, match="write options as --name=value"):
        parse_flag_string("--byte_fallback")


@pytest.mark.parametrize("flags", [["--progress=false"], ["--progress", "false"]])
def test_cli_train_takes_progress_false(tmp_path: Path, flags: list[str]) -> None:
    """It crashed: ``train_model() got multiple values for keyword argument 'progress'``."""
    prefix = tmp_path / "te"
    args = ["train", "--input", SAMPLE, "--model_prefix", str(prefix), "--vocab_size", "700"]
    result = CliRunner().invoke(main, [*args, *flags])
    assert result.exit_code == 0, result.output
    assert prefix.with_suffix(".model").stat().st_size > 0
    assert "Counting" not in result.output and "%" not in result.output


@pytest.mark.parametrize("prefix", ["", "  ", "out/", "out\\", "out/.", "out/..", "."])
def test_model_prefix_one_rule(prefix: str) -> None:
    """The library accepted "out/." and ".", which the CLI refused."""
    with pytest.raises(ValueError, match="names no file"):
        check_model_prefix(prefix)
    with pytest.raises(ValueError, match="names no file"):
        _options(model_prefix=prefix)


def test_cli_model_prefix_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["train", "--input", SAMPLE, "--model_prefix", "out/."])
    assert result.exit_code == 2
    assert "names no file" in result.output


# -- one line reader --------------------------------------------------------------------------

NASTY = st.sampled_from(
    ["a", "క్ర", " ", "\r", "\u2028", "\u2029", "\x85", "\x0c", "\ufeff", "\u200d", "\ue000", "\t"]
)
LINES = st.lists(st.lists(NASTY, max_size=6).map("".join), max_size=8)


def _oracle(data: str) -> list[str]:
    """The documented rule, written out independently: a line ends at LF only; trailing CRs
    go; a BOM at the very start goes (a BOM alone is an empty line); blank lines stay."""
    found = re.findall(r"([^\n]*)\n|([^\n]+)\Z", data)
    lines = [ended or last for ended, last in found]
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    return [line.rstrip("\r") for line in lines]


@settings(max_examples=examples(300), deadline=None)
@given(LINES, st.booleans())
def test_every_reader_cuts_lines_by_the_one_rule(lines: list[str], final_newline: bool) -> None:
    data = "\n".join(lines) + ("\n" if final_newline and lines else "")
    expected = _oracle(data)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "corpus.txt")
        path.write_bytes(data.encode("utf-8"))
        assert list(file_lines(path)) == expected
        assert list(stream_lines(io.BytesIO(data.encode("utf-8")))) == expected
        assert list(input_lines(io.BytesIO(data.encode("utf-8")))) == expected
        assert list(filter_corpus((str(path),))) == expected
        blank = [line for line in expected if line.strip()]
        assert (read_texts((str(path),)) if blank else []) == blank
        assert list(file_lines(path, skip_blank=True)) == blank


def test_the_cli_filters_read_by_the_rule_too() -> None:
    """A BOM and the "\\r" of CRLF were kept as text by the line filters (segment, normalize,
    encode, ...), where train and encode-corpus dropped them; U+2028 still ends no line."""
    data = "\ufeffa\r\nb\u2028c\n"
    result = CliRunner().invoke(main, ["segment", "--separator", " "], input=data)
    assert result.stdout_bytes.decode() == "a\nb \u2028 c\n"


def test_folding_table_reads_crlf_bom_and_keeps_u2028(tmp_path: Path) -> None:
    """Text mode split "\\r" lines and kept the BOM inside the first pattern."""
    table = tmp_path / "fold.tsv"
    table.write_bytes("\ufeff# comment\r\nसँग\tसंग\tlm\r\n".encode())
    assert read_table(str(table), "lm").rules == (("सँग", "संग"),)


def test_a_bad_byte_names_the_line_and_offset(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(b"ok\nfine\n\xffbad\n")
    with pytest.raises(ValueError, match=r"bad.txt is not UTF-8 at line 3 \(byte offset 8"):
        list(file_lines(path))
    with pytest.raises(ValueError, match=r"stdin is not UTF-8 at line 3 \(byte offset 8"):
        list(stream_lines(io.BytesIO(path.read_bytes())))


# -- one progress display ---------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_in_a_log_has_no_carriage_returns() -> None:
    log = io.StringIO()
    shown = Progress(True, "scanning corpus", 100, file=log)
    for done in range(0, 101, 10):
        shown.update(done, f"{done} MB")
    shown.finish("100 MB, 7 lines")
    assert log.getvalue() == "scanning corpus\nscanning corpus: 100 MB, 7 lines\n"


def test_progress_on_a_terminal_ends_full() -> None:
    """A bar drawn from its last (throttled) update could end at 29 of 30 marks at 100%."""
    screen = _Terminal()
    shown = Progress(True, "scanning corpus", 1000, file=screen)
    shown.update(999, "almost")
    shown.finish("all")
    last = screen.getvalue().rstrip("\n").split("\r")[-1]
    assert "#" * 30 in last and "100%" in last and "all" in last
    assert screen.getvalue().endswith("\n")


def test_progress_without_a_total_and_disabled() -> None:
    screen = _Terminal()
    shown = Progress(True, "counting lines", None, file=screen)
    shown.update(5, "5 lines")
    shown.finish("9 lines")
    assert "%" not in screen.getvalue() and "9 lines" in screen.getvalue()
    quiet = io.StringIO()
    off = Progress(False, "scanning corpus", 10, file=quiet)
    off.note("resuming")
    off.update(5, "x")
    off.finish("y")
    assert quiet.getvalue() == ""
