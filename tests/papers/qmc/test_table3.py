"""Table 3 of the QMC report: ridge on the adaptive sequences' (weighted) features."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rfbench.papers.qmc import learnt
from rfbench.papers.qmc import table3 as qmc_table3
from rfbench.qmc.adaptive import halton_frequencies
from tests.papers.qmc.conftest import SIGMA, TOY, record


def test_weighted_features_give_the_weighted_kernel_sum():
    rng = np.random.default_rng(0)
    X, W, xi = rng.random((20, 2)), rng.standard_normal((6, 2)), rng.random(6)
    Z = qmc_table3.features(W, xi, SIGMA, X)
    diff = X[:, None, :] - X[None, :, :]
    np.testing.assert_allclose(Z @ Z.T, np.cos(diff @ W.T) @ xi, atol=1e-12)
    # uniform weights 1/s are the unweighted map
    np.testing.assert_allclose(qmc_table3.features(W, np.full(6, 1 / 6), SIGMA, X),
                               qmc_table3.features(W, None, SIGMA, X), atol=1e-14)


def test_cells_read_the_learnt_sequences_and_match_a_direct_ridge_solve(toy_learnt, tmp_path):
    frames = learnt.learn(trial=0, seed=0, data=toy_learnt,
                           s=6, boxes=[1.0, 0.25], schemes=list(learnt.SCHEMES), maxiter=3)
    run = record(tmp_path / "learnt", frames)
    cell = qmc_table3.cells(trial=0, seed=0, data=toy_learnt, s=6, learnt=run)["cells"].set_index("method")
    assert list(cell.index) == list(qmc_table3.METHODS)
    disc = frames["discrepancy"].set_index(["box", "method"])["normalized"]
    assert cell.loc["halton", "discrepancy"] == disc[("b", "halton")]  # each on its own box
    assert cell.loc["greedy_b4", "discrepancy"] == disc[("b/4", "greedy")]
    lam = cell["lam"].iloc[0]
    Z = qmc_table3.features(halton_frequencies(6, 2, SIGMA), None, SIGMA, TOY.X_train)
    Zt = qmc_table3.features(halton_frequencies(6, 2, SIGMA), None, SIGMA, TOY.X_test)
    mean_z, mean_y = Z.mean(axis=0), TOY.y_train.mean()  # ridge with an unpenalized intercept
    coef = np.linalg.solve((Z - mean_z).T @ (Z - mean_z) + lam * np.eye(12), (Z - mean_z).T @ (TOY.y_train - mean_y))
    prediction = (Zt - mean_z) @ coef + mean_y
    expected = np.linalg.norm(prediction - TOY.y_test) / np.linalg.norm(TOY.y_test)
    assert cell.loc["halton", "relative_error"] == pytest.approx(expected, rel=1e-6)
    with pytest.raises(ValueError, match="s=8 but its learnt run"):
        qmc_table3.cells(trial=0, seed=0, data=toy_learnt, s=8, learnt=run)


def test_the_lambda_study_repeats_the_primarys_cv_folds_and_its_test_error_at_its_lambda(toy_learnt, tmp_path):
    frames = learnt.learn(trial=0, seed=0, data=toy_learnt,
                          s=6, boxes=[1.0, 0.25], schemes=list(learnt.SCHEMES), maxiter=3)
    run = record(tmp_path / "learnt", frames)
    primary = qmc_table3.cells(trial=0, seed=0, data=toy_learnt, s=6, learnt=run)["cells"].set_index("method")
    study = qmc_table3.lambda_cells(trial=0, seed=0, data=toy_learnt, s=6, learnt=run)
    folds, cells = study["folds"], study["cells"]
    assert sorted(folds["fold"].unique()) == list(range(qmc_table3.FOLDS)) and len(cells) == 7 * 9  # 7 maps, 9 lambdas
    lam = primary["lam"].iloc[0]
    mean_cv = folds.groupby(["lam", "method"])["cv_error"].mean()
    summed = mean_cv.groupby("lam").sum()
    assert summed.idxmin() == lam  # the primary's lambda is the least summed CV error of the same folds
    for method, row in primary.iterrows():  # its mean CV error and test error, recomputed fold by fold
        assert mean_cv[(lam, method)] == pytest.approx(row["cv_error"], rel=1e-8)
        at = cells[(cells["method"] == method) & (cells["lam"] == lam)]["relative_error"]
        assert float(at.iloc[0]) == pytest.approx(row["relative_error"], rel=1e-8)
    with pytest.raises(ValueError, match="job qmc_table3_lambda: s=8 but its learnt run"):
        qmc_table3.lambda_cells(trial=0, seed=0, data=toy_learnt, s=8, learnt=run)


def test_recorded_gathers_every_table3_run_with_the_papers_dataset_name(tmp_path):
    runs = tmp_path / "table3" / "runs"
    with pytest.raises(FileNotFoundError, match="no Table 3 run recorded"):
        qmc_table3.recorded(tmp_path)
    for run_id, name, s in (("r1", "house_16h", 400), ("r2", "cpu_act_qmc", 300), ("r3", "cpu_act_qmc", 100)):
        record(runs / run_id, {"cells": pd.DataFrame({"method": ["halton"], "s": [s], "relative_error": [0.1]})},
               **{"dataset.name": name})
    cells = qmc_table3.recorded(tmp_path)
    assert cells[["dataset", "s"]].values.tolist() == [["cpu", 100], ["cpu", 300], ["house_16h", 400]]


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
