"""spm's training thread: :func:`spm_running` says whether one is still in spm (a process that
exits then must not finalize), from the threads Python lists, with no list of its own."""

from __future__ import annotations

import threading

from brahmic_pua.trainer import fit


def test_spm_running_while_a_training_thread_runs_and_not_after() -> None:
    assert not fit.spm_running()
    release = threading.Event()
    other = threading.Thread(target=release.wait, args=(10,))  # not spm's
    other.start()
    assert not fit.spm_running()
    spm = fit.SpmThread(target=release.wait, args=(10,), daemon=True)
    spm.start()
    try:
        assert fit.spm_running()
    finally:
        release.set()
        spm.join(10)
        other.join(10)
    assert not fit.spm_running()
