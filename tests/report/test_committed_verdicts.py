"""The committed verdict records, the papers' tables and REPORT.md agree with each other and with the rule."""
import re
from collections import Counter
from pathlib import Path

import numpy as np
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
    on_other_data = rr.loc[rr.index.str.startswith(("kddcup99", "census_house"))]
    assert set(on_other_data["verdict"]) == {"not comparable"}
    # explained by the data difference, citing the config of a run on the data that ran (report/data_difference.py)
    assert on_other_data["cause"].str.contains(r"record: rr/table1/runs/\w+/config\.yaml").all()
    assert rr.loc[rr.index.str.startswith("covtype"), "verdict"].eq("not run: data not obtainable").all()
    qmc = verdicts.load(RESULTS / "qmc" / verdicts.FILE)
    assert (qmc["source"] == "Table 2").sum() >= 24 and (qmc["kind"] == verdicts.CLAIM).sum() >= 28
    li = _cells("li").set_index("cell")
    other = li.loc[li.index.str.startswith("Splice")]  # another dataset: not comparable unless it agrees
    assert set(other["verdict"]) <= {"not comparable", "agrees"} and other["reason"].str.len().gt(0).all()
    # Car and CTG run Table 1's features (make li-features): compared like for like
    assert li.loc[li.index.str.startswith(("Car", "CTG")), "reason"].eq("").all()
    # the linear column runs the paper's one-vs-rest LibLinear (make li-linear-ovr): compared like for like
    linear = li.loc[li.index.str.endswith(" linear") & ~li.index.str.startswith(("Splice", "CTG", "Car"))]
    assert not linear["verdict"].eq("not comparable").any() and len(linear) >= 10


#: A compared cell of a paper's layout in Markdown ends with its verdict: ``ours (published) [difference] verdict``.
LAID_OUT = re.compile(r"\] (agrees|ours better|ours worse|not comparable) ")


@pytest.mark.parametrize("paper", PAPERS, ids=lambda paper: paper.folder)
def test_every_cell_of_every_table_shows_its_verdict_record(paper):
    """Each comparison table's cells, in the order the records are made from them, carry the verdict of
    their row of verdicts.csv; and each table's Markdown lays out those verdicts, no other."""
    folder = RESULTS / paper.folder
    found = verdicts.tables(folder, verdicts.COMPARISON)
    cells = _cells(paper.folder).reset_index(drop=True)
    table = pd.concat(found, ignore_index=True) if found else pd.DataFrame(columns=["verdict"])
    assert len(table) == len(cells)
    for (_, row), (_, record) in zip(table.iterrows(), cells.iterrows()):
        where = f"{paper.folder} {record['source']} {record['cell']}"
        assert (row["source"], row["metric"]) == (record["source"], record["metric"]), where
        assert np.allclose([row["mean"], row["published"]], [record["mean"], record["published"]],
                           equal_nan=True), where
        assert row["verdict"] == verdicts.shown(record), where
    for path in verdicts.report_files(folder, "*.csv"):
        md = path.with_suffix(".md")
        if md.exists() and verdicts.COMPARISON <= set(pd.read_csv(path, nrows=0).columns):
            shown = Counter(v for v in pd.read_csv(path)["verdict"] if LAID_OUT.match(f"] {v} "))
            assert Counter(LAID_OUT.findall(md.read_text())) == shown, md


@pytest.mark.parametrize("paper", PAPERS, ids=lambda paper: paper.folder)
def test_every_explanation_cites_a_record_that_exists(paper):
    records = verdicts.load(RESULTS / paper.folder / verdicts.FILE)
    verdicts.check_citations(records, RESULTS, project.make_targets())
    explained = records[records["cause"].str.startswith(verdicts.EXPLAINED)]
    assert all(any(verdicts.citations(cause)) for cause in explained["cause"])


@pytest.mark.parametrize("paper", PAPERS, ids=lambda paper: paper.folder)
def test_report_gives_the_chance_count_of_the_committed_records(paper):
    md = (RESULTS / project.REPORT).read_text()
    line = next(line for line in md.splitlines() if re.match(rf"\|\s*{paper.folder}\s*\|", line))
    said = verdicts.chance(verdicts.load(RESULTS / paper.folder / verdicts.FILE))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[1:] == [str(said["compared"]), f"{said['expected']:.1f}", str(said["bound"]), str(said["observed"])]
