"""The Monte Carlo helpers behind the theorem checks and Fig. 2."""
import numpy as np
import pytest

from rfbench.papers.li import simulation as li_simulation
from rfbench.papers.li.simulation import scaled_mse, simulate_gcws, simulate_rff


def test_scaled_mse_and_its_standard_error():
    measured, se = scaled_mse(np.array([1.0, 3.0, 2.0, 2.0]), 2.0, k=10)
    assert measured == pytest.approx(10 * 0.5)
    assert se == pytest.approx(np.std([10.0, 10.0, 0.0, 0.0], ddof=1) / 2)


def test_one_sample_nrff_is_a_sign_and_chunks_cover_every_repetition(monkeypatch):
    monkeypatch.setattr(li_simulation, "CHUNK_ELEMENTS", 7)  # 7 repetitions per chunk, a ragged last one
    rff, nrff = simulate_rff(0.5, 1.0, 1, 30, np.random.default_rng(0))
    np.testing.assert_allclose(np.abs(nrff), 1.0, rtol=1e-14)  # X Y / (|X| |Y|) with k = 1
    np.testing.assert_array_equal(np.sign(rff), np.round(nrff))
    assert np.all(np.abs(rff) <= 2.0) and len(set(rff)) == 30


def test_gcws_estimates_take_the_k_plus_one_binomial_values():
    estimates = simulate_gcws(0.5, 1.0, 4, 2_000, np.random.default_rng(1))
    ratios = (1 - np.arange(5) / 4) / (1 + np.arange(5) / 4)
    assert set(np.round(estimates, 12)) == set(np.round(np.exp(-2 * ratios**2), 12))
