"""QMC feature maps (Avron, Sindhwani, Yang, Mahoney 2016): the paper's protocol (Sec. 6.1), which
every QMC job computes with and no report does.

- the sequences compared, and the datasets of Figures 2-3 (:data:`GRAM_DATASETS`: which rows, a
  seeded subset and a PCA where the paper says so, :func:`gram_rows`);
- sigma and lambda chosen once per dataset by 5-fold CV of ridge on Monte Carlo features and held
  for every sequence (:func:`select_sigma`: "we performed 5-fold cross-validation when using random
  Fourier features (MC sequence) to set the bandwidth");
- the relative Gram error of every prefix s of an extensible sequence in one pass
  (:func:`prefix_errors`);
- a dataset as every QMC job computes on it, made once per process (:func:`setting`): the loaded
  data, the rows (the training part, or Figures 2-4's rows of it), their sigma choice and exact Gram.
"""
from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from sklearn.decomposition import PCA

from rfbench.dataset.loader import Dataset, load_dataset
from rfbench.engine.jobs import trial_seed
from rfbench.feature_map import QMCFourierFeatures
from rfbench.kernel import make_kernel
from rfbench.metrics import approximate_gram, spectral_norm
from rfbench.model.ridge import ridge_cv
from rfbench.papers.qmc import datasets as qmc_datasets

#: The paper's sequences, in its column order; "mc" is the reference.
SEQUENCES = ("halton", "sobol", "lattice", "digital_net", "mc")
#: Sequences of Figure 3 (scrambled vs plain); MC has no unscrambled version.
SCRAMBLED = ("halton", "sobol", "lattice", "digital_net")


@dataclass(frozen=True)
class GramSetting:
    """How Figures 2-3 use one dataset (Sec. 6.1, "Quality of Kernel Approximation").

    Parameters
    ----------
    config : str
        Dataset config (``configs/dataset/<config>.yaml``).
    paper_name : str
        The dataset as the paper names it.
    n : int or None
        Rows of the training part whose Gram matrix is approximated (None: all of them);
        a seeded random subset otherwise.
    pca : int or None
        Dimensions kept by a PCA of those rows (fitted on them), or None.
    """

    config: str
    paper_name: str
    n: int | None
    pca: int | None = None


#: "cpu (6554 examples, 21 dimensions), census (a subset chosen randomly with 5,000 examples,
#: 119 dimensions), USPST (1,506 examples, 250 dimensions after PCA) and MNIST (a subset chosen
#: randomly with 5,000 examples, 250 dimensions after PCA)". census runs on house_16h, a
#: declared substitute; MNIST's 5,000 are a seeded random subset of its 60,000 training images.
GRAM_DATASETS = {  # in the order of the paper's panels (a)-(d)
    "uspst": GramSetting("usps_test", "USPST", None, pca=250),
    "cpu": GramSetting("cpu_act_qmc", "cpu", None),
    "census": GramSetting("house_16h", "census (substitute: house_16h)", 5000),
    "mnist": GramSetting("mnist", "MNIST", 5000, pca=250),
}
#: Prefix sizes s of Figures 2-3 (the paper's axis is not printed in the text: Table 1's
#: 100, 500, 1000 and points between them).
GRAM_SIZES = (100, 200, 300, 500, 700, 1000)
#: sigma candidates, as multiples of the median pairwise distance of the rows (unstated).
SIGMA_FACTORS = tuple(2.0**k for k in range(-3, 3))
#: Features used by the CV choice of sigma and lambda (unstated: Table 1's middle s).
CV_FEATURES = 500


#: The rows a job computes on: the training part (Tables 1-3, Figs. 6-7) or Figures 2-4's rows of it.
ROWS = ("train", "gram")


def gram_dataset(data: Mapping[str, Any]) -> tuple[str, GramSetting]:
    """The key of :data:`GRAM_DATASETS` and its setting for a composed dataset node (Figures 2-4)."""
    name = qmc_datasets.name_of(data)
    found = [(key, s) for key, s in GRAM_DATASETS.items() if s.config == name]
    if not found:
        raise ValueError(f"dataset {name!r} is none of Figures 2-4's: {[s.config for s in GRAM_DATASETS.values()]}")
    return found[0]


