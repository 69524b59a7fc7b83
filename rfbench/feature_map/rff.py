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

VARIANTS = ("cos_sin", "cos_offset", "cos_offset_2m")


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
    * ``variant="cos_offset_2m"``: the same with 2M frequencies, z(x) = sqrt(1/M) cos(W^T x + b)
      (2M columns, as many as ``cos_sin``): scikit-learn's ``RBFSampler`` at the output width
      of the other maps, variance (1 + k(2D)/2 - k(D)^2) / (2M).

    Columns: ``n_components`` = M counts frequency pairs of 2 real columns for ``cos_sin``
    and ``cos_offset_2m`` (the count every map of the atlas shares), single columns for
    ``cos_offset`` (kept for Rahimi & Recht's Table 1, whose D is the number of cosines).

    Parameters
    ----------
    n_components : int, default=100
        Number M of random frequencies.
    sigma : float, default=1.0
        Kernel bandwidth.
    variant : {"cos_sin", "cos_offset", "cos_offset_2m"}, default="cos_sin"
    dtype : {"float32", "float64"}, default="float32"
        dtype of ``transform``'s output (``gram_blocks`` is always float64).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of ``numpy.random.default_rng`` for W and b.

    Attributes
    ----------
    random_weights_ : ndarray of shape (n_features_in_, n_frequencies)
        W, float64; n_frequencies = 2M for ``cos_offset_2m``, else M.
    random_offset_ : ndarray of shape (n_frequencies,)
        b, float64; only for the ``cos_offset`` variants.
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
        """2M (``cos_sin``, ``cos_offset_2m``) or M columns; W and b."""
        m = self._n_frequencies()
        return (m if self.variant == "cos_offset" else 2 * self.n_components), m * (n_features_in + 1)

    def _n_frequencies(self) -> int:
        """Columns of W: 2M for ``cos_offset_2m``, else M."""
        return 2 * self.n_components if self.variant == "cos_offset_2m" else self.n_components

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
        self.random_weights_ = self._draw_weights(rng, d, self._n_frequencies())
        if self.variant != "cos_sin":
            self.random_offset_ = rng.uniform(0.0, 2.0 * np.pi, self._n_frequencies())
        return self

    def _draw_weights(self, rng: np.random.Generator, d: int, m: int) -> np.ndarray:
        """W (d, m): i.i.d. N(0, sigma^-2) entries (a subclass draws other frequencies here)."""
        return rng.standard_normal((d, m)) / self.sigma

    def transform(self, X: ArrayLike) -> np.ndarray:
        """z(X), shape (n, 2M) for "cos_sin" and "cos_offset_2m", (n, M) for "cos_offset", dtype ``dtype``."""
        return self._features(self._validate_X(X), slice(None), self.dtype)

    def gram_blocks(
        self, X: ArrayLike, Y: ArrayLike | None = None, block_size: int = DEFAULT_BLOCK_SIZE
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield (z_b(X), z_b(Y)) over blocks of frequencies; see FeatureMap.gram_blocks."""
        X, Y = self._validate_pair(X, Y)
        for cols in frequency_blocks(self._n_frequencies(), block_size):
            Z = self._features(X, cols, np.float64)
            yield Z, (Z if Y is X else self._features(Y, cols, np.float64))

    def segment(self, start: int, stop: int) -> GaussianRFF:
        """The fitted map made of frequencies [start, stop) alone, normalized by stop - start.

        ``segment(0, s)`` is the map of the first s frequencies (columns of W), with
        ``n_components=s``; see FeatureMap (prefixes). Its W and b are views, not copies.
        For ``cos_offset_2m`` the segment holds columns [2 start, 2 stop) of W.
        """
        check_is_fitted(self)
        if not (is_int(start) and is_int(stop) and 0 <= start < stop <= self.n_components):
            raise ValueError(
                f"segment({start!r}, {stop!r}) is not valid; need integers 0 <= start < stop <= "
                f"n_components={self.n_components}"
            )
        part = GaussianRFF(n_components=int(stop - start), sigma=self.sigma, variant=self.variant, dtype=self.dtype)
        part.n_features_in_ = self.n_features_in_
        cols = slice(2 * start, 2 * stop) if self.variant == "cos_offset_2m" else slice(start, stop)
        part.random_weights_ = self.random_weights_[:, cols]
        if self.variant != "cos_sin":
            part.random_offset_ = self.random_offset_[cols]
        return part

    def _features(self, X: np.ndarray, cols: slice, dtype: DTypeLike) -> np.ndarray:
        """The columns of z(X) that belong to frequencies ``cols`` (normalized by all of W's columns)."""
        W = self.random_weights_[:, cols]
        if self.variant == "cos_sin":
            return cos_sin(X, W, scale=np.sqrt(1.0 / self.n_components), dtype=dtype)
        scale = np.sqrt(2.0 / self._n_frequencies())
        return cos_offset(X, W, self.random_offset_[cols], scale=scale, dtype=dtype)
