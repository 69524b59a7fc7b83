"""Progress of a run: trials done/total with an ETA, and the model selection's fits in the trials at work.

On a terminal these are tqdm bars (the run's log lines are printed above them); elsewhere
(a file, a pipe, ``CI`` set, a parallel launcher's worker sharing the terminal) they are
plain log lines: one per trial, and one per ``FIT_LOG_INTERVAL`` seconds of model selection.
Each trial's own line goes to the run's ``run.log`` only (:data:`TRIAL_LOG`), and the model's
line on its path (``model: ...``, logged by every trial's fit) reaches the console once per run
(:class:`OncePerRun`): the console shows the run, its progress and its summary.
"""
from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TextIO

from tqdm import tqdm
from tqdm.contrib.logging import logging_redirect_tqdm

log = logging.getLogger("rfbench")
#: Each trial's line (its metrics): to the run's log file alone, not to the console (runner._log_to).
TRIAL_LOG = logging.getLogger("rfbench.trials")
TRIAL_LOG.propagate = False

#: Seconds between two plain log lines on the fits of one trial.
FIT_LOG_INTERVAL = 30.0
#: Seconds of silence after which a line (or a bar's redraw) says the trial is still at work, even
#: within one long fit, when no fit has ended since (``TrialProgress``'s heartbeat thread).
SILENCE_LIMIT = 30.0


def interactive(stream: TextIO) -> bool:
    """Whether to draw bars on ``stream``: a terminal, not CI, not a parallel launcher's worker."""
    ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    worker = multiprocessing.current_process().name != "MainProcess"  # its siblings share the tty
    return stream.isatty() and not ci and not worker


class TrialProgress:
    """Counts the trials of one run; :meth:`fits` is the classifier's ``progress`` callback.

    Parameters
    ----------
    total : int
        Trials the run will hold.
    done : int
        Trials already recorded when the run starts (they do not count toward the ETA).
    bars : bool
        Draw tqdm bars on ``stream`` (else log lines).
    stream : text stream, default=sys.stderr
    name : str, default=""
        The run's name in each line, so that runs logging to one terminal (parallel make
        targets) can be told apart.
    """

    def __init__(self, total: int, done: int, bars: bool, stream: TextIO = sys.stderr, name: str = ""):
        self.total, self.done, self.bars = total, done, bars
        self._prefix = f"progress: {name}, " if name else "progress: "
        self._start, self._initial = time.monotonic(), done
        self._last_fit_log = self._start
        self._stream = stream
        self._trials = tqdm(total=total, initial=done, desc=f"{name} trials".lstrip(), unit="trial", file=stream,
                            dynamic_ncols=True) if bars else None
        self._fits: tqdm | None = None  # the fits of the trials at work, from their first fit on
        self._fit_counts: dict[int | None, tuple[int, int]] = {}  # fits done and total of each trial at work
        self._lock = threading.Lock()  # fits arrive from the workers' thread (runner) too
        self._trial_start = self._last_line = self._start
        self._stop = threading.Event()
        self._heartbeat = threading.Thread(target=self._beat, name="rfbench-progress", daemon=True)
        self._heartbeat.start()

    def trial_done(self, trial: int | None = None) -> None:
        """Count one more recorded trial (``trial``: its index, whose fits then leave the count)."""
        with self._lock:
            self.done += 1
            self._fit_counts.pop(trial, None)
            self._trial_start = self._last_line = time.monotonic()
            if self.bars:
                self._close_fits()
                self._trials.update(1)
                return
        elapsed = time.monotonic() - self._start
        per_trial = elapsed / (self.done - self._initial)
        log.info("%s%d/%d trials, %s elapsed, ETA %s", self._prefix, self.done, self.total,
                 tqdm.format_interval(elapsed), tqdm.format_interval(per_trial * (self.total - self.done)))

    def fits(self, done: int, total: int, trial: int | None = None) -> None:
        """Model-selection fits ``done`` of ``total`` in trial ``trial`` (None: the one trial at work)."""
        with self._lock:
            self._fit_counts[trial] = (done, total)
            done, total = self._fits_at_work()
            if self.bars:
                if self._fits is None:
                    self._fits = tqdm(total=total, desc="  fits", unit="fit", file=self._stream, position=1,
                                      leave=False, dynamic_ncols=True)
                self._fits.total = total
                self._fits.update(done - self._fits.n)
                self._last_line = time.monotonic()
                return
            if time.monotonic() - self._last_fit_log < FIT_LOG_INTERVAL:
                return
            self._last_fit_log = self._last_line = time.monotonic()
        log.info("%s%s, model selection %d/%d fits", self._prefix, self._at_work(), done, total)

    def fits_of(self, trial: int) -> Callable[[int, int], None]:
        """The model's ``progress(done, total)`` callback for trial ``trial`` (several may be at work)."""
        return lambda done, total: self.fits(done, total, trial)

    def _fits_at_work(self) -> tuple[int, int]:
        """Fits done and total, summed over the trials at work."""
        return sum(d for d, _ in self._fit_counts.values()), sum(t for _, t in self._fit_counts.values())

    def _at_work(self) -> str:
        """'trial 3/10', or 'trials 3-4/10' when several are at work."""
        at_work = max(1, len(self._fit_counts))
        first = self.done + 1
        trials = f"trial {first}" if at_work == 1 else f"trials {first}-{min(self.total, first + at_work - 1)}"
        return f"{trials}/{self.total}"

    def _beat(self) -> None:
        """Every second: after ``SILENCE_LIMIT`` s without a line, say where the trial is (a bar: redraw it)."""
        while not self._stop.wait(1.0):
            now = time.monotonic()
            if now - self._last_line < SILENCE_LIMIT:
                continue
            self._last_line = now
            if self.bars:
                if self._fits is not None:
                    self._fits.refresh()
                continue
            with self._lock:
                done, total = self._fits_at_work()
                at_work = self._at_work()
            log.info("%s%s still at work, %s into it%s", self._prefix, at_work,
                     tqdm.format_interval(now - self._trial_start),
                     f", model selection {done}/{total} fits" if total else "")

    def close(self) -> None:
        """Stop the heartbeat; end the bars (the trials bar stays on screen, the fits bar goes)."""
        self._stop.set()
        self._heartbeat.join()
        if self.bars:
            self._close_fits()
            self._trials.close()

    def _close_fits(self) -> None:
        if self._fits is not None:
            self._fits.close()
            self._fits = None


class OncePerRun(logging.Filter):
    """Lets each distinct ``model: ...`` line (the path a model takes, logged by every trial's fit) through once.

    Installed on the rfbench logger for one run; the trial workers, forked after the first trial, inherit
    the lines it has let through, so a run of N trials prints its model's path once, not N times.
    """

    PREFIX = "model: "

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if not message.startswith(self.PREFIX):
            return True
        if message in self.seen:
            return False
        self.seen.add(message)
        return True


@contextlib.contextmanager
def trial_progress(total: int, done: int, stream: TextIO | None = None, name: str = "") -> Iterator[TrialProgress]:
    """A :class:`TrialProgress` for run ``name``, bars if ``stream`` (stderr) is a terminal; the model's
    path printed once in it (:class:`OncePerRun`)."""
    stream = stream or sys.stderr
    bars = interactive(stream)
    once = OncePerRun()
    log.addFilter(once)
    try:
        with logging_redirect_tqdm() if bars else contextlib.nullcontext():
            progress = TrialProgress(total, done, bars, stream, name)
            try:
                yield progress
            finally:
                progress.close()
    finally:
        log.removeFilter(once)
