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
from collections.abc import Sequence

import pandas as pd

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
