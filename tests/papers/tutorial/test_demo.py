"""The Bochner tutorial's demo: targets, estimator and the errors its job records."""
import numpy as np
import pytest

from rfbench.papers.tutorial import demo


@pytest.fixture(scope="module")
def frames():
    return demo.compute(trial=0, seed=3, x=1.0, y=2.0, k_max=1000, reps=200)


def test_stated_target_is_the_normal_density_and_the_limit_its_fourier_transform():
    assert demo.stated_target(-1.0) == pytest.approx(np.exp(-0.5) / np.sqrt(2 * np.pi), rel=1e-14)
    for D in (-1.0, 0.0, 0.4, 2.5):
        re, im = demo.quadrature_limit(D)
        assert re == pytest.approx(np.exp(-D**2 / 2), rel=1e-9) and abs(im) < 1e-12
        assert demo.exact_limit(D) == pytest.approx(np.exp(-D**2 / 2), rel=1e-14)


def test_running_estimates_are_means_of_cosines_of_the_difference():
    w = np.random.default_rng(0).standard_normal((3, 40))
    est = demo.running_estimates(w, 1.0, 2.0)
    for K in (1, 7, 40):
        np.testing.assert_allclose(est[:, K - 1], np.cos(-w[:, :K]).mean(axis=1), rtol=1e-12)


def test_error_converges_to_the_bias_against_the_stated_target_and_to_zero_against_the_limit(frames):
    table = frames["errors"]
    last = table.iloc[-1]
    bias = np.exp(-0.5) - np.exp(-0.5) / np.sqrt(2 * np.pi)
    assert last["rms_error_vs_stated"] == pytest.approx(bias, abs=0.01)
    assert last["rms_error_vs_limit"] < 0.03
    # the exact RMS error uses Var cos(w D); check it against a Monte Carlo variance
    v = np.var(np.cos(np.random.default_rng(1).standard_normal(10**6)))
    assert table["theory_vs_limit"].iloc[0] ** 2 == pytest.approx(v, rel=0.01)
    # and the repetitions scatter around it (200 repetitions: a few percent)
    ratio = table["rms_error_vs_limit"] / table["theory_vs_limit"]
    assert 0.8 < ratio.median() < 1.2


def test_the_curves_are_one_draws_estimate_and_the_same_seed_gives_the_same_frames(frames):
    curves = frames["curves"]
    assert sorted(curves["K"].unique()) == list(demo.CURVE_K) and len(curves) == 3 * len(demo.CURVE_D)
    at_d = curves[(curves["K"] == 1000) & np.isclose(curves["D"], -1.0)]["estimate"].item()
    assert at_d == pytest.approx(frames["errors"]["single_run_estimate"].iloc[-1], abs=1e-8)  # D = x - y
    again = demo.compute(trial=0, seed=3, x=1.0, y=2.0, k_max=1000, reps=200)
    for key, frame in frames.items():
        assert again[key].equals(frame)
