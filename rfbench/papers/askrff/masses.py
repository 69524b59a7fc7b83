r"""AsK-RFF (He et al. 2022) Figure 1, the computation: total masses of the asymmetric kernels'
spectral parts, estimated by eq. (12) and exact, as a job of the engine.

The total mass of a spectral part is :math:`\|\mu\| = \int \mathrm{d}\mu(\omega)`; AsK-RFF
estimates it from the kernel matrix of a random subset of ``n_subset`` training points (eq. 12) and
samples each part in proportion to it.  Figure 1 shows the estimates on ``n_points`` 1-D points from
N(0, 1) against M = 2, 4, ..., 2^log2_max, beside the closed-form masses of
:meth:`rfbench.kernel.Kernel.exact_total_masses`.

``rfbench job=askrff_masses`` records trial t of every (kernel, M) in ``masses.csv`` (the feature
map's random state :func:`rfbench.engine.jobs.trial_seed` (seed, t), the points drawn once from
``seed``) and the exact masses in ``exact.csv`` (the same in every trial);
:func:`rfbench.papers.askrff.report.fig1` draws the figure from the records.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from rfbench.engine import jobs
from rfbench.feature_map import AsKRFF
from rfbench.kernel import PARTS, make_kernel


def compute(trial: int, seed: int, kernels: Sequence[str], n_points: int, n_subset: int,
            log2_max: int) -> dict[str, pd.DataFrame]:
    """Trial ``trial`` of Fig. 1: the estimated masses of every kernel at every M, and the exact masses.

    Returns
    -------
    dict
        ``masses``: one row per (kernel, M): ``kernel, d, M, m_over_d, seed, n_points, n_subset``
        and ``mass_<part>`` for every spectral part (0 for a part the kernel lacks);
        ``exact``: one row per kernel, ``kernel`` and ``mass_<part>``.
    """
    X = np.random.default_rng(seed).standard_normal((n_points, 1))
    state = jobs.trial_seed(seed, trial)
    rows = [{"kernel": kernel, "d": 1, "M": int(m), "m_over_d": int(m), "seed": seed, "n_points": n_points,
             "n_subset": n_subset,
             **_masses(AsKRFF(kernel=kernel, n_components=int(m), n_subset=n_subset,
                              random_state=state).fit(X).total_masses_)}
            for kernel in kernels for m in 2 ** np.arange(1, log2_max + 1)]
    exact = [{"kernel": kernel, **_masses(make_kernel(kernel, 1).exact_total_masses())} for kernel in kernels]
    return {"masses": pd.DataFrame(rows), "exact": pd.DataFrame(exact)}


def _masses(masses: dict) -> dict[str, float]:
    """``mass_<part>`` for every spectral part, 0 for the parts ``masses`` lacks."""
    return {f"mass_{part}": float(masses.get(part, 0.0)) for part in PARTS}
