"""The thread pool the models fit their folds and C values in, which an interrupt does not outlive.

``concurrent.futures.ThreadPoolExecutor`` used as a context manager waits, on leaving, for every
task submitted, also when the block is left by Ctrl-C or SIGTERM: a model selection then runs
all its queued fits (minutes: LibLinear -s 2 at a tight tolerance on Li's GCWS codes took 13 min
for 33 of 56) before the program can say it was interrupted.  :func:`worker_pool` drops the tasks
not yet started instead, so only the fits already running (one per thread) delay the exit.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor


@contextlib.contextmanager
def worker_pool(n_jobs: int) -> Iterator[ThreadPoolExecutor]:
    """A pool of ``n_jobs`` threads: waited for when its block ends normally, its queue dropped when it raises."""
    pool = ThreadPoolExecutor(n_jobs)
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
