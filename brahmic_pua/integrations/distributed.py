"""Ray as the engine of ``encode-corpus`` beyond one machine: id shards written by actors that load
the model once, each taking the next shard when it finishes one.

The shards are exactly what one process writes: the work is cut at line ends
(:mod:`brahmic_pua.io.lines`) and each shard is encoded by the same :func:`encode_shard` as
locally. Workers read the input files and write the shards themselves, so on a multi-node
cluster inputs and output must be on a file system every node sees at the same path, and
brahmic_pua must be installed on every node. The Ray session (and the trainer's count on Ray)
is :mod:`brahmic_pua.trainer.ray_count`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from brahmic_pua.integrations.shard_job import Record, ShardJob, encode_shard
from brahmic_pua.runtime.processor import SentencePieceProcessor
from brahmic_pua.trainer.ray_count import cluster_cpus, ray_session, task_result


class ShardEncoder:
    """A Ray actor's state: the model, loaded once from its serialized proto."""

    def __init__(self, model: bytes) -> None:
        self.processor = SentencePieceProcessor(model_proto=model, num_threads=1)

    def encode(self, job: ShardJob) -> Record:
        return encode_shard(self.processor, job)


def encode_on_ray(
    model: bytes,
    jobs: list[ShardJob],
    workers: int,
    address: str | None,
    done: Callable[[Record], None],
    progress: bool = False,
) -> None:
    """Write ``jobs`` on ``workers`` actors (at most one per CPU of the cluster), each taking
    the next shard when it finishes one; ``done`` gets each shard's record as it completes.
    With ``progress``, Ray's start and stop (seconds each) show on the progress display."""
    if not jobs:
        return
    with ray_session(address, workers, progress=progress) as ray:
        encoder = ray.remote(num_cpus=1)(ShardEncoder)
        shared = ray.put(model)
        actors = [encoder.remote(shared) for _ in range(min(workers, len(jobs), cluster_cpus(ray)))]
        queue, idle = list(jobs), list(actors)
        running: dict[Any, Any] = {}  # a task's ObjectRef: its actor
        try:
            while queue or running:
                while idle and queue:
                    actor = idle.pop()
                    running[actor.encode.remote(queue.pop(0))] = actor
                ready, _ = ray.wait(list(running), num_returns=1)
                idle.append(running.pop(ready[0]))
                done(task_result(ray, ready[0]))
        except BaseException:
            for actor in actors:
                ray.kill(actor)
            for stale in Path(jobs[0].directory).glob(".shard_*.tmp"):
                stale.unlink(missing_ok=True)
            raise
