"""The model files brahmic_pua writes stay byte-identical to the recorded table
(``bench/identity.json``): a refactor that changes any of them fails here. An intended change of
output re-records the table with ``python bench/identity.py --record`` and says why in its
commit."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from conftest import slow

#: The full run only: trains every recorded configuration.
pytestmark = slow

BENCH = Path(__file__).resolve().parent.parent / "bench" / "identity.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_identity", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_every_recorded_file_is_byte_identical() -> None:
    bench = _bench()
    recorded = json.loads(bench.TABLE.read_text(encoding="utf-8"))
    assert len(recorded) >= 2 * 8  # at least 8 configurations, model and vocab each
    assert bench.compare(recorded, bench.measure()) == []


def test_compare_reports_a_changed_missing_and_new_file() -> None:
    compare = _bench().compare
    rows = compare({"a": "1", "b": "2"}, {"a": "9", "c": "3"})
    assert [row.split(":")[0] for row in rows] == ["a", "b", "c"]
    assert compare({"a": "1"}, {"a": "1"}) == []
