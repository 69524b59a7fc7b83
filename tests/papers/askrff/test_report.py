"""The AsK-RFF report: its published values, Table 1's verdicts, the claims, and the figure pipelines on
tiny inputs."""
import re

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from rfbench.engine import config, jobs
from rfbench.papers.askrff import report as askrff
from rfbench.report import published


def test_published_table1_is_complete_and_cites_its_source():
    table = askrff.load_published()
    cells = table[table["source"] == "Table 1"].query("metric != 'claim'")
    assert len(cells) == 8 * 4 and set(cells["unit"]) == {"%"}
    assert set(cells["dataset"]) == {"spambase", "ijcnn1", "letter", "cod_rna"}
    cell = cells.set_index(["method", "approximation", "dataset"]).loc[("sinh_gaussian", "Asy", "letter")]
    assert (cell["value"], cell["sd"]) == (82.455, 0.851)
    header = published.path_of("askrff").read_text()
    assert header.startswith("# PUBLISHED VALUES transcribed from the paper, used only for side-by-side")
    # every claim the CSV makes has its check in the report (else the report would refuse to render)
    assert set(table.query("metric == 'claim'")["source"]) == {"Fig. 1", "Fig. 2", "Fig. 3", "Table 1"}


def _write_run(root, run_id, rows):
    path = root / "runs" / run_id
    path.mkdir(parents=True)
    pd.DataFrame(rows).assign(run_id=run_id).to_csv(path / "trials.csv", index=False)


def _rows(kernel, fmap, part, dataset, accuracies, m_over_d=2.0):
    return [{"kernel.name": kernel, "feature_map.name": fmap, "feature_map.part": part,
             "dataset.name": dataset, "trial": t, "test_accuracy": a, "m_over_d": m_over_d,
             "deviations": "stratified split" if dataset.startswith("cod") else ""}
            for t, a in enumerate(accuracies)]


def test_table1_gives_each_cell_a_verdict(tmp_path):
    # spambase sinh Asy: paper 92.787 +- 0.351; ours 92.8 +- 0.1 (n = 3) -> agrees.
    _write_run(tmp_path, "a", _rows("sinh_gaussian", "askrff", "asymmetric", "spambase", [0.927, 0.928, 0.929]))
    # the stratified fallback stands in for the cod-RNA column: 94.0 against the paper's 95.831, beyond the
    # threshold, so not comparable (a cell within it would agree: agrees is decided first).
    _write_run(tmp_path, "c", _rows("gaussian", "rff", np.nan, "cod_rna_stratified", [0.940, 0.940]))
    # a Figure 3 point (M = 4d) in the same tree is not a Table 1 cell; Linear has M = d.
    _write_run(tmp_path, "d", _rows("sinh_gaussian", "askrff", "asymmetric", "ijcnn1", [0.9], m_over_d=4.0))
    # spambase linear: paper 90.261 +- 0.120; ours 95 +- 0 -> ours better (accuracy: higher is better).
    _write_run(tmp_path, "b", _rows("linear", "identity", np.nan, "spambase", [0.95, 0.95], m_over_d=1.0))
    # one trial has no sd: letter cosh Asy 82.0 vs the paper's 82.237 +- 1.206 -> agrees on the paper's sd;
    # letter RBF 70.0 vs 77.547 +- 1.158: -7.5 beyond 2 x 1.158 -> ours worse.
    _write_run(tmp_path, "e", _rows("cosh_gaussian", "askrff", "asymmetric", "letter", [0.82]))
    _write_run(tmp_path, "f", _rows("gaussian", "rff", np.nan, "letter", [0.70]))
    table = askrff.table1(tmp_path, tmp_path / "out").set_index(["method", "approximation", "dataset"])
    sinh = table.loc[("sinh_gaussian", "Asy", "spambase")]
    assert sinh["mean"] == pytest.approx(92.8) and sinh["sd"] == pytest.approx(0.1) and sinh["n"] == 3
    assert sinh["difference"] == pytest.approx(92.8 - 92.787)
    # the paper's ± is its sd over 10 trials (Table 1's caption): 0.351 / sqrt(10), with 92.787's rounding
    assert sinh["threshold"] == pytest.approx(2 * np.sqrt(0.1**2 / 3 + 0.351**2 / 10 + 0.0005**2 / 3))
    assert sinh["verdict"] == "agrees"
    assert table.loc[("linear", "Linear", "spambase"), "verdict"] == "ours better"
    assert table.loc[("gaussian", "RBF", "letter"), "verdict"] == "ours worse"
    assert table.loc[("gaussian", "RBF", "cod_rna"), "n"] == 2
    assert table.loc[("cosh_gaussian", "Sym", "letter"), "verdict"] == "not run: not yet"  # kept, marked
    assert table.loc[("sinh_gaussian", "Asy", "ijcnn1"), "verdict"] == "not run: not yet"
    assert table.loc[("gaussian", "RBF", "cod_rna"), "verdict"] == "not comparable"  # another test set
    assert table.loc[("cosh_gaussian", "Asy", "letter"), "verdict"] == "agrees"
    md = (tmp_path / "out" / "table1.md").read_text()
    assert "stratified split" in md and "nan" not in md
    assert "| 92.800 ± 0.100 (92.787 ± 0.351) [+0.013] agrees " in md
    assert "95.000 ± 0.000 (90.261 ± 0.120) [+4.739, 2 of 3 trials] ours better" in md  # sinh Asy has 3 trials
    assert "| 82.000 (82.237 ± 1.206) [-0.237, 1 of 3 trials] agrees " in md
    assert "| not run: not yet (93.683 ± 0.481) " in md
    counts = re.findall(r"^\| (agrees|ours better|ours worse|not comparable|not run|not run: not yet) +\| +(\d+) \|$",
                        md, flags=re.M)
    # cells (RBF cod_rna: not comparable, the verdict records' rule for its test set), then claims
    assert counts == [("agrees", "2"), ("ours better", "1"), ("ours worse", "1"), ("not comparable", "1"),
                      ("not run: not yet", "27"), ("not run", "1")]
    # Asy above Sym, RBF and Linear: no (dataset, kernel) has all four cells run
    assert "| not run   | no (dataset, kernel) with Asy above its Sym, RBF and Linear to check " in md
    assert "| fails     | largest Asy - RBF on letter: +12.00 points (cosh_gaussian)" in md
    assert (tmp_path / "out" / "table1.png").stat().st_size > 10_000
    written = pd.read_csv(tmp_path / "out" / "table1.csv")
    assert written["dataset"].iloc[0] == "spambase" and written["method"].iloc[0] == "shift_gaussian"  # paper order


