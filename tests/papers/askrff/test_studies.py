"""AsK-RFF's protocol studies from small trees of runs written here: the LibLinear options, the split seeds,
the kernel options and the data options."""
import pandas as pd
import pytest

from rfbench.papers.askrff import studies

GRID = "[-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5]"


def write_run(root, run_id, accuracies, **config):
    run = root / "runs" / run_id
    run.mkdir(parents=True)
    pd.DataFrame([{"run_id": run_id, "trial": i, "test_accuracy": a, "C": 2.0, **config}
                  for i, a in enumerate(accuracies)]).to_csv(run / "trials.csv", index=False)


def write_table1(path, dataset, *cells):
    """A Table 1 record of ``dataset``'s cells, each (method, approximation, our mean, the paper's)."""
    pd.DataFrame([{"dataset": dataset, "method": m, "approximation": a, "mean": mean, "published": paper}
                  for m, a, mean, paper in cells]).to_csv(path, index=False)
    return path


def test_liblinear_lists_each_arm_against_the_papers_linear_cell(tmp_path):
    options = {"dataset.name": "ijcnn1", "classifier.bias": -1.0, "classifier.log2_C": GRID,
               "dataset.scale": "minmax_pooled"}
    write_run(tmp_path, "ours", [0.9183], **options, **{"classifier.solver": "newton"})
    write_run(tmp_path, "cs", [0.9101], **{**options, "classifier.solver": 4, "classifier.bias": 1.0})
    write_run(tmp_path, "c1", [0.9050], **{**options, "classifier.solver": 1, "classifier.log2_C": "[0]"})
    write_run(tmp_path, "raw", [0.9000], **{**options, "classifier.solver": 1, "dataset.scale": "none"})
    write_run(tmp_path, "old", [0.9010], **{**options, "classifier.solver": 2, "dataset.scale": None})
    table = studies.liblinear(tmp_path, tmp_path / "out").set_index("run_id")
    assert table.loc["ours", "paper"] == pytest.approx(91.011)  # Table 1, ijcnn1 Linear
    assert table.loc["ours", "difference"] == pytest.approx(91.83 - 91.011)
    assert table.loc["cs", "solver"] == "-s 4 Crammer-Singer" and table.loc["cs", "allowed"]
    assert not table.loc["c1", "allowed"] and table.loc["c1", "C"] == "fixed, log2 C = [0]"
    assert not table.loc["raw", "allowed"] and table.loc["raw", "scale"] == "none"
    assert not table.loc["old", "allowed"] and table.loc["old", "scale"] == "minmax"  # no key: the default map
    assert list(table.index[:2]) == ["cs", "ours"]  # allowed arms first, nearest the paper first
    assert (tmp_path / "out" / "liblinear.md").exists()


def test_split_seeds_summarizes_each_cell_over_partitions(tmp_path):
    linear = {"dataset.name": "spambase", "kernel.name": "linear", "feature_map.name": "identity"}
    for seed, accuracy in enumerate([0.900, 0.905, 0.910]):
        write_run(tmp_path, f"l{seed}", [accuracy, accuracy], **linear, **{"dataset.split.seed": seed})
    write_run(tmp_path, "a0", [0.93, 0.95], **{"dataset.name": "spambase", "kernel.name": "shift_gaussian",
                                               "feature_map.name": "askrff", "feature_map.part": "asymmetric",
                                               "dataset.split.seed": 0})
    write_run(tmp_path, "t0", [0.70], **{**linear, "dataset.name": "letter", "dataset.split.seed": 0})
    table = studies.split_seeds(tmp_path, tmp_path / "out").set_index(["dataset", "method", "approximation"])
    assert table.loc[("letter", "linear", "Linear"), "paper"] == pytest.approx(72.541)  # each dataset its own
    table = table.loc["spambase"]
    cell = table.loc[("linear", "Linear")]
    assert cell["partitions"] == 3 and cell["mean"] == pytest.approx(90.5) and cell["sd"] == pytest.approx(0.5)
    assert cell["partition 0"] == pytest.approx(90.0) and cell["paper"] == pytest.approx(90.261)
    assert bool(cell["within 2 sd"]) and cell["runs"] == "l0 l1 l2"
    asy = table.loc[("shift_gaussian", "Asy")]
    assert asy["mean"] == pytest.approx(94.0) and asy["paper"] == pytest.approx(92.689)
    assert not bool(asy["within 2 sd"])  # one partition: no sd


