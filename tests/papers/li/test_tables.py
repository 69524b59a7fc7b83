"""Li Tables 1-3 report on a small tree of runs written here: verdicts, the CV column, missing datasets,
and the preprocessing investigation beside them."""
import numpy as np
import pandas as pd
import pytest

from rfbench.papers.li.tables import (
    C_GRID_REASON,
    FEATURE_LINEAR_RUNS,
    FEATURE_RUNS,
    LINEAR_RUNS,
    SHORT_C_GRID_REASON,
    VARIANTS,
    tables,
)

VARIANT_RUNS = VARIANTS["min-max, unit rows"][0]
GIVEN_RUNS = VARIANTS["as given"][0]

WIDE_C = "[-6, -4, -2, 0, 2, 4, 6, 8, 10, 12, 14, 16]"


def write_run(root, run_id, dataset, metric, selection, accuracy, gamma=float("nan"), **config):
    run = root / "runs" / run_id
    run.mkdir(parents=True)
    pd.DataFrame([{"dataset.name": dataset, "classifier.kernel": metric, "classifier.selection": selection,
                   "run_id": run_id, "trial": 0, "test_accuracy": accuracy, "gamma": gamma, "C": 1.0,
                   "classifier.log2_C": WIDE_C,
                   "deviations": "selected on test" if selection == "test_grid" else "", **config}]).to_csv(
        run / "trials.csv", index=False)


def test_tables_compare_test_grid_cells_and_show_cv_beside(tmp_path):
    runs = tmp_path / "runs_tree"
    write_run(runs, "a", "spambase_li", "gmm", "test_grid", 0.9420)      # paper 94.17: agrees
    # paper 92.57: +1.43, within the threshold now that the paper's one run has its binomial term too
    write_run(runs, "b", "spambase_li", "cosine_rbf", "test_grid", 0.9400, gamma=0.1)
    write_run(runs, "c", "spambase_li", "linear", "test_grid", 0.9900)   # libsvm's: the other arm
    write_run(tmp_path / LINEAR_RUNS, "o", "spambase_li", None, "test_grid", 0.8000)  # paper 85.91: worse
    write_run(runs, "d", "spambase_li", "gmm", "cv", 0.9311)
    table = tables(runs, tmp_path / "out").set_index(["dataset", "method"])
    assert table.loc[("SpamBase", "gmm"), "verdict"] == "agrees"
    assert table.loc[("SpamBase", "gmm"), "difference"] == pytest.approx(94.20 - 94.17)
    assert table.loc[("SpamBase", "rbf"), "verdict"] == "agrees"
    assert table.loc[("SpamBase", "linear"), "verdict"] == "ours worse"
    assert table.loc[("Letter", "rbf"), "verdict"] == "not run: data not obtainable"  # the verdict record's word
    text = (tmp_path / "out" / "tables.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| SpamBase"))
    assert "| 0.1; 0.2 " in row and "| 93.11 " in row  # our gamma; the paper's; gmm chosen by CV
    assert "| Parkinson " in text and "1,040-row" in text  # not obtainable, with its reason
    assert "| M-Basic " in text and "M-Basic re-splits them 12,000 / 50,000" in text
    assert "none of its rows can be reproduced here" in text  # Table 4: group 2 follows from Table 3's M-*
    assert "| Musk " in text and "dataset=musk_li: not run yet" in text
    assert "selected on test" in text
    assert "| holds     | GMM above RBF on 1 of 1 datasets (SpamBase)" in text  # 94.20 > 94.00
    assert "`make li-preprocessing`" in text  # no preprocessing arm run
    assert not (tmp_path / "out" / "scaling.csv").exists()
    scheme = pd.read_csv(tmp_path / "out" / "linear_scheme.csv", keep_default_na=False)  # the linear study's arms
    no_other_arm = [["SpamBase", 80.0, 99.0, "", "", "", "", 85.91, "o", "c", "", "", "", ""]]
    assert scheme.values.tolist() == no_other_arm


def test_without_one_vs_rest_runs_the_linear_column_is_not_run_yet(tmp_path):
    runs = tmp_path / "runs_tree"
    write_run(runs, "c", "vowel_li", "linear", "test_grid", 0.67)  # libsvm's one-vs-one is not the column
    table = tables(runs, tmp_path / "out").set_index(["dataset", "method"])
    assert np.isnan(table.loc[("Vowel", "linear"), "mean"])
    assert "`make li-linear-ovr`" in (tmp_path / "out" / "tables.md").read_text()


