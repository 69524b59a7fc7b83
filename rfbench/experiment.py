"""The trial runner: one composed config -> N independent trials -> tidy CSVs.

For trial t (seeded by ``SeedSequence(experiment.seed, spawn_key=(t,))``) it
samples the feature map on the training split, measures the relative Gram error
||K - K~||_F / ||K||_F on ``n_gram`` random training points, trains the
classifier on the features (C by cross-validation) and scores the test split in
chunks, timing each stage.  Trials already in ``trials.csv`` are skipped; a run that
fails before recording any trial leaves no run directory behind.
"""
from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from omegaconf import OmegaConf
from threadpoolctl import threadpool_limits

from rfbench import atomic, config as config_, results
from rfbench.classifier import LibLinearClassifier
from rfbench.dataset import Dataset, load_dataset
from rfbench.feature_map import FEATURE_MAPS
from rfbench.kernel import Kernel, make_kernel
from rfbench.metrics import accuracy, relative_gram_error
from rfbench.progress import TrialProgress, trial_progress

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
    with threadpool_limits(limits=cfg["experiment"]["blas_threads"]):
        data = load_dataset(cfg["dataset"])
        kernel = _check_against_data(cfg, data)  # the last checks: nothing is written before them
        out = results.run_dir(cfg)
        new = [p for p in out.parents if not p.exists()]  # innermost first
        out.mkdir(parents=True, exist_ok=True)
        try:
            with _log_to(out / "run.log"):
                _prepare(cfg, out, start)
                _run_trials(cfg, data, kernel, out)
                return _summarize(out)
        except BaseException:
            _remove_if_no_trials(out, new)
            raise


def _remove_if_no_trials(out: Path, new: list[Path]) -> None:
    """After a failure: remove ``out`` if it holds no trial, and the folders ``new`` left empty."""
    if results.remove_if_no_trials(out):
        log.info("removed %s: the run failed before recording a trial", out)
        for folder in new:
            with contextlib.suppress(OSError):  # not empty: another run is there
                folder.rmdir()


def _prepare(cfg: dict, out: Path, start: float) -> None:
    """Write the config; clear what killed writers left (temporaries, a row cut short)."""
    for tmp in atomic.remove_stale_temporaries(out, before=start):
        log.info("removed %s, left by a killed write", tmp)
    results.repair_trials(out / "trials.csv")
    results.write_atomic(out / "config.yaml", OmegaConf.to_yaml(OmegaConf.create(cfg)))


def _run_trials(cfg: dict, data: Dataset, kernel: Kernel, out: Path) -> None:
    """Compute the trials missing from ``out``, leaving those another process holds to it."""
    exp = cfg["experiment"]
    if exp["force"]:
        results.clear_trials(out / "trials.csv")
    todo = sorted(set(range(exp["trials"])) - results.recorded(out / "trials.csv"))
    log.info("run %s: %s, %d trial(s) to do in %s", out.name, _describe(cfg), len(todo), out)
    with trial_progress(exp["trials"], exp["trials"] - len(todo)) as progress:
        busy = [t for t in todo if not _run_trial(cfg, data, kernel, out, t, progress, wait=False)]
        for t in busy:  # wait for the other process, and compute the trial if it died
            _run_trial(cfg, data, kernel, out, t, progress, wait=True)


def _summarize(out: Path) -> pd.DataFrame:
    """Write ``summary.csv`` over every recorded trial (a rerun with fewer trials drops none)."""
    trials = results.read_trials(out / "trials.csv")
    summary = results.summarize(trials)
    results.write_csv(out / "summary.csv", summary)
    log.info("summary over %d trial(s): %s", len(trials), _format_summary(summary))
    return trials


def _run_trial(cfg: dict, data: Dataset, kernel: Kernel, out: Path, t: int, progress: TrialProgress,
               *, wait: bool) -> bool:
    """Compute and record trial ``t`` unless it is recorded; False if another process holds it."""
    with results.claim(out, t, wait=wait) as claimed:
        if not claimed:
            return False
        if t not in results.recorded(out / "trials.csv"):
            row = {**config_.flatten(cfg), "run_id": out.name, "trial": t,
                   "seed": cfg["experiment"]["seed"], **_trial(cfg, data, kernel, t, progress.fits)}
            results.record_trial(out / "trials.csv", row)
            log.info("trial %d: %s", t, _format_metrics(row))
        progress.trial_done()
    return True


