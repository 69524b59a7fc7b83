"""Li Figs 6, 7, 10 reports on small trees of runs written here: curves from grid.csv, claims."""
import numpy as np
import pandas as pd
import pytest

from rfbench.papers.li.curves import fig6, hashing


def write_run(root, run_id, config, grid):
    """One run: its trials.csv (config columns, one trial) and grid.csv ((gamma, C) -> test score)."""
    run = root / "runs" / run_id
    run.mkdir(parents=True)
    pd.DataFrame([{**config, "run_id": run_id, "trial": 0, "test_accuracy": max(s for *_, s in grid),
                   "deviations": ""}]).to_csv(run / "trials.csv", index=False)
    pd.DataFrame([{"gamma": g, "C": c, "cv_score": np.nan, "test_score": s, "run_id": run_id, "trial": 0}
                  for g, c, s in grid]).to_csv(run / "grid.csv", index=False)


def svm(dataset, metric, log2_C="[0, 2]"):
    return {"dataset.name": dataset, "classifier.kernel": metric, "classifier.selection": "test_grid",
            "classifier.log2_C": log2_C}


def test_fig6_takes_rbf_at_its_best_gamma_for_every_c(tmp_path):
    nan = np.nan
    write_run(tmp_path, "026201711902", svm("spambase_li", "linear"), [(nan, 1, 0.80), (nan, 4, 0.85)])
    write_run(tmp_path, "831968852e19", svm("spambase_li", "cosine_rbf"),  # run ids that read as numbers
              [(0.1, 1, 0.90), (0.1, 4, 0.88), (2.0, 1, 0.86), (2.0, 4, 0.91)])
    write_run(tmp_path, "g", svm("spambase_li", "gmm"), [(nan, 1, 0.84), (nan, 4, 0.83)])
    write_run(tmp_path, "m", svm("magic_li", "gmm", "[0]"), [(nan, 1, 0.83)])
    curves = fig6(tmp_path, tmp_path / "out", {"spambase_li": "SpamBase"}).set_index(["method", "C"])
    assert curves.loc[("rbf", 1), "accuracy"] == pytest.approx(90.0)  # gamma 0.1 wins at C = 1
    assert curves.loc[("rbf", 4), "accuracy"] == pytest.approx(91.0)  # gamma 2 at C = 4
    text = (tmp_path / "out" / "fig6.md").read_text()
    assert "fails: both above linear on 0 of 1 datasets; not on SpamBase" in text  # GMM 84 < linear 85
    assert "| SpamBase  | linear   |" in text  # best C = 4, the grid's largest
    assert ("C grids (each run's `classifier.log2_C`): C over 2^0..2^2 (2 values): linear on SpamBase; rbf on "
            "SpamBase; gmm on SpamBase; C over 2^0..2^0 (1 values): gmm on magic_li.") in text
    assert (tmp_path / "out" / "fig6.png").stat().st_size > 0


def hashed(kernel, k, b=np.nan, gamma=np.nan, solver="newton", d=16):
    return {"dataset.name": "letter_li", "kernel.name": kernel, "feature_map.n_components": k,
            "feature_map.b": b, "kernel.gamma": gamma, "classifier.solver": solver, "d": d,
            "feature_map.gmm_transform": True if kernel == "gmm" else np.nan}