def test_each_c_grid_is_a_protocol_line_naming_its_cells(tmp_path):
    runs = tmp_path / "runs_tree"
    write_run(runs, "a", "spambase_li", "gmm", "test_grid", 0.94)
    write_run(runs, "b", "magic_li", "gmm", "test_grid", 0.83)
    write_run(runs, "c", "spambase_li", "cosine_rbf", "test_grid", 0.92, gamma=0.1)
    write_run(runs, "d", "magic_li", "cosine_rbf", "test_grid", 0.85, gamma=1.0,
              **{"classifier.log2_C": "[-6, -4, -2, 0, 2, 4, 6, 8, 10]"})
    tables(runs, tmp_path / "out")
    lines = pd.read_csv(tmp_path / "out" / "deviations.csv").head(2).values.tolist()
    assert lines == [["C over 2^-6..2^16 (12 values): rbf on SpamBase; gmm on every dataset", C_GRID_REASON],
                     ["C over 2^-6..2^10 (9 values): rbf on Magic", SHORT_C_GRID_REASON]]
    text = (tmp_path / "out" / "tables.md").read_text()  # the protocol lines are the report's deviations too
    assert f"- C over 2^-6..2^10 (9 values): rbf on Magic — {SHORT_C_GRID_REASON}" in text


def write_variant(root, run_id, dataset, metric, accuracy, gamma=float("nan"), scale="minmax_unit_rows"):
    write_run(root, run_id, dataset, metric, "test_grid", accuracy, gamma, **{"dataset.scale": scale})


def test_the_minmax_investigation_sits_beside_the_primary_cells_without_changing_verdicts(tmp_path):
    runs, variant = tmp_path / "kernel_svm", tmp_path / VARIANT_RUNS
    write_run(runs, "a", "spambase_li", "gmm", "test_grid", 0.9000)
    write_run(runs, "b", "spambase_li", "cosine_rbf", "test_grid", 0.9100, gamma=0.1)
    write_run(runs, "c", "vowel_li", "gmm", "test_grid", 0.8598)
    write_variant(variant, "d", "spambase_li", "gmm", 0.9400)                # paper 94.17
    write_variant(variant, "e", "spambase_li", "cosine_rbf", 0.9200, gamma=0.4)  # paper 92.57, gamma 0.2
    write_variant(variant, "f", "vowel_li", "gmm", 0.9697)                   # paper 96.97
    write_variant(variant, "g", "vowel_li", "linear", 0.80)                  # linear: not the study's
    write_variant(tmp_path / GIVEN_RUNS, "h", "spambase_li", "gmm", 0.9300, scale="none")
    table = tables(runs, tmp_path / "out").set_index(["dataset", "method"])
    assert table.loc[("SpamBase", "gmm"), "verdict"] == "ours worse"  # verdicts stay on unit rows
    side = pd.read_csv(tmp_path / "out" / "scaling.csv")
    assert side[["dataset", "method"]].values.tolist() == [["SpamBase", "gmm"], ["SpamBase", "rbf"], ["Vowel", "gmm"]]
    np.testing.assert_allclose(side["as given"], [93.00, np.nan, np.nan])
    np.testing.assert_allclose(side["unit rows"], [90.00, 91.00, 85.98])
    np.testing.assert_allclose(side["min-max, unit rows"], [94.00, 92.00, 96.97])
    np.testing.assert_allclose(side["paper"], [94.17, 92.57, 96.97])
    np.testing.assert_allclose(side["change"], [4.00, 1.00, 10.99], atol=1e-9)
    np.testing.assert_allclose(side["min-max - paper"], [-0.17, -0.57, 0.0], atol=1e-9)
    assert side[["run as given", "run unit rows", "run min-max, unit rows"]].fillna("").values.tolist() == [
        ["h", "a", "d"], ["", "b", "e"], ["", "c", "f"]]
    text = (tmp_path / "out" / "tables.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| SpamBase  | rbf"))
    assert "| 91.00 " in row and "| 92.00 " in row and "| +1.00 " in row and "| 0.1; -; 0.4; 0.2 " in row
    assert ("- gmm, mean distance to the paper: as given 1.17 over 1 cells, 1 within the threshold; unit rows 7.58 "
            "over 2 cells, 0 within the threshold; min-max, unit rows 0.09 over 2 cells, 2 within the "
            "threshold.") in text
    assert "- rbf, mean distance to the paper: unit rows 1.57 over 1 cells" in text  # no as-given RBF run