def _trial(cfg: dict, data: Dataset, kernel: Kernel, t: int, fits: FitProgress | None) -> dict[str, Any]:
    """One trial: sample the map, measure the Gram error, train and test (``fits``: see build_classifier)."""
    exp = cfg["experiment"]
    fmap_seed, gram_seed, clf_seed = (
        int(s.generate_state(1)[0])
        for s in np.random.SeedSequence(exp["seed"], spawn_key=(t,)).spawn(3))
    fmap = build_feature_map(cfg, data.d, fmap_seed)
    row: dict[str, Any] = {"d": data.d, "n_train": len(data.y_train), "n_test": len(data.y_test),
                           "n_classes": data.n_classes, "deviations": "; ".join(data.deviations)}
    start = time.perf_counter()
    fmap.fit(data.X_train)
    row["time_fit"] = time.perf_counter() - start
    row.update(_fitted_stats(fmap, data.d))
    if exp["n_gram"]:
        start = time.perf_counter()
        row["gram_error"] = _gram_error(cfg, data, kernel, fmap, gram_seed)
        row["time_gram"] = time.perf_counter() - start
    if cfg["classifier"]["name"] != "none":
        row.update(_classify(cfg, data, fmap, clf_seed, fits))
    return row


def build_feature_map(cfg: Mapping[str, Any], d: int, random_state: int):
    """The (unfitted) scikit-learn transformer described by ``cfg['feature_map']``."""
    fmap = dict(cfg["feature_map"])
    name = fmap.pop("name")
    params = {k: v for k, v in fmap.items() if k not in ("m_over_d", "n_components")}
    if name == "identity":
        return FEATURE_MAPS[name](**params)
    params.update(n_components=config_.n_components(cfg["feature_map"], d), random_state=random_state)
    if name == "rff":
        params["sigma"] = cfg["kernel"]["sigma"]
    else:
        params.update(kernel=cfg["kernel"]["name"], kernel_params=_kernel_params(cfg))
    return FEATURE_MAPS[name](**params)


def _kernel_params(cfg: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in cfg["kernel"].items() if k != "name" and v is not None}


def _fitted_stats(fmap, d: int) -> dict[str, Any]:
    """Sizes, total masses and acceptance rates of a fitted map, for the result row."""
    stats: dict[str, Any] = {"M": getattr(fmap, "n_components", d),
                             "m_over_d": getattr(fmap, "n_components", d) / d}
    for part, mass in getattr(fmap, "total_masses_", {}).items():
        stats[f"mass_{part}"] = mass
    for part, rate in getattr(fmap, "acceptance_rates_", {}).items():
        stats[f"acceptance_{part}"] = rate
    return stats


def _gram_error(cfg: dict, data: Dataset, kernel: Kernel, fmap, seed: int) -> float:
    rng = np.random.default_rng(seed)
    X = data.X_train[rng.choice(len(data.X_train), cfg["experiment"]["n_gram"], replace=False)]
    K = kernel(X, X)
    if cfg["feature_map"].get("part") == "symmetric":
        K = (K + K.T) / 2  # "Sym" approximates the symmetric part of the kernel
    return relative_gram_error(K, fmap, X, block_size=cfg["experiment"]["gram_block"])