def test_reports_refuse_to_average_runs_of_different_configs(tmp_path):
    rows = _rows("linear", "identity", np.nan, "spambase", [0.90, 0.91])
    _write_run(tmp_path, "new", [{**r, "classifier.bias": -1.0, "experiment.blas_threads": 1} for r in rows])
    _write_run(tmp_path, "old", [{**r, "classifier.bias": 1.0, "experiment.blas_threads": 2} for r in rows])
    with pytest.raises(ValueError, match=r"2 runs .*\(new, old\) that differ in classifier.bias: \[-1.0, 1.0\]; "):
        askrff.table1(tmp_path, tmp_path)  # an execution setting (blas_threads) is not a difference
    with pytest.raises(SystemExit) as exit_:
        askrff.main(["table1", "--results", str(tmp_path / "nothing")])
    assert exit_.value.code == 2


def test_fig1_is_drawn_from_its_jobs_records_in_the_papers_order(tmp_path):
    small = ["job.n_points=300", "job.log2_max=3"]
    with pytest.raises(FileNotFoundError, match="no recorded trial"):  # a report computes nothing
        askrff.fig1(tmp_path / "out", tmp_path, small)
    with initialize_config_dir(config.CONFIG_DIR, version_base="1.3"):
        cfg = config.to_dict(compose("config", overrides=["job=askrff_masses", *small, "experiment.trials=2",
                                                          f"experiment.results_dir={tmp_path}"]))
    jobs.run(cfg)
    masses = askrff.fig1(tmp_path / "out", tmp_path, small)
    assert list(masses.columns[:5]) == ["kernel", "d", "M", "m_over_d", "trial"]
    assert list(dict.fromkeys(masses["kernel"])) == list(askrff.KERNELS) and len(masses) == 3 * 3 * 2
    assert masses.groupby("kernel", sort=False)["M"].apply(list).iloc[0] == [2, 2, 4, 4, 8, 8]
    assert "300 points from N(0, 1), 2 trials" in (tmp_path / "out" / "fig1.md").read_text()
    assert (tmp_path / "out" / "fig1.png").stat().st_size > 10_000


