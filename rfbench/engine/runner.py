"""The trial runner: one composed config -> N independent trials -> tidy CSVs.

The components (kernel, feature map, model) come from the config through
``rfbench.engine.components``; the kernel is built once per run.  For trial t (seeded by
``SeedSequence(experiment.seed, spawn_key=(t,))``) the runner samples the feature map
on the training split, measures the relative Gram error ||K - K~|| / ||K|| (norms
``experiment.gram_norms``) on ``n_gram`` random training points, trains the model on
the features (its hyperparameters chosen over its grid) and scores the test split by
the dataset's task, in chunks, timing each stage.  A trial's row goes to
``trials.csv``, its grid scores to ``grid.csv``.  Trials already in ``trials.csv``
are skipped; a run that fails before recording any trial leaves no run directory (one it found, such as a
committed config-only folder, it leaves as it was).
The first trial to do runs in this process; the others run in as many forked worker
processes as the job has cores (``_trial_workers``), each with the job's BLAS threads and
its model's folds in one thread, except a last round that would leave most workers idle: its
trials run here after them, one at a time on all the cores (``_last_round``).  A trial's numbers
are those of a serial run, bit for bit.
"""
from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from rfbench.dataset import Dataset, load_dataset
from rfbench.engine import components, interrupt, jobs, records
from rfbench.engine import config as config_
from rfbench.engine.memory import peak_mib
from rfbench.engine.progress import TRIAL_LOG, TrialProgress, trial_progress
from rfbench.kernel import Kernel
from rfbench.metrics import relative_gram_errors, test_scores

log = logging.getLogger("rfbench")

#: ``progress(done, total)``, called after each model-selection fit.
FitProgress = Callable[[int, int], None]


def run(cfg: Mapping[str, Any]) -> pd.DataFrame:
    """Run (or resume) every trial of a resolved config; return its trials table.

    Trials already in ``trials.csv`` are skipped (all are recomputed with
    ``experiment.force``), and trials another process is computing are left to
    it, then waited for; so reruns, interrupted runs and concurrent runs of one
    config all end with each trial recorded exactly once.
    """
    start = time.time()
    cfg = config_.to_dict(cfg)
    config_.validate(cfg)
    with records.machine_faults():  # a read-only or full disk, a file where a folder belongs: one line
        return jobs.run(cfg) if jobs.is_job(cfg) else _run(cfg, start)


def _run(cfg: dict, start: float) -> pd.DataFrame:
    """:func:`run` of a validated runner config (not a job)."""
    components.check_compatible(cfg)
    with threadpool_limits(limits=cfg["experiment"]["blas_threads"]):
        data = load_dataset(cfg["dataset"])
        kernel = _check_against_data(cfg, data)  # the last checks: nothing is written before them
        out = records.run_dir(cfg)
        grid = out / "grid.csv"
        index = out / "trials.csv"
        for path in (out, index, records.gzipped(index), grid, records.gzipped(grid)):  # what a resume reads and writes
            records.inside(Path(cfg["experiment"]["results_dir"]), path)
        new = [p for p in out.parents if not p.exists()]  # innermost first
        found = out.exists()  # e.g. a committed config-only folder: a failure here must not delete it
        out.mkdir(parents=True, exist_ok=True)
        try:
            with _log_to(out / "run.log"):
                _run_trials(cfg, data, kernel, out, _prepare(cfg, out, start))
                return _summarize(out)
        except BaseException as caught:
            err = interrupt.as_interruption(caught)
            if isinstance(err, KeyboardInterrupt):  # Ctrl-C, SIGTERM: the message says how far the run got
                trials = cfg["experiment"]["trials"]
                interrupt.note_trials(err, len(records.recorded(out / "trials.csv") & set(range(trials))), trials)
            with contextlib.suppress(OSError, records.RecordError):  # the error being raised says what is wrong
                if not found:
                    _remove_if_no_trials(out, new)
            if err is caught:
                raise
            raise err from caught


