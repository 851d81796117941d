"""The processor's names from one table (brahmic_pua.runtime.spellings), and the stub that types
them (tools/processor_stub.py writes brahmic_pua/runtime/processor.pyi).

The oracle for the names is stock sentencepiece 0.2.3's wrapper: each name it has takes its
parameters, and on a plain model (passed to stock unchanged) gives what stock's gives.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import sentencepiece as stock

import brahmic_pua as spm
from brahmic_pua.runtime import spellings
from brahmic_pua.runtime.signatures import OutType

TOOL = Path(__file__).resolve().parents[2] / "tools" / "processor_stub.py"
HINDI = ["नमस्ते दुनिया", "किताबें पढ़ना अच्छा है"]


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("processor_stub", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _every_name() -> list[str]:
    return [name for row in spellings.SPELLINGS for name in spellings.names(*row)]


def test_the_stub_is_what_the_tool_writes(tool: ModuleType) -> None:
    assert tool.is_current(), "run python tools/processor_stub.py"


def test_the_check_fails_on_a_stale_stub(tool: ModuleType, tmp_path: Path) -> None:
    stale = tmp_path / "processor.pyi"
    text = tool.TARGET.read_text("utf-8")
    stale.write_text(text.replace("    EncodeAsIds = encode_as_ids\n", ""), "utf-8")
    assert stale.read_text("utf-8") != text
    assert not tool.is_current(stale)


def test_the_check_reads_declarations_not_formatting(tool: ModuleType, tmp_path: Path) -> None:
    """Another formatter's layout (another ruff release: line length, quotes, import order,
    a docstring's indentation) is still current; a changed type, a missing import is not."""
    text = tool.TARGET.read_text("utf-8")
    imports = [line for line in text.splitlines() if re.fullmatch(r"from [\w.]+ import \w+", line)]
    assert len(imports) >= 2
    layout = tmp_path / "layout.pyi"
    layout.write_text(text, "utf-8")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "format",
            "--line-length",
            "72",
            "--config",
            "format.quote-style='single'",
            "--isolated",
            str(layout),
        ],
        check=True,
        capture_output=True,
    )
    relaid = layout.read_text("utf-8")
    relaid = relaid.replace(imports[0] + "\n", "").replace(
        imports[1], imports[1] + "\n" + imports[0]
    )
    relaid = relaid.replace('"""The types of', '"""\n    The types of', 1)
    layout.write_text(relaid, "utf-8")
    assert relaid != text
    assert tool.is_current(layout)
    retyped = tmp_path / "retyped.pyi"
    retyped.write_text(text.replace("-> list[int]:", "-> list[str]:", 1), "utf-8")
    assert not tool.is_current(retyped)
    unimported = tmp_path / "unimported.pyi"
    unimported.write_text(text.replace(imports[-1] + "\n", "", 1), "utf-8")
    assert not tool.is_current(unimported)


def test_every_name_is_on_the_processor_once() -> None:
    names = _every_name()
    assert len(names) == len(set(names))
    for name in names:
        assert callable(getattr(spm.SentencePieceProcessor, name)), name


@pytest.mark.parametrize(
    "name", [n for n in _every_name() if hasattr(stock.SentencePieceProcessor, n)]
)
def test_each_name_takes_stocks_parameters(name: str) -> None:
    """Stock's parameters, in its order, of its kinds and with its defaults (the name of
    ``**kwargs`` aside); ours may add keywords after them, each with a default."""
    ours = list(inspect.signature(getattr(spm.SentencePieceProcessor, name)).parameters.values())
    theirs = list(
        inspect.signature(getattr(stock.SentencePieceProcessor, name)).parameters.values()
    )
    mine = [p for p in ours if p.kind is not p.VAR_KEYWORD]
    for n, parameter in enumerate(p for p in theirs if p.kind is not p.VAR_KEYWORD):
        assert (mine[n].name, mine[n].kind, mine[n].default) == (
            parameter.name,
            parameter.kind,
            parameter.default,
        ), name
    assert all(p.default is not p.empty for p in mine[len(theirs) :]), name
    if any(p.kind is p.VAR_KEYWORD for p in theirs):
        assert ours[-1].kind is inspect.Parameter.VAR_KEYWORD, name