def test_fig2_and_fig3_summaries_from_runner_tables(tmp_path):
    rows = []
    for kernel in askrff.KERNELS:
        for m in (2.0, 4.0):
            rows += [{"kernel.name": kernel, "feature_map.name": "askrff", "feature_map.part": "asymmetric",
                      "dataset.name": "spambase", "m_over_d": m, "trial": t, "gram_error": 0.1 / m + t * 1e-3,
                      "test_accuracy": 0.9, "time_fit": 0.01 * m, "deviations": ""} for t in range(3)]
    _write_run(tmp_path, "x", rows)
    fig2 = askrff.fig2(tmp_path)
    shift = fig2[(fig2["kernel.name"] == "shift_gaussian") & (fig2["m_over_d"] == 4.0)].iloc[0]
    assert shift["gram_error_mean"] == pytest.approx(0.025 + 1e-3) and shift["gram_error_count"] == 3
    _write_run(tmp_path, "lin", _rows("linear", "identity", np.nan, "spambase", [0.9, 0.9], m_over_d=1.0))
    # Table 1's Sym cells share the accuracy tree; they are not Figure 3 points.
    _write_run(tmp_path, "sym", _rows("shift_gaussian", "askrff", "symmetric", "spambase", [0.5, 0.5]))
    fig3 = askrff.fig3(tmp_path, tmp_path / "fig3")
    assert set(fig3["kernel.name"]) == set(askrff.KERNELS)
    shift = fig3[(fig3["kernel.name"] == "shift_gaussian") & (fig3["m_over_d"] == 2.0)].iloc[0]
    assert shift["test_accuracy_mean"] == pytest.approx(0.9) and shift["test_accuracy_count"] == 3
    assert (tmp_path / "fig2.png").exists() and (tmp_path / "fig3" / "fig3.png").exists()
    # the claims: errors fall with M on every curve, their sd (the same at both M here) does not
    fig2_md = (tmp_path / "fig2.md").read_text()
    assert "| holds     | 3 of 3 (dataset, kernel) curves strictly decreasing in M " in fig2_md
    assert "| fails     | 0 of 3 (dataset, kernel) curves lower at the largest M than at the smallest; not in: " \
           "spambase cosh_gaussian (0.001 at M/d=2, 0.001 at 4)" in fig2_md
    # accuracy 0.9 everywhere: not above the linear 0.9, not rising; sampling time 0.01 M rises
    fig3_md = (tmp_path / "fig3" / "fig3.md").read_text()
    assert "| fails     | 0 of 6 Asy points at M >= d above the linear classifier's mean accuracy" in fig3_md
    assert "| fails     | 0 of 3 (dataset, kernel) curves higher at the largest M" in fig3_md
    assert "| holds     | 3 of 3 (dataset, kernel) curves higher at the largest M than at the smallest " in fig3_md