def test_hashing_puts_gcws_c_in_lis_units_and_nrff_at_its_best_gamma(tmp_path):
    nan = np.nan
    write_run(tmp_path, "g1", hashed("gmm", 16, b=1), [(nan, 16, 0.50), (nan, 64, 0.60)])
    write_run(tmp_path, "g4", hashed("gmm", 16, b=4, solver=1), [(nan, 16, 0.70), (nan, 64, 0.65)])
    write_run(tmp_path, "n1", hashed("cosine_rbf", 16, gamma=1.0), [(nan, 16, 0.55), (nan, 64, 0.58)])
    write_run(tmp_path, "n11", hashed("cosine_rbf", 16, gamma=11.0), [(nan, 16, 0.40), (nan, 64, 0.66)])
    write_run(tmp_path, "lin", {**hashed("linear", nan)}, [(nan, 16, 0.62), (nan, 64, 0.61)])
    curves = hashing(tmp_path, tmp_path / "out", "letter_li", "fig7", "test", published_linear=61.66,
                     paper_ks=(16, 4096))
    gcws = curves[(curves["method"] == "GCWS") & (curves["b"] == 4)].set_index("C")
    assert gcws.loc[64, "C_li"] == 4.0 and gcws.loc[64, "accuracy"] == pytest.approx(65.0)
    nrff = curves[curves["method"] == "NRFF"]
    assert set(nrff["gamma"]) == {11.0}  # 66 > 58 at its best C
    text = (tmp_path / "out" / "fig7.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("|  16 "))
    # k, GCWS b=1, b=4, NRFF, its gamma, linear, trials: each the best over C
    assert [cell.strip() for cell in row.split("|")[1:-1]] == ["16", "60", "70", "66", "11", "62", "1"]
    assert "holds     | above at 1 of 1 k" in text  # GCWS 70 > NRFF 66
    header, _, row = text[text.index("## NRFF: best test accuracy"):].splitlines()[2:5]
    assert [[cell.strip() for cell in line.split("|")[1:-1]] for line in (header, row)] == [
        ["k", "gamma 1", "gamma 11"], ["16", "58.00", "66.00"]]  # each gamma's best over C
    assert "GCWS 70.00 vs linear 62.00 (the paper's linear: 61.66)" in text
    assert ("ours 62.00 % (the L2-loss linear SVM on the unit rows, best C; its solver under Solvers); the "
            "paper's Table 2: 61.66 %") in text
    assert "- solver: Li trains every point with LIBLINEAR; the runs the Solvers section lists under newton" in text
    section = text[text.index("## Solvers"):].splitlines()[4:8]
    assert [[cell.strip() for cell in line.split("|")[1:-1]] for line in section] == [
        ["GCWS", "1", "newton", "16"], ["GCWS", "4", "1", "16"], ["NRFF", "-", "newton", "16"],
        ["linear", "-", "newton", "-"]]
    assert ("## Not run\n\nthe paper's k = 4096: no run below the results folder yet "
            "(`make li-fig7` runs it; its cost: README, Li)") in text


def test_hashing_lists_no_paper_k_when_every_one_ran(tmp_path):
    write_run(tmp_path, "g1", hashed("gmm", 16, b=1), [(np.nan, 16, 0.5)])
    hashing(tmp_path, tmp_path / "out", "letter_li", "fig7", "test", paper_ks=(16,))
    assert "Not run" not in (tmp_path / "out" / "fig7.md").read_text()


def test_hashing_without_runs_of_the_dataset_is_an_error(tmp_path):
    write_run(tmp_path, "g1", hashed("gmm", 16, b=1), [(np.nan, 16, 0.5)])
    with pytest.raises(FileNotFoundError, match="dataset=ijcnn1_li"):
        hashing(tmp_path, tmp_path / "out", "ijcnn1_li", "fig10", "test")


def test_hashing_names_each_k_where_nrff_is_not_below_gcws(tmp_path):
    write_run(tmp_path, "g16", hashed("gmm", 16, b=4), [(np.nan, 16, 0.70)])
    write_run(tmp_path, "n16", hashed("cosine_rbf", 16, gamma=11.0), [(np.nan, 16, 0.60)])
    write_run(tmp_path, "g4096", hashed("gmm", 4096, b=4), [(np.nan, 16, 0.9615)])
    write_run(tmp_path, "n4096", hashed("cosine_rbf", 4096, gamma=11.0), [(np.nan, 16, 0.9632)])
    hashing(tmp_path, tmp_path / "out", "letter_li", "fig7", "test")
    assert "| fails      | above at 1 of 2 k; not at k = 4096 |" in (tmp_path / "out" / "fig7.md").read_text()


@pytest.mark.parametrize(("d", "line"), [
    (16, "i* takes m = 32 values (2D, D = 16), so b = 5 keeps all of it, and Li's b = 8 keeps no more: its codes "
         "are ours plus 2^8 - 2^5 always-zero columns per sample (the same linear SVM); b > 5 is refused."),
    (200, "i* takes m = 400 values (2D, D = 200), so b = 9 keeps all of it; b > 9 is refused.")])
def test_hashing_names_the_b_that_keeps_the_whole_index(tmp_path, d, line):
    write_run(tmp_path, "g", hashed("gmm", 16, b=4, d=d), [(np.nan, 16, 0.70)])
    hashing(tmp_path, tmp_path / "out", "letter_li", "fig7", "test")
    assert f"## Bits of the index\n\n{line}" in (tmp_path / "out" / "fig7.md").read_text()


def test_hashing_without_gcws_says_nothing_of_index_bits(tmp_path):
    write_run(tmp_path, "n", hashed("cosine_rbf", 16, gamma=1.0), [(np.nan, 16, 0.60)])
    hashing(tmp_path, tmp_path / "out", "letter_li", "fig7", "test")
    assert "Bits of the index" not in (tmp_path / "out" / "fig7.md").read_text()


def test_hashing_tables_nrff_per_k_and_gamma_blank_where_not_run(tmp_path):
    for k, gamma, score in ((16, 1.0, 0.6), (16, 11.0, 0.5), (1024, 11.0, 0.9)):
        write_run(tmp_path, f"n{k}-{gamma:g}", hashed("cosine_rbf", k, gamma=gamma), [(np.nan, 16, score)])
    hashing(tmp_path, tmp_path / "out", "letter_li", "fig7", "test")
    text = (tmp_path / "out" / "fig7.md").read_text()
    rows = text[text.index("## NRFF: best test accuracy"):].splitlines()[4:6]
    assert [[cell.strip() for cell in line.split("|")[1:-1]] for line in rows] == [["16", "60.00", "50.00"],
                                                                                   ["1024", "", "90.00"]]


def test_hashing_names_no_solver_deviation_when_liblinear_trained_every_point(tmp_path):
    write_run(tmp_path, "g", hashed("gmm", 16, b=4, solver=1), [(np.nan, 16, 0.70)])
    hashing(tmp_path, tmp_path / "out", "letter_li", "fig7", "test")
    assert "- solver:" not in (tmp_path / "out" / "fig7.md").read_text()


def test_hashing_judges_gcws_against_nrff_at_the_papers_gamma_too(tmp_path):
    write_run(tmp_path, "g", hashed("gmm", 16, b=4), [(np.nan, 16, 0.70)])
    write_run(tmp_path, "n1", hashed("cosine_rbf", 16, gamma=1.0), [(np.nan, 16, 0.75)])   # NRFF's best gamma
    write_run(tmp_path, "n11", hashed("cosine_rbf", 16, gamma=11.0), [(np.nan, 16, 0.40)])  # the paper's
    hashing(tmp_path, tmp_path / "out", "letter_li", "fig7", "test", paper_gamma=11.0)
    text = (tmp_path / "out" / "fig7.md").read_text()
    header, _, row = text.splitlines()[4:7]
    cells = dict(zip([c.strip() for c in header.split("|")[1:-1]], [c.strip() for c in row.split("|")[1:-1]]))
    assert (cells["NRFF"], cells["NRFF gamma"], cells["NRFF at gamma 11"]) == ("75", "1", "40")
    claims = {cells[0]: cells[1] for cells in ([c.strip() for c in line.split("|")[1:-1]]
                                               for line in text[text.index("## Claims"):].splitlines()[4:7])}
    assert claims["GCWS (its best b) above NRFF (its best gamma) at every k"] == "fails"
    assert claims["GCWS (its best b) above NRFF at gamma 11 (the paper's exact RBF's) at every k"] == "holds"
    table = pd.read_csv(tmp_path / "out" / "claims.csv")  # the same claims, for the project's report
    assert table[["source", "dataset", "verdict"]].values.tolist() == [
        ["Fig. 7", "Letter", "fails"], ["Fig. 7", "Letter", "holds"], ["Fig. 7", "Letter", "not run"]]
