"""Acceptance-rejection sampling from a finite positive measure (Section 4).

To sample from f / ||f|| with a proposal g / ||g|| and an envelope c >= sup f / g,
draw zeta ~ g / ||g||, U ~ U[0, 1) and keep zeta when U < f(zeta) / (c g(zeta)).
Kept draws are exactly distributed as f / ||f||, and a proposal is kept with
probability ||f|| / (c ||g||), so ||f|| never has to be known before sampling.
"""
from __future__ import annotations

from collections.abc import Callable
from numbers import Integral

import numpy as np

#: Draws ``size`` proposals of shape (size, d) from g / ||g||.
Proposal = Callable[[np.random.Generator, int], np.ndarray]
#: f / (c g) at proposals of shape (size, d), values in [0, 1].
AcceptProb = Callable[[np.ndarray], np.ndarray]


def rejection_sample(
    propose: Proposal,
    accept_prob: AcceptProb,
    n: int,
    rng: np.random.Generator,
    expected_rate: float,
    max_batch: int = 2**20,
) -> tuple[np.ndarray, float]:
    """Draw n samples by vectorized acceptance-rejection.

    Proposals come in batches of about ``1.1 * remaining / rate`` (at most
    ``max_batch``), rate being ``expected_rate`` at first and then the empirical
    rate so far, so one batch usually suffices and a poor guess costs little.

    Parameters
    ----------
    propose : callable
        ``propose(rng, size)`` returns proposals of shape (size, d).
    accept_prob : callable
        ``accept_prob(W)`` returns f(W) / (c g(W)), shape (size,).
    n : int
        Number of samples, n >= 1.
    rng : numpy.random.Generator
    expected_rate : float
        Guess of ||f|| / (c ||g||) in (0, 1]; only sizes the batches.
    max_batch : int
        Cap on proposals per batch, bounding memory.

    Returns
    -------
    W : ndarray of shape (n, d)
    rate : float
        Empirical acceptance rate, accepted / proposed over all batches.
    """
    if isinstance(n, bool) or not isinstance(n, Integral) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if not 0.0 < expected_rate <= 1.0:
        raise ValueError(f"expected_rate must be in (0, 1], got {expected_rate!r}")
    kept: list[np.ndarray] = []
    n_kept = n_proposed = 0
    rate = expected_rate
    while n_kept < n:
        size = int(min(max_batch, np.ceil(1.1 * (n - n_kept) / rate)))
        W = propose(rng, size)
        W = W[rng.random(size) < accept_prob(W)]
        kept.append(W)
        n_kept += len(W)
        n_proposed += size
        rate = n_kept / n_proposed if n_kept else rate / 10.0
    return np.concatenate(kept)[:n], n_kept / n_proposed
