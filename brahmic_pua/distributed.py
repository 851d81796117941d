"""Ray as the engine beyond one machine: id shards written by actors that load the model once,
and the trainer's cluster count as one task per range of input, reduced here.

Both give exactly what one process gives (the same shards, the same counts, so the same model):
the work is cut at line ends (:mod:`brahmic_pua.line_ranges`) and each piece is done by the same
code as locally. Workers read the input files and write the shards themselves, so on a
multi-node cluster inputs and output must be on a file system every node sees at the same path,
and brahmic_pua must be installed on every node. Ray is optional (``pip install
'brahmic-pua[distributed]'``); it is imported as ``Any`` so that this module type-checks, and
imports, where Ray is missing.
"""

from __future__ import annotations

import importlib
import logging
import os
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brahmic_pua.codec.counting import CorpusCounts
from brahmic_pua.normalize import Normalizer
from brahmic_pua.processor import SentencePieceProcessor
from brahmic_pua.trainer.corpus import CorpusStats
from brahmic_pua.trainer.range_count import count_spans, plan_ranges, reduce_in_order

if TYPE_CHECKING:
    from brahmic_pua.shards import Record, ShardJob

INSTALL = "pip install 'brahmic-pua[distributed]'"


def _import_ray() -> Any:
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise ValueError(f"engine=ray needs Ray, which is not installed: {INSTALL}") from None


@contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None) -> Iterator[Any]:
    """The ``ray`` module, connected: to a running session if there is one, else to the cluster
    at ``address``, else to a new local cluster of ``num_cpus`` CPUs, shut down afterwards."""
    ray = _import_ray()
    if ray.is_initialized():
        yield ray
        return
    if address:
        _check_reachable(address)
    terminate = signal.getsignal(signal.SIGTERM)
    ray.init(
        address=address,
        num_cpus=None if address else num_cpus,
        include_dashboard=False,
        logging_level=logging.ERROR,
        log_to_driver=False,
    )
    # Ray's driver takes SIGTERM over (exit 15 and a stack dump); the caller's handler, such as
    # the CLI's (exit 143, temporary files removed), is put back.
    if terminate is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, terminate)
    try:
        yield ray
    finally:
        ray.shutdown()


def _check_reachable(address: str) -> None:
    """A cluster that does not answer is one line at once (Ray would retry for minutes);
    "auto" and other non host:port addresses are left to Ray."""
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=10).close()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ValueError(f"cannot reach the Ray cluster at {address}: {reason}") from None


def _result(ray: Any, ref: Any) -> Any:
    """A task's result; a task's expected error (a bad input byte) as itself, one line."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as error:
        if isinstance(error.cause, ValueError | OSError):
            raise error.cause from None
        raise


def _cpus(ray: Any) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


# -- id shards ----------------------------------------------------------------------------------


class ShardEncoder:
    """A Ray actor's state: the model, loaded once from its serialized proto."""

    def __init__(self, model: bytes) -> None:
        self.processor = SentencePieceProcessor(model_proto=model, num_threads=1)

    def encode(self, job: ShardJob) -> Record:
        from brahmic_pua.shards import encode_shard

        return encode_shard(self.processor, job)


def encode_on_ray(
    model: bytes,
    jobs: list[ShardJob],
    workers: int,
    address: str | None,
    done: Callable[[Record], None],
) -> None:
    """Write ``jobs`` on ``workers`` actors (at most one per CPU of the cluster), each taking
    the next shard when it finishes one; ``done`` gets each shard's record as it completes."""
    if not jobs:
        return
    with ray_session(address, workers) as ray:
        encoder = ray.remote(num_cpus=1)(ShardEncoder)
        shared = ray.put(model)
        actors = [encoder.remote(shared) for _ in range(min(workers, len(jobs), _cpus(ray)))]
        queue, idle = list(jobs), list(actors)
        running: dict[Any, Any] = {}  # a task's ObjectRef: its actor
        try:
            while queue or running:
                while idle and queue:
                    actor = idle.pop()
                    running[actor.encode.remote(queue.pop(0))] = actor
                ready, _ = ray.wait(list(running), num_returns=1)
                idle.append(running.pop(ready[0]))
                done(_result(ray, ready[0]))
        except BaseException:
            for actor in actors:
                ray.kill(actor)
            for stale in Path(jobs[0].directory).glob(".shard_*.tmp"):
                stale.unlink(missing_ok=True)
            raise


# -- the trainer's count ------------------------------------------------------------------------


def count_on_ray(
    inputs: list[str],
    normalize: Normalizer,
    policy: str,
    progress: bool,
    address: str | None = None,
) -> tuple[CorpusCounts, CorpusStats]:
    """Cluster and character counts of ``inputs`` and their line statistics, counted by Ray
    tasks over line ranges (about four per CPU), reduced in input order."""
    with ray_session(address) as ray:
        task = ray.remote(num_cpus=1)(count_spans)
        files = [os.path.abspath(name) for name in inputs]  # workers may run elsewhere
        groups = plan_ranges(files, _cpus(ray))
        refs = [task.remote(group, normalize, policy) for group in groups]
        try:
            return reduce_in_order((_result(ray, ref) for ref in refs), inputs, progress)
        except BaseException:
            for ref in refs:
                ray.cancel(ref)
            raise
