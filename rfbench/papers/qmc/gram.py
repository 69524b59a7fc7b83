"""QMC Figures 2-3, the computation: the relative Gram error of every prefix s of every sequence,
as a job of the engine (``rfbench job=qmc_gram dataset=<config>``, ``configs/job/qmc_gram.yaml``).

Per dataset (Sec. 6.1): the rows whose Gram matrix is approximated (a seeded subset and a PCA
where the paper says so, :data:`~rfbench.papers.qmc.report.GRAM_DATASETS`), sigma chosen by
5-fold CV of ridge on Monte Carlo features and held for every sequence, the exact Gaussian Gram
K, then per sequence one pass over the frequencies of a map of ``max(sizes)`` points gives the
error of every prefix in the Frobenius and the spectral norm (the sequences are extensible).
Trial t draws the randomized sequences with ``trial_seed(seed, t)``; the deterministic ones
(scrambled Halton, every unscrambled sequence) do not vary and are computed at trial 0 only.
"""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from rfbench.engine.jobs import trial_seed
from rfbench.feature_map import QMCFourierFeatures
from rfbench.papers.qmc import protocol


def curves(trial: int, seed: int, data: dict, sizes: Sequence[int]) -> dict[str, pd.DataFrame]:
    """Trial ``trial`` of Figures 2-3 on the dataset ``data``: ``errors`` (one row per sequence,
    scramble and s) and ``setting`` (the sigma choice, the same at every trial)."""
    rows = protocol.setting(data, seed, rows="gram")  # shared by every trial of the job
    X, K, choice = rows.X, rows.gram, {**rows.choice, "dataset": rows.name}
    frames = []
    for sequence, scramble in [(s, True) for s in protocol.SEQUENCES] + [(s, False) for s in protocol.SCRAMBLED]:
        deterministic = not scramble or sequence == "halton"
        if deterministic and trial > 0:
            continue
        fmap = QMCFourierFeatures(n_components=max(sizes), sigma=choice["sigma"], sequence=sequence,
                                  scramble=scramble, dtype="float64", random_state=trial_seed(seed, trial)).fit(X)
        frames.append(pd.DataFrame(protocol.prefix_errors(K, fmap, X, sizes)).assign(
            sequence=sequence, scramble=scramble, seed=trial_seed(seed, trial), sigma=choice["sigma"],
            n=len(X), d=X.shape[1]))
    return {"errors": pd.concat(frames, ignore_index=True), "setting": pd.DataFrame([choice])}


curves.check_params = protocol.check_sizes
