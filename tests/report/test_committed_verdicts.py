"""The committed verdict records and REPORT.md agree with each other and with the rule."""
from pathlib import Path

import pandas as pd
import pytest

from rfbench.report import project, verdicts

RESULTS = Path(__file__).resolve().parents[2] / "results"
PAPERS = [paper for paper in project.PAPERS if (RESULTS / paper.folder / verdicts.FILE).exists()]


@pytest.mark.parametrize("paper", PAPERS, ids=lambda paper: paper.folder)
def test_no_verdict_rests_on_a_tolerance_below_the_cells_uncertainty(paper):
    records = verdicts.load(RESULTS / paper.folder / verdicts.FILE)
    judged = records[records["threshold"].notna()]
    assert len(judged) or paper.folder == "tutorial"
    assert (judged["threshold"] >= judged[["u_ours", "u_published"]].max(axis=1)).all()
    cells = records[records["kind"] == verdicts.CELL]
    assert cells["u_ours"].notna().sum() == cells["mean"].notna().sum()  # every cell we ran has an uncertainty


@pytest.mark.parametrize("paper", PAPERS, ids=lambda paper: paper.folder)
def test_report_counts_are_the_committed_records(paper):
    md = (RESULTS / project.REPORT).read_text()
    header = next(line for line in md.splitlines() if line.startswith("| paper"))
    columns = [c.strip() for c in header.strip("|").split("|")]
    line = next(line for line in md.splitlines() if line.startswith(f"| [{paper.folder}]"))
    row = dict(zip(columns, (c.strip() for c in line.strip("|").split("|"))))
    found = project.collect(RESULTS, paper)
    tally, said = project.counts(found), verdicts.tally(found.records)
    for category in project.CATEGORIES[:6]:
        assert row[category] == str(tally.get(category, ""))
    assert (row["explained"], row["unexplained"]) == (str(said["explained"]), str(said["unexplained"]))


def _cells(folder: str) -> pd.DataFrame:
    records = verdicts.load(RESULTS / folder / verdicts.FILE)
    return records[records["kind"] == verdicts.CELL]


def test_what_the_issue_asked_for_holds_in_the_committed_records():
    rr = _cells("rr").set_index("cell")
    assert set(rr.loc[rr.index.str.startswith(("kddcup99", "census_house")), "verdict"]) == {"not comparable"}
    assert rr.loc[rr.index.str.startswith("covtype"), "verdict"].eq("not run: data not obtainable").all()
    qmc = verdicts.load(RESULTS / "qmc" / verdicts.FILE)
    assert (qmc["source"] == "Table 2").sum() >= 24 and (qmc["kind"] == verdicts.CLAIM).sum() >= 28
    li = _cells("li").set_index("cell")
    assert set(li.loc[li.index.str.startswith(("Splice", "CTG")), "verdict"]) == {"not comparable"}
    assert li.loc["Letter linear", "verdict"] == "not comparable"
    assert li.loc["Musk linear", "verdict"] != "not comparable"  # two classes: the scheme does not matter