def gram_rows(setting: GramSetting, X: np.ndarray, y: np.ndarray, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the training part (X, y) whose Gram matrix Figures 2-3 approximate: a seeded random
    subset of ``setting.n`` rows, then a PCA to ``setting.pca`` dimensions, where ``setting`` says so."""
    if setting.n is not None and setting.n < len(X):
        rows = np.sort(np.random.default_rng(seed).choice(len(X), setting.n, replace=False))
        X, y = X[rows], y[rows]
    if setting.pca is not None:
        X = PCA(n_components=setting.pca, random_state=seed).fit_transform(X)
    return X, y


@dataclass(frozen=True, eq=False)
class Setting:
    """A dataset as the QMC jobs compute on it (:func:`setting`); the sigma choice and the Gram
    matrix are computed when first asked for, so a job that needs neither pays for neither.

    Attributes
    ----------
    data : Dataset
        The loaded dataset (its training and test parts).
    X, y : ndarray
        The rows the job computes on and their targets: the training part, or Figures 2-4's rows of it.
    seed : int
        The job's seed: the rows' subset and PCA, and the sigma choice's features and folds.
    name : str
        The dataset's name in the records: Figures 2-4's key of :data:`GRAM_DATASETS`, else the
        paper's config name (:func:`rfbench.papers.qmc.datasets.name_of`).
    """

    data: Dataset
    X: np.ndarray
    y: np.ndarray
    seed: int
    name: str

    @cached_property
    def choice(self) -> dict[str, Any]:
        """sigma and lambda by 5-fold CV on the rows (:func:`select_sigma`), with ``n``, ``d``, ``seed``
        and ``cv_features``: the ``setting`` frame every job records."""
        return {**select_sigma(self.X, self.y, self.data.task, seed=self.seed), "n": len(self.X),
                "d": self.X.shape[1], "seed": self.seed, "cv_features": CV_FEATURES}

    @property
    def sigma(self) -> float:
        """The chosen bandwidth."""
        return self.choice["sigma"]

    @cached_property
    def gram(self) -> np.ndarray:
        """The exact Gaussian Gram matrix K of the rows at the chosen sigma."""
        return make_kernel("gaussian", self.X.shape[1], sigma=self.sigma)(self.X)


def setting(data: Mapping[str, Any], seed: int, rows: str = "train") -> Setting:
    """The dataset of the composed node ``data`` as a job computes on it, made once per process:
    every trial of a job (and every job a process runs on the same data) shares the loaded data,
    the sigma choice's 5-fold CV and the Gram matrix.

    Parameters
    ----------
    data : mapping
        The composed ``dataset`` node.
    seed : int
        The job's seed.
    rows : {"train", "gram"}
        The training part, or Figures 2-4's rows of it (:func:`gram_rows`).
    """
    if rows not in ROWS:
        raise ValueError(f"rows={rows!r}: choose one of {list(ROWS)}")
    return _setting(json.dumps(data, sort_keys=True), seed, rows)


@functools.lru_cache(maxsize=2)  # two: Table 1's split study holds its sigma's partition beside its own
def _setting(data_json: str, seed: int, rows: str) -> Setting:
    data = json.loads(data_json)
    loaded = load_dataset(data)
    if rows == "train":
        return Setting(loaded, loaded.X_train, loaded.y_train, seed, qmc_datasets.name_of(data))
    name, gram = gram_dataset(data)
    X, y = gram_rows(gram, loaded.X_train, loaded.y_train, seed)
    return Setting(loaded, X, y, seed, name)


setting.cache_clear = _setting.cache_clear  # for tests that swap the data or the sigma choice


def check_sizes(sizes: Sequence[int]) -> None:
    """ValueError unless ``sizes`` (a job's prefix sizes s) are one or more positive integers."""
    if not sizes or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in sizes):
        raise ValueError(f"job.sizes={list(sizes)}: give one or more positive integers s")


def median_distance(X: np.ndarray, seed: int = 0, n: int = 1000) -> float:
    """Median Euclidean distance between distinct rows of a random ``n`` of X."""
    rows = X[np.random.default_rng(seed).permutation(len(X))[:n]]
    sq = np.sum(rows**2, axis=1)
    dist = np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2 * rows @ rows.T, 0.0))
    return float(np.median(dist[np.triu_indices(len(rows), 1)]))


def select_sigma(X: np.ndarray, y: np.ndarray, task: str, *, seed: int = 0,
                 n_components: int = CV_FEATURES) -> dict[str, float]:
    """sigma and lambda by 5-fold CV of ridge on MC features (the paper's protocol, Sec. 6.1).

    Every sigma of ``SIGMA_FACTORS`` x the median distance is scored by ridge's own CV over
    its lambda grid; the best (sigma, lambda) pair is kept.

    Returns
    -------
    dict with ``sigma``, ``lambda``, ``cv_score`` (relative error or accuracy) and the grid's
    ``median_distance``
    """
    median = median_distance(X, seed)
    best = None
    for factor in SIGMA_FACTORS:
        sigma = factor * median
        Z = QMCFourierFeatures(n_components=n_components, sigma=sigma, sequence="mc", dtype="float64",
                               random_state=trial_seed(seed, 0)).fit_transform(X)
        model = ridge_cv(task=task, random_state=seed).fit(Z, y)
        scores = model.cv_scores_ if task == "classification" else -model.cv_scores_
        i = int(np.nanargmax(scores))
        if best is None or scores[i] > best[0]:
            best = (scores[i], sigma, model.lambda_grid[i], model.cv_scores_[i])
    return {"sigma": best[1], "lambda": float(best[2]), "cv_score": float(best[3]), "median_distance": median}


def prefix_errors(K: np.ndarray, fmap: QMCFourierFeatures, X: np.ndarray,
                  sizes: Sequence[int]) -> list[dict[str, float]]:
    """Relative Frobenius and spectral Gram error of the first s frequencies, for every s.

    One pass over the frequencies: K~_s = (sum of the segments' contributions) / s, each
    segment ``fmap.segment(start, stop)`` computed once (as ``relative_gram_errors_by_prefix``
    does for the Frobenius norm alone).
    """
    total = np.zeros_like(K, order="F")
    fro, spec = np.linalg.norm(K), spectral_norm(K)
    rows, start = [], 0
    for stop in sizes:
        total += (stop - start) * approximate_gram(fmap.segment(start, stop), X)
        residual = total / stop - K
        rows.append({"s": stop, "fro": float(np.linalg.norm(residual) / fro),
                     "spectral": spectral_norm(residual) / spec})
        start = stop
    return rows


