"""Nystroem features (Williams & Seeger 2001): scikit-learn's ``Nystroem`` with a choice of landmarks."""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import ArrayLike, DTypeLike
from sklearn.cluster import KMeans
from sklearn.kernel_approximation import Nystroem

from rfbench.kernel import GaussianKernel, Kernel, LaplacianKernel

from ._base import DEFAULT_BLOCK_SIZE, FeatureMap, check_choice, check_positive_int, check_positive_real
from ._trig import feature_dtype

LANDMARKS = ("uniform", "kmeans")
#: rfbench's kernels that scikit-learn's pairwise kernels compute, and gamma from sigma.
KERNELS = {"gaussian": ("rbf", lambda sigma: 0.5 / sigma**2), "laplacian": ("laplacian", lambda sigma: 1.0 / sigma)}


class NystroemMap(FeatureMap):
    r"""Data-dependent features z(x) = K_LL^{-1/2} k(L, x) from L landmarks (scikit-learn's ``Nystroem``).

    z(x)^T z(y) = k(x, L) K_LL^+ k(L, y), the kernel projected on the span of the
    landmarks' feature vectors: exact on the landmarks, biased elsewhere, and computed
    by scikit-learn (rfbench chooses the landmarks and the kernel's gamma only):

    * ``landmarks="uniform"``: L rows of the training data drawn without replacement
      (scikit-learn's own choice);
    * ``landmarks="kmeans"``: the L centres of k-means on the training data (Zhang,
      Tsang & Kwok 2008), a data-dependent choice that covers the data's mass.

    Columns: L = 2M landmarks for M = ``n_components``, so that the map has the 2M real
    columns of the Fourier maps' [cos, sin]; at most the number of training rows (fewer
    columns are then given: ``n_landmarks_``).

    Parameters
    ----------
    n_components : int, default=100
        M; 2M landmarks.
    kernel : {"gaussian", "laplacian"}, default="gaussian"
        exp(-||x - y||^2 / (2 sigma^2)) or exp(-||x - y||_1 / sigma) (set by ``from_kernel``).
    sigma : float, default=1.0
        Kernel bandwidth.
    landmarks : {"uniform", "kmeans"}, default="uniform"
    dtype : {"float32", "float64"}, default="float32"
        dtype of ``transform``'s output (scikit-learn computes in float64).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of ``numpy.random.default_rng``, which draws the seed of the landmark choice.

    Attributes
    ----------
    nystroem_ : sklearn.kernel_approximation.Nystroem
        The fitted scikit-learn map.
    n_landmarks_ : int
        min(2M, training rows).
    n_features_in_ : int
    """

    approximates = (GaussianKernel, LaplacianKernel)

    def __init__(
        self,
        *,
        n_components: int = 100,
        kernel: str = "gaussian",
        sigma: float = 1.0,
        landmarks: str = "uniform",
        dtype: DTypeLike = "float32",
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.n_components = n_components
        self.kernel = kernel
        self.sigma = sigma
        self.landmarks = landmarks
        self.dtype = dtype
        self.random_state = random_state

    @classmethod
    def from_kernel(cls, kernel: Kernel, **params) -> NystroemMap:
        """The map of ``kernel``'s name and bandwidth."""
        return cls(kernel=kernel.name, sigma=kernel.sigma, **params)

    def output_size(self, n_features_in: int) -> tuple[int, int]:
        """2M columns; the landmarks (2M x d) and K_LL^{-1/2} (2M x 2M)."""
        width = 2 * self.n_components
        return width, width * (n_features_in + width)

    def check_params(self) -> None:
        check_positive_int("n_components", self.n_components)
        check_choice("kernel", self.kernel, tuple(KERNELS))
        check_positive_real("sigma", self.sigma)
        check_choice("landmarks", self.landmarks, LANDMARKS)
        feature_dtype(self.dtype)

    def fit(self, X: ArrayLike, y: object = None) -> NystroemMap:
        """Choose the landmarks among (or from) X and fit scikit-learn's Nystroem on them."""
        self.check_params()
        X = self._validate_X(X, reset=True)
        seed = int(np.random.default_rng(self.random_state).integers(2**31))
        self.n_landmarks_ = min(2 * self.n_components, len(X))
        if self.landmarks == "kmeans":
            X = KMeans(n_clusters=self.n_landmarks_, n_init=1, random_state=seed).fit(X).cluster_centers_
        name, gamma = KERNELS[self.kernel]
        nystroem = Nystroem(kernel=name, gamma=gamma(self.sigma), n_components=self.n_landmarks_, random_state=seed)
        self.nystroem_ = nystroem.fit(X)
        return self

    def transform(self, X: ArrayLike) -> np.ndarray:
        """z(X), shape (n, n_landmarks_), dtype ``dtype``."""
        return self.nystroem_.transform(self._validate_X(X)).astype(self.dtype, copy=False)

    def gram_blocks(
        self, X: ArrayLike, Y: ArrayLike | None = None, block_size: int = DEFAULT_BLOCK_SIZE
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The single block (z(X), z(Y)) in scikit-learn's float64, not rounded to ``dtype``."""
        check_positive_int("block_size", block_size)
        X, Y = self._validate_pair(X, Y)
        Z = self.nystroem_.transform(X)
        yield Z, (Z if Y is X else self.nystroem_.transform(Y))
