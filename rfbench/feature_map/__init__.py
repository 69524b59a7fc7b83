"""Explicit feature maps: Gaussian RFF, AsK-RFF, QMC Fourier features, NRFF, GCWS, random binning
and the identity baseline.

Every map is a scikit-learn style transformer with ``fit``/``transform`` and a
``gram_blocks`` method yielding low-rank factors of its approximate Gram
matrix (consumed by ``rfbench.metrics``).  The configs name them by class
(``configs/feature_map/*.yaml``, ``_target_``); ``rfbench.engine.components`` builds them.
``scaled_cos_sin_rows`` and ``trig_threads`` are the trigonometric engine's entry
points, public for the benchmark.
"""
from __future__ import annotations

from ._base import DEFAULT_BLOCK_SIZE, FeatureMap
from ._sincos import scaled_cos_sin_rows
from ._trig import trig_threads
from .askrff import AsKRFF
from .binning import RandomBinning
from .gcws import GCWS
from .identity import IdentityMap
from .nrff import NRFF
from .qmc import QMCFourierFeatures
from .rff import GaussianRFF

__all__ = ["DEFAULT_BLOCK_SIZE", "GCWS", "NRFF", "AsKRFF", "FeatureMap", "GaussianRFF", "IdentityMap",
           "QMCFourierFeatures", "RandomBinning", "scaled_cos_sin_rows", "trig_threads"]
