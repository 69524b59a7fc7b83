"""Random Fourier features of the Gaussian kernel (Rahimi & Recht 2007)."""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import ArrayLike, DTypeLike
from sklearn.utils.validation import check_is_fitted

from rfbench.kernel import GaussianKernel
from rfbench.validation import is_int

from ._base import (
    DEFAULT_BLOCK_SIZE,
    FeatureMap,
    check_choice,
    check_positive_int,
    check_positive_real,
    frequency_blocks,
)
from ._trig import cos_offset, cos_sin, feature_dtype

VARIANTS = ("cos_sin", "cos_offset")


class GaussianRFF(FeatureMap):
    r"""Random Fourier features for k(x, y) = exp(-||x - y||^2 / (2 sigma^2)).

    By Bochner's theorem k(D) = E[cos(w^T D)] with w ~ N(0, sigma^-2 I).  With
    M i.i.d. columns w_l of W (d, M):

    * ``variant="cos_sin"``: z(x) = M^-1/2 [cos(W^T x), sin(W^T x)] (2M columns),
      z(x)^T z(y) = (1/M) sum_l cos(w_l^T D), of variance
      (1 + k(2D) - 2 k(D)^2) / (2M).
    * ``variant="cos_offset"``: z(x) = sqrt(2/M) cos(W^T x + b), b_l ~ U[0, 2 pi)
      (M columns); 2 cos(a + b) cos(c + b) = cos(a - c) + cos(a + c + 2b) is
      unbiased too, of larger variance (1 + k(2D)/2 - k(D)^2) / M.

    Parameters
    ----------
    n_components : int, default=100
        Number M of random frequencies.
    sigma : float, default=1.0
        Kernel bandwidth.
    variant : {"cos_sin", "cos_offset"}, default="cos_sin"
    dtype : {"float32", "float64"}, default="float32"
        dtype of ``transform``'s output (``gram_blocks`` is always float64).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of ``numpy.random.default_rng`` for W and b.

    Attributes
    ----------
    random_weights_ : ndarray of shape (n_features_in_, n_components)
        W, float64.
    random_offset_ : ndarray of shape (n_components,)
        b, float64; only for ``variant="cos_offset"``.
    n_features_in_ : int
    """

    def __init__(
        self,
        *,
        n_components: int = 100,
        sigma: float = 1.0,
        variant: str = "cos_sin",
        dtype: DTypeLike = "float32",
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.n_components = n_components
        self.sigma = sigma
        self.variant = variant
        self.dtype = dtype
        self.random_state = random_state

    approximates = (GaussianKernel,)

    @classmethod
    def from_kernel(cls, kernel: GaussianKernel, **params) -> GaussianRFF:
        """The map of ``kernel``'s bandwidth."""
        return cls(sigma=kernel.sigma, **params)

    def output_size(self, n_features_in: int) -> tuple[int, int]:
        """2M (``cos_sin``) or M columns; W (d x M) and b."""
        m = self.n_components
        return (2 * m if self.variant == "cos_sin" else m), m * (n_features_in + 1)

    def check_params(self) -> None:
        check_positive_int("n_components", self.n_components)
        check_positive_real("sigma", self.sigma)
        check_choice("variant", self.variant, VARIANTS)
        feature_dtype(self.dtype)

    def fit(self, X: ArrayLike, y: object = None) -> GaussianRFF:
        """Draw W ~ N(0, sigma^-2 I) (and b ~ U[0, 2 pi)); only X's width is used."""
        self.check_params()
        d = self._validate_X(X, reset=True).shape[1]
        rng = np.random.default_rng(self.random_state)
        self.random_weights_ = rng.standard_normal((d, self.n_components)) / self.sigma
        if self.variant == "cos_offset":
            self.random_offset_ = rng.uniform(0.0, 2.0 * np.pi, self.n_components)
        return self

    def transform(self, X: ArrayLike) -> np.ndarray:
        """z(X), shape (n, 2M) for "cos_sin" or (n, M) for "cos_offset", dtype ``dtype``."""
        return self._features(self._validate_X(X), slice(None), self.dtype)

    def gram_blocks(
        self, X: ArrayLike, Y: ArrayLike | None = None, block_size: int = DEFAULT_BLOCK_SIZE
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield (z_b(X), z_b(Y)) over blocks of frequencies; see FeatureMap.gram_blocks."""
        X, Y = self._validate_pair(X, Y)
        for cols in frequency_blocks(self.n_components, block_size):
            Z = self._features(X, cols, np.float64)
            yield Z, (Z if Y is X else self._features(Y, cols, np.float64))

    def segment(self, start: int, stop: int) -> GaussianRFF:
        """The fitted map made of frequencies [start, stop) alone, normalized by stop - start.

        ``segment(0, s)`` is the map of the first s frequencies (columns of W), with
        ``n_components=s``; see FeatureMap (prefixes). Its W and b are views, not copies.
        """
        check_is_fitted(self)
        if not (is_int(start) and is_int(stop) and 0 <= start < stop <= self.n_components):
            raise ValueError(
                f"segment({start!r}, {stop!r}) is not valid; need integers 0 <= start < stop <= "
                f"n_components={self.n_components}"
            )
        part = GaussianRFF(n_components=int(stop - start), sigma=self.sigma, variant=self.variant, dtype=self.dtype)
        part.n_features_in_ = self.n_features_in_
        part.random_weights_ = self.random_weights_[:, start:stop]
        if self.variant == "cos_offset":
            part.random_offset_ = self.random_offset_[start:stop]
        return part

    def _features(self, X: np.ndarray, cols: slice, dtype: DTypeLike) -> np.ndarray:
        """The columns of z(X) that belong to frequencies ``cols`` (normalized by the full M)."""
        W = self.random_weights_[:, cols]
        if self.variant == "cos_sin":
            return cos_sin(X, W, scale=np.sqrt(1.0 / self.n_components), dtype=dtype)
        scale = np.sqrt(2.0 / self.n_components)
        return cos_offset(X, W, self.random_offset_[cols], scale=scale, dtype=dtype)
