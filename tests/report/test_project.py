"""The project report: built from the verdict records each paper writes; a paper without records is not yet run."""
import numpy as np
import pandas as pd
import pytest

from rfbench.papers.askrff import verdicts as askrff_verdicts
from rfbench.report import compare, project, verdicts
from tests.papers.tutorial.helpers import run_tutorial


def _paper_tree(root):
    """A paper folder as the report layer leaves it: a compared table, claims, deviations, runs and a report."""
    folder = root / "askrff"
    (folder / "table1").mkdir(parents=True)
    pub = pd.DataFrame({"paper": "askrff", "source": "Table 1", "dataset": ["a", "a", "b", "cod_rna"],
                        "method": ["m1", "m2", "m1", "m1"], "approximation": "Asy", "metric": "test accuracy",
                        "value": [90.0, 91.0, 80.0, 95.0], "sd": [1.0, 1.0, 0.5, 0.5], "unit": "%", "note": ""})
    ours = pd.DataFrame({"dataset": ["a", "b", "cod_rna"], "method": "m1", "approximation": "Asy",
                         "metric": "test accuracy", "unit": "%", "mean": [90.5, 85.0, 94.0], "sd": [0.5, 0.1, 0.1],
                         "n": [3, 10, 10]})
    # agrees, ours better, not run yet, and cod_rna: not comparable (AsK-RFF's rules: another test set)
    table = compare.compare(pub, ours)
    verdicts.judged(table, "askrff", askrff_verdicts.rules(table)).to_csv(folder / "table1" / "table1.csv",
                                                                          index=False)
    pd.DataFrame({"source": ["Fig. 2", "Fig. 3", "Table 1"], "dataset": [np.nan, "a", np.nan],
                  "claim": ["errors fall", "time grows", "(our check) equal width"],
                  "verdict": ["holds", "fails", "fails"], "evidence": ["12 of 12", "7 of 12", "0 of 8"]}).to_csv(
        folder / "table1" / "claims.csv", index=False)
    pd.DataFrame({"deviation": ["one partition"], "reason": ["the paper kept one"]}).to_csv(
        folder / "table1" / "deviations.csv", index=False)
    pd.DataFrame({"x": [1], "verdict": ["not a table of the layer"]}).to_csv(folder / "other.csv", index=False)
    for run in ("r1", "r2"):  # the same recorded deviation in two runs is listed once
        (folder / "accuracy" / "runs" / run).mkdir(parents=True)
        pd.DataFrame({"trial": [0, 1], "deviations": ["test set: a third of the training file", np.nan]}).to_csv(
            folder / "accuracy" / "runs" / run / "trials.csv", index=False)
    (folder / "table1" / "table1.md").write_text("# Table 1\n")


def _rows(md: str) -> dict[str, dict[str, str]]:
    """The summary table of REPORT.md: per paper, its columns."""
    header = next(line for line in md.splitlines() if line.startswith("| paper"))
    columns = [c.strip() for c in header.strip("|").split("|")]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in md.splitlines() if line.startswith("| [")]
    return {row[0].split("]")[0].lstrip("["): dict(zip(columns, row)) for row in rows}


def test_report_is_built_from_the_records_each_paper_writes(tmp_path):
    _paper_tree(tmp_path)
    md = project.write(tmp_path).read_text()
    records = verdicts.load(tmp_path / "askrff" / "verdicts.csv")
    assert sorted(records["verdict"]) == ["agrees", "fails", "fails", "higher", "holds", "not comparable",
                                          "not run: not yet"]
    askrff = _rows(md)["askrff"]
    assert (askrff["status"], askrff["agrees"], askrff["ours better"], askrff["not comparable"],
            askrff["not run: not yet"]) == ("run", "1", "1", "1", "1")
    assert (askrff["paper's claims hold/fail"], askrff["our checks hold/fail"]) == ("1/1", "0/1")
    # b: ours better, unexplained; cod_rna: not comparable, unexplained (no Linear cell to measure its shift by)
    assert (askrff["explained"], askrff["unexplained"]) == ("0", "2")
    for paper, target in (("qmc", "make qmc"), ("li", "make li"), ("rr", "make rr-table1")):
        assert _rows(md)[paper]["status"] == f"not yet run (`{target}`)"
    assert "(`make tutorial`)" in md  # no tutorial.csv: nothing to judge
    cell = next(line for line in md.splitlines() if line.startswith("| b m1 "))
    assert [c.strip() for c in cell.strip("|").split("|")][:7] == [
        # the published ± 0.5 is an sd over 10 trials: 0.5 / sqrt(10), with 80.0's rounding 0.05 / sqrt(3)
        "b m1 Asy", "85.00 ± 0.032 (n=10; sd / sqrt(10))", "80.00 ± 0.16", "%", "+5.00", "0.33", "ours better"]
    assert "other test set: a stratified third of cod-rna's" in md
    assert "| a m2 Asy" in md and "not run: not yet" in md and "make askrff-table1" in md
    assert md.count("test set: a third of the training file") == 1
    assert "- askrff: one partition. **Why:** the paper kept one." in md
    assert "[askrff/table1/table1.md](askrff/table1/table1.md)" in md
    assert "not a table of the layer" not in md
    summary = (tmp_path / "askrff" / "summary.md").read_text()
    assert "**Claims checked:** 2 (1 hold, 1 fail) of the paper's; 1 (0 hold, 1 fail) of our own checks." in summary
    assert "### Reproducibility summary" in md and "**What remains, and why:**" in md
    assert (tmp_path / "REPORT.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(("value", "decimals", "text"), [(-0.001, 2, "+0.00"), (-0.004, 2, "+0.00"),
                                                         (-0.006, 2, "-0.01"), (3.3e-9, 9, "+3.30e-09"),
                                                         (float("nan"), 2, "")])
def test_differences_never_print_minus_zero(value, decimals, text):
    assert project.signed(value, decimals) == text


def test_the_tutorial_joins_by_its_claims(tmp_path):
    run_tutorial(tmp_path)
    md = project.write(tmp_path).read_text()
    assert _rows(md)["tutorial"]["paper's claims hold/fail"] == "0/2"
    assert "| demo     | claim  | when K >= 50, the error is nearly nonexistent" in md


def test_main_refuses_a_results_tree_that_is_not_a_directory(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        project.main(["--results", str(tmp_path / "missing")])
    assert exit_.value.code == 2
    assert "--results" in capsys.readouterr().err
    assert not (tmp_path / "missing").exists()


def test_an_empty_results_tree_is_a_report_of_papers_not_yet_run_without_warnings(tmp_path):
    """Before any campaign: every paper 'not yet run', and the figure drawn without a legend warning."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        md = project.write(tmp_path).read_text()
    assert all(row["status"].startswith("not yet run") for row in _rows(md).values())
