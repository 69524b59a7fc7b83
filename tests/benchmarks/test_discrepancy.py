"""The discrepancy bench section's contenders compute the same sums, the direct path to its own bits."""
from __future__ import annotations

import numpy as np
import pytest

from benchmarks import discrepancy as bench
from rfbench.qmc.discrepancy import BoxDiscrepancy


@pytest.fixture
def problem() -> tuple[np.ndarray, BoxDiscrepancy]:
    rng = np.random.default_rng(3)
    W = rng.normal(scale=2.0, size=(30, 4))
    W[5] = W[2]  # a repeated point: z = 0 in every coordinate
    W[7, 1] = W[4, 1] + 1e-5  # a small difference: the Taylor branches
    return W, BoxDiscrepancy(rng.uniform(0.5, 3.0, size=4), 0.8, normalized=True)


def test_the_contenders_agree_with_the_direct_path(problem):
    W, objective = problem
    results = {name: fn() for name, fn in bench.contenders(W, objective).items()}
    value, grad = results[bench.DIRECT]
    for name in (bench.OURS, bench.PEER):
        other_value, other_grad = results[name]
        np.testing.assert_allclose(other_value, value, rtol=1e-13)
        np.testing.assert_allclose(other_grad, grad, rtol=0, atol=1e-13 * np.abs(grad).max())


def test_the_sums_are_the_discrepancys_pair_term(problem):
    """The direct path's value is the quadratic form's xi^T H xi with the uniform weights (another path)."""
    W, objective = problem
    H, _, _ = objective.quadratic_form(W)
    xi = np.full(len(W), 1.0 / len(W))
    value, _ = bench.contenders(W, objective)[bench.DIRECT]()
    np.testing.assert_allclose(value, xi @ H @ xi, rtol=1e-13)


def test_measure_reports_every_contender_with_its_difference(problem):
    W, objective = problem
    results = bench.measure(W, objective, repeats=1)
    assert set(results) == {bench.OURS, bench.DIRECT, bench.PEER}
    assert results[bench.DIRECT][1] == 0.0 and 0.0 < results[bench.OURS][1] <= 1e-13
    assert results[bench.PEER][1] <= 1e-13 and all(cpu >= 0.0 for cpu, _ in results.values())