def compute_trial(cfg: Mapping[str, Any], t: int) -> tuple[dict[str, Any], pd.DataFrame | None]:
    """Trial ``t`` of a resolved config, computed and returned, not recorded (e.g. to check a record).

    Returns the trial's measurements (the row without the config columns) and its grid scores.
    """
    cfg = config_.to_dict(cfg)
    config_.validate(cfg)
    components.check_compatible(cfg)
    with threadpool_limits(limits=cfg["experiment"]["blas_threads"]):
        data = load_dataset(cfg["dataset"])
        return _trial(cfg, data, _check_against_data(cfg, data), t, None)


def _remove_if_no_trials(out: Path, new: list[Path]) -> None:
    """After a failure: remove ``out`` if it holds no trial, and the folders ``new`` left empty."""
    if records.remove_if_no_trials(out):
        log.info("removed %s: the run failed before recording a trial", out)
        for folder in new:
            with contextlib.suppress(OSError):  # not empty: another run is there
                folder.rmdir()


def _prepare(cfg: dict, out: Path, start: float) -> list[int]:
    """Clear what killed writers left (temporaries, a row cut short, a frame in both forms); return the
    trials to do, and write the run's config once, when it starts (:func:`records.write_config`)."""
    records.repair_run(out, started=start)
    trials = range(cfg["experiment"]["trials"])
    todo = list(trials) if cfg["experiment"]["force"] else sorted(set(trials) - records.recorded(out / "trials.csv"))
    records.write_config(out, cfg)
    return todo


def _run_trials(cfg: dict, data: Dataset, kernel: Kernel, out: Path, todo: list[int]) -> None:
    """Compute the trials ``todo`` (those missing from ``out``), leaving those another process holds to it."""
    exp = cfg["experiment"]
    if exp["force"]:
        records.clear_trials(out / "trials.csv")
        records.clear_trials(out / "grid.csv")
    recorded = exp["trials"] - len(todo)
    log.info("run %s: %s -> %s", out.name, _describe(cfg), out)
    log.info("%d of %d trials already recorded; computing %d", recorded, exp["trials"], len(todo))
    with trial_progress(exp["trials"], recorded, name=f"run {out.name}") as progress:
        # The first trial here: a config error known only from the features surfaces as in a serial
        # run, and the workers, forked after it, inherit its warm caches (numba's kernels, the data).
        busy = [t for t in todo[:1] if not _run_trial(cfg, data, kernel, out, t, progress, wait=False)]
        rest, workers = todo[1:], _trial_workers(cfg, len(todo) - 1)
        rest, last = _last_round(rest, workers)
        if workers > 1:
            busy += _run_in_workers(cfg, data, kernel, out, rest, progress, workers)
        else:
            busy += [t for t in rest if not _run_trial(cfg, data, kernel, out, t, progress, wait=False)]
        busy += [t for t in last if not _run_trial(cfg, data, kernel, out, t, progress, wait=False)]
        for t in busy:  # wait for the other process, and compute the trial if it died
            _run_trial(cfg, data, kernel, out, t, progress, wait=True)


def _last_round(trials: list[int], workers: int) -> tuple[list[int], list[int]]:
    """(for the workers, for this process after them): the trials of a last round that would keep at most
    half the workers busy (GCWS letter_li's 10 trials: 1 first, 8 in two workers, 1 last), which then run
    one at a time with all the cores' threads, not each on one core beside idle ones."""
    alone = len(trials) % workers if workers > 1 else 0
    return (trials[:-alone], trials[-alone:]) if 0 < 2 * alone <= workers else (trials, [])


