"""Beyond one process: id shards and the trainer's cluster count on a local Ray cluster of two
workers give exactly what one process gives (the same shard files, the same model file), and
spm's sampling options are honoured.

Ray is the optional ``distributed`` extra: where it is missing the Ray tests skip, with the
reason shown as a warning too, except under CI (the CI variable set), which installs the extra
and so must fail. Ray starts once for the module (it takes seconds).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sentencepiece
import speed_reference as reference
from conftest import require_extra, sample, slow

from brahmic_pua.integrations.shards import encode_corpus
from brahmic_pua.normalize import normalize
from brahmic_pua.trainer import range_count, ray_count, train_model

#: The full run only: each test starts Ray.
pytestmark = slow

INSTALL = "pip install 'brahmic-pua[distributed]'"
#: 3,000 lines of Telugu: the sample's 1,142 over and over.
TELUGU = (sample("te") * 3)[:3000]
HINDI = sample("hi")


@pytest.fixture(scope="module")
def ray() -> Iterator[Any]:
    """A local Ray cluster of 2 CPUs; a visible skip without Ray, a failure under CI."""
    require_extra("ray", "distributed", "the Ray engine")
    import ray

    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def ray_corpus(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Two files with a byte-order mark, CRLF, blank lines, U+2585 and no final newline."""
    folder = tmp_path_factory.mktemp("corpus")
    first, second = folder / "te.txt", folder / "mixed.txt"
    first.write_bytes(("\ufeff" + "\r\n".join(TELUGU[:2000]) + "\r\n\n▅ క\n").encode())
    second.write_bytes(("\n".join(TELUGU[2000:] + HINDI) + "\n\nकि").encode())
    return [str(first), str(second)]