def _classify(cfg: dict, data: Dataset, fmap, seed: int, fits: FitProgress | None) -> dict[str, Any]:
    chunk = cfg["experiment"]["chunk_rows"]
    start = time.perf_counter()
    Z = fmap.transform(data.X_train)
    row: dict[str, Any] = {"n_features": Z.shape[1], "time_transform": time.perf_counter() - start}
    clf = build_classifier(cfg, seed, progress=fits)
    start = time.perf_counter()
    with _reported_as("classifier", cfg):  # e.g. more columns than solver=newton takes, known only now
        clf.fit(Z, data.y_train)
    row["time_train"] = time.perf_counter() - start
    del Z
    start = time.perf_counter()
    y_pred = np.concatenate([clf.predict(fmap.transform(data.X_test[i:i + chunk]))
                             for i in range(0, len(data.X_test), chunk)])  # labels only: features stay chunked
    row["time_predict"] = time.perf_counter() - start
    row.update(test_accuracy=accuracy(data.y_test, y_pred), C=clf.C_,
               cv_accuracy=float(np.max(clf.cv_scores_)) if clf.cv_scores_ is not None else np.nan)
    return row


def build_classifier(cfg: Mapping[str, Any], random_state: int,
                     progress: FitProgress | None = None) -> LibLinearClassifier:
    """The (unfitted) classifier described by ``cfg['classifier']``; ``progress(done, total)`` counts its fits."""
    clf = cfg["classifier"]
    return LibLinearClassifier(solver=clf["solver"], C_grid=[2.0 ** e for e in clf["log2_C"]], cv=clf["cv"],
                               bias=clf["bias"], tol=clf["tol"], random_state=random_state,
                               n_jobs=_cv_threads(cfg), progress=progress)


def _cv_threads(cfg: Mapping[str, Any]) -> int:
    """Threads training CV folds: ``classifier.n_jobs``, else as many as the job's BLAS threads.

    Solvers 0, 2 and "newton" give the same model for any thread count, so this is an execution setting.
    """
    return cfg["classifier"].get("n_jobs") or cfg["experiment"]["blas_threads"] or os.cpu_count() or 1


def _check_against_data(cfg: dict, data: Dataset) -> Kernel:
    """Check what needs the data; return the kernel, built once for all trials.

    The components check their own parameters (``kernel.r`` needs d), and their
    ValueErrors become ConfigErrors on their config group.
    """
    n_gram, n = cfg["experiment"]["n_gram"], len(data.y_train)
    if n_gram > n:
        raise config_.ConfigError(
            f"experiment.n_gram={n_gram} is invalid: dataset {data.name} has only {n} training "
            f"points; choose 0 <= n_gram <= {n}")
    with _reported_as("kernel", cfg):
        kernel = make_kernel(cfg["kernel"]["name"], data.d, **_kernel_params(cfg))
    with _reported_as("feature_map", cfg):
        build_feature_map(cfg, data.d, random_state=0).check_params()
    if cfg["classifier"]["name"] != "none":
        with _reported_as("classifier", cfg):
            classifier = build_classifier(cfg, random_state=0)
            classifier.check_params()
            classifier.check_cv(data.y_train)
    config_.check_memory(cfg, len(data.y_train), data.d)
    return kernel


@contextlib.contextmanager
def _reported_as(group: str, cfg: Mapping[str, Any]) -> Iterator[None]:
    try:
        yield
    except ValueError as err:
        raise config_.ConfigError(f"{group}={cfg[group]['name']}: {err}") from err


def _describe(cfg: dict) -> str:
    fmap = cfg["feature_map"]
    size = f" M/d={fmap.get('m_over_d')}" if fmap["name"] != "identity" else ""
    return f"dataset={cfg['dataset']['name']} kernel={cfg['kernel']['name']} feature_map={fmap['name']}{size}"


def _format_metrics(row: Mapping[str, Any]) -> str:
    keys = ("test_accuracy", "gram_error", "C", "time_fit", "time_train")
    return ", ".join(f"{k}={row[k]:.4g}" for k in keys if k in row)


def _format_summary(summary: pd.DataFrame) -> str:
    rec = summary.iloc[0]
    keys = ("test_accuracy", "gram_error", "time_fit", "time_train")
    return "; ".join(f"{k} = {results.format_mean_sd(rec, k)}" for k in keys if f"{k}_mean" in rec)


@contextlib.contextmanager
def _log_to(path: Path) -> Iterator[None]:
    """Also write the rfbench log of this run to ``path``."""
    handler = logging.FileHandler(path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    try:
        yield
    finally:
        log.removeHandler(handler)
        handler.close()