def test_kernel_options_pairs_the_solver_by_trial_and_sets_rbfs_other_map_against_table_1(tmp_path):
    table1 = write_table1(tmp_path / "table1.csv", "letter", ("gaussian", "RBF", 79.66, 77.547),
                          ("shift_gaussian", "Asy", 83.59, 80.631))
    rbf = {"dataset.name": "letter", "kernel.name": "gaussian", "feature_map.name": "rff",
           "classifier.log2_C": GRID, "classifier.solver": "newton"}
    write_run(tmp_path, "form", [0.775, 0.781, 0.778], **rbf, **{"feature_map.variant": "cos_offset"})
    asy = {"dataset.name": "letter", "kernel.name": "shift_gaussian", "feature_map.name": "askrff",
           "feature_map.part": "asymmetric", "classifier.log2_C": "[5]"}
    write_run(tmp_path, "ours", [0.84, 0.83], **asy, **{"classifier.solver": "newton"})
    write_run(tmp_path, "s1", [0.83, 0.80], **asy, **{"classifier.solver": 1})
    write_run(tmp_path, "s0", [0.82, 0.81], **asy, **{"classifier.solver": 0})  # the losses study's screen
    write_run(tmp_path, "s3", [0.85], **asy, **{"classifier.solver": 3})  # trial 0 only: paired over 1
    table = studies.kernel_options(tmp_path, tmp_path / "out", table1).set_index(["method", "arm"])
    form = table.loc[("gaussian", "RBF as sqrt(2/M) cos(w'x + b), M columns")]
    assert form["n"] == 3 and form["accuracy"] == pytest.approx(77.8) and form["paper"] == pytest.approx(77.547)
    assert bool(form["explains"])  # 0.25 from the paper, within half of 2.11
    s1 = table.loc[("shift_gaussian", "-s 1 L2-loss SVM, dual (LibLinear's default) at C = 32")]
    assert s1["shift"] == pytest.approx(-2.0) and s1["accuracy"] == pytest.approx(81.5)
    assert bool(s1["explains"])  # 2.96 - 2.0 = 0.96 left of 2.96: under half
    ours = table.loc[("shift_gaussian", "L2-loss SVM to the optimum (ours) at C = 32")]
    assert ours["shift"] == 0.0 and not bool(ours["explains"]) and ours["runs"] == "ours"
    assert len(table.loc["shift_gaussian"]) == 4  # ours once, beside -s 1; each screen arm once
    s0 = table.loc[("shift_gaussian", "-s 0 logistic regression, primal at C = 32")]
    assert s0["shift"] == pytest.approx(-2.0) and bool(s0["moves half the gap"])
    assert not bool(s0["explains"])  # a screen: another loss may make the CV pick another C
    s3 = table.loc[("shift_gaussian", "-s 3 L1-loss SVM, dual at C = 32")]
    assert s3["n"] == 1 and s3["shift"] == pytest.approx(1.0) and not bool(s3["moves half the gap"])
    assert (tmp_path / "out" / "kernel_options.md").exists()


