"""Random Fourier features whose frequency matrix is a product of structured p x p blocks."""
from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterator

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from rfbench.kernel import GaussianKernel

from ._base import DEFAULT_BLOCK_SIZE, FeatureMap, check_positive_int, check_positive_real, frequency_blocks
from ._hadamard import padded_width
from ._trig import CHUNK_BYTES, feature_dtype, map_row_chunks, write_cos_sin

#: A projector(X, start, out) writes columns [start, start + out.shape[1]) of X W to out.
Projector = Callable[[np.ndarray, int, np.ndarray], None]


class StructuredRFF(FeatureMap):
    r"""Gaussian-kernel features z(x) = M^-1/2 [cos(W^T x), sin(W^T x)] with a structured W.

    Inputs are zero-padded from d to p = 2^ceil(log2 d) coordinates; W^T (M x p) stacks
    ceil(M / p) independent p x p blocks V_b, the last truncated, each applied in
    O(p log p) by fast Walsh-Hadamard transforms (:mod:`._hadamard`) and never stored.
    Columns: M = ``n_components`` frequencies give 2M real columns, as for
    :class:`GaussianRFF` ``cos_sin``.  A subclass draws the blocks (``_draw``) and
    applies them (``_projector``).

    Parameters
    ----------
    n_components : int, default=100
        Number M of frequencies (rows of W^T).
    sigma : float, default=1.0
        Kernel bandwidth.
    dtype : {"float32", "float64"}, default="float32"
        Precision of the transforms, the trigonometry and ``transform``'s output
        (``gram_blocks`` is always float64).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of ``numpy.random.default_rng`` for the blocks.

    Attributes
    ----------
    n_padded_ : int
        p.
    n_features_in_ : int
    """

    approximates = (GaussianKernel,)
    #: Numbers drawn per block row (for the memory estimate): e.g. three diagonals for SORF.
    numbers_per_row = 1

    def __init__(
        self,
        *,
        n_components: int = 100,
        sigma: float = 1.0,
        dtype: DTypeLike = "float32",
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.n_components = n_components
        self.sigma = sigma
        self.dtype = dtype
        self.random_state = random_state

    @classmethod
    def from_kernel(cls, kernel: GaussianKernel, **params) -> StructuredRFF:
        """The map of ``kernel``'s bandwidth."""
        return cls(sigma=kernel.sigma, **params)

    def output_size(self, n_features_in: int) -> tuple[int, int]:
        """2M columns; ``numbers_per_row`` numbers per row of ceil(M / p) blocks of p rows."""
        p = padded_width(n_features_in)
        return 2 * self.n_components, -(-self.n_components // p) * p * self.numbers_per_row

    def check_params(self) -> None:
        check_positive_int("n_components", self.n_components)
        check_positive_real("sigma", self.sigma)
        feature_dtype(self.dtype)

    def fit(self, X: ArrayLike, y: object = None) -> StructuredRFF:
        """Draw the blocks for inputs of X's width (only the width is used)."""
        self.check_params()
        d = self._validate_X(X, reset=True).shape[1]
        self.n_padded_ = padded_width(d)
        self._draw(np.random.default_rng(self.random_state), self.n_padded_, -(-self.n_components // self.n_padded_))
        return self

    def project(self, X: ArrayLike, dtype: DTypeLike = np.float64) -> np.ndarray:
        """W^T x for every row x of X: shape (n, M), computed by the fast transforms."""
        X = self._cast(self._validate_X(X), dtype)
        out = np.empty((len(X), self.n_components), dtype=X.dtype)
        project = self._projector(X.dtype)
        # straight into out: the task's own buffer is unused (1 column), chunks sized as transform's
        chunk_rows = max(1, CHUNK_BYTES // (self.n_components * X.itemsize))
        map_row_chunks(lambda rows, _: project(X[rows], 0, out[rows]), len(X), 1, X.dtype, chunk_rows)
        return out

    def transform(self, X: ArrayLike) -> np.ndarray:
        """z(X), shape (n, 2M), dtype ``dtype``."""
        return self._features(self._validate_X(X), 0, self.n_components, self.dtype)

    def gram_blocks(
        self, X: ArrayLike, Y: ArrayLike | None = None, block_size: int = DEFAULT_BLOCK_SIZE
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield (z_b(X), z_b(Y)) over blocks of frequencies; see FeatureMap.gram_blocks."""
        X, Y = self._validate_pair(X, Y)
        for cols in frequency_blocks(self.n_components, block_size):
            Z = self._features(X, cols.start, cols.stop, np.float64)
            yield Z, (Z if Y is X else self._features(Y, cols.start, cols.stop, np.float64))

    def _features(self, X: np.ndarray, start: int, stop: int, dtype: DTypeLike) -> np.ndarray:
        """Columns of z(X) of frequencies [start, stop) (normalized by the full M): the
        projection of a row chunk, then its cos and sin, chunk by chunk in the engine's threads."""
        X = self._cast(X, dtype)
        out = np.empty((len(X), 2 * (stop - start)), dtype=X.dtype)
        project, scale = self._projector(X.dtype), np.sqrt(1.0 / self.n_components)

        def task(rows: slice, projection: np.ndarray) -> None:
            project(X[rows], start, projection)
            write_cos_sin(projection, out[rows], scale=scale)

        map_row_chunks(task, len(X), stop - start, X.dtype)
        return out

    @staticmethod
    def _cast(X: np.ndarray, dtype: DTypeLike) -> np.ndarray:
        return np.ascontiguousarray(X, dtype=feature_dtype(dtype))

    @abstractmethod
    def _draw(self, rng: np.random.Generator, p: int, n_blocks: int) -> None:
        """Draw and store ``n_blocks`` blocks of size p x p."""

    @abstractmethod
    def _projector(self, dtype: np.dtype) -> Projector:
        """The fitted blocks' projector in ``dtype`` (parameters cast once per call)."""
