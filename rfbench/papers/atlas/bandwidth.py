"""The atlas's bandwidth rule, as a job: one sigma per dataset and kernel, the same for every map.

For the Gaussian kernel exp(-||x - y||_2^2 / (2 sigma^2)) and the Laplacian exp(-||x - y||_1 / sigma),
the median heuristic m is the median distance, in the kernel's norm (L2, L1), between distinct
rows of ``n_median`` random training rows.  Each candidate sigma = 2^f m, f = -3..2, is scored by
5-fold CV of ridge (its lambda grid 2^e, e in ``log2_lambda``, the atlas's model) on ``n_components``
random Fourier frequencies of that kernel ([cos, sin], float64; Gaussian or Cauchy, a map every
atlas width is compared with); the sigma of the best CV score (accuracy, or relative error for
regression) is the dataset's.  ``rfbench job=atlas_bandwidth dataset=<name> job.kernel=<kernel>``
(``configs/job/atlas_bandwidth.yaml``) records every candidate's score, so the choice can be
checked from the records.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.spatial.distance import pdist

from rfbench.dataset import load_dataset
from rfbench.engine import jobs
from rfbench.feature_map import CauchyRFF, GaussianRFF
from rfbench.model.ridge import ridge_cv

#: The kernels the rule serves: their map and the norm of their distance.
KERNELS = {"gaussian": (GaussianRFF, "euclidean"), "laplacian": (CauchyRFF, "cityblock")}
#: Candidate sigmas, as powers of 2 times the median distance.
LOG2_FACTORS = tuple(range(-3, 3))


def compute(trial: int, seed: int, data: dict, kernel: str, n_components: int, n_median: int,
            log2_lambda: list[int]) -> dict[str, pd.DataFrame]:
    """Score every candidate sigma of ``data``'s training rows for ``kernel``; one row per candidate.

    Returns ``bandwidth``: dataset, kernel, median distance, log2 factor, sigma, the CV score at the
    best lambda, that lambda, and ``chosen`` (True on the best sigma's row only).
    """
    if kernel not in KERNELS:
        raise ValueError(f"job.kernel={kernel!r} is invalid; choose one of {', '.join(KERNELS)}")
    dataset = load_dataset(data)
    X, y = dataset.X_train, dataset.y_train
    fmap_class, metric = KERNELS[kernel]
    median = median_distance(X, metric, n_median, jobs.trial_seed(seed, trial, 0))
    rows = []
    for factor in LOG2_FACTORS:
        sigma = 2.0**factor * median
        Z = fmap_class(n_components=n_components, sigma=sigma, dtype="float64",
                       random_state=jobs.trial_seed(seed, trial, 1)).fit_transform(X)
        model = ridge_cv(task=dataset.task, lambda_grid=[2.0**e for e in log2_lambda],
                         random_state=jobs.trial_seed(seed, trial, 2)).fit(Z, y)
        rows.append({"dataset": dataset.name, "kernel": kernel, "median_distance": median, "log2_factor": factor,
                     "sigma": sigma, "score_name": model.score_name, "cv_score": model.cv_score_,
                     "lambda": model.best_params_["lambda"]})
    frame = pd.DataFrame(rows)
    better = frame["cv_score"] if dataset.task == "classification" else -frame["cv_score"]
    frame["chosen"] = np.arange(len(frame)) == int(np.argmax(better.to_numpy()))
    return {"bandwidth": frame}


def median_distance(X: np.ndarray, metric: str, n: int, seed: int) -> float:
    """Median ``metric`` distance between distinct rows of a random ``n`` of X (all of X if fewer)."""
    rows = X[np.random.default_rng(seed).permutation(len(X))[:n]]
    return float(np.median(pdist(rows, metric=metric)))
