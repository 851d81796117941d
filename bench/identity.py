"""Byte identity of what brahmic_pua writes: the sha256 of model, vocab and shard files for a
fixed set of configurations, compared with the table recorded in ``bench/identity.json``.

Why: a refactor must change no behaviour, and the strongest cheap evidence is that every model
file it writes is the same byte for byte. Run it before a change with ``--record`` (rewrites the
table), after the change without (exit 1 and the differing rows if anything moved). The
configurations cover both model types, both segmentation policies, the three normalization
modes (nepali-lm with every filter and the Nepali seeds), a sampled input, an iterator input,
word-start completion off, and ``encode-corpus`` shards. They train on the samples that ship
in ``brahmic_pua/data`` (small vocabularies: about 20 s in all on 2 cores), so anyone can rerun
it on a clone; ``tests/test_identity.py`` runs it in the test suite.

    python bench/identity.py            # compare with bench/identity.json
    python bench/identity.py --record   # after an intended change of output
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

TABLE = Path(__file__).with_name("identity.json")


def _sample(name: str) -> Path:
    return Path(str(resources.files("brahmic_pua.data").joinpath(name)))


def _lines(path: Path) -> Iterator[str]:
    with path.open(encoding="utf-8") as stream:
        for line in stream:
            yield line.rstrip("\n")


TE, HI = "te.sample.txt", "hi.sample.txt"
COMMON = {"vocab_size": 1000, "num_threads": 1}
#: name → (sample, trainer keyword arguments); an "iterator" entry feeds lines from Python.
CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    "unigram-fixtoken-nfc": (TE, {"model_type": "unigram"}),
    "bpe-fixtoken-nfc": (TE, {"model_type": "bpe"}),
    "unigram-akshara-nfc": (TE, {"model_type": "unigram", "policy": "akshara"}),
    "bpe-akshara-none": (TE, {"model_type": "bpe", "policy": "akshara", "normalization": "none"}),
    "unigram-nepali-lm-filters-seeds": (
        HI,
        {
            "model_type": "unigram",
            "normalization": "nepali-lm",
            "filters": "all",
            "nepali_seeds": True,
        },
    ),
    "bpe-nepali-lm-filters-seeds": (
        HI,
        {"model_type": "bpe", "normalization": "nepali-lm", "filters": "all", "nepali_seeds": True},
    ),
    "unigram-sampled": (TE, {"model_type": "unigram", "input_sentence_size": 400}),
    "bpe-iterator": (TE, {"model_type": "bpe", "iterator": True}),
    "unigram-no-word-starts": (TE, {"model_type": "unigram", "complete_word_starts": False}),
}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _train(name: str, folder: Path) -> dict[str, str]:
    import brahmic_pua as spm

    sample, options = CONFIGS[name]
    kwargs: dict[str, Any] = {**COMMON, **options}
    source = _sample(sample)
    if kwargs.pop("iterator", False):
        kwargs["sentence_iterator"] = _lines(source)
    else:
        kwargs["input"] = str(source)
    prefix = folder / name
    spm.SentencePieceTrainer.train(model_prefix=str(prefix), progress=False, **kwargs)
    return {
        f"{name}.model": _digest(prefix.with_suffix(".model")),
        f"{name}.vocab": _digest(prefix.with_suffix(".vocab")),
    }


def _shards(folder: Path) -> dict[str, str]:
    """encode-corpus over both samples with the first model, three shards by line count."""
    try:
        from brahmic_pua.integrations.shards import encode_corpus
    except ImportError:  # the layout before the stage packages, to compare with older commits
        from brahmic_pua.shards import encode_corpus  # type: ignore[import-not-found,no-redef]

    model = folder / "unigram-fixtoken-nfc.model"
    out = folder / "shards"
    encode_corpus(model, [str(_sample(TE)), str(_sample(HI))], out, shard_lines=800)
    digests = {}
    for path in sorted(out.iterdir()):
        if path.suffix in (".json", ".COMPLETE"):
            digests[f"shards/{path.name}"] = _placeless(json.loads(path.read_bytes()))
        else:
            digests[f"shards/{path.name}"] = _digest(path)
    return digests


def _placeless(record: Any) -> str:
    """The digest of an index or a marker without what depends on where and when the run
    happened: input paths, their modification times, the model's path."""
    if isinstance(record, dict):
        record = {
            key: _placeless_value(value)
            for key, value in record.items()
            if key not in ("inputs", "model", "files")
        }
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()


def _placeless_value(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _placeless_value(v) for k, v in value.items() if k not in ("inputs", "model")}
    if isinstance(value, list):
        return [_placeless_value(v) for v in value]
    return value


def measure(report: Callable[[str], None] = lambda _: None) -> dict[str, str]:
    """Train every configuration in a temporary folder; return file name → sha256."""
    digests: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="brahmic-identity-") as tmp:
        folder = Path(tmp)
        for name in CONFIGS:
            report(name)
            digests.update(_train(name, folder))
        report("encode-corpus shards")
        digests.update(_shards(folder))
    return digests


def compare(recorded: dict[str, str], now: dict[str, str]) -> list[str]:
    """One line per file whose digest differs, is missing, or is new."""
    rows = []
    for name in sorted(set(recorded) | set(now)):
        before, after = recorded.get(name), now.get(name)
        if before != after:
            rows.append(f"{name}: recorded {before or '(none)'} now {after or '(none)'}")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="rewrite bench/identity.json")
    args = parser.parse_args()
    now = measure(lambda name: print(f"  {name}", file=sys.stderr))
    if args.record:
        TABLE.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"recorded {len(now)} digests in {TABLE}")
        return 0
    recorded = json.loads(TABLE.read_text(encoding="utf-8"))
    rows = compare(recorded, now)
    print(f"{len(now) - len(rows)} of {len(set(recorded) | set(now))} files byte-identical")
    for row in rows:
        print(row)
    return 1 if rows else 0


if __name__ == "__main__":
    sys.exit(main())
