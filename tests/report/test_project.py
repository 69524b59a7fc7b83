"""The project report: papers found by their comparison, claim and deviation tables; those without, not yet run."""
import re

import numpy as np
import pandas as pd
import pytest

from rfbench.papers.tutorial import report as tutorial
from rfbench.report import compare, project


def _paper_tree(root):
    """A paper folder as the report layer leaves it: a compared table, claims, deviations, runs and a report."""
    folder = root / "askrff"
    (folder / "table1").mkdir(parents=True)
    pub = pd.DataFrame({"paper": "askrff", "source": "Table 1", "dataset": ["a", "a", "b"],
                        "method": ["m1", "m2", "m1"], "metric": "test accuracy", "value": [90.0, 91.0, 80.0],
                        "sd": [1.0, 1.0, 0.5],
                        "unit": "%", "note": ""})
    ours = pd.DataFrame({"dataset": ["a", "b"], "method": ["m1", "m1"], "metric": "test accuracy", "unit": "%",
                         "mean": [90.5, 85.0], "sd": [0.5, 0.1], "n": [3, 10]})
    compare.compare(pub, ours).to_csv(folder / "table1" / "table1.csv", index=False)  # agrees, ours better, not run
    pd.DataFrame({"source": ["Fig. 2", "Fig. 3"], "dataset": [np.nan, "a"], "claim": ["errors fall", "time grows"],
                  "verdict": ["holds", "fails"], "evidence": ["12 of 12", "7 of 12"]}).to_csv(
        folder / "table1" / "claims.csv", index=False)
    pd.DataFrame({"deviation": ["one partition"], "reason": ["the paper kept one"]}).to_csv(
        folder / "table1" / "deviations.csv", index=False)
    pd.DataFrame({"x": [1], "verdict": ["not a table of the layer"]}).to_csv(folder / "other.csv", index=False)
    for run in ("r1", "r2"):  # the same recorded deviation in two runs is listed once
        (folder / "accuracy" / "runs" / run).mkdir(parents=True)
        pd.DataFrame({"trial": [0, 1], "deviations": ["test set: a third of the training file", np.nan]}).to_csv(
            folder / "accuracy" / "runs" / run / "trials.csv", index=False)
    (folder / "table1" / "table1.md").write_text("# Table 1\n")


def test_report_counts_each_papers_verdicts_and_lists_the_others_as_not_yet_run(tmp_path):
    _paper_tree(tmp_path)
    path = project.write(tmp_path)
    md = path.read_text()
    rows = {cells[1]: cells for cells in (
        [c.strip() for c in line.strip("|").split("|")] for line in md.splitlines() if line.startswith("| [")
    )}
    header = next(line for line in md.splitlines() if line.startswith("| paper"))
    columns = [c.strip() for c in header.strip("|").split("|")]
    askrff = dict(zip(columns, next(r for r in rows.values() if r[0].startswith("[askrff]"))))
    assert (askrff["status"], askrff["agrees"], askrff["ours better"], askrff["not run"]) == ("run", "1", "1", "1")
    assert (askrff["holds"], askrff["fails"], askrff["ours worse"]) == ("1", "1", "")
    for paper, target in (("qmc", "make qmc"), ("li", "make li"), ("rr", "make rr-table1")):
        row = dict(zip(columns, next(r for r in rows.values() if r[0].startswith(f"[{paper}]"))))
        assert row["status"] == f"not yet run (`{target}`)"
    # no tutorial.csv: the tutorial has nothing to judge, so it is not yet run either
    assert "(`make tutorial`)" in md
    # ours beside the published value, per cell
    cell = next(line for line in md.splitlines() if line.startswith("| b m1 "))
    assert [c.strip() for c in cell.strip("|").split("|")] == [
        "b m1", "85.00 ± 0.10 (n=10)", "80.00 ± 0.50", "%", "+5.00", "ours better"]
    assert "| a m2 " in md and "not run" in md
    assert md.count("test set: a third of the training file") == 1
    assert "- askrff: one partition. **Why:** the paper kept one." in md
    assert "[askrff/table1/table1.md](askrff/table1/table1.md)" in md
    assert "not a table of the layer" not in md
    assert (tmp_path / "REPORT.png").read_bytes()[:4] == b"\x89PNG"


def test_the_tutorial_joins_by_its_claims_judged_on_its_csv(tmp_path):
    tutorial.run(tmp_path / "tutorial")
    claims = project.tutorial_claims(tmp_path / "tutorial")
    assert claims["verdict"].tolist() == ["fails", "fails"]
    stated, limit = np.exp(-0.5) / np.sqrt(2 * np.pi), np.exp(-0.5)  # D = x - y = -1
    assert f"{stated:.4f}" in claims["evidence"][0] and f"{limit:.4f}" in claims["evidence"][0]
    # the error against the stated kernel stays near |limit - stated| for every K >= 50
    floor = float(re.search(r"at least ([0-9.]+)", claims["evidence"][1]).group(1))
    assert floor == pytest.approx(limit - stated, abs=0.01)
    md = project.write(tmp_path).read_text()
    assert re.search(r"\[tutorial\]\(#tutorial-[^)]*\) +\| [^|]+\| run +\|", md)
    assert "| demo     | when K >= 50, the error is nearly nonexistent" in md


def test_main_refuses_a_results_tree_that_is_not_a_directory(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        project.main(["--results", str(tmp_path / "missing")])
    assert exit_.value.code == 2
    assert "--results" in capsys.readouterr().err
    assert not (tmp_path / "missing").exists()
