"""The interface shared by all feature maps, and parameter checks."""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_array, check_is_fitted

from rfbench.kernel import Kernel
from rfbench.validation import is_int, is_real

#: Random frequencies per block of ``gram_blocks``: 2 * 1024 float64 columns
#: keep each factor at 16 MB per 1000 rows whatever M is.
DEFAULT_BLOCK_SIZE = 1024


class FeatureMap(TransformerMixin, BaseEstimator, ABC):
    """An explicit feature map z with ``fit``, ``transform`` and ``gram_blocks``.

    ``transform`` gives the features handed to a linear classifier, dense or
    scipy.sparse CSR; ``gram_blocks`` gives low-rank factors of the approximate
    Gram matrix, sum_b L_b R_b^T = K~(X, Y), which for an asymmetric kernel is
    not ``transform(X) @ transform(Y).T``. Where it is, the default
    ``gram_blocks`` serves, and a new map implements only ``check_params``,
    ``fit`` and ``transform``.

    Input.  ``_validate_X`` takes dense float arrays; a map that also takes
    sparse input sets the class attribute ``accept_sparse = True`` (it then
    receives CSR).

    Prefixes.  A map whose K~ is the plain mean (1/M) sum_{j<M} k_j of the
    contributions k_j of one extensible sequence of M frequencies (``n_components``)
    can be cut into its first s frequencies, whose K~_s = (1/s) sum_{j<s} k_j.
    Such a map offers ``segment(start, stop)``: the fitted map made of frequencies
    [start, stop) alone, normalized by stop - start; ``rfbench.metrics.
    relative_gram_errors_by_prefix`` uses it to give the error of every prefix in
    one pass. ``GaussianRFF`` does; ``AsKRFF`` does not (its parts are weighted by
    estimated total masses) and neither does ``IdentityMap`` (no frequencies).
    """

    #: The kernel classes whose Gram matrix this map approximates (the runner refuses others).
    approximates: tuple[type[Kernel], ...] = ()

    @classmethod
    def from_kernel(cls, kernel: Kernel, **params: Any) -> FeatureMap:
        """The map approximating ``kernel`` (a built kernel object), with constructor ``params``.

        The runner builds each run's kernel once and calls this; a map whose constructor takes
        the kernel's parameters (e.g. ``sigma``) reads them from the object here.
        """
        return cls(**params)

    #: Whether ``transform`` returns a sparse (CSR) matrix, whose ``output_size`` counts stored values.
    sparse_output: bool = False

    def output_size(self, n_features_in: int) -> tuple[int, int] | None:
        """(values ``transform`` stores per row, float64 numbers the fitted map holds) for inputs of
        width ``n_features_in``, known before fitting (upper bounds); None when unknown.

        A dense map stores every column; a sparse one (``sparse_output``) its nonzeros.  Lets the
        runner refuse a configuration too large for memory before allocating it.
        """
        return None

    def output_width(self, n_features_in: int) -> int | None:
        """Columns ``transform`` returns for inputs of width ``n_features_in``, known before fitting;
        None when only the data tell (a sparse map's occupied bins).  A dense map's ``output_size``."""
        size = None if self.sparse_output else self.output_size(n_features_in)
        return None if size is None else size[0]

    def fit_record(self) -> dict[str, float]:
        """Numbers of the fitted map worth a column of the results (e.g. estimated masses)."""
        return {}

    def approximated_gram(self, K: np.ndarray) -> np.ndarray:
        """The matrix this map's K~ approximates, given the kernel's exact Gram K (K itself here)."""
        return K

    @abstractmethod
    def check_params(self) -> None:
        """Raise ValueError naming the first invalid constructor parameter; ``fit`` calls it first."""

    def gram_blocks(
        self, X: ArrayLike, Y: ArrayLike | None = None, block_size: int = DEFAULT_BLOCK_SIZE
    ) -> Iterator[tuple[np.ndarray | sparse.csr_array, np.ndarray | sparse.csr_array]]:
        """Yield float64 factors (L_b (n_x, c_b), R_b (n_y, c_b)) with sum_b L_b R_b^T = K~(X, Y).

        ``block_size`` bounds the random frequencies per block, hence memory
        O((n_x + n_y) * block_size) independently of the number of components.
        ``Y=None`` means ``Y = X``. Factors are dense or CSR.

        This default is for maps with K~(x, y) = z(x)^T z(y): the single block
        (z(X), z(Y)) from ``transform`` (``block_size`` is only checked), as
        float64; with ``Y=None`` both factors are the same object. A map whose
        features are too wide for one block, or whose K~ is not z(x)^T z(y),
        overrides it.
        """
        check_positive_int("block_size", block_size)
        Z_X = _as_float64(self.transform(X))
        yield Z_X, (Z_X if Y is None else _as_float64(self.transform(Y)))

    #: Whether ``_validate_X`` takes scipy.sparse input (converted to CSR).
    accept_sparse: bool = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.accept_sparse
        # The output dtype is the map's choice (e.g. its ``dtype`` parameter), not the input's.
        tags.transformer_tags.preserves_dtype = []
        return tags

    def _validate_X(self, X: ArrayLike, *, reset: bool = False) -> np.ndarray | sparse.csr_array:
        """2-D float array (or CSR, if ``accept_sparse``); ``reset`` records n_features_in_, otherwise checks it."""
        if not reset:
            check_is_fitted(self)
        X = check_array(X, accept_sparse="csr" if self.accept_sparse else False, dtype=(np.float64, np.float32))
        if reset:
            self.n_features_in_ = X.shape[1]
        elif X.shape[1] != self.n_features_in_:
            # scikit-learn's wording, which its estimator checks match.
            name, expected = type(self).__name__, self.n_features_in_
            raise ValueError(f"X has {X.shape[1]} features, but {name} is expecting {expected} features as input")
        return X

    def _validate_pair(self, X: ArrayLike, Y: ArrayLike | None) -> tuple[np.ndarray, np.ndarray]:
        X = self._validate_X(X)
        return X, (X if Y is None else self._validate_X(Y))


def _as_float64(Z: ArrayLike) -> np.ndarray | sparse.csr_array:
    """Z in float64 (a copy only when its dtype differs): CSR if it is sparse, else an ndarray."""
    if sparse.issparse(Z):
        return sparse.csr_array(Z, dtype=np.float64)
    return np.asarray(Z, dtype=np.float64)


def frequency_blocks(n: int, block_size: int) -> Iterator[slice]:
    """Consecutive slices of at most ``block_size`` out of range(n)."""
    check_positive_int("block_size", block_size)
    for start in range(0, n, block_size):
        yield slice(start, min(start + block_size, n))


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    """Raise ValueError naming ``value`` and the valid ``choices`` unless it is one of them."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name}={value!r} is not valid; choose one of {choices}")


def check_positive_int(name: str, value: object) -> None:
    """Raise ValueError unless ``value`` is an integer >= 1."""
    if not is_int(value) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def check_positive_real(name: str, value: object) -> None:
    """Raise ValueError unless ``value`` is a finite real number > 0."""
    if not is_real(value) or not 0 < value < np.inf:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