def test_data_options_pairs_each_arm_and_the_former_table_1_with_table_1s_same_trials(tmp_path):
    table1 = write_table1(tmp_path / "table1.csv", "ijcnn1", ("shift_gaussian", "Asy", 95.0, 93.0),
                          ("linear", "Linear", 91.8, 91.0))
    pd.concat([pd.read_csv(table1), pd.DataFrame([{"dataset": "cod_rna", "method": "linear",
                                                    "approximation": "Linear", "mean": 89.6, "published": 91.6}])]
              ).to_csv(table1, index=False)
    asy = {"dataset.name": "ijcnn1", "kernel.name": "shift_gaussian", "feature_map.name": "askrff",
           "feature_map.part": "asymmetric", "classifier.log2_C": GRID, "seed": 0}
    linear = {"dataset.name": "ijcnn1", "kernel.name": "linear", "feature_map.name": "identity",
              "classifier.log2_C": GRID, "seed": 0}
    accuracy, former = tmp_path / "accuracy", tmp_path / "former"
    primary = {"dataset.scale": "minmax_pooled", "feature_map.imaginary": "drop"}
    write_run(accuracy, "t1asy", [0.95, 0.96, 0.94], **asy, **primary, **{"feature_map.m_over_d": 2})
    write_run(accuracy, "fig3", [0.90, 0.90], **asy, **primary, **{"feature_map.m_over_d": 1})  # not Table 1's
    write_run(accuracy, "t1lin", [0.918, 0.918], **linear, **{"dataset.scale": "minmax_pooled"})
    write_run(former, "oldasy", [0.96, 0.97, 0.95], **asy, **{"feature_map.m_over_d": 2})  # no scale key: minmax
    write_run(former, "oldlin", [0.918, 0.918], **linear)
    cod = {**linear, "dataset.name": "cod_rna_stratified"}  # the paper's cod_rna column, as in Table 1
    write_run(accuracy, "codlin", [0.896], **cod, **{"dataset.scale": "minmax_pooled"})
    write_run(former, "oldcod", [0.897], **cod)
    study = tmp_path / "study"
    write_run(study, "pooled", [0.935, 0.945], **asy, **{"dataset.scale": "minmax_pooled"})
    write_run(study, "eachdrop", [0.935, 0.945], **asy, **{"dataset.scale": "minmax_each",
                                                         "feature_map.imaginary": "drop"})
    write_run(study, "drop", [0.955, 0.955], **{**asy, "dataset.scale": "minmax", "feature_map.imaginary": "drop",
                                                "classifier.log2_C": "[5]"})
    write_run(study, "each", [0.914, 0.916], **linear, **{"dataset.scale": "minmax_each"})
    table = studies.data_options(study, tmp_path / "out", accuracy, former, table1).set_index(["method", "arm"])
    each_drop = table.loc[("shift_gaussian", "[0, 1] fitted on each part alone; the i-block dropped")]
    # trials 0 and 1 against Table 1's 95 and 96: shift -1.5, gap 2.0 -> 0.5 left, within half
    assert each_drop["shift"] == pytest.approx(-1.5) and each_drop["ours same trials"] == pytest.approx(95.5)
    assert each_drop["ours + shift"] == pytest.approx(93.5) and bool(each_drop["explains"])
    assert each_drop["reading"] == "secondary" and each_drop["runs"] == "eachdrop" and each_drop["n"] == 2
    # the same numbers with the block without its i: one former choice kept, so it explains nothing
    pooled = table.loc[("shift_gaussian", "[0, 1] fitted on the training and test rows together; "
                                          "the i-block without its i")]
    assert pooled["shift"] == pytest.approx(-1.5) and not bool(pooled["explains"])
    assert pooled["reading"] == "one former choice" and pooled["imaginary"] == "magnitude"
    drop = table.loc[("shift_gaussian", "[0, 1] fitted on the training rows; the i-block dropped; log2 C = [5]")]
    assert drop["shift"] == pytest.approx(0.0) and drop["reading"] == "one former choice"
    assert drop["scale"] == "minmax" and drop["imaginary"] == "drop"
    old = table.loc[("shift_gaussian", "ours before: [0, 1] fitted on the training rows; the i-block without its i")]
    assert old["n"] == 3 and old["shift"] == pytest.approx(1.0) and old["reading"] == "former"
    assert not bool(old["explains"]) and old["runs"] == "oldasy"
    assert table.loc[("linear", "ours before: [0, 1] fitted on the training rows"), "shift"].tolist() == \
        pytest.approx([0.1, 0.0])  # cod_rna (its runs' dataset config is cod_rna_stratified), then ijcnn1
    each = table.loc[("linear", "[0, 1] fitted on each part alone")]
    assert each["shift"] == pytest.approx(-0.3) and not bool(each["explains"])  # 0.5 left of 0.8: over half
    assert each["reading"] == "secondary" and each["paper"] == pytest.approx(91.0) and each["imaginary"] == "none"
    assert (tmp_path / "out" / "data_options.md").exists()


def test_losses_pairs_each_solver_with_table_1s_trials_and_counts_only_a_solver_run_on_every_cell(tmp_path):
    table1 = write_table1(tmp_path / "table1.csv", "letter", ("gaussian", "RBF", 79.6, 77.55),
                          ("linear", "Linear", 68.6, 72.54))
    rbf = {"dataset.name": "letter", "kernel.name": "gaussian", "feature_map.name": "rff", "seed": 0}
    linear = {"dataset.name": "letter", "kernel.name": "linear", "feature_map.name": "identity", "seed": 0}
    accuracy = tmp_path / "accuracy"
    write_run(accuracy, "t1rbf", [0.800, 0.790], **rbf, **{"feature_map.m_over_d": 2})
    write_run(accuracy, "t1lin", [0.686], **linear)
    study = tmp_path / "study"
    write_run(study, "s0rbf", [0.785], **rbf, **{"classifier.solver": 0})
    write_run(study, "s0lin", [0.700], **linear, **{"classifier.solver": 0})
    write_run(study, "s2rbf", [0.780], **rbf, **{"classifier.solver": 2})  # not run on Linear: incomplete
    table = studies.losses(study, tmp_path / "out", accuracy, table1).set_index(["method", "solver"])
    s0 = table.loc[("gaussian", "-s 0 logistic regression, primal")]
    # trial 0 against Table 1's 80.0: shift -1.5; gap 2.05 -> 0.55 left, within half
    assert s0["shift"] == pytest.approx(-1.5) and s0["ours same trials"] == pytest.approx(80.0)
    assert bool(s0["complete"]) and bool(s0["explains"]) and s0["runs"] == "s0rbf"
    s0_linear = table.loc[("linear", "-s 0 logistic regression, primal")]
    assert s0_linear["shift"] == pytest.approx(1.4) and not bool(s0_linear["explains"])  # 2.54 of 3.94 left
    s2 = table.loc[("gaussian", "-s 2 L2-loss SVM, primal")]
    assert s2["shift"] == pytest.approx(-2.0) and not bool(s2["complete"]) and not bool(s2["explains"])
    assert (tmp_path / "out" / "losses.md").exists()
    write_run(study, "reseeded", [0.7], **{**linear, "seed": 9}, **{"classifier.solver": 7})
    with pytest.raises(ValueError, match="not Table 1's"):
        studies.losses(study, tmp_path / "out", accuracy, table1)