def _comparable(value: object) -> object:
    """A result as data: protos serialized, arrays as lists, lists item by item."""
    if hasattr(value, "SerializeToString"):
        return value.SerializeToString()
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, list):
        return [_comparable(item) for item in value]
    return value


@pytest.mark.parametrize(
    "row", [row for row in spellings.SPELLINGS if row[0] in spellings.FAMILIES]
)
def test_each_spelling_gives_stocks_result_on_a_plain_model(
    row: tuple[str, OutType], plain_hindi_model: str
) -> None:
    """Each row's names call the family's method with the row's out type: on a plain model
    ours is stock's own, so every stock name must give what stock gives."""
    ours = spm.SentencePieceProcessor(model_file=plain_hindi_model)
    theirs = stock.SentencePieceProcessor(model_file=plain_hindi_model)
    family, _ = row
    for name in spellings.names(*row):
        if not hasattr(theirs, name):
            continue
        for given in (HINDI[0], HINDI):
            if family.startswith("decode"):
                ids = theirs.encode(given)
                given = theirs.encode(given, out_type=str) if family == "decode_pieces" else ids
            options = {  # one thread: a sampled batch is the same only in one order
                "sample_encode": {"num_threads": 1},
                "nbest_encode": {"nbest_size": 2},
                "parallel_encode": {"chunk_len": 8},
            }
            stock.set_random_generator_seed(3)
            expected = _comparable(getattr(theirs, name)(given, **options.get(family, {})))
            stock.set_random_generator_seed(3)
            got = _comparable(getattr(ours, name)(given, **options.get(family, {})))
            assert got == expected, name


class _Recorder:
    """Stands in for the processor: records the method a spelling calls and its arguments."""

    def __getattr__(self, method: str) -> object:
        def record(
            *args: object, **kwargs: object
        ) -> tuple[str, tuple[object, ...], dict[str, object]]:
            return method, args, kwargs

        return record


@pytest.mark.parametrize(
    "row", [row for row in spellings.SPELLINGS if not spellings.is_alias(*row)]
)
def test_each_written_spelling_is_its_table_row(row: tuple[str, OutType]) -> None:
    """The table is the one source: the method of each family row takes the row's keywords and
    calls the family's method with the family's fixed keywords and the row's out type."""
    family, out_type = row
    method = spellings.Spelled.__dict__[spellings.names(*row)[-1]]
    taken = spellings.takes(family, out_type)
    parameters = list(inspect.signature(method).parameters)
    assert parameters == ["self", "input", *taken, "options"]
    given = {name: f"<{name}>" for name in taken}
    called, args, kwargs = method(_Recorder(), "<input>", **given, extra=1)
    expected = dict(spellings.FAMILIES[family].fixes)
    if out_type is not None:
        expected["return_type"] = out_type
    assert (called, args, kwargs) == (
        spellings.FAMILIES[family].method,
        ("<input>",),
        {**given, **expected, "extra": 1},
    )


def test_spelled_writes_only_the_table_rows() -> None:
    written = {n for n, v in vars(spellings.Spelled).items() if inspect.isfunction(v)}
    rows = {
        spellings.names(*row)[-1] for row in spellings.SPELLINGS if not spellings.is_alias(*row)
    }
    assert written == rows


def test_a_spelling_has_its_source_and_its_name_in_a_traceback() -> None:
    """Written methods, not text compiled at import: their source is in the module."""
    method = spm.SentencePieceProcessor.EncodeAsIds
    assert method is spm.SentencePieceProcessor.encode_as_ids
    assert "def encode_as_ids(" in inspect.getsource(method)
    assert method.__code__.co_filename == spellings.__file__
