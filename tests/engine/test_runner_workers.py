"""The runner's trial workers: forked processes, one per core, recording what a serial run records."""
import multiprocessing
import os
import signal
import time

import pandas as pd
import pytest

from rfbench.engine import interrupt, records, runner
from tests.engine.test_runner import compose_cfg


def test_trials_in_worker_processes_record_what_a_serial_run_records(tmp_path, monkeypatch):
    """Trials after the first run in forked workers (here 2 of them), a last one alone here after them, and
    are recorded bit for bit as a serial run records them: the same rows (timings aside) and grid scores."""
    overrides = ("classifier=liblinear", "classifier.log2_C=[-1,0,1]", "classifier.cv=2", "experiment.trials=4",
                 "experiment.blas_threads=2")
    real = runner._trial

    def trial_with_pid(*args):
        row, grid = real(*args)
        return {**row, "pid": os.getpid()}, grid

    monkeypatch.setattr(runner, "_trial", trial_with_pid)
    parallel = runner.run(compose_cfg(tmp_path / "parallel", *overrides))
    assert list(parallel.loc[[0, 3], "pid"]) == [os.getpid()] * 2 and os.getpid() not in set(parallel.loc[1:2, "pid"])
    monkeypatch.setattr(runner, "_trial_workers", lambda cfg, n_trials: 1)
    serial = runner.run(compose_cfg(tmp_path / "serial", *overrides))
    assert set(serial["pid"]) == {os.getpid()}
    same = [c for c in serial if not c.startswith(("time_", "memory_")) and c not in ("pid", "experiment.results_dir")]
    pd.testing.assert_frame_equal(parallel[same], serial[same])
    grids = [records.read_trials(records.record_paths(tmp_path / run, "**/grid.csv")[0])  # plain or gzipped
             for run in ("parallel", "serial")]
    pd.testing.assert_frame_equal(*grids)


@pytest.mark.parametrize(("blas_threads", "n_trials", "workers"), [(None, 9, len(os.sched_getaffinity(0))),
                                                                   (2, 9, 2), (2, 1, 1), (1, 9, 1), (4, 3, 3)])
def test_trials_run_in_one_worker_per_core_of_the_job(blas_threads, n_trials, workers):
    assert runner._trial_workers({"experiment": {"blas_threads": blas_threads}}, n_trials) == workers


@pytest.mark.parametrize(("n_trials", "workers", "in_workers", "last"), [
    (9, 2, 8, 1), (8, 2, 8, 0), (2, 2, 2, 0), (5, 1, 5, 0), (9, 4, 8, 1), (10, 4, 8, 2), (11, 4, 11, 0)])
def test_a_last_round_keeping_at_most_half_the_workers_busy_runs_alone_on_all_cores(n_trials, workers, in_workers,
                                                                                     last):
    trials = list(range(1, n_trials + 1))
    assert runner._last_round(trials, workers) == (trials[:in_workers], trials[in_workers:])
    assert len(trials[in_workers:]) == last


@pytest.mark.parametrize(("copies", "workers"), [(0.5, 1), (1.5, 1), (2.5, 2), (10, 4)])
def test_no_more_trial_workers_than_the_available_memory_holds_copies_of_the_process(monkeypatch, copies, workers):
    """Each worker may grow to this process's peak: 4 cores but memory for ``copies`` peaks give ``workers``."""
    import resource
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    monkeypatch.setattr(runner.config_, "available_memory", lambda: int(copies * peak))
    assert runner._trial_workers({"experiment": {"blas_threads": 4}}, 9) == workers


def _deaf_to_sigterm(deaf) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # as a worker that got SIGTERM in fork's window, before its handlers
    deaf.set()
    time.sleep(600)


def test_workers_that_miss_their_sigterm_are_killed_after_the_grace():
    """A Ctrl-C in the window where the workers are forked used to leave one waiting for trials forever
    (its SIGTERM dropped by the parent's deferring handler it still had), and the run never exited."""
    context = multiprocessing.get_context("fork")
    ready = context.Event()
    deaf = context.Process(target=_deaf_to_sigterm, args=(ready,), daemon=True)
    deaf.start()
    assert ready.wait(60)
    started = time.monotonic()
    runner._end([deaf], grace=0.5)
    assert deaf.exitcode == -signal.SIGKILL and time.monotonic() - started < 30


def test_a_worker_killed_by_a_signal_ends_the_run_in_one_line_and_a_rerun_resumes(tmp_path, monkeypatch):
    """As the OOM killer would: SIGKILL on the worker computing trial 2.  The run ends with WorkerKilled
    (one line: the signal, the trials recorded, how to resume; exit 128 + 9), its records whole; the same
    command then records every trial once (issue 48)."""
    parent, real = os.getpid(), runner._trial

    def killed_at_trial_2(cfg, data, kernel, t, *args):
        if t == 2 and os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(cfg, data, kernel, t, *args)

    monkeypatch.setattr(runner, "_trial", killed_at_trial_2)
    cfg = compose_cfg(tmp_path, "experiment.trials=4", "experiment.blas_threads=2")
    with pytest.raises(interrupt.WorkerKilled) as killed:
        runner.run(cfg)
    done, total = killed.value.trials
    assert total == 4 and 1 <= done <= 3 and killed.value.signum == signal.SIGKILL
    assert interrupt.message(killed.value) == (f"a trial worker was killed (signal 9; out of memory?) after {done} "
                                               "of 4 trials; rerun the same command to resume")
    monkeypatch.setattr(runner, "_trial", real)
    trials = runner.run(cfg)
    assert list(trials["trial"]) == [0, 1, 2, 3]