def _trial_workers(cfg: Mapping[str, Any], n_trials: int) -> int:
    """Processes computing ``n_trials`` trials at once: the job's cores (``experiment.blas_threads``,
    else the CPUs this process may use), at most one per trial; 1 where ``fork`` is not available.

    Trials in processes rather than one trial's CV folds in threads: the fold threads share one GIL
    for the solver's per-step Python work, and every stage (transform, Gram error, refit) then runs
    on all cores.  Two trials at once hold twice one trial's memory, so there are no more workers
    than the available memory holds copies of this process at its peak (the first trial's, an upper
    bound: the data a fork shares is counted in each).
    """
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    cores = cfg["experiment"]["blas_threads"] or len(os.sched_getaffinity(0))
    workers = max(1, min(cores, n_trials))
    import resource  # POSIX, as fork is
    peak, available = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, config_.available_memory()
    if available is not None and workers > 1 and workers * peak > available:
        fits = max(1, min(workers, available // peak))
        log.info("%d trial(s) at once, not %d: %d would need %.1f GiB, %.1f GiB available",
                 fits, workers, workers, workers * peak / 2**30, available / 2**30)
        return fits
    return workers


def _run_in_workers(cfg: dict, data: Dataset, kernel: Kernel, out: Path, todo: list[int], progress: TrialProgress,
                    workers: int) -> list[int]:
    """Compute and record the trials ``todo`` in ``workers`` forked processes; return those another process holds.

    Each worker takes trials from a queue, claims and records each itself (``records.claim``,
    atomic writes), as a concurrent run of the same config would.  An error in a worker is raised
    here; on any error or interrupt the workers are terminated, and what a killed one was writing is
    a temporary the next run removes.
    """
    context = multiprocessing.get_context("fork")
    tasks, results, fits = context.SimpleQueue(), context.Queue(), context.Queue()
    processes, busy = [], []
    try:
        with _signals_deferred():  # one handled in os.fork's hooks would be lost there
            for _ in range(workers):
                processes.append(context.Process(target=_worker, args=(cfg, data, kernel, out, tasks, results, fits),
                                                 name="rfbench-trials", daemon=True))
                processes[-1].start()
        with _forwarded_fits(fits, progress):
            for t in [*todo, *[None] * workers]:  # None: no more trials; after the start, as a full pipe blocks
                tasks.put(t)
            for _ in todo:
                t, claimed = _next_result(results, processes)
                if claimed:
                    progress.trial_done(t)
                else:
                    busy.append(t)
    finally:
        _end(processes)
    return busy


@contextlib.contextmanager
def _forwarded_fits(fits, progress: TrialProgress) -> Iterator[None]:
    """The workers' model-selection fits, (trial, done, total) on ``fits``, shown by ``progress`` while the block runs:
    the bar moves inside the trials at work, not only when one ends."""
    stop = threading.Event()

    def forward() -> None:  # polls: a sentinel could wait behind the write lock of a worker killed mid-put
        while not stop.is_set():
            with contextlib.suppress(queue.Empty):
                t, done, total = fits.get(timeout=0.2)
                progress.fits(done, total, t)

    thread = threading.Thread(target=forward, name="rfbench-fits", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=1.0)


def _end(processes: list[multiprocessing.Process], grace: float = 5.0) -> None:
    """Terminate the workers (SIGTERM: no-op on one that has ended), then kill any still alive
    ``grace`` seconds later: a SIGTERM that reaches a worker before it sets its handlers (fork's window,
    where it still has the parent's deferring one) is noted and dropped, and the worker would wait for
    trials forever."""
    for process in processes:
        process.terminate()
    deadline = time.monotonic() + grace  # one grace for all workers, not one each
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.exitcode is None:
            process.kill()
            process.join()


def _next_result(results: multiprocessing.Queue, processes: list) -> tuple[int, bool]:
    """The next (trial, claimed) from the workers; a worker's error raised here, WorkerKilled if a worker
    was killed by a signal (SIGKILL: e.g. the OOM killer), or RuntimeError if one exited otherwise or all
    have ended with trials unaccounted for."""
    while True:
        try:
            t, claimed, error = results.get(timeout=1.0)
        except queue.Empty:
            if killed := [p.exitcode for p in processes if p.exitcode not in (None, 0)]:
                if killed[0] < 0:  # the run's message counts the trials recorded (interrupt.note_trials)
                    raise interrupt.WorkerKilled(-killed[0]) from None
                raise RuntimeError(f"a trial worker process died (exit code {killed[0]})") from None
            if all(p.exitcode == 0 for p in processes) and results.empty():
                raise RuntimeError("the trial worker processes ended with trials not recorded") from None
            continue
        if error is not None:
            raise error
        return t, claimed


def _worker(cfg: dict, data: Dataset, kernel: Kernel, out: Path, tasks, results, fits) -> None:
    """A forked worker: compute and record trials from ``tasks`` until None, putting (trial, claimed, error)
    on ``results`` and its model's fits, (trial, done, total), on ``fits``; an error ends it.

    Ctrl-C is left to the parent (which ends the workers), SIGTERM kills.  Its models train their
    folds in one thread (the results do not depend on it); BLAS keeps the job's threads, as a
    Frobenius norm (ddot) sums in per-thread parts: the Gram error is then the serial run's, bit
    for bit.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    while (t := tasks.get()) is not None:
        try:
            claimed = _run_trial(cfg, data, kernel, out, t, None, wait=False, cv_threads=1,
                                 fits=lambda done, total, t=t: fits.put((t, done, total)))
            results.put((t, claimed, None))
        except Exception as error:  # raised again in the parent
            results.put((t, False, error))
            return


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM noted in the block and raised again on leaving it, to their usual handlers.

    Python runs a signal's handler at its next check, which may fall in ``os.fork``'s hooks
    (logging's), where the Interrupted it raises would be printed and dropped.
    """
    received: list[int] = []
    previous = {signum: signal.signal(signum, lambda signum, frame: received.append(signum))
                for signum in interrupt.SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if received:
            signal.raise_signal(received[0])


def _summarize(out: Path) -> pd.DataFrame:
    """Write ``summary.csv`` over every recorded trial (a rerun with fewer trials drops none)."""
    trials = records.read_trials(out / "trials.csv")
    summary = records.summarize(trials)
    records.write_csv(out / "summary.csv", summary)
    log.info("summary over %d trial(s): %s", len(trials), _format_summary(summary))
    log.info("results in %s: trials.csv (a row per trial), %ssummary.csv, config.yaml, run.log (each trial's line)",
             out, "grid.csv, " if records.stored(out / "grid.csv").exists() else "")
    return trials


def _run_trial(cfg: dict, data: Dataset, kernel: Kernel, out: Path, t: int, progress: TrialProgress | None,
               *, wait: bool, cv_threads: int | None = None, fits: FitProgress | None = None) -> bool:
    """Compute and record trial ``t`` unless it is recorded; False if another process holds it.

    The model's grid scores go to ``grid.csv`` first: a trial counts as done once its row is in
    ``trials.csv``, and a trial computed again replaces its grid rows.  ``cv_threads``: threads
    training the model's folds, if not ``_cv_threads(cfg)``; ``fits``: where the model reports its
    fits, if not ``progress`` (a worker's, sent to its parent).  The trial's line goes to ``run.log``.
    """
    with records.claim(out, t, wait=wait) as claimed:
        if not claimed:
            return False
        if t not in records.recorded(out / "trials.csv"):
            measured, grid = _trial(cfg, data, kernel, t, fits or (progress and progress.fits_of(t)), cv_threads)
            ids = {"run_id": out.name, "trial": t}
            if grid is not None:
                records.record_grid(out / "grid.csv", grid.assign(**ids))
            row = {**config_.flatten(cfg), **ids, "seed": cfg["experiment"]["seed"], **measured}
            records.record_trial(out / "trials.csv", row)
            TRIAL_LOG.info("trial %d/%d: %s", t + 1, cfg["experiment"]["trials"], _format_metrics(row))  # 1-based
        if progress is not None:  # a worker's trials are counted by its parent
            progress.trial_done(t)
    return True


def _trial(cfg: dict, data: Dataset, kernel: Kernel, t: int, fits: FitProgress | None,
           cv_threads: int | None = None) -> tuple[dict[str, Any], pd.DataFrame | None]:
    """One trial: sample the map, measure the Gram error, train and test; its row and grid scores."""
    exp = cfg["experiment"]
    fmap_seed, gram_seed, model_seed = (
        int(s.generate_state(1)[0])
        for s in np.random.SeedSequence(exp["seed"], spawn_key=(t,)).spawn(3))
    fmap = components.build_feature_map(cfg, kernel, fmap_seed)
    row: dict[str, Any] = {"d": data.d, "n_train": len(data.y_train), "n_test": len(data.y_test)}
    if data.task == "classification":
        row["n_classes"] = data.n_classes
    start = time.perf_counter()
    with components.reported_as("feature_map", cfg), peak_mib(row, "memory_fit"):  # e.g. GCWS and an all-zero row
        fmap.fit(data.X_train)
    row["time_fit"] = time.perf_counter() - start
    m = getattr(fmap, "n_components", data.d)
    row.update(M=m, m_over_d=m / data.d, **fmap.fit_record())
    if exp["n_gram"]:
        start = time.perf_counter()
        with components.reported_as("feature_map", cfg):  # e.g. GCWS on an all-zero row of the sample
            row.update(_gram_errors(cfg, data, kernel, fmap, gram_seed))
        row["time_gram"] = time.perf_counter() - start
    deviations, grid = list(data.deviations), None
    model = components.build_model(cfg, model_seed, n_jobs=cv_threads or _cv_threads(cfg), progress=fits)
    if model is not None:
        row.update(_fit_model(cfg, data, fmap, model))
        grid = model.grid_scores_
        if model.selected_on_test_:
            deviations.append(TEST_GRID_DEVIATION)
    elif exp.get("time_transform"):  # no model, but the map's cost on the training set is asked for
        row.update(_train_features(cfg, data, fmap)[1])
    row["deviations"] = "; ".join(deviations)
    return row, grid


#: Said by every row whose hyperparameters were chosen on the test set.
TEST_GRID_DEVIATION = ("hyperparameters chosen by the best test score on the grid (selection=test_grid, "
                       "Li 2017's protocol): the test score is optimistic")
#: ``experiment.n_gram``'s default: min(1000, n_train) points (a smaller dataset uses all its training rows).
DEFAULT_N_GRAM = 1000
#: Result columns of the Gram error in each norm.
GRAM_ERROR_COLUMNS = {"fro": "gram_error", "spectral": "gram_error_spectral"}


def _gram_errors(cfg: dict, data: Dataset, kernel: Kernel, fmap, seed: int) -> dict[str, float]:
    """||K - K~|| / ||K|| in each norm of ``experiment.gram_norms``, on ``n_gram`` random training points (all
    of them if fewer: the default's min(1000, n_train))."""
    exp = cfg["experiment"]
    rng = np.random.default_rng(seed)
    X = data.X_train[rng.choice(len(data.X_train), min(exp["n_gram"], len(data.X_train)), replace=False)]
    K = fmap.approximated_gram(kernel(X, X))
    errors = relative_gram_errors(K, fmap, X, norms=tuple(exp.get("gram_norms", ["fro"])),
                                  block_size=exp["gram_block"])
    return {GRAM_ERROR_COLUMNS[norm]: value for norm, value in errors.items()}


def _fit_model(cfg: dict, data: Dataset, fmap, model) -> dict[str, Any]:
    """Train ``model`` on the training features and score it on the test set, in chunks of rows.

    A model selecting on the test set (``selection=test_grid``) gets the test features in ``fit``.
    """
    chunk = cfg["experiment"]["chunk_rows"]
    Z, row = _train_features(cfg, data, fmap)
    on_test = model.get_params().get("selection") == "test_grid"
    with components.reported_as("feature_map", cfg):
        Z_test = _transform(fmap, data.X_test, chunk) if on_test else None
    start = time.perf_counter()
    components.check_model_memory(cfg, model, Z)
    with components.reported_as("classifier", cfg):  # e.g. more columns than solver=newton takes, known only now
        model.fit(Z, data.y_train, *((Z_test, data.y_test) if on_test else ()))
    row["time_train"] = time.perf_counter() - start
    del Z
    start = time.perf_counter()
    if on_test:
        y_pred = model.predict(Z_test)
    else:  # predictions only: the test features stay chunked
        y_pred = np.concatenate([model.predict(fmap.transform(data.X_test[i:i + chunk]))
                                 for i in range(0, len(data.X_test), chunk)])
    row["time_predict"] = time.perf_counter() - start
    row.update(test_scores(data.task, data.y_test, y_pred))
    row.update(model.best_params_)
    row[f"cv_{model.score_name}"] = model.cv_score_
    row.update(model.fit_record() if hasattr(model, "fit_record") else {})  # e.g. the solver path taken
    return row


def _train_features(cfg: dict, data: Dataset, fmap) -> tuple[Any, dict[str, Any]]:
    """The training set's features, with their width, wall time and peak traced memory."""
    start, row = time.perf_counter(), {}
    with components.reported_as("feature_map", cfg), peak_mib(row, "memory_transform"):
        Z = fmap.transform(data.X_train)
    return Z, {"n_features": Z.shape[1], "time_transform": time.perf_counter() - start, **row}


def _transform(fmap, X: np.ndarray, chunk: int):
    """``fmap.transform(X)`` computed in chunks of rows (dense or sparse)."""
    parts = [fmap.transform(X[i:i + chunk]) for i in range(0, len(X), chunk)]
    return sp.vstack(parts, format="csr") if sp.issparse(parts[0]) else np.concatenate(parts)


def _cv_threads(cfg: Mapping[str, Any]) -> int:
    """Threads training CV folds: ``classifier.n_jobs``, else as many as the job's BLAS threads.

    The models give the same result for any thread count, so this is an execution setting.
    """
    return cfg["classifier"].get("n_jobs") or cfg["experiment"]["blas_threads"] or os.cpu_count() or 1


def _check_against_data(cfg: dict, data: Dataset) -> Kernel:
    """Check what needs the data; return the kernel, built once for all trials.

    The components check their own parameters for the data's dimension (``kernel.r`` needs d),
    and their ValueErrors become ConfigErrors on their config group.
    """
    n_gram, n = cfg["experiment"]["n_gram"], len(data.y_train)
    if n_gram > n and n_gram != DEFAULT_N_GRAM:
        raise config_.ConfigError(
            f"experiment.n_gram={n_gram} is invalid: dataset {data.name} has only {n} training "
            f"points; choose 0 <= n_gram <= {n}")
    kernel = components.check(cfg, data.d, n)
    model = components.build_model(cfg, random_state=0)
    if hasattr(model, "check_cv"):
        with components.reported_as("classifier", cfg):
            model.check_cv(data.y_train)
    fmap = components.build_feature_map(cfg, kernel)
    width = fmap.output_width(data.d)
    if hasattr(model, "check_cost") and width is not None:  # before any run folder: a refusal costs nothing
        with components.reported_as("classifier", cfg):
            model.check_cost(n, width, data.n_classes, fmap.sparse_output, quiet=True)
    return kernel


def _describe(cfg: dict) -> str:
    fmap = cfg["feature_map"]
    size = f" M/d={fmap['m_over_d']}" if fmap.get("n_components") is None and "m_over_d" in fmap else (
        f" M={fmap['n_components']}" if fmap.get("n_components") is not None else "")
    return f"dataset={cfg['dataset']['name']} kernel={cfg['kernel']['name']} feature_map={fmap['name']}{size}"


def _format_metrics(row: Mapping[str, Any]) -> str:
    keys = ("test_accuracy", "test_relative_error", "gram_error", "gram_error_spectral", "C", "lambda", "gamma",
            "time_fit", "time_train")
    return ", ".join(f"{k}={row[k]:.4g}" for k in keys if k in row)


def _format_summary(summary: pd.DataFrame) -> str:
    rec = summary.iloc[0]
    keys = ("test_accuracy", "test_relative_error", "gram_error", "gram_error_spectral", "time_fit", "time_train")
    return "; ".join(f"{k} = {records.format_mean_sd(rec, k)}" for k in keys if f"{k}_mean" in rec)


@contextlib.contextmanager
def _log_to(path: Path) -> Iterator[None]:
    """Also write the rfbench log of this run to ``path``, with each trial's line (``TRIAL_LOG``: there only)."""
    handler = logging.FileHandler(path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    for logger in (log, TRIAL_LOG):
        logger.addHandler(handler)
    try:
        yield
    finally:
        for logger in (log, TRIAL_LOG):
            logger.removeHandler(handler)
        handler.close()
