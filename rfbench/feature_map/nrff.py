r"""Normalized random Fourier features (NRFF) of Li (KDD 2017, Section 2)."""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import ArrayLike, DTypeLike
from sklearn.preprocessing import normalize

from rfbench.kernel.cosine_rbf import CosineRBFKernel, check_gamma

from ._base import DEFAULT_BLOCK_SIZE, FeatureMap, check_positive_int
from ._trig import feature_dtype
from .rff import GaussianRFF


class NRFF(FeatureMap):
    r"""NRFF for the RBF kernel exp(-gamma (1 - rho)) of Li (eq. 8).

    Rows u are scaled to unit l2 norm, then given k random Fourier features
    with random offsets (eq. 9),

        X_j = sqrt(2) cos(sqrt(gamma) r_j^T u + w_j),   r_j ~ N(0, I),  w_j ~ U(0, 2 pi),

    and the feature vector is normalized to unit l2 norm:
    z(u) = (X_1, ..., X_k) / ||X||_2.  So z(u)^T z(v) is the NRFF estimator of
    Theorem 2.2, sum X_j Y_j / (sqrt(sum X_j^2) sqrt(sum Y_j^2)), of asymptotic
    variance V_{n, rho, gamma} / k (eq. 13; ``rfbench.papers.li.variance.
    nrff_variance``), against V_{rho, gamma} / k for the plain mean
    (1/k) sum X_j Y_j (eq. 11).  It is slightly biased, by O(1/k).  The plain
    RFF of the paper is ``GaussianRFF(sigma=gamma**-0.5, variant="cos_offset")``
    on normalized rows; NRFF is that map followed by row normalization, which
    drops its constant sqrt(2 / k).

    (The ``cos_sin`` variant of ``GaussianRFF`` needs no such step: its
    features cos, sin of each projection already have squared norm exactly 1.)

    Parameters
    ----------
    n_components : int, default=100
        Number k of random features (columns of the output).
    gamma : float, default=1.0
        The kernel's gamma > 0.
    dtype : {"float32", "float64"}, default="float32"
        dtype of ``transform``'s output.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of ``numpy.random.default_rng`` for r and w.

    Attributes
    ----------
    rff_ : GaussianRFF
        The fitted plain map of the normalized rows (its ``random_weights_`` are
        sqrt(gamma) r_j, its ``random_offset_`` the w_j).
    n_features_in_ : int
    """

    approximates = (CosineRBFKernel,)

    def __init__(
        self,
        *,
        n_components: int = 100,
        gamma: float = 1.0,
        dtype: DTypeLike = "float32",
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.n_components = n_components
        self.gamma = gamma
        self.dtype = dtype
        self.random_state = random_state

    @classmethod
    def from_kernel(cls, kernel: CosineRBFKernel, **params) -> NRFF:
        """NRFF of ``kernel``'s gamma; ``params`` are the other constructor arguments."""
        return cls(gamma=kernel.gamma, **params)

    def output_size(self, n_features_in: int) -> tuple[int, int]:
        """M columns; the inner RFF's W (d x M) and b."""
        return self.n_components, self.n_components * (n_features_in + 1)

    def check_params(self) -> None:
        check_positive_int("n_components", self.n_components)
        check_gamma(self.gamma)
        feature_dtype(self.dtype)

    def fit(self, X: ArrayLike, y: object = None) -> NRFF:
        """Draw r_j and w_j; only X's width is used."""
        self.check_params()
        X = self._validate_X(X, reset=True)
        self.rff_ = GaussianRFF(
            n_components=self.n_components,
            sigma=self.gamma**-0.5,
            variant="cos_offset",
            dtype=self.dtype,
            random_state=self.random_state,
        ).fit(X)
        return self

    def transform(self, X: ArrayLike) -> np.ndarray:
        """z(X) of shape (n, n_components), rows of unit l2 norm, dtype ``dtype``."""
        return self._features(self._validate_X(X), self.dtype)

    def gram_blocks(
        self, X: ArrayLike, Y: ArrayLike | None = None, block_size: int = DEFAULT_BLOCK_SIZE
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield the single block (z(X), z(Y)) in float64; the row norms need every column at once."""
        X, Y = self._validate_pair(X, Y)
        Z_X = self._features(X, np.float64)
        yield Z_X, (Z_X if Y is X else self._features(Y, np.float64))

    def _features(self, X: np.ndarray, dtype: DTypeLike) -> np.ndarray:
        """Normalized features of the normalized rows of validated X."""
        # A feature vector of norm 0 (probability 0) stays 0: normalize leaves zero rows alone.
        return normalize(self.rff_._features(normalize(X), slice(None), dtype), copy=False)
