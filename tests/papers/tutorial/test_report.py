"""The Bochner tutorial's demo: targets, estimator, written report, determinism and bad input."""
import numpy as np
import pandas as pd
import pytest

from rfbench.papers.tutorial import report as tutorial


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("results") / "tutorial"
    return out, tutorial.run(out, seed=3)


def test_stated_target_is_the_normal_density_and_the_limit_its_fourier_transform():
    assert tutorial.stated_target(-1.0) == pytest.approx(np.exp(-0.5) / np.sqrt(2 * np.pi), rel=1e-14)
    for D in (-1.0, 0.0, 0.4, 2.5):
        re, im = tutorial.quadrature_limit(D)
        assert re == pytest.approx(np.exp(-D**2 / 2), rel=1e-9) and abs(im) < 1e-12
        assert tutorial.exact_limit(D) == pytest.approx(np.exp(-D**2 / 2), rel=1e-14)


def test_running_estimates_are_means_of_cosines_of_the_difference():
    w = np.random.default_rng(0).standard_normal((3, 40))
    est = tutorial.running_estimates(w, 1.0, 2.0)
    for K in (1, 7, 40):
        np.testing.assert_allclose(est[:, K - 1], np.cos(-w[:, :K]).mean(axis=1), rtol=1e-12)


def test_error_converges_to_the_bias_against_the_stated_target_and_to_zero_against_the_limit(written):
    _, table = written
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


def test_report_files_state_the_finding_and_are_reproducible(written, tmp_path):
    out, table = written
    md = (out / "tutorial.md").read_text()
    assert "0.241971" in md and "0.606531" in md and "2.5066" in md
    assert (out / "tutorial.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pd.testing.assert_frame_equal(pd.read_csv(out / "tutorial.csv"), table, check_exact=False, rtol=1e-12)
    tutorial.run(tmp_path, seed=3)
    assert (tmp_path / "tutorial.md").read_text() == md
    assert (tmp_path / "tutorial.csv").read_bytes() == (out / "tutorial.csv").read_bytes()
    assert not list(out.glob(".*"))  # no temporaries left behind


def test_bad_seed_exits_2_and_writes_nothing(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        tutorial.main(["--results", str(tmp_path), "--seed", "-1"])
    assert exit_info.value.code == 2
    assert "error: seed must be a non-negative integer, got -1" in capsys.readouterr().err
    assert not (tmp_path / "tutorial").exists()
