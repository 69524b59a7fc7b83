"""Explicit feature maps: Gaussian RFF, AsK-RFF, QMC Fourier features, NRFF, GCWS, random binning,
the identity baseline, Cauchy RFF of the Laplacian kernel, and the standard baselines ORF, SORF, Fastfood and Nystroem.

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
from .cauchy_rff import CauchyRFF
from .fastfood import Fastfood
from .gcws import GCWS
from .identity import IdentityMap
from .nrff import NRFF
from .nystroem import NystroemMap
from .orf import OrthogonalRFF
from .qmc import QMCFourierFeatures
from .rff import GaussianRFF
from .sorf import StructuredOrthogonalRFF

__all__ = ["DEFAULT_BLOCK_SIZE", "GCWS", "NRFF", "AsKRFF", "CauchyRFF", "Fastfood", "FeatureMap", "GaussianRFF",
           "IdentityMap", "NystroemMap", "OrthogonalRFF", "QMCFourierFeatures", "RandomBinning",
           "StructuredOrthogonalRFF", "scaled_cos_sin_rows", "trig_threads"]
