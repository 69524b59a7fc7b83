"""Explicit random feature maps: Gaussian RFF, AsK-RFF and the identity baseline.

Every map is a scikit-learn style transformer with ``fit``/``transform`` and a
``gram_blocks`` method yielding low-rank factors of its approximate Gram
matrix (consumed by ``rfbench.metrics``).
"""
from __future__ import annotations

from ._base import DEFAULT_BLOCK_SIZE, FeatureMap
from .askrff import AsKRFF
from .identity import IdentityMap
from .rff import GaussianRFF

FEATURE_MAPS: dict[str, type[FeatureMap]] = {
    "rff": GaussianRFF,
    "askrff": AsKRFF,
    "identity": IdentityMap,
}

__all__ = ["DEFAULT_BLOCK_SIZE", "FEATURE_MAPS", "AsKRFF", "FeatureMap", "GaussianRFF", "IdentityMap"]