def files_of(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


@pytest.fixture(scope="module")
def ray_model(tmp_path_factory: pytest.TempPathFactory, ray_corpus: list[str]) -> str:
    prefix = tmp_path_factory.mktemp("model") / "m"
    return train_model(input=ray_corpus, model_prefix=str(prefix), vocab_size=2000).model_file


# -- on Ray -------------------------------------------------------------------------------------


def test_ray_shards_are_the_local_shards(
    ray: Any, ray_model: str, ray_corpus: list[str], tmp_path: Path
) -> None:
    """Two actors write the same files as one process; a local run resumes on Ray."""
    local, on_ray = tmp_path / "local", tmp_path / "ray"
    encode_corpus(ray_model, ray_corpus, local, shard_lines=600)
    encode_corpus(ray_model, ray_corpus, on_ray, shard_lines=600, engine="ray", workers=2)
    assert files_of(on_ray) == files_of(local)
    assert len(files_of(local)) > 8  # several shards per worker
    (local / "shard_00002.npy").unlink()
    (local / "shard_00003.npy.COMPLETE").unlink()
    encode_corpus(ray_model, ray_corpus, local, shard_lines=600, engine="ray", workers=2)
    assert files_of(local) == files_of(on_ray)


def test_parquet_shards_on_ray_are_the_local_shards(
    ray: Any, ray_model: str, ray_corpus: list[str], tmp_path: Path
) -> None:
    """Parquet among the inputs (its row groups the actors' units): the same files as one
    process writes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = tmp_path / "rows.parquet"
    rows = [*TELUGU[:1500], None, "\ufeffక\r\nఖ"]
    pq.write_table(pa.table({"text": pa.array(rows, pa.string())}), source, row_group_size=300)
    inputs = [ray_corpus[0], str(source), ray_corpus[1]]
    local, on_ray = tmp_path / "local", tmp_path / "ray"
    encode_corpus(ray_model, inputs, local, shard_lines=600)
    encode_corpus(ray_model, inputs, on_ray, shard_lines=600, engine="ray", workers=2)
    assert files_of(on_ray) == files_of(local)


def test_train_on_ray_writes_the_same_model_file(
    ray: Any, ray_corpus: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(range_count, "MIN_RANGE_BYTES", 60_000)  # ranges across both files
    monkeypatch.setattr(range_count, "MAX_RANGE_BYTES", 60_000)
    reports = {}
    for engine in ("local", "ray"):
        (tmp_path / engine).mkdir()
        reports[engine] = train_model(
            input=ray_corpus,
            model_prefix=str(tmp_path / engine / "m"),
            vocab_size=1500,
            model_type="bpe",
            engine=engine,
        )
    assert reports["ray"].lines_with_block == 1 == reports["local"].lines_with_block
    assert files_of(tmp_path / "ray") == files_of(tmp_path / "local")


def test_a_bad_byte_on_ray_is_the_local_error(ray: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes("క\n".encode() * 3000 + b"\xc0 x\n")
    messages = []
    for engine in ("local", "ray"):
        with pytest.raises(ValueError) as error:
            train_model(input=str(bad), model_prefix=str(tmp_path / "m"), engine=engine)
        messages.append(str(error.value))
    assert messages[0] == messages[1]
    assert messages[0].startswith(f"{bad} is not UTF-8 at line 3001 (byte offset 12000")
    assert not list(tmp_path.glob("m.*"))


# -- without Ray --------------------------------------------------------------------------------


def test_engine_errors_are_one_line(
    ray_corpus: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix, model = str(tmp_path / "m"), str(tmp_path / "unread.model")
    with pytest.raises(ValueError, match="unknown engine 'spark'"):
        train_model(input=ray_corpus, model_prefix=prefix, engine="spark")
    with pytest.raises(ValueError, match="a sentence_iterator cannot be split"):
        train_model(sentence_iterator=iter(TELUGU), model_prefix=prefix, engine="ray")
    with pytest.raises(ValueError, match="ray_address is for engine=ray"):
        train_model(input=ray_corpus, model_prefix=prefix, ray_address="ray://head:10001")
    with pytest.raises(ValueError, match="unknown engine 'spark'"):
        encode_corpus(model, ray_corpus, tmp_path / "out", engine="spark")
    with pytest.raises(ValueError, match="ray_address is for engine='ray'"):
        encode_corpus(model, ray_corpus, tmp_path / "out", ray_address="ray://head:10001")

    with pytest.raises(ValueError, match=r"cannot reach the Ray cluster at ray://127.0.0.1:1: "):
        ray_count.check_reachable("ray://127.0.0.1:1")  # at once, not after Ray's retries
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray: ImportError
    with pytest.raises(ValueError, match=r"needs Ray, which is not installed: pip install"):
        train_model(input=ray_corpus, model_prefix=prefix, engine="ray")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("shuffle", [True, False])
def test_input_sentence_size_is_honoured(
    ray_corpus: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shuffle: bool
) -> None:
    """spm gets ``input_sentence_size`` lines: the first ones with shuffle_input_sentence=false
    (as spm takes them), else a sample in corpus order that is the same on every run."""
    fed: list[list[str]] = []
    real = sentencepiece.SentencePieceTrainer.train  # what brahmic_pua.trainer.fit calls

    def recorded(**options: Any) -> None:
        if "input" in options:  # spm's line file
            lines = Path(options["input"]).read_text(encoding="utf-8").split("\n")[:-1]
        else:
            lines = list(options.pop("sentence_iterator"))
            options["sentence_iterator"] = iter(lines)
        if Path(options["model_prefix"]).name == "model":  # not model.compile's one-line run
            fed.append(lines)
        real(**options)

    monkeypatch.setattr(sentencepiece.SentencePieceTrainer, "train", recorded)
    for _ in range(2):
        train_model(
            input=ray_corpus,
            model_prefix=str(tmp_path / "m"),
            vocab_size=1500,
            input_sentence_size=1200,
            shuffle_input_sentence=shuffle,
        )
    lines = [normalize(line) for name in ray_corpus for line in reference.file_lines(name)]
    assert len(fed[0]) == 1200 and fed[0] == fed[1]
    if shuffle:
        rest = iter(lines)
        assert fed[0] != lines[:1200] and all(line in rest for line in fed[0])  # in order
    else:
        assert fed[0] == lines[:1200]
