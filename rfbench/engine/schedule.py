"""The wall time of a campaign's jobs on N workers by their recorded times: the list schedule.

The launcher (:mod:`rfbench.engine.launch`) hands its workers the jobs longest first by their
recorded trial times, and a worker that is free takes the next job (longest-processing-time-first
list scheduling).  With every job's seconds known, that schedule's makespan follows: the wall time
of the jobs on N workers, each job on one worker for its seconds.  It is never below the longest
job (the floor however many workers) nor below the work over N, and never above 4/3 of the best
schedule's (Graham 1969).  An estimate from records, not a measurement: job start-up is not in it.
"""
from __future__ import annotations

import argparse
import heapq
import math
from collections.abc import Sequence


def makespan(seconds: Sequence[float], workers: int) -> float:
    """Wall time of jobs of ``seconds`` run longest first on ``workers`` workers, each job taken by
    the first worker free (0 for no job)."""
    if workers < 1:
        raise ValueError(f"workers={workers!r} is invalid: a positive number of workers")
    free_at = [0.0] * min(workers, len(seconds))  # when each busy worker is next free, a heap
    for job in sorted(seconds, reverse=True):
        heapq.heapreplace(free_at, free_at[0] + job)
    return max(free_at, default=0.0)


def hours_minutes(seconds: float) -> str:
    """'1 h 38 min', '7 min', '42 s' (seconds rounded to the minute from a minute on)."""
    if seconds == math.inf:
        return "unknown"
    if seconds < 60:
        return f"{seconds:.0f} s"
    hours, minutes = divmod(round(seconds / 60), 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"


def summary(seconds: Sequence[float], workers: int) -> str:
    """The dry-run's line: the jobs' list-schedule wall time on ``workers`` workers, its floor (the
    longest job) and the work per worker; jobs of no recorded time (inf) are left out and counted."""
    known = [s for s in seconds if s < math.inf]
    line = (f"list schedule on {workers} worker(s), longest first by the recorded trial times, one job per "
            f"worker: {hours_minutes(makespan(known, workers))} of wall time (floor: the longest job "
            f"{hours_minutes(max(known, default=0.0))}; the work {hours_minutes(sum(known))} / {workers})")
    unknown = len(seconds) - len(known)
    return line + (f"; {unknown} job(s) with no recorded time not counted" if unknown else "")


def parse_workers(text: str) -> int:
    """``--workers N``: a positive whole number, else argparse's one-line error (exit 2)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is invalid: a positive whole number of workers")
    return int(text)
