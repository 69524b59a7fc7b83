"""Peak memory of one stage of a trial, as Python's ``tracemalloc`` sees it.

numpy reports every array it allocates to ``tracemalloc``, so the peak traced above the stage's
start is the largest extra memory the stage's arrays held at once (the feature matrix and its
temporaries).  Memory that numpy does not allocate (BLAS and numba workspaces, C libraries'
own buffers) is not traced: the figure is a lower bound of the process's growth, comparable
between feature maps that build their output with numpy.
"""
from __future__ import annotations

import contextlib
import tracemalloc
from collections.abc import Iterator

MIB = 2.0**20


@contextlib.contextmanager
def peak_mib(row: dict, column: str) -> Iterator[None]:
    """Record in ``row[column]`` the peak traced allocation (MiB) above the start of the block.

    Nested use is allowed: an outer trace keeps running (its own peak is lost, as
    ``tracemalloc.reset_peak`` resets the one counter there is).
    """
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    try:
        yield
    finally:
        row[column] = (tracemalloc.get_traced_memory()[1] - base) / MIB
        if started:
            tracemalloc.stop()
