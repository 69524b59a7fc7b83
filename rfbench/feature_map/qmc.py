"""Quasi-Monte Carlo Fourier features of the Gaussian kernel (Avron et al., Algorithm 1)."""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import ArrayLike, DTypeLike
from scipy.special import ndtri
from sklearn.utils.validation import check_is_fitted

from rfbench.kernel.gaussian import GaussianKernel
from rfbench.qmc.sequences import SEQUENCES, unit_points

from ._base import DEFAULT_BLOCK_SIZE, FeatureMap, check_choice, check_positive_int, check_positive_real
from ._trig import feature_dtype
from .rff import GaussianRFF


class QMCFourierFeatures(FeatureMap):
    r"""Fourier features of k(x, y) = exp(-||x - y||^2 / (2 sigma^2)) on a low-discrepancy sequence.

    k(x - y) = int_{[0,1]^d} cos((x - y)^T Phi^{-1}(t)) dt / sigma, with Phi^{-1} the inverse
    standard normal CDF applied coordinate-wise, since w = Phi^{-1}(t) / sigma ~ N(0, sigma^-2 I)
    for t uniform on the cube. The integral is approximated on the first s points t_1..t_s of
    a sequence (``rfbench.qmc.sequences``) instead of i.i.d. draws:

        w_l = Phi^{-1}(t_l) / sigma,   z(x) = s^-1/2 [cos(W^T x), sin(W^T x)]   (2s columns),

    so z(x)^T z(y) = (1/s) sum_l cos(w_l^T (x - y)), the real part of the paper's complex
    feature map (3). With ``sequence="mc"`` this is ``GaussianRFF``. A randomized sequence
    gives an unbiased K~ (each t_l is uniform on the cube); the scrambled Halton sequence
    is deterministic, as in the paper, and so is every ``scramble=False`` sequence.

    Parameters
    ----------
    n_components : int, default=100
        Number s of points (frequencies).
    sigma : float, default=1.0
        Kernel bandwidth.
    sequence : {"mc", "halton", "sobol", "lattice", "digital_net"}, default="halton"
    scramble : bool, default=True
        The sequence's randomization (see ``rfbench.qmc.sequences``); False gives the plain
        sequence without its first point, the origin.
    dtype : {"float32", "float64"}, default="float32"
        dtype of ``transform``'s output (``gram_blocks`` is always float64).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the randomization.

    Attributes
    ----------
    random_weights_ : ndarray of shape (n_features_in_, n_components)
        W, float64; its columns are the frequencies w_l, in sequence order.
    n_features_in_ : int
    """

    approximates = (GaussianKernel,)

    def __init__(
        self,
        *,
        n_components: int = 100,
        sigma: float = 1.0,
        sequence: str = "halton",
        scramble: bool = True,
        dtype: DTypeLike = "float32",
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.n_components = n_components
        self.sigma = sigma
        self.sequence = sequence
        self.scramble = scramble
        self.dtype = dtype
        self.random_state = random_state

    @classmethod
    def from_kernel(cls, kernel: GaussianKernel, **params: object) -> QMCFourierFeatures:
        """The map for ``kernel``'s bandwidth; ``params`` are the other constructor parameters."""
        return cls(sigma=kernel.sigma, **params)

    def output_size(self, n_features_in: int) -> tuple[int, int]:
        """2M columns (cos and sin); the M x d frequencies and the M x d sequence points they are made from."""
        return 2 * self.n_components, 2 * self.n_components * n_features_in

    def check_params(self) -> None:
        check_positive_int("n_components", self.n_components)
        check_positive_real("sigma", self.sigma)
        check_choice("sequence", self.sequence, SEQUENCES)
        if not isinstance(self.scramble, bool):
            raise ValueError(f"scramble must be true or false, got {self.scramble!r}")
        feature_dtype(self.dtype)

    def fit(self, X: ArrayLike, y: object = None) -> QMCFourierFeatures:
        """Map the first n_components points of the sequence to frequencies; only X's width is used."""
        self.check_params()
        d = self._validate_X(X, reset=True).shape[1]
        points = unit_points(self.sequence, self.n_components, d, scramble=self.scramble, seed=self.random_state)
        self.random_weights_ = ndtri(points).T / self.sigma
        return self

    def transform(self, X: ArrayLike) -> np.ndarray:
        """z(X), shape (n, 2 n_components), dtype ``dtype``."""
        return self._as_rff().transform(self._validate_X(X))

    def gram_blocks(
        self, X: ArrayLike, Y: ArrayLike | None = None, block_size: int = DEFAULT_BLOCK_SIZE
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield (z_b(X), z_b(Y)) over blocks of frequencies; see FeatureMap.gram_blocks."""
        X, Y = self._validate_pair(X, Y)
        return self._as_rff().gram_blocks(X, None if Y is X else Y, block_size)

    def segment(self, start: int, stop: int) -> GaussianRFF:
        """The fitted map made of frequencies [start, stop) alone, normalized by stop - start.

        The sequences are extensible, so ``segment(0, s)`` is the map fitted with
        ``n_components=s``; see FeatureMap (prefixes). It is returned as the
        ``GaussianRFF`` with these frequencies, whose features are the same.
        """
        return self._as_rff().segment(start, stop)

    def _as_rff(self) -> GaussianRFF:
        """The GaussianRFF ("cos_sin") with this map's frequencies: the features are the same."""
        check_is_fitted(self)
        rff = GaussianRFF(n_components=self.n_components, sigma=self.sigma, variant="cos_sin", dtype=self.dtype)
        rff.n_features_in_ = self.n_features_in_
        rff.random_weights_ = self.random_weights_
        return rff
