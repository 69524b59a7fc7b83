"""Exact-kernel SVM on the data itself, its kernel named in the config: Li's (KDD 2017) tables.

:class:`~rfbench.kernel_svm.PrecomputedKernelSVC` takes "rbf" (exp(-gamma ||x - y||^2)), a kernel
name (one Gram, no gamma sweep) or a callable; this subclass adds Li's RBF swept over gamma, so
that ``classifier=svc_named`` with ``kernel=linear feature_map=identity`` (the features are the
data) trains Li's three kernel SVMs with every grid point served by precomputed Grams:

* ``cosine_rbf``: exp(-gamma (1 - rho)), rho the cosine (Li's eq. 8), over ``gamma_grid``: the
  rows are normalized to unit l2 norm, so 1 - rho = ||u - v||^2 / 2, and one matrix of those
  half squared distances serves every gamma;
* ``linear``: u^T v, and ``gmm``: the GMM kernel (:class:`rfbench.kernel.GMMKernel`, eq. 3):
  one Gram serves every C.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np
from sklearn.preprocessing import normalize

from rfbench.classifier import DEFAULT_C_GRID
from rfbench.kernel_svm import DEFAULT_GAMMA_GRID, PrecomputedKernelSVC

METRICS: tuple[str, ...] = ("cosine_rbf", "linear", "gmm")


class NamedKernelSVC(PrecomputedKernelSVC):
    """:class:`~rfbench.kernel_svm.PrecomputedKernelSVC` with the kernel given by name.

    Parameters
    ----------
    metric : {"cosine_rbf", "linear", "gmm"}, default="cosine_rbf"
        The kernel (see the module docstring); only ``cosine_rbf`` uses ``gamma_grid``, as
        the gamma of exp(-gamma (1 - rho)).
    gamma_grid, C_grid, selection, cv, tol, cache_size, random_state, memory_limit_gib, n_jobs, progress
        As for :class:`~rfbench.kernel_svm.PrecomputedKernelSVC`.
    """

    #: Its kernel is computed on the data itself: the run's feature map must be the identity.
    takes_data = True

    def __init__(
        self,
        metric: str = "cosine_rbf",
        gamma_grid: Sequence[float] = DEFAULT_GAMMA_GRID,
        C_grid: Sequence[float] = DEFAULT_C_GRID,
        selection: str = "cv",
        cv: int = 5,
        tol: float = 1e-3,
        cache_size: float = 200,
        random_state: int | np.random.RandomState | None = None,
        memory_limit_gib: float = 8.0,
        n_jobs: int = 1,
        progress: Callable[[int, int], None] | None = None,
    ):
        self.metric = metric
        self.gamma_grid = gamma_grid
        self.C_grid = C_grid
        self.selection = selection
        self.cv = cv
        self.tol = tol
        self.cache_size = cache_size
        self.random_state = random_state
        self.memory_limit_gib = memory_limit_gib
        self.n_jobs = n_jobs
        self.progress = progress

    @property
    def kernel(self) -> str:
        """What the parent computes: "rbf" on the normalized rows, or the kernel of that name
        (``rfbench.kernel.KERNELS``)."""
        return "rbf" if self.metric == "cosine_rbf" else self.metric

    def check_params(self) -> None:
        """Raise ValueError naming the first invalid parameter."""
        if self.metric not in METRICS:
            raise ValueError(f"metric={self.metric!r} is not valid; choose one of {METRICS}")
        super().check_params()

    def fit(self, X: np.ndarray, y: np.ndarray, X_test: np.ndarray | None = None,
            y_test: np.ndarray | None = None) -> NamedKernelSVC:
        """As the parent's ``fit``; ``cosine_rbf`` normalizes the rows of X and X_test first."""
        self.check_params()
        return super().fit(self._rows(X), y, None if X_test is None else self._rows(X_test), y_test)

    def _rows(self, X: np.ndarray) -> np.ndarray:
        return normalize(np.asarray(X, dtype=np.float64)) if self.metric == "cosine_rbf" else X

    def _base(self, A: np.ndarray) -> np.ndarray:
        """For ``cosine_rbf`` the half squared distances 1 - rho, so exp(-gamma base) is Li's RBF."""
        base = super()._base(A)
        if self.metric == "cosine_rbf":
            base *= 0.5
        return base

    def _test_grams(self, X: np.ndarray) -> Iterator[np.ndarray]:
        return super()._test_grams(self._rows(X))