def test_an_investigation_run_of_another_scaling_is_refused(tmp_path):
    write_run(tmp_path / "kernel_svm", "a", "vowel_li", "gmm", "test_grid", 0.86)
    write_variant(tmp_path / VARIANT_RUNS, "stale", "vowel_li", "gmm", 0.86, scale="unit_rows")
    with pytest.raises(ValueError, match=r"runs \['stale'\] .* dataset.scale \['unit_rows'\], not 'minmax_unit_rows'"):
        tables(tmp_path / "kernel_svm", tmp_path / "out")


def test_car_is_read_as_table_1_prints_it_and_the_one_hot_runs_are_the_features_studys_other_arm(tmp_path):
    runs = tmp_path / "kernel_svm"
    write_run(runs, "a", "car_li", "gmm", "test_grid", 0.9977)                      # one-hot: the other arm
    write_run(runs, "b", "car_li", "linear", "test_grid", 0.95)                     # libsvm's, on one-hot
    write_run(tmp_path / LINEAR_RUNS, "c", "car_li", None, "test_grid", 0.8889)
    write_run(tmp_path / FEATURE_RUNS, "d", "car_li_ordinal", "gmm", "test_grid", 0.9896)   # paper 98.96
    write_run(tmp_path / FEATURE_LINEAR_RUNS, "e", "car_li_ordinal", None, "test_grid", 0.70)  # paper 71.53
    write_variant(tmp_path / GIVEN_RUNS, "f", "car_li", "gmm", 0.99, scale="none")  # on one-hot: no arm of Car
    table = tables(runs, tmp_path / "out").set_index(["dataset", "method"])
    assert table.loc[("Car", "gmm"), "mean"] == pytest.approx(98.96)
    assert table.loc[("Car", "gmm"), "verdict"] == "agrees" and table.loc[("Car", "linear"), "mean"] == 70.0
    side = pd.read_csv(tmp_path / "out" / "features.csv", keep_default_na=False)
    assert side[["dataset", "method", "run paper's reading", "run ours before"]].values.tolist() == [
        ["Car", "linear", "e", "c"], ["Car", "gmm", "d", "a"]]
    np.testing.assert_allclose(side[["paper's reading", "ours before", "paper"]], [[70.0, 88.89, 71.53],
                                                                                  [98.96, 99.77, 98.96]])
    assert not (tmp_path / "out" / "scaling.csv").exists()  # its one arm run is on the one-hot columns
    scheme = pd.read_csv(tmp_path / "out" / "linear_scheme.csv", keep_default_na=False)
    assert scheme[["dataset", "one-vs-rest", "one-vs-one"]].values.tolist() == [["Car", 70.0, ""]]


def test_the_split_and_c_top_studies_are_records_beside_the_tables(tmp_path):
    runs = tmp_path / "runs_tree"
    write_run(runs, "p", "skin10k_li", "cosine_rbf", "test_grid", 0.9987, gamma=500.0, n_test=10000,
              **{"dataset.split.seed": 0})
    for seed, accuracy in ((1, 0.9980), (2, 0.9985)):
        write_run(tmp_path / "kernel_svm_split", f"s{seed}", "skin10k_li", "cosine_rbf", "test_grid", accuracy,
                  gamma=500.0, n_test=10000, **{"dataset.split.seed": seed})
    write_run(tmp_path / LINEAR_RUNS, "o", "imageseg_li", None, "test_grid", 0.91)
    write_run(tmp_path / "linear_ovr_ctop", "e", "imageseg_li", None, "test_grid", 0.92,
              **{"classifier.log2_C": "[18, 20, 22, 24]"})
    tables(runs, tmp_path / "out")
    split = pd.read_csv(tmp_path / "out" / "split.csv")
    assert split["dataset"].tolist() == ["SkinSeg10k"]
    assert split.loc[0, ["seed 0", "seed 1", "seed 2"]].tolist() == pytest.approx([99.87, 99.80, 99.85])
    top = pd.read_csv(tmp_path / "out" / "c_top.csv")
    assert top[["dataset", "method", "run extension"]].values.tolist() == [["ImageSeg", "linear", "e"]]
    assert top.loc[0, "extended grid"] == pytest.approx(92.0)
    assert "Study: other draws of the random splits" in (tmp_path / "out" / "tables.md").read_text()
