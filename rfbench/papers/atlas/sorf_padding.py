"""SORF against ORF over the input width, as a job: the effect of SORF's zero-padding to a power of 2.

SORF (Yu et al. 2016) draws its frequencies as p x p blocks sqrt(p)/sigma H D1 H D2 H D3, orthogonal in
R^p with p = 2^ceil(log2 d), and zero-pads the inputs to p coordinates.  ORF's variance reduction comes
from frequencies that are orthogonal where the data lie; a padded SORF block's rows restricted to the
d data coordinates are not (p > d rows cannot be orthogonal in R^d).  This job measures the relative
Gram error ||K - K~||_F / ||K||_F of RFF, ORF and SORF on ``n_gram`` random training rows of the data
seen three ways:

- ``as_is``: the d columns (MNIST: 784; SORF pads to p = 1024, ORF's blocks are d wide);
- ``zero_padded``: the same rows with p - d zero columns appended: ORF's blocks are then p wide and
  face the padding SORF sees, while SORF's features are exactly those of ``as_is`` (same zeros, same seed);
- ``top_variance``: the 2^floor(log2 d) columns of largest training variance (MNIST: 512): d = p, no padding;

at M = m d frequencies (d of ``as_is``, the atlas's budgets) for m in ``m_over_d``, a fresh draw per
trial.  Frame ``frequencies`` describes each map's first draw (M = the first m times d) on each view:
its frequencies restricted to the s coordinates the data occupy (s = d but for ``zero_padded``, whose
padding is not data: s = 784 of 1024), their squared norms' mean and variance (times sigma^2: chi^2_s
has mean s and variance 2 s) and the mean squared cosine between distinct frequencies of the first
block (0 for frequencies orthogonal on the data's coordinates, about 1 / s for independent Gaussian ones).
``rfbench job=sorf_padding dataset=mnist10k`` (``configs/job/sorf_padding.yaml``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from rfbench.dataset import load_dataset
from rfbench.engine import jobs
from rfbench.feature_map import GaussianRFF, OrthogonalRFF, StructuredOrthogonalRFF
from rfbench.feature_map._hadamard import padded_width
from rfbench.kernel import GaussianKernel
from rfbench.metrics import relative_gram_error

MAPS = {"rff": GaussianRFF, "orf": OrthogonalRFF, "sorf": StructuredOrthogonalRFF}
VIEWS = ("as_is", "zero_padded", "top_variance")


def compute(trial: int, seed: int, data: dict, sigma: float, n_gram: int,
            m_over_d: list[int]) -> dict[str, pd.DataFrame]:
    """Gram errors (frame ``gram``) and frequency statistics (frame ``frequencies``) of every map and view."""
    dataset = load_dataset(data)
    d = dataset.d
    rows = np.random.default_rng(jobs.trial_seed(seed, trial, 0)).choice(len(dataset.X_train), n_gram, replace=False)
    gram, frequencies = [], []
    for view, (X, support) in views(dataset.X_train, rows).items():
        K = GaussianKernel(X.shape[1], sigma=sigma)(X, X)
        width = {"view": view, "d": X.shape[1]}
        for index, (name, cls) in enumerate(MAPS.items()):
            for m in m_over_d:  # the same seed on every view: SORF's as_is and zero_padded draws are one
                fmap = cls(n_components=m * d, sigma=sigma, dtype="float64",
                           random_state=jobs.trial_seed(seed, trial, 1 + index, m)).fit(X)
                gram.append({**width, "p": padded_width(X.shape[1]), "map": name, "m_over_d": m,
                             "n_components": m * d, "block_width": block_width(fmap, X.shape[1]),
                             "gram_error": relative_gram_error(K, fmap, X)})
                if m == m_over_d[0]:
                    frequencies.append({**width, "support": support, "map": name, "n_components": m * d,
                                        **row_statistics(fmap, X.shape[1], support, sigma)})
    return {"gram": pd.DataFrame(gram), "frequencies": pd.DataFrame(frequencies)}


def check_params(sigma: float, n_gram: int, m_over_d: list[int], **_: object) -> None:
    """Reject a non-positive bandwidth, sample size or width before any work."""
    if not sigma > 0:
        raise ValueError(f"job.sigma={sigma!r} is invalid; choose a positive bandwidth")
    if not (isinstance(n_gram, int) and n_gram >= 2):
        raise ValueError(f"job.n_gram={n_gram!r} is invalid; choose an integer >= 2")
    if not m_over_d or any(not (isinstance(m, int) and m >= 1) for m in m_over_d):
        raise ValueError(f"job.m_over_d={m_over_d!r} is invalid; choose a list of integers >= 1")


compute.check_params = check_params


def views(X_train: np.ndarray, rows: np.ndarray) -> dict[str, tuple[np.ndarray, int]]:
    """The training ``rows`` as they are, zero-padded to p columns, and on the top-variance 2^k <= d
    columns; each with the number of its leading columns that hold data (the padding's do not)."""
    X, d = X_train[rows], X_train.shape[1]
    p = padded_width(d)
    keep = p if p == d else p // 2
    columns = np.sort(np.argsort(-X_train.var(axis=0), kind="stable")[:keep])
    return {"as_is": (X, d), "zero_padded": (np.hstack([X, np.zeros((len(X), p - d))]), d),
            "top_variance": (X[:, columns], keep)}


def block_width(fmap, d: int) -> int:
    """The width of the map's blocks of mutually orthogonal frequencies (1: none are)."""
    return {OrthogonalRFF: d, StructuredOrthogonalRFF: padded_width(d)}.get(type(fmap), 1)


def frequency_rows(fmap, d: int, support: int) -> np.ndarray:
    """The map's frequencies (inputs of width d) on the first ``support`` coordinates: (M, support)."""
    if isinstance(fmap, StructuredOrthogonalRFF):
        return fmap.project(np.eye(d)[:support]).T  # project(X) = X W: the identity's rows give W's
    return fmap.random_weights_[:support].T


def row_statistics(fmap, d: int, support: int, sigma: float) -> dict[str, float]:
    """Squared norms (times sigma^2) of the frequencies on the data's ``support`` coordinates, and the
    mean squared cosine between distinct frequencies of the first orthogonal block (RFF: the first d)."""
    W = frequency_rows(fmap, d, support) * sigma
    norms = np.einsum("ij,ij->i", W, W)
    first = W[: min(len(W), max(block_width(fmap, d), d))]
    cosines = (first @ first.T) / np.sqrt(np.outer(norms[: len(first)], norms[: len(first)]))
    off = cosines[~np.eye(len(first), dtype=bool)]
    return {"norm2_mean": float(norms.mean()), "norm2_var": float(norms.var()),
            "cos2_mean": float(np.mean(off**2))}
