"""Explicit random feature maps: Gaussian RFF, AsK-RFF, random binning and the identity baseline.

Every map is a scikit-learn style transformer with ``fit``/``transform`` and a
``gram_blocks`` method yielding low-rank factors of its approximate Gram
matrix (consumed by ``rfbench.metrics``).  The configs name them by class
(``configs/feature_map/*.yaml``, ``_target_``); ``rfbench.components`` builds them.
``scaled_cos_sin_rows`` and ``trig_threads`` are the trigonometric engine's entry
points, public for the benchmark.
"""
from __future__ import annotations

from ._base import DEFAULT_BLOCK_SIZE, FeatureMap
from ._sincos import scaled_cos_sin_rows
from ._trig import trig_threads
from .askrff import AsKRFF
from .binning import RandomBinning
from .identity import IdentityMap
from .rff import GaussianRFF

__all__ = ["DEFAULT_BLOCK_SIZE", "AsKRFF", "FeatureMap", "GaussianRFF", "IdentityMap", "RandomBinning", "scaled_cos_sin_rows",
           "trig_threads"]
