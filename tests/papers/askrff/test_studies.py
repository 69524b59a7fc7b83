"""AsK-RFF's protocol studies from small trees of runs written here: the LibLinear options and the split seeds."""
import pandas as pd
import pytest

from rfbench.papers.askrff import studies

GRID = "[-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5]"


def write_run(root, run_id, accuracies, **config):
    run = root / "runs" / run_id
    run.mkdir(parents=True)
    pd.DataFrame([{"run_id": run_id, "trial": i, "test_accuracy": a, "C": 2.0, **config}
                  for i, a in enumerate(accuracies)]).to_csv(run / "trials.csv", index=False)


def test_liblinear_lists_each_arm_against_the_papers_linear_cell(tmp_path):
    options = {"dataset.name": "ijcnn1", "classifier.bias": -1.0, "classifier.log2_C": GRID}
    write_run(tmp_path, "ours", [0.9183], **options, **{"classifier.solver": "newton"})
    write_run(tmp_path, "cs", [0.9101], **{**options, "classifier.solver": 4, "classifier.bias": 1.0})
    write_run(tmp_path, "c1", [0.9050], **{**options, "classifier.solver": 1, "classifier.log2_C": "[0]"})
    write_run(tmp_path, "raw", [0.9000], **options, **{"classifier.solver": 1, "dataset.scale": "none"})
    table = studies.liblinear(tmp_path, tmp_path / "out").set_index("run_id")
    assert table.loc["ours", "paper"] == pytest.approx(91.011)  # Table 1, ijcnn1 Linear
    assert table.loc["ours", "difference"] == pytest.approx(91.83 - 91.011)
    assert table.loc["cs", "solver"] == "-s 4 Crammer-Singer" and table.loc["cs", "allowed"]
    assert not table.loc["c1", "allowed"] and table.loc["c1", "C"] == "fixed, log2 C = [0]"
    assert not table.loc["raw", "allowed"] and table.loc["raw", "scale"] == "none"
    assert list(table.index[:2]) == ["cs", "ours"]  # allowed arms first, nearest the paper first
    assert (tmp_path / "out" / "liblinear.md").exists()


def test_split_seeds_summarizes_each_cell_over_partitions(tmp_path):
    linear = {"kernel.name": "linear", "feature_map.name": "identity"}
    for seed, accuracy in enumerate([0.900, 0.905, 0.910]):
        write_run(tmp_path, f"l{seed}", [accuracy, accuracy], **linear, **{"dataset.split.seed": seed})
    write_run(tmp_path, "a0", [0.93, 0.95], **{"kernel.name": "shift_gaussian", "feature_map.name": "askrff",
                                               "feature_map.part": "asymmetric", "dataset.split.seed": 0})
    table = studies.split_seeds(tmp_path, tmp_path / "out").set_index(["method", "approximation"])
    cell = table.loc[("linear", "Linear")]
    assert cell["partitions"] == 3 and cell["mean"] == pytest.approx(90.5) and cell["sd"] == pytest.approx(0.5)
    assert cell["partition 0"] == pytest.approx(90.0) and cell["paper"] == pytest.approx(90.261)
    assert bool(cell["within 2 sd"]) and cell["runs"] == "l0 l1 l2"
    asy = table.loc[("shift_gaussian", "Asy")]
    assert asy["mean"] == pytest.approx(94.0) and asy["paper"] == pytest.approx(92.689)
    assert not bool(asy["within 2 sd"])  # one partition: no sd
