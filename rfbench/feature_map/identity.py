"""The identity map: the linear-kernel baseline of Table 1."""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from rfbench.kernel import LinearKernel

from ._base import DEFAULT_BLOCK_SIZE, FeatureMap
from ._trig import feature_dtype


class IdentityMap(FeatureMap):
    """z(x) = x, so that a linear model on z uses the linear kernel k(x, y) = x^T y.

    Parameters
    ----------
    dtype : {"float32", "float64"}, default="float32"
        dtype of ``transform``'s output.

    Attributes
    ----------
    n_features_in_ : int
    """

    def __init__(self, *, dtype: DTypeLike = "float32") -> None:
        self.dtype = dtype

    approximates = (LinearKernel,)

    def output_size(self, n_features_in: int) -> tuple[int, int]:
        """The input's columns; no parameters."""
        return n_features_in, 0

    def check_params(self) -> None:
        feature_dtype(self.dtype)

    def fit(self, X: ArrayLike, y: object = None) -> IdentityMap:
        """Record the number of features."""
        self.check_params()
        self._validate_X(X, reset=True)
        return self

    def transform(self, X: ArrayLike) -> np.ndarray:
        """X as an array of dtype ``dtype`` (a copy only when the dtype differs)."""
        return self._validate_X(X).astype(self.dtype, copy=False)

    def gram_blocks(
        self, X: ArrayLike, Y: ArrayLike | None = None, block_size: int = DEFAULT_BLOCK_SIZE
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield the single block (X, Y) in float64; ``block_size`` is irrelevant here."""
        X, Y = self._validate_pair(X, Y)
        yield X.astype(np.float64, copy=False), Y.astype(np.float64, copy=False)
