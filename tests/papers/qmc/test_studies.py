"""Issue 45's QMC studies: where a paper value sits on a sweep (log-log crossings)."""
import numpy as np
import pytest

from rfbench.papers.qmc import studies


def test_a_crossing_is_log_log_linear_between_adjacent_sweep_points():
    factors, values = np.array([4.0, 1.0, 2.0]), np.array([1e-4, 1e-2, 1e-3])  # v = 1e-2 f^(-log2 10), unsorted
    assert studies.crossings(factors, values, 10**-2.5) == [pytest.approx(2**0.5, rel=1e-12)]
    assert studies.crossings(factors, values, 1e-3) == [pytest.approx(2.0)]
    assert studies.crossings(factors, values, 1e-5) == [] and studies.crossings(factors, values, 1.0) == []


def test_a_curve_that_turns_crosses_twice():
    found = studies.crossings(np.array([1.0, 2.0, 4.0]), np.array([1.0, 0.01, 1.0]), 0.1)
    assert found == [pytest.approx(2**0.5), pytest.approx(2**1.5)]
