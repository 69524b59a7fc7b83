"""The models' thread pool: an interrupt drops the queued fits instead of running them all first."""
import threading
import time

import pytest

from rfbench.model.pool import worker_pool


def test_an_interrupt_drops_the_tasks_not_yet_started():
    """Leaving the block by an interrupt neither waits for the running fits nor starts a queued one."""
    started, release = [], threading.Event()

    def fit(i: int) -> int:
        started.append(i)
        release.wait(60)  # held until the test releases it (60 s: a pool that waited would still end)
        return i

    with pytest.raises(KeyboardInterrupt):
        with worker_pool(2) as pool:
            futures = [pool.submit(fit, i) for i in range(20)]
            while len(started) < 2:
                time.sleep(0.01)
            raise KeyboardInterrupt
    # Out of the block with the two fits still held: it did not wait for them.
    assert [f.running() for f in futures[:2]] == [True, True]
    assert all(f.cancelled() for f in futures[2:])
    release.set()
    assert sorted(f.result(timeout=60) for f in futures[:2]) == [0, 1]
    assert sorted(started) == [0, 1]


def test_a_block_that_ends_normally_waits_for_every_task():
    with worker_pool(2) as pool:
        futures = [pool.submit(time.sleep, 0.01) for _ in range(6)]
    assert all(f.done() and not f.cancelled() for f in futures)
