"""Orthogonal random features of the Gaussian kernel (Yu et al. 2016, "Orthogonal Random Features")."""
from __future__ import annotations

import numpy as np

from .rff import GaussianRFF


class OrthogonalRFF(GaussianRFF):
    r"""Random Fourier features whose frequencies are orthogonal within blocks of d.

    Yu et al. (2016, eq. 3) replace the Gaussian matrix of RFF by W = (1/sigma) S Q
    (here its transpose: frequencies are columns), with Q a Haar-random d x d
    orthogonal matrix and S = diag(s_1..s_d), s_i ~ chi(d) independent: each column
    then has the N(0, sigma^-2 I_d) distribution of an RFF frequency (a uniform
    direction times a chi(d) length), so every K~ entry is unbiased as for RFF, while
    columns of one block are exactly orthogonal.  M > d frequencies stack ceil(M / d)
    independent blocks, the last truncated.  Their Theorem 1: for M <= d,
    Var K~_ORF(x, y) < Var K~_RFF(x, y) at every x != y (tests/feature_map/test_orf.py
    checks it by simulation).

    Q is the Q factor of the QR decomposition of a standard Gaussian matrix, its
    columns' signs fixed by the signs of R's diagonal (Mezzadri 2007), which makes
    its law Haar.  Only the Gaussian kernel is served: ORF needs a rotation-invariant
    spectral law, and rfbench's other kernels (e.g. the L1 Laplacian, a product of
    Cauchy laws) have none.

    Parameters, attributes, features and column counts are those of
    :class:`GaussianRFF` (``variant``, ``dtype``, ``segment`` included): M =
    ``n_components`` frequencies give 2M columns [cos, sin], or ``cos_offset_2m``'s
    2M cosines from 2M frequencies.
    """

    def _draw_weights(self, rng: np.random.Generator, d: int, m: int) -> np.ndarray:
        """W (d, m): ceil(m / d) blocks Q_b diag(s_b) / sigma, truncated to m columns."""
        blocks = []
        for _ in range(-(-m // d)):
            q, r = np.linalg.qr(rng.standard_normal((d, d)))
            q *= np.sign(np.diag(r))  # a column scaled by the sign of R's pivot: Haar, not QR's convention
            blocks.append(q * np.sqrt(rng.chisquare(d, size=d)))
        return np.hstack(blocks)[:, :m] / self.sigma
