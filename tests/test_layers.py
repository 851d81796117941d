"""The package layout is the pipeline: a stage imports only the stages below it, and no module
imports itself back through others, lazily or not. The tests are laid out like the code
(``tests/<stage>/test_<module>[_<aspect>].py``) and use only the library's public names.

The oracle is the source text (``ast``), not Python's import machinery: an import inside a
function or under ``TYPE_CHECKING`` counts, because it is an arrow all the same.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Bottom-up. A package may import its own modules and any package listed before it.
LAYERS = (
    "io",
    "orthography",
    "segment",
    "normalize",
    "codec",
    "model",
    "runtime",
    "nepbpe",
    "trainer",
    "evaluation",
    "integrations",
    "cli",
)
#: Modules straight under brahmic_pua/ (no more than three): the public namespace and the stable
#: path of the transformers tokenizer. Only the CLI may import them.
FACADES = {"brahmic_pua", "brahmic_pua.hf"}


def _modules() -> Iterator[tuple[str, Path]]:
    for path in sorted((ROOT / "brahmic_pua").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        yield ".".join(parts[:-1] if parts[-1] == "__init__" else parts), path


def _imports(name: str, path: Path) -> set[str]:
    """Every brahmic_pua module ``path`` imports, wherever the statement stands."""
    package = name if path.stem == "__init__" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    known = dict(_modules())
    return {module for module in found if module in known and module != name}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def _graph() -> dict[str, set[str]]:
    return {name: _imports(name, path) for name, path in _modules()}


def test_no_package_imports_one_above_it() -> None:
    upward = []
    for module, targets in _graph().items():
        here = _layer(module)
        for target in targets:
            there = _layer(target)
            if target in FACADES:
                if here != "cli":
                    upward.append(f"{module} -> {target} (the public facade)")
            elif here and there and LAYERS.index(there) > LAYERS.index(here):
                upward.append(f"{module} -> {target}")
    assert upward == []


def test_no_import_circle() -> None:
    graph = _graph()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert cycles == []


def test_at_most_three_loose_modules() -> None:
    loose = sorted(p.name for p in (ROOT / "brahmic_pua").glob("*.py"))
    assert len(loose) <= 3, loose
    packages = {p.name for p in (ROOT / "brahmic_pua").iterdir() if (p / "__init__.py").exists()}
    assert packages == set(LAYERS) | {"data"}


def test_the_checks_see_an_upward_import_and_a_circle(tmp_path: Path) -> None:
    """The oracle itself: a lazy upward import and a two-module circle are found."""
    source = tmp_path / "x.py"
    source.write_text("def f():\n    from brahmic_pua.runtime.processor import X\n")
    assert "brahmic_pua.runtime.processor" in _imports("brahmic_pua.codec.x", source)
    relative = tmp_path / "y.py"
    relative.write_text("from .layout import A\nfrom . import codec\n")
    found = _imports("brahmic_pua.codec.y", relative)
    assert {"brahmic_pua.codec.layout", "brahmic_pua.codec.codec"} <= found


# -- the tests mirror the code ------------------------------------------------------------------

TESTS = ROOT / "tests"
#: Tests of the project as a whole, not of one module: they stand at the top of tests/.
PROJECT_TESTS = {
    "test_docs.py",  # every example in README.md and docs/
    "test_examples.py",  # examples/ keep working
    "test_experiment_levers.py",  # examples/perplexity's levers (regularize, composed, gpt)
    "test_experiment_tools.py",  # examples/perplexity's modules
    "test_figures.py",  # tools/figures.py: the figures the documentation shows
    "test_identity.py",  # model files byte-identical to bench/identity.json
    "test_launch.py",  # brahmic_pua_launch.py, the console script's entry
    "test_layers.py",  # this file
    "test_perplexity.py",  # examples/perplexity end to end
    "test_public_surface.py",  # brahmic_pua/__init__.py, the public namespace
    "test_shared_readers.py",  # one reader per fact, across stages
}
#: Folders of tests that mirror no module: the outside suites, run unchanged.
OUTSIDE = {"peers"}
#: Private names a test may touch, each an outside library's hook that brahmic_pua implements.
OUTSIDE_HOOKS = {"_tokenize"}  # transformers' PreTrainedTokenizer hook, replaced in a test


def _stage_modules(stage: str) -> set[str]:
    folder = ROOT / "brahmic_pua" / stage
    return {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}


def misplaced_tests(tests: Path) -> list[str]:
    """Test files that are not ``<stage>/test_<module>[_<aspect>].py`` for a module of that
    stage, or a project-wide test at the top."""
    wrong = []
    for path in sorted(tests.rglob("test_*.py")):
        relative = path.relative_to(tests)
        if len(relative.parts) == 1:
            if relative.name not in PROJECT_TESTS:
                wrong.append(f"{relative}: a test of one module goes in tests/<stage>/")
            continue
        stage = relative.parts[0]
        if len(relative.parts) > 2 or (stage not in LAYERS and stage not in OUTSIDE):
            wrong.append(f"{relative}: tests/<stage>/ with a stage of {LAYERS}")
            continue
        if stage in OUTSIDE:
            continue
        name = path.stem.removeprefix("test_")
        if not any(name == m or name.startswith(m + "_") for m in _stage_modules(stage)):
            wrong.append(f"{relative}: no module {stage}/{name.split('_')[0]}…")
    return wrong


def _library_private_names() -> set[str]:
    """Names with one leading underscore that the library defines (functions, classes,
    methods, attributes it assigns)."""
    names: set[str] = set()
    for _, path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def private_uses(path: Path, private: set[str]) -> list[str]:
    """Where ``path`` imports a private name from the library or reads a private attribute
    the library defines."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "brahmic_pua":
            found += [
                f"{path.name}:{node.lineno} imports {alias.name}"
                for alias in node.names
                if alias.name.startswith("_") and not alias.name.startswith("__")
            ]
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in private
            and node.attr not in OUTSIDE_HOOKS
        ):
            found.append(f"{path.name}:{node.lineno} uses .{node.attr}")
    return found


