"""QMC Table 1, the computation: the test error of ridge regression on the QMC features of every
prefix s of every sequence, as a job of the engine (``rfbench job=qmc_ridge dataset=<config>``,
``configs/job/qmc_ridge.yaml``; its split study ``job=qmc_ridge_splits``).

Per dataset config (Sec. 6.1): sigma and lambda are chosen by 5-fold CV of ridge on Monte Carlo
features (:func:`~rfbench.papers.qmc.protocol.select_sigma`, on the training part of the
partition ``sigma_split_seed`` names, the dataset's own when null) and held for every sequence.
Trial t draws each randomized sequence with ``trial_seed(seed, t)`` and fits one map of
``max(sizes)`` points; each s takes its prefix (``segment(0, s)``, normalized by s), so the sizes
of a trial share one sequence, and scores ridge with lambda held on the test part:
||y_hat - y||_2 / ||y||_2.  Scrambled Halton is deterministic: trial 0 only.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import json
from collections.abc import Sequence

import numpy as np
import pandas as pd

from rfbench.dataset.loader import Dataset
from rfbench.dataset.partition import PARTITIONS, partitioned
from rfbench.dataset.preprocessing import min_max_scale
from rfbench.engine.jobs import trial_seed
from rfbench.feature_map import QMCFourierFeatures
from rfbench.metrics import relative_error
from rfbench.model.ridge import ridge_cv
from rfbench.papers.qmc import protocol


def cells(trial: int, seed: int, data: dict, sizes: Sequence[int], sequences: Sequence[str],
          sigma_split_seed: int | None = None) -> dict[str, pd.DataFrame]:
    """Trial ``trial`` of Table 1 on the dataset ``data``: ``errors`` (one row per sequence and s)
    and ``setting`` (the sigma and lambda choice, the same at every trial)."""
    on = copy.deepcopy(data)
    if sigma_split_seed is not None:
        on["split"]["seed"] = sigma_split_seed
    chosen = protocol.setting(on, seed)  # the partition sigma and lambda are chosen on
    choice = {**chosen.choice, "dataset": chosen.name}
    dataset = protocol.setting(data, seed).data  # the partition scored
    frames = [sequence_errors(dataset, choice["sigma"], choice["lambda"], sequence, trial_seed(seed, trial), sizes)
              for sequence in sequences if trial == 0 or sequence != "halton"]
    return {"errors": pd.concat(frames, ignore_index=True), "setting": pd.DataFrame([choice])}


def check_params(sizes: Sequence[int], sequences: Sequence[str], sigma_split_seed: int | None = None) -> None:
    """ValueError naming a bad value: sequences among ``protocol.SEQUENCES``, sizes positive integers
    (the engine calls it before any trial: ``cells.check_params``)."""
    unknown = sorted(set(sequences) - set(protocol.SEQUENCES))
    if unknown or not sequences:
        raise ValueError(f"job.sequences={list(sequences)}: choose one or more of {list(protocol.SEQUENCES)}")
    protocol.check_sizes(sizes)


cells.check_params = check_params


def sequence_errors(data, sigma: float, lam: float, sequence: str, seed: int, sizes: Sequence[int]) -> pd.DataFrame:
    """Test relative error of ridge (lambda held) on the first s points of ``sequence``, every s."""
    fmap = QMCFourierFeatures(n_components=max(sizes), sigma=sigma, sequence=sequence, dtype="float64",
                              random_state=seed).fit(data.X_train)
    rows = []
    for s in sizes:
        prefix = fmap.segment(0, s)
        model = ridge_cv(task=data.task, lambda_grid=[lam]).fit(prefix.transform(data.X_train), data.y_train)
        predicted = model.predict(prefix.transform(data.X_test))
        rows.append({"s": s, "relative_error": relative_error(data.y_test, predicted)})
    return pd.DataFrame(rows).assign(sequence=sequence, seed=seed, sigma=sigma, lam=lam,
                                     n_train=len(data.X_train), n_test=len(data.X_test))


#: Table 1's protocol study (issue 45): which rows train (seeded random, as the dataset config draws
#: them; or the file's own order, its first n_train rows) and how the features are scaled (fitted on
#: the training part).
SCALINGS = ("minmax", "standard", "none")


def protocol_cells(trial: int, seed: int, data: dict, partition: str, scaling: str, sizes: Sequence[int],
                   sequences: Sequence[str]) -> dict[str, pd.DataFrame]:
    """Trial ``trial`` of Table 1 on ``data`` under one arm of the protocol study: the rows of
    ``partition`` scaled by ``scaling``, sigma and lambda chosen on them by the same 5-fold CV
    (:func:`~rfbench.papers.qmc.protocol.select_sigma`). The arm (random, minmax) is Table 1's own."""
    dataset, choice = scaled_rows(data, partition, scaling, seed)
    frames = [sequence_errors(dataset, choice["sigma"], choice["lambda"], sequence, trial_seed(seed, trial), sizes)
              for sequence in sequences if trial == 0 or sequence != "halton"]
    arm = {"partition": partition, "scaling": scaling}
    return {"errors": pd.concat(frames, ignore_index=True).assign(**arm), "setting": pd.DataFrame([{**choice, **arm}])}


def check_protocol(partition: str, scaling: str, sizes: Sequence[int], sequences: Sequence[str]) -> None:
    """ValueError naming a bad value: partition in :data:`PARTITIONS`, scaling in :data:`SCALINGS`."""
    if partition not in PARTITIONS:
        raise ValueError(f"job.partition={partition!r}: choose one of {list(PARTITIONS)}")
    if scaling not in SCALINGS:
        raise ValueError(f"job.scaling={scaling!r}: choose one of {list(SCALINGS)}")
    check_params(sizes, sequences)


protocol_cells.check_params = check_protocol


def scaled_rows(data: dict, partition: str, scaling: str, seed: int) -> tuple[Dataset, dict]:
    """(the dataset of ``data``'s rows of ``partition`` scaled by ``scaling``, sigma and lambda chosen on its
    training part by the 5-fold CV of :func:`~rfbench.papers.qmc.protocol.select_sigma`), made once per arm
    and process; (random, minmax) gives the dataset's own rows and choice."""
    return _arm(json.dumps(data, sort_keys=True), partition, scaling, seed)


@functools.lru_cache(maxsize=1)  # every trial of an arm shares its rows and its sigma choice
def _arm(data_json: str, partition: str, scaling: str, seed: int) -> tuple[Dataset, dict]:
    loaded = partitioned(json.loads(data_json), partition)
    X_train, y_train, X_test, y_test = loaded.X_train, loaded.y_train, loaded.X_test, loaded.y_test
    X_train, X_test = _scaled(scaling, X_train, X_test)
    dataset = dataclasses.replace(loaded, X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test)
    choice = {**protocol.select_sigma(X_train, y_train, dataset.task, seed=seed), "n_train": len(X_train),
              "n_test": len(X_test)}
    return dataset, choice


def _scaled(scaling: str, X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The features scaled as ``scaling`` says, fitted on the training part (a constant feature: unit scale)."""
    if scaling == "minmax":
        return min_max_scale(X_train, X_test)
    if scaling == "standard":
        mean, sd = X_train.mean(axis=0), X_train.std(axis=0)
        sd = np.where(sd > 0, sd, 1.0)
        return (X_train - mean) / sd, (X_test - mean) / sd
    return X_train, X_test
