"""Ray as the trainer's engine beyond one machine: the cluster and character count as one task per
range of input, reduced here in input order, exactly as the local engine reduces its worker
processes' parts (:mod:`brahmic_pua.trainer.range_count`). Also the Ray session that
``encode-corpus --engine ray`` (:mod:`brahmic_pua.integrations.distributed`) shares.

Ray is optional (``pip install 'brahmic-pua[distributed]'``); it is imported as ``Any`` so that
this module type-checks, and imports, where Ray is missing.
"""

from __future__ import annotations

import importlib
import logging
import os
import signal
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from brahmic_pua.normalize import Normalizer
from brahmic_pua.segment.counting import CorpusCounts
from brahmic_pua.trainer.corpus import CorpusStats
from brahmic_pua.trainer.range_count import count_spans, plan_ranges, reduce_in_order

INSTALL = "pip install 'brahmic-pua[distributed]'"


def import_ray() -> Any:
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise ValueError(f"engine=ray needs Ray, which is not installed: {INSTALL}") from None


@contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None) -> Iterator[Any]:
    """The ``ray`` module, connected: to a running session if there is one, else to the cluster
    at ``address``, else to a new local cluster of ``num_cpus`` CPUs, shut down afterwards."""
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    if address:
        check_reachable(address)
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


def check_reachable(address: str) -> None:
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


def task_result(ray: Any, ref: Any) -> Any:
    """A task's result; a task's expected error (a bad input byte) as itself, one line."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as error:
        if isinstance(error.cause, ValueError | OSError):
            raise error.cause from None
        raise


def cluster_cpus(ray: Any) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


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
        groups = plan_ranges(files, cluster_cpus(ray))
        refs = [task.remote(group, normalize, policy) for group in groups]
        try:
            return reduce_in_order((task_result(ray, ref) for ref in refs), inputs, progress)
        except BaseException:
            for ref in refs:
                ray.cancel(ref)
            raise
