"""Table 3 of the QMC report: ridge on the adaptive sequences' (weighted) features."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from rfbench.papers.qmc import table2 as qmc_table2
from rfbench.papers.qmc import table3 as qmc_table3
from rfbench.qmc.adaptive import halton_frequencies
from rfbench.qmc.discrepancy import BoxDiscrepancy

SIGMA = 0.8


def test_weighted_features_give_the_weighted_kernel_sum():
    rng = np.random.default_rng(0)
    X, W, xi = rng.random((20, 2)), rng.standard_normal((6, 2)), rng.random(6)
    Z = qmc_table3.features(W, xi, SIGMA, X)
    diff = X[:, None, :] - X[None, :, :]
    np.testing.assert_allclose(Z @ Z.T, np.cos(diff @ W.T) @ xi, atol=1e-12)
    # uniform weights 1/s are the unweighted map
    np.testing.assert_allclose(qmc_table3.features(W, np.full(6, 1 / 6), SIGMA, X),
                               qmc_table3.features(W, None, SIGMA, X), atol=1e-14)


def test_sequences_are_table2s_and_start_from_halton(monkeypatch):
    monkeypatch.setattr(qmc_table2, "GLOBAL_MAXITER", 3)
    X = np.random.default_rng(1).random((30, 2))
    maps = qmc_table3.sequences(X, SIGMA, 8)
    assert set(maps) == set(qmc_table3.METHODS)
    start = halton_frequencies(8, 2, SIGMA)
    np.testing.assert_array_equal(maps["halton"][0], start)
    b = X.max(axis=0) - X.min(axis=0)
    for box, fraction in (("b", 1.0), ("b4", 0.25)):
        halton = BoxDiscrepancy(fraction * b, SIGMA, normalized=True).squared(start)  # on the method's own box
        np.testing.assert_array_equal(maps[f"weighted_{box}"][0], start)
        assert maps[f"weighted_{box}"][1].min() >= 0
        for scheme in ("global", "weighted"):
            assert maps[f"{scheme}_{box}"][2] <= halton
    assert maps["halton"][2] == pytest.approx(BoxDiscrepancy(b, SIGMA, normalized=True).squared(start), rel=1e-12)


def test_table3_cell_errors_against_a_direct_ridge_solve(tmp_path, monkeypatch):
    monkeypatch.setattr(qmc_table2, "GLOBAL_MAXITER", 3)
    rng = np.random.default_rng(2)
    X = rng.random((80, 2))
    y = np.sin(3 * X[:, 0]) + X[:, 1]
    data = SimpleNamespace(X_train=X[:60], y_train=y[:60], X_test=X[60:], y_test=y[60:], task="regression")
    qmc_table3.table3_cell(tmp_path / "s6.csv", data, SIGMA, 6)
    cell = pd.read_csv(tmp_path / "s6.csv").set_index("method")
    assert list(cell.index) == list(qmc_table3.METHODS)
    lam = cell["lam"].iloc[0]
    Z = qmc_table3.features(halton_frequencies(6, 2, SIGMA), None, SIGMA, data.X_train)
    Zt = qmc_table3.features(halton_frequencies(6, 2, SIGMA), None, SIGMA, data.X_test)
    mean_z, mean_y = Z.mean(axis=0), data.y_train.mean()  # ridge with an unpenalized intercept
    coef = np.linalg.solve((Z - mean_z).T @ (Z - mean_z) + lam * np.eye(12), (Z - mean_z).T @ (data.y_train - mean_y))
    prediction = (Zt - mean_z) @ coef + mean_y
    expected = np.linalg.norm(prediction - data.y_test) / np.linalg.norm(data.y_test)
    assert cell.loc["halton", "relative_error"] == pytest.approx(expected, rel=1e-6)


def _cells(errors):
    return pd.DataFrame([{"dataset": d, "s": s, "method": m, "relative_error": e}
                         for (d, s), row in errors.items() for m, e in zip(qmc_table3.METHODS, row)])


def test_claim_checks():
    cells = _cells({("cpu", 100): [0.030, 0.031, 0.029, 0.032, 0.028, 0.033, 0.034],
                    ("cpu", 300): [0.030, 0.031, 0.032, 0.033, 0.034, 0.035, 0.036]})
    beats = qmc_table3._adaptive_beats_halton(cells, "cpu")
    assert not beats.holds and beats.evidence.endswith("not in: s=300 (best global_b 0.0310 vs Halton 0.0300)")
    assert qmc_table3._adaptive_beats_halton(cells, "house_16h").holds is None
    assert not qmc_table3._greedy_best(cells, "cpu").holds  # greedy lowest at 1 of 2 s
    central = qmc_table3._central_better(cells)
    assert not central.holds and central.evidence.startswith("b/4 below b in 2 of 6")


def test_campaign_skips_sizes_above_max_s_but_reads_recorded_ones(tmp_path, monkeypatch):
    data = SimpleNamespace(X_train=np.zeros((2, 1)), y_train=np.zeros(2), task="regression")
    monkeypatch.setattr(qmc_table3.qmc, "load", lambda name, mirror=None: data)
    monkeypatch.setattr(qmc_table3.qmc, "chosen_sigma", lambda *args, **kwargs: {"sigma": 1.0})
    computed = []

    def fake_cell(path, data, sigma, s):
        computed.append(s)
        path.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame({"method": ["halton"], "s": [s], "relative_error": [0.1]}).to_csv(path, index=False)

    monkeypatch.setattr(qmc_table3, "table3_cell", fake_cell)
    fake_cell(tmp_path / "table3" / "cpu_act_qmc" / "s500.csv", data, 1.0, 500)  # recorded earlier
    cells = qmc_table3.campaign(tmp_path, ["cpu_act_qmc"], max_s=100)
    assert computed == [500, 100]
    assert sorted(cells["s"]) == [100, 500]


def test_the_table3_summary_names_a_published_row_that_rises_with_s_and_the_largest_difference():
    table = pd.DataFrame({"s": ["100", "100", "300", "300"], "method": ["halton", "global_b"] * 2,
                          "mean": [0.040, 0.036, 0.030, 0.028], "published": [0.030, 0.031, 0.033, 0.035],
                          "verdict": ["ours worse", "ours worse", "ours better", "ours better"]})
    table["difference"] = table["mean"] - table["published"]
    text = qmc_table3._why_they_differ(table)
    assert "ours: 0.0380, 0.0290; the paper's: 0.0305, 0.0340" in text
    assert "s = 300 (0.0340) above s = 100 (0.0305)" in text and "and ours falls" in text
    assert "The largest difference is +0.0100 (halton at s = 100)" in text
    summary = qmc_table3._by_s_summary(table)
    assert summary[["s", "ours worse", "ours better"]].values.tolist() == [[100, 2, 0], [300, 0, 2]]