def silent_skips(path: Path) -> list[str]:
    """Calls of ``pytest.importorskip``: a skip that passes under CI where the extra is
    missing; conftest's ``require_extra`` skips visibly and fails under CI."""
    return [
        f"{path.name}:{node.lineno} calls importorskip: use conftest.require_extra"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr == "importorskip"
    ]


def test_no_test_skips_a_missing_extra_silently() -> None:
    assert [found for path in sorted(TESTS.rglob("*.py")) for found in silent_skips(path)] == []


def test_tests_mirror_the_code() -> None:
    assert misplaced_tests(TESTS) == []


def test_tests_use_only_public_names() -> None:
    private = _library_private_names()
    assert [
        use for path in sorted(TESTS.rglob("*.py")) for use in private_uses(path, private)
    ] == []


def test_the_tree_checks_see_a_misplaced_test_and_a_private_name(tmp_path: Path) -> None:
    """The oracle itself: a loose test, an unknown stage, a module that does not exist and a
    private import or attribute are each found."""
    for name in (
        "test_loose.py",
        "nowhere/test_x.py",
        "codec/test_nothing.py",
        "codec/test_codec_x.py",
    ):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("")
    assert len(misplaced_tests(tmp_path)) == 3
    source = tmp_path / "codec" / "test_codec_x.py"
    source.write_text("from brahmic_pua.cli.filter_command import _x\nc._escape('a')\n")
    assert len(private_uses(source, {"_escape"})) == 2
    source.write_text("import pytest\npytest.importorskip('pyarrow')\n")
    assert len(silent_skips(source)) == 1
    assert "_escape" in _library_private_names()


#: Modules written by a tool (tools/generate_tables.py, tools/generate_unicode_ranges.py), not
#: by hand: their size is the data's.
GENERATED = {"brahmic_pua.orthography.unicode_tables", "brahmic_pua.normalize.unicode_ranges"}
#: A module a reader takes in at one sitting; a function that fits on a screen or two.
MOST_MODULE_LINES = 600
MOST_FUNCTION_LINES = 60


def oversized(modules: Iterator[tuple[str, Path]]) -> list[str]:
    """Hand-written modules over :data:`MOST_MODULE_LINES` lines and functions (docstrings
    included) over :data:`MOST_FUNCTION_LINES`."""
    found = []
    for name, path in modules:
        if name in GENERATED:
            continue
        text = path.read_text(encoding="utf-8")
        if (lines := text.count("\n")) > MOST_MODULE_LINES:
            found.append(f"{name}: {lines} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MOST_FUNCTION_LINES:
                    found.append(f"{name}.{node.name}: {length} lines")
    return found


def test_modules_and_functions_read_at_one_sitting() -> None:
    assert oversized(_modules()) == []


def test_the_size_check_sees_a_long_module_and_a_long_function(tmp_path: Path) -> None:
    long_module = tmp_path / "long.py"
    long_module.write_text("x = 1\n" * (MOST_MODULE_LINES + 1))
    body = "".join("    x = 1\n" for _ in range(MOST_FUNCTION_LINES))
    long_function = tmp_path / "function.py"
    long_function.write_text(f"def f() -> None:\n{body}")
    generated = tmp_path / "tables.py"
    generated.write_text("x = 1\n" * (MOST_MODULE_LINES + 1))
    assert oversized(
        iter(
            [
                ("brahmic_pua.long", long_module),
                ("brahmic_pua.function", long_function),
                ("brahmic_pua.orthography.unicode_tables", generated),
            ]
        )
    ) == ["brahmic_pua.long: 601 lines", "brahmic_pua.function.f: 61 lines"]
