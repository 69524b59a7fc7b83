"""Figures 6-7 of the QMC report: Gram metrics along the adaptive sequences' learning."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from rfbench.papers.qmc import fig67 as qmc_fig67
from rfbench.papers.qmc import protocol
from rfbench.qmc.adaptive import global_adaptive, greedy_adaptive, halton_frequencies
from rfbench.qmc.discrepancy import BoxDiscrepancy
from tests.papers.qmc.conftest import record

SIGMA = 0.7


@pytest.fixture
def X():
    return np.random.default_rng(0).random((60, 3))


def _direct_gram(W, X):
    diff = X[:, None, :] - X[None, :, :]
    return np.mean(np.cos(diff @ W.T), axis=-1)


def test_fourier_map_gram_is_the_mean_cosine_of_its_frequencies(X):
    W = np.random.default_rng(1).standard_normal((7, 3))
    Z = qmc_fig67.fourier_map(W, SIGMA, 3).transform(X)
    np.testing.assert_allclose(Z @ Z.T, _direct_gram(W, X), atol=1e-12)


def test_gram_metrics_match_a_direct_computation(X):
    K = np.exp(-np.sum((X[:, None] - X[None]) ** 2, axis=-1) / (2 * SIGMA**2))
    K_tilde = _direct_gram(np.random.default_rng(2).standard_normal((5, 3)) / SIGMA, X)
    metrics = qmc_fig67.gram_metrics(K, K_tilde, np.linalg.norm(K))
    R = K - K_tilde
    assert metrics["max_sq_error"] == pytest.approx(np.max(R**2))
    assert metrics["mean_sq_error"] == pytest.approx(np.mean(R**2))
    assert metrics["fro"] == pytest.approx(np.linalg.norm(R) / np.linalg.norm(K))


def test_global_panel_starts_at_halton_and_lowers_the_discrepancy(X):
    setting = qmc_fig67.Setting(X, SIGMA, 0.5)
    start = halton_frequencies(12, 3, SIGMA)
    table, W = qmc_fig67.global_panel(setting, start, iterations=8)
    np.testing.assert_array_equal(W, global_adaptive(start, BoxDiscrepancy(setting.discrepancy.b, SIGMA), maxiter=8))
    assert table["iteration"].tolist() == list(range(len(table)))
    assert 2 <= len(table) <= 9
    assert table["discrepancy"].iloc[0] == pytest.approx(setting.discrepancy.squared(start), rel=1e-12)
    assert table["fro"].iloc[0] == pytest.approx(
        np.linalg.norm(setting.K - _direct_gram(start, X)) / np.linalg.norm(setting.K), rel=1e-9)
    assert np.all(np.diff(table["discrepancy"]) <= 1e-15)


def test_greedy_panel_prefix_metrics_equal_those_of_each_prefix_alone(X):
    setting = qmc_fig67.Setting(X, SIGMA, 1.0)
    W = greedy_adaptive(halton_frequencies(9, 3, SIGMA), BoxDiscrepancy(setting.discrepancy.b, SIGMA))
    table = qmc_fig67.greedy_panel(setting, W, points=(3, 5, 9))
    for t, row in table.set_index("points").iterrows():
        K_t = _direct_gram(W[:t], X)
        assert row["fro"] == pytest.approx(np.linalg.norm(setting.K - K_t) / np.linalg.norm(setting.K), rel=1e-9)
        assert row["max_sq_error"] == pytest.approx(np.max((setting.K - K_t) ** 2), rel=1e-9)
        assert row["discrepancy"] == pytest.approx(setting.discrepancy.squared(W[:t]), rel=1e-12)


@pytest.mark.parametrize(("values", "expected"), [([3, 2, 1, 1.5], True), ([3, 2, 1, 1.005], False),
                                                  ([3, 2, 1, 0.5], False), ([1, 2, 3], False)])
def test_rises_after_minimum(values, expected):
    assert qmc_fig67._rises_after_minimum(pd.DataFrame({"m": values}), "m") is expected


def test_fig7_checks_judge_greedy_against_global(tmp_path):
    points = pd.DataFrame({"points": [50, 100, 150]})
    rows = []
    for key, disc in (("a", [3.0, 2.0, 1.0]), ("b", [3.0, 2.0, 1.0]), ("c", [3.0, 2.5, 2.0])):
        rows.append(points.assign(panel=key, discrepancy=disc, max_sq_error=disc, mean_sq_error=disc, fro=disc))
    table = pd.concat(rows, ignore_index=True)
    assert qmc_fig67._fig7_checks(table, tmp_path)["fig7_greedy_above_global"].holds is None
    for key, after in (("a", 1.0), ("b", 1.0), ("c", 3.0)):  # (c): global worse than greedy's 2.5
        panel = qmc_fig67.PANELS[key]
        record(tmp_path / "fig6" / "runs" / key, {"metrics": pd.DataFrame(
            {"iteration": range(15), "discrepancy": [5.0] * 11 + [after] * 4, "config": panel.config,
             "box": panel.box})})
    checks = qmc_fig67._fig7_checks(table, tmp_path)
    assert checks["fig7_discrepancy_falls"].holds
    assert checks["fig7_half_box_higher"].holds  # (c) above (b) at 2 of 3 points, every metric
    assert not checks["fig7_greedy_above_global"].holds
    assert "(c) greedy t=100 2.5 vs global after 10 iterations <= 3" in checks["fig7_greedy_above_global"].evidence


def test_the_panel_jobs_read_the_learnt_sequences_and_refuse_a_global_cg_that_ends_elsewhere(X, tmp_path, monkeypatch):
    monkeypatch.setattr(protocol, "load_dataset", lambda data: SimpleNamespace(X_train=X, y_train=np.zeros(len(X))))
    start = halton_frequencies(12, 3, SIGMA)
    b = X.max(axis=0) - X.min(axis=0)
    global_b = global_adaptive(start, BoxDiscrepancy(b, SIGMA), maxiter=6)
    greedy_b = greedy_adaptive(start, BoxDiscrepancy(b, SIGMA))
    points = pd.concat([pd.DataFrame(W, columns=["w0", "w1", "w2"]).assign(point=range(12), weight=np.nan, box="b",
                                                                            method=m)
                        for m, W in (("halton", start), ("global", global_b), ("greedy", greedy_b))])
    disc = pd.DataFrame({"s": [12], "box": ["b"], "method": ["halton"], "normalized": [1.0], "sigma": [SIGMA]})
    run = record(tmp_path / "learnt", {"points": points, "discrepancy": disc}, **{"job.maxiter": 6})
    sequences = {"s": 12, "boxes": [1.0], "schemes": ["global", "greedy"]}
    data = {"name": "toy"}
    fig6 = qmc_fig67.global_metrics(trial=0, seed=0, data=data, box=1.0, sequences=sequences, learnt=run)["metrics"]
    table, _ = qmc_fig67.global_panel(qmc_fig67.Setting(X, SIGMA, 1.0), start, 6)
    pd.testing.assert_frame_equal(fig6[table.columns], table)
    assert fig6[["config", "box", "sigma", "n", "d"]].drop_duplicates().values.tolist() == [["toy", 1.0, SIGMA, 60, 3]]
    fig7 = qmc_fig67.greedy_metrics(trial=0, seed=0, data=data, box=1.0, sequences=sequences, learnt=run,
                                    points=[4, 12])["metrics"]
    assert fig7["points"].tolist() == [4, 12]
    assert fig7["discrepancy"].iloc[-1] == qmc_fig67.Setting(X, SIGMA, 1.0).discrepancy.squared(greedy_b)
    with pytest.raises(ValueError, match="points up to 13 but the learnt greedy sequence has 12"):
        qmc_fig67.greedy_metrics(trial=0, seed=0, data=data, box=1.0, sequences=sequences, learnt=run, points=[13])
    records_ = run / "points.csv"
    moved = pd.read_csv(records_)
    moved.loc[(moved["method"] == "global") & (moved["point"] == 0), "w0"] += 1e-9
    moved.to_csv(records_, index=False)
    with pytest.raises(ValueError, match="does not end on the sequence recorded"):
        qmc_fig67.global_metrics(trial=0, seed=0, data=data, box=1.0, sequences=sequences, learnt=run)