@pytest.mark.slow
def test_make_askrff_table1_then_fig3_share_their_runs(tmp_path):
    """The real campaign targets on spambase with 1 trial and a one-value C grid: Table 1 (all
    8 methods), then Figure 3, whose Asy runs at M = 2d and Linear runs Table 1 already made."""
    import subprocess

    from tests.conftest import REPO

    def make(target: str) -> str:
        proc = subprocess.run(
            ["make", "--no-print-directory", target, f"RESULTS={tmp_path}",
             "ARGS=dataset=spambase experiment.trials=1 experiment.n_gram=100 classifier.log2_C=[0]"],
            cwd=REPO, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        return proc.stdout + proc.stderr

    make("askrff-table1")
    table = pd.read_csv(tmp_path / "askrff" / "table1" / "table1.csv")
    spam = table[table["dataset"] == "spambase"]
    assert len(spam) == 8 and spam["mean"].notna().all() and (spam["n"] == 1).all()
    assert spam["mean"].between(80, 100).all()

    log = make("askrff-fig3")  # 3 kernels at M/d = 1, 2, 4 and Linear: those at 2 and Linear are Table 1's
    assert "campaign askrff fig3: 10 job(s), 4 complete, 6 to run" in log
    fig3 = pd.read_csv(tmp_path / "askrff" / "fig3" / "fig3.csv")
    fig3 = fig3[(fig3["dataset.name"] == "spambase") & (fig3["m_over_d"] == 2)].set_index("kernel.name")
    asy = spam[spam["approximation"] == "Asy"].set_index("method")
    for kernel in askrff.KERNELS:
        assert 100 * fig3.loc[kernel, "test_accuracy_mean"] == pytest.approx(asy.loc[kernel, "mean"])


def _width_run(root, run_id, kernel, fmap, part, m_over_d, columns, accuracies, d=4):
    rows = _rows(kernel, fmap, part, "spambase", accuracies, m_over_d=m_over_d)
    _write_run(root, run_id, [{**r, "d": d, "n_features": columns, "feature_map.m_over_d": m_over_d} for r in rows])


def test_equal_width_pairs_each_table1_cell_with_rbf_of_as_many_columns(tmp_path):
    # d = 4, M = 2d = 8: Shift Asy has 8M = 64 columns, Sym 4M = 32, RBF 2M = 16.
    _width_run(tmp_path, "asy", "shift_gaussian", "askrff", "asymmetric", 2.0, 64, [0.90, 0.92])
    _width_run(tmp_path, "asy1", "shift_gaussian", "askrff", "asymmetric", 1.0, 32, [0.80, 0.80])
    _width_run(tmp_path, "sym", "shift_gaussian", "askrff", "symmetric", 2.0, 32, [0.85, 0.85])
    _width_run(tmp_path, "rbf2", "gaussian", "rff", np.nan, 2.0, 16, [0.80, 0.82])
    _width_run(tmp_path, "rbf8", "gaussian", "rff", np.nan, 8.0, 64, [0.91, 0.93, 0.95])
    _width_run(tmp_path, "lin", "linear", "identity", np.nan, 1.0, 4, [0.5])  # not a width point
    table = askrff.equal_width(tmp_path, tmp_path / "out")
    pairs = table.set_index(["approximation", "versus", "width"])
    wide = pairs.loc[("Asy", "RBF", "equal columns")]
    # ours 91 +- sqrt(2), n = 2; RBF at M = 8d 93 +- 2, n = 3: -2 against 2 sqrt(2/2 + 4/3) = 3.06
    assert (wide["m_over_d"], wide["versus_m_over_d"], wide["versus_columns"]) == (2.0, 8.0, 64)
    assert wide["difference"] == pytest.approx(-2.0)
    assert wide["difference_sd"] == pytest.approx(np.sqrt(2 / 2 + 4 / 3)) and wide["verdict"] == "within 2 sd"
    narrow = pairs.loc[("Asy", "RBF", "equal M")]  # Table 1's comparison: 91 +- 1.41 vs 81 +- 1.41
    assert narrow["difference"] == pytest.approx(10.0) and narrow["verdict"] == "Asy higher"
    # distinct columns: 64 - 2M = 48 -> RBF at M = 6d, not run; Sym's 32 columns -> RBF at M = 4d, not run
    distinct = pairs.loc[("Asy", "RBF", "equal distinct columns")]
    assert [distinct["versus_m_over_d"], distinct["verdict"]] == [6.0, "not run"]
    assert pairs.loc[("Sym", "RBF", "equal columns"), ["versus_m_over_d", "verdict"]].tolist() == [4.0, "not run"]
    # Asy at M = d has Sym's 32 columns: 80 against 85, both without spread
    same = pairs.loc[("Asy", "Sym", "equal columns")]
    assert (same["m_over_d"], same["versus_m_over_d"], same["difference"]) == (1.0, 2.0, pytest.approx(-5.0))
    assert same["verdict"] == "Sym higher"
    md = (tmp_path / "out" / "equal_width.md").read_text()
    row = next(line for line in md.splitlines() if "RBF M=8d" in line)
    assert [c.strip() for c in row.strip("|").split("|")] == [
        "spambase", "shift_gaussian", "equal columns", "Asy M=2d, 64 cols: 91.00 ± 1.41, 2 of 3 trials",
        "RBF M=8d, 64 cols: 93.00 ± 2.00", "-2.00 ± 1.53", "within 2 sd"]
    assert "- **Asy vs RBF at equal columns** (1 (dataset, kernel) pairs): within 2 sd in 1.  spambase: shift " \
           "-2.00 (within 2 sd)." in md
    claims = pd.read_csv(tmp_path / "out" / "claims.csv")
    assert claims["verdict"].tolist() == ["fails", "fails"] and "0 of 1" in claims["evidence"][0]
    assert (tmp_path / "out" / "equal_width.png").stat().st_size > 10_000
