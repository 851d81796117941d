"""The package layout is the pipeline: a stage imports only the stages below it, and no module
imports itself back through others, lazily or not.

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
    for path in sorted((ROOT / "cli").glob("*.py")):
        name = "brahmic_pua.cli" if path.stem == "__init__" else f"brahmic_pua.cli.{path.stem}"
        yield name, path


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
    assert packages == set(LAYERS[:-1]) | {"data"}


def test_the_checks_see_an_upward_import_and_a_circle(tmp_path: Path) -> None:
    """The oracle itself: a lazy upward import and a two-module circle are found."""
    source = tmp_path / "x.py"
    source.write_text("def f():\n    from brahmic_pua.runtime.processor import X\n")
    assert "brahmic_pua.runtime.processor" in _imports("brahmic_pua.codec.x", source)
    relative = tmp_path / "y.py"
    relative.write_text("from .layout import A\nfrom . import codec\n")
    found = _imports("brahmic_pua.codec.y", relative)
    assert {"brahmic_pua.codec.layout", "brahmic_pua.codec.codec"} <= found
