"""The models' thread pool: an interrupt drops the queued fits instead of running them all first."""
import threading
import time

import pytest

from rfbench.model.pool import worker_pool


def test_an_interrupt_drops_the_tasks_not_yet_started():
    started, release = [], threading.Event()

    def fit(i: int) -> int:
        started.append(i)
        release.wait(5)
        return i

    begin = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        with worker_pool(2) as pool:
            futures = [pool.submit(fit, i) for i in range(20)]
            while len(started) < 2:
                time.sleep(0.01)
            raise KeyboardInterrupt
    assert time.perf_counter() - begin < 2  # not 10 rounds of fits
    release.set()
    assert sorted(started) == [0, 1] and sum(f.cancelled() for f in futures) == 18


def test_a_block_that_ends_normally_waits_for_every_task():
    with worker_pool(2) as pool:
        futures = [pool.submit(time.sleep, 0.01) for _ in range(6)]
    assert all(f.done() and not f.cancelled() for f in futures)
