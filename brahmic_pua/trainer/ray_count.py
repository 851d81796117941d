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
import socket
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from brahmic_pua.io.progress import Phases
from brahmic_pua.normalize import Normalizer
from brahmic_pua.segment.counting import CorpusCounts
from brahmic_pua.trainer.corpus import SCAN_LABEL, CorpusStats
from brahmic_pua.trainer.range_count import count_spans, plan_ranges, reduce_in_order
from brahmic_pua.trainer.signals import reinstall_sigterm, remove_tree, signals_deferred

INSTALL = "pip install 'brahmic-pua[distributed]'"


def import_ray() -> Any:
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise ValueError(f"engine=ray needs Ray, which is not installed: {INSTALL}") from None


@contextmanager
def ray_session(
    address: str | None = None, num_cpus: int | None = None, progress: bool = False
) -> Iterator[Any]:
    """The ``ray`` module, connected: to a running session if there is one, else to the cluster
    at ``address``, else to a new local cluster of ``num_cpus`` CPUs, shut down afterwards.
    With ``progress``, "starting Ray" on the progress display while it starts (seconds), and
    "stopping Ray" while a local cluster stops.

    Signals stay the caller's (such as the CLI's: exit 143 on SIGTERM, temporary files
    removed): Ray's driver would take SIGTERM over (exit 15, or 1 once its processes run), a
    signal while Ray forks its processes would be lost, and Ray's shutdown resets SIGTERM to
    the default behind Python's back. A local cluster keeps its session folder (logs, sockets)
    in a temporary folder of ours, removed with it: Ray leaves it behind under $TMPDIR/ray."""
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    if address:
        check_reachable(address)
    root = _session_root(address)
    try:
        with signals_deferred(), _sigterm_left_alone(), Phases(progress) as phases:
            phases.start("starting Ray" if root else "connecting to Ray")
            ray.init(
                address=address,
                num_cpus=None if address else num_cpus,
                include_dashboard=False,
                logging_level=logging.ERROR,
                log_to_driver=False,
                **({"_temp_dir": root} if root else {}),
            )
        yield ray
    finally:
        with Phases(progress and root is not None) as phases:
            phases.start("stopping Ray")
            # (ours: wait for its processes, which write in the folder until they end)
            ray.shutdown(**({"wait_for_processes": True} if root else {}))
        reinstall_sigterm()
        if root:
            remove_tree(root)


#: Longest path of a Unix socket (sun_path less its NUL), which Ray checks its sockets against.
MAX_SOCKET_PATH = 107
SESSION_PREFIX = "brahmic_pua_ray_"


def _session_root(address: str | None) -> str | None:
    """A new folder for the session of the local cluster ``ray.init`` will start (its
    ``_temp_dir``): in $RAY_TMPDIR or $TMPDIR, or in /tmp where the path of Ray's sockets in
    the folder would be too long (as Ray itself falls back to /tmp on macOS). None when Ray will
    connect to a cluster instead: an address, or one of ``ray start``, which Ray finds through
    its own temporary folder (that ``_temp_dir`` would hide)."""
    if address or os.environ.get("RAY_ADDRESS"):
        return None
    try:
        started = importlib.import_module("ray._common.utils").get_ray_address_file(None)
    except (ImportError, AttributeError):  # another Ray: its own folder, as before
        return None
    if os.path.exists(started):
        return None
    # Ray's longest socket path: ROOT/session_<date and time, 26 characters>_<pid>/sockets/…
    inside = os.path.join(f"session_{'0' * 26}_{os.getpid()}", "sockets", "plasma_store")
    for base in (os.environ.get("RAY_TMPDIR") or tempfile.gettempdir(), "/tmp"):
        root = os.path.join(os.path.abspath(base), f"{SESSION_PREFIX}{'0' * 8}", inside)
        if len(os.fsencode(root)) <= MAX_SOCKET_PATH:
            os.makedirs(base, exist_ok=True)  # (RAY_TMPDIR need not exist: Ray makes it)
            return tempfile.mkdtemp(prefix=SESSION_PREFIX, dir=base)
    return None


@contextmanager
def _sigterm_left_alone() -> Iterator[None]:
    """``ray.init`` without the SIGTERM handlers it installs (its driver's, exit 15, then its
    node's, exit 1 after stopping its processes): the caller's stays in force throughout."""
    try:
        utils: Any = importlib.import_module("ray._private.utils")  # (Ray is read as Any)
    except ImportError:
        yield
        return
    install = getattr(utils, "set_sigterm_handler", None)
    if install is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    utils.set_sigterm_handler = lambda handler: None
    try:
        yield
    finally:
        utils.set_sigterm_handler = install


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
    arrow: bool = False,
    label: str = SCAN_LABEL,
) -> tuple[CorpusCounts, CorpusStats]:
    """Cluster and character counts of ``inputs`` and their line statistics, counted by Ray
    tasks over line ranges (about four per CPU), reduced in input order; ``arrow``: the tasks
    count in Arrow where pyarrow imports on their machine (the whole corpus's choice);
    ``label``: the progress line's."""
    with ray_session(address, progress=progress) as ray:
        task = ray.remote(num_cpus=1)(count_spans)
        files = [os.path.abspath(name) for name in inputs]  # workers may run elsewhere
        groups = plan_ranges(files, cluster_cpus(ray))
        # Arrow where the corpus is big enough and the worker has pyarrow (None: it decides)
        where = None if arrow else False
        refs = [task.remote(group, normalize, policy, None, where) for group in groups]
        # On an error the other tasks are not cancelled: ray.cancel on a task whose reply is
        # on its way aborts the driver (Ray 2.60: "Check failed: ... Tried to complete task
        # that was not pending", exit 1 with no message, about 1 run in 5). Leaving the
        # session ends them: ray_session shuts down the driver it started, and Ray ends a
        # driver's tasks with it; in a session the caller started, they finish their ranges.
        found = (task_result(ray, ref) for ref in refs)
        return reduce_in_order(found, inputs, progress, label)
