"""A toy feature map with sparse, very wide features, built on the FeatureMap defaults alone."""
from __future__ import annotations

import numpy as np
from scipy import sparse

from rfbench.feature_map import FeatureMap
from rfbench.feature_map._base import check_positive_int, check_positive_real


class RandomBinning(FeatureMap):
    """z(x): in each coordinate j, the one-hot of x_j's cell in a randomly shifted grid.

    Each coordinate has ``n_bins`` columns (cells are taken modulo ``n_bins``), so z(X)
    is float32 CSR of d * n_bins columns with d ones per row, and z(x)^T z(y) is the
    number of coordinates in which x and y share a cell. It implements only
    ``check_params``, ``fit`` and ``transform``, and takes sparse input.
    """

    accept_sparse = True

    def __init__(self, *, width: float = 0.5, n_bins: int = 250_000, random_state: int | None = None) -> None:
        self.width = width
        self.n_bins = n_bins
        self.random_state = random_state

    def check_params(self) -> None:
        check_positive_real("width", self.width)
        check_positive_int("n_bins", self.n_bins)

    def fit(self, X, y=None) -> RandomBinning:
        self.check_params()
        d = self._validate_X(X, reset=True).shape[1]
        self.shift_ = np.random.default_rng(self.random_state).uniform(0.0, self.width, d)
        return self

    def cells(self, X) -> np.ndarray:
        """Cell index of every coordinate, (n, d) ints in [0, n_bins)."""
        X = self._validate_X(X)
        X = X.toarray() if sparse.issparse(X) else X
        return np.floor((X + self.shift_) / self.width).astype(np.int64) % self.n_bins

    def transform(self, X) -> sparse.csr_array:
        cells = self.cells(X)
        n, d = cells.shape
        columns = (cells + self.n_bins * np.arange(d)).ravel()
        values = np.ones(n * d, dtype=np.float32)
        return sparse.csr_array((values, columns, np.arange(0, n * d + 1, d)), shape=(n, d * self.n_bins))
