"""Random Fourier features of the Laplacian kernel: Cauchy frequencies (Rahimi & Recht 2007)."""
from __future__ import annotations

import numpy as np

from rfbench.kernel import LaplacianKernel

from .rff import GaussianRFF


class CauchyRFF(GaussianRFF):
    r"""Random Fourier features for k(x, y) = exp(-||x - y||_1 / sigma).

    k(D) = prod_k exp(-|D_k| / sigma) is the characteristic function of w with i.i.d.
    Cauchy(0, 1/sigma) coordinates (:class:`rfbench.kernel.LaplacianKernel`), so
    k(D) = E[cos(w^T D)] and the features of :class:`GaussianRFF` with W (d, M) of such
    entries estimate it without bias: every ``variant``, column count and parameter is
    GaussianRFF's, ``sigma`` being the Laplacian's.  The law has no second moment but the
    features are bounded, so the estimate's variance is finite, (1 + k(2D) - 2 k(D)^2) / (2M)
    for ``cos_sin``.
    """

    approximates = (LaplacianKernel,)

    def _draw_weights(self, rng: np.random.Generator, d: int, m: int) -> np.ndarray:
        """W (d, m): i.i.d. Cauchy(0, 1/sigma) entries."""
        return rng.standard_cauchy((d, m)) / self.sigma
