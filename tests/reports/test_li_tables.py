"""Li Tables 1-3 report on a small tree of runs written here: verdicts, the CV column, missing datasets."""
import pandas as pd
import pytest

from rfbench.reports.li_tables import tables


def write_run(root, run_id, dataset, metric, selection, accuracy, gamma=float("nan")):
    run = root / "runs" / run_id
    run.mkdir(parents=True)
    pd.DataFrame([{"dataset.name": dataset, "classifier.metric": metric, "classifier.selection": selection,
                   "run_id": run_id, "trial": 0, "test_accuracy": accuracy, "gamma": gamma, "C": 1.0,
                   "deviations": "selected on test" if selection == "test_grid" else ""}]).to_csv(
        run / "trials.csv", index=False)


def test_tables_compare_test_grid_cells_and_show_cv_beside(tmp_path):
    runs = tmp_path / "runs_tree"
    write_run(runs, "a", "spambase_li", "gmm", "test_grid", 0.9420)      # paper 94.17: agrees (tol 0.5)
    write_run(runs, "b", "spambase_li", "cosine_rbf", "test_grid", 0.9400, gamma=0.1)  # paper 92.57: better
    write_run(runs, "c", "spambase_li", "linear", "test_grid", 0.8000)   # paper 85.91: worse
    write_run(runs, "d", "spambase_li", "gmm", "cv", 0.9311)
    table = tables(runs, tmp_path / "out").set_index(["dataset", "method"])
    assert table.loc[("SpamBase", "gmm"), "verdict"] == "agrees"
    assert table.loc[("SpamBase", "gmm"), "difference"] == pytest.approx(94.20 - 94.17)
    assert table.loc[("SpamBase", "rbf"), "verdict"] == "ours better"
    assert table.loc[("SpamBase", "linear"), "verdict"] == "ours worse"
    assert table.loc[("Letter", "rbf"), "verdict"] == "not run"
    text = (tmp_path / "out" / "tables.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| SpamBase"))
    assert "| 0.1; 0.2 " in row and "| 93.11 " in row  # our gamma; the paper's; gmm chosen by CV
    assert "| Parkinson " in text and "1,040-row" in text  # not obtainable, with its reason
    assert "| Musk " in text and "dataset=musk_li: not run yet" in text
    assert "selected on test" in text
    assert "| holds     | GMM above RBF on 1 of 1 datasets (SpamBase)" in text  # 94.20 > 94.00
