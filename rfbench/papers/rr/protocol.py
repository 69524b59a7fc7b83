"""cpu_act's protocol study (issue 45; its rule: results/rr/README.md, Studies), as a job of the engine
(``rfbench job=rr_protocol dataset=cpu_act``, ``configs/job/rr_protocol.yaml``; ``make rr-cpu-act-protocol``).

The notes leave open which rows train and test, the feature scaling, sigma and lambda. One arm fixes the
first two: ``partition`` (``random``: the dataset config's seeded partition; ``file_order``: the file's
first ``n_train`` rows train, the next ``n_test`` test) and ``scaling`` (fitted on the training part:
``none``, ``minmax``, ``standard``, ``whiten``). Every arm then chooses sigma and lambda by one rule, so that
no arm is tuned: sigma = f x the median pairwise distance of :data:`MEDIAN_ROWS` training rows (L2 for the
Gaussian kernel of the Fourier features, L1 for the Laplacian kernel of the binning features), for every
factor f of ``factors``; lambda by ridge's 5-fold CV over ``2^log2_lambda`` at each sigma; the report picks
sigma by the mean CV error over the trials (:mod:`rfbench.papers.rr.report`). A binning factor whose
occupied bins exceed ``max_columns`` is recorded with its width and not fitted. Ridge decomposes the
smaller of its Grams: the p x p one (``solver="eigen"``) while the columns are at most a fold's rows, the
n x n one (``solver="dual"``, a cost set by the rows) past them; the two give the same solutions.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import time
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.spatial.distance import pdist

from rfbench.dataset.loader import Dataset
from rfbench.dataset.partition import PARTITIONS, partitioned
from rfbench.dataset.preprocessing import min_max_scale
from rfbench.engine.jobs import trial_seed
from rfbench.feature_map import GaussianRFF, RandomBinning
from rfbench.metrics import relative_error
from rfbench.model.ridge import ridge_cv

SCALINGS = ("none", "minmax", "standard", "whiten")
#: Table 1's methods: the feature map's kernel norm for the median distance ("euclidean": Gaussian, Fourier
#: features; "cityblock": Laplacian, binning features).
METHODS = {"Fourier+LS": "euclidean", "Binning+LS": "cityblock"}
#: Training rows whose median pairwise distance sets sigma's unit (drawn with the job's seed).
MEDIAN_ROWS = 1000
#: Ridge's CV folds.
FOLDS = 5


def cells(trial: int, seed: int, data: dict, partition: str, scaling: str, method: str, size: int,
          factors: Sequence[float], max_columns: int, log2_lambda: Sequence[int]) -> dict[str, pd.DataFrame]:
    """Trial ``trial`` of one cpu_act cell (``method`` with ``size`` = D or P) under one arm: a row per factor
    (sigma, columns, fitted, cv_error and test_error as fractions, lambda, time)."""
    dataset, unit = _arm(json.dumps(data, sort_keys=True), partition, scaling, METHODS[method], seed)
    fmap_seed, model_seed = trial_seed(seed, trial, 0), trial_seed(seed, trial, 1)
    rows = [_fit(dataset, method, size, f * unit, max_columns, log2_lambda, fmap_seed, model_seed) | {"factor": f}
            for f in factors]
    return {"errors": pd.DataFrame(rows).assign(partition=partition, scaling=scaling, method=method, size=size,
                                                split_seed=data["split"]["seed"], unit=unit,
                                                n_train=len(dataset.y_train), n_test=len(dataset.y_test))}


def check_params(partition: str, scaling: str, method: str, size: int, factors: Sequence[float], max_columns: int,
                 log2_lambda: Sequence[int]) -> None:
    """ValueError naming a bad value (the engine calls it before any trial)."""
    for name, value, valid in (("partition", partition, PARTITIONS), ("scaling", scaling, SCALINGS),
                               ("method", method, tuple(METHODS))):
        if value not in valid:
            raise ValueError(f"job.{name}={value!r}: choose one of {list(valid)}")
    if not (isinstance(size, int) and size > 0):
        raise ValueError(f"job.size={size!r}: a positive integer (D or P)")
    if not factors or not all(isinstance(f, (int, float)) and f > 0 for f in factors):
        raise ValueError(f"job.factors={list(factors)!r}: one or more positive numbers")
    if not (isinstance(max_columns, int) and max_columns > 0):
        raise ValueError(f"job.max_columns={max_columns!r}: a positive integer (the widest binning features fitted)")
    if not log2_lambda or not all(isinstance(e, int) for e in log2_lambda):
        raise ValueError(f"job.log2_lambda={list(log2_lambda)!r}: one or more integer exponents")


cells.check_params = check_params


def _fit(data: Dataset, method: str, size: int, sigma: float, max_columns: int, log2_lambda: Sequence[int],
         fmap_seed: int, model_seed: int) -> dict:
    """One sigma: the map fitted on the training rows, then (if within ``max_columns``) ridge CV and the test error."""
    start = time.perf_counter()
    fmap = (GaussianRFF(n_components=size, sigma=sigma, variant="cos_offset", random_state=fmap_seed)
            if method == "Fourier+LS" else RandomBinning(n_components=size, sigma=sigma, random_state=fmap_seed))
    fmap.fit(data.X_train)
    columns = fmap.n_components if method == "Fourier+LS" else len(fmap.vocabulary_)
    row = {"sigma": sigma, "columns": columns, "fitted": columns <= max_columns}
    if row["fitted"]:
        fold_rows = len(data.y_train) - len(data.y_train) // FOLDS
        model = ridge_cv("regression", lambda_grid=[2.0**e for e in log2_lambda], cv=FOLDS,
                         solver="eigen" if columns <= fold_rows else "dual",
                         random_state=model_seed).fit(fmap.transform(data.X_train), data.y_train)
        row.update(cv_error=model.cv_score_, test_error=relative_error(data.y_test, model.predict(
            fmap.transform(data.X_test))), **{"lambda": model.best_params_["lambda"]})
    return row | {"time": time.perf_counter() - start}


@functools.lru_cache(maxsize=2)  # the trials of an arm share its rows, scaling and sigma unit
def _arm(data_json: str, partition: str, scaling: str, norm: str, seed: int) -> tuple[Dataset, float]:
    """The arm's rows, scaled, and the median pairwise distance (in ``norm``) of :data:`MEDIAN_ROWS` of them."""
    loaded = partitioned(json.loads(data_json), partition)
    X_train, y_train, X_test, y_test = loaded.X_train, loaded.y_train, loaded.X_test, loaded.y_test
    X_train, X_test = SCALE[scaling](X_train, X_test)
    rows = np.random.default_rng(seed).choice(len(X_train), min(MEDIAN_ROWS, len(X_train)), replace=False)
    unit = float(np.median(pdist(X_train[rows], norm)))
    return dataclasses.replace(loaded, X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test), unit


def standardize(X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each feature to mean 0 and sd 1 on the training part (a constant feature: centred only)."""
    mean, sd = X_train.mean(axis=0), X_train.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    return (X_train - mean) / sd, (X_test - mean) / sd


def whiten(X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ZCA whitening: x -> C^(-1/2) (x - mean), C the training part's covariance, so that the training rows'
    covariance is the identity (Fig. 1's caption: "we can first whiten the data"); ValueError if C is singular."""
    mean = X_train.mean(axis=0)
    values, vectors = np.linalg.eigh(np.cov(X_train - mean, rowvar=False))
    if values.min() <= values.max() * 1e-12:
        raise ValueError(f"the training features' covariance is singular (eigenvalues {values.min():.3g} to "
                         f"{values.max():.3g}): whitening is undefined; use scaling=standard")
    inverse_root = (vectors / np.sqrt(values)) @ vectors.T
    return (X_train - mean) @ inverse_root, (X_test - mean) @ inverse_root


#: How each scaling maps the (training, test) features, fitted on the training part.
SCALE = {"none": lambda X_train, X_test: (X_train, X_test), "minmax": min_max_scale, "standard": standardize,
         "whiten": whiten}
