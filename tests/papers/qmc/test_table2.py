"""Table 2 rows of the QMC report: each adaptive sequence's discrepancy against Halton's."""
from __future__ import annotations

import pandas as pd

from rfbench.papers.qmc import table2 as qmc_table2
from tests.papers.qmc.conftest import record


def test_census_rows_are_the_substitutes_learnt_discrepancies_in_table3s_order(tmp_path):
    assert qmc_table2.census_rows(tmp_path).empty
    rows = pd.DataFrame([{"s": 8, "box": box, "method": method, "normalized": float(i), "raw": 0.0}
                         for i, (box, method) in enumerate((b, m) for b in ("b", "b/4") for m in qmc_table2.METHODS)])
    record(tmp_path / "learnt" / "runs" / "r1", {"discrepancy": rows}, **{"dataset.name": qmc_table2.SUBSTITUTE})
    census = qmc_table2.census_rows(tmp_path)
    assert list(census.columns) == ["s", "box", "method", "normalized"]
    assert census[["box", "method"]].values.tolist() == [
        ["b", "halton"], ["b/4", "halton"], ["b", "global"], ["b/4", "global"], ["b", "greedy"], ["b/4", "greedy"],
        ["b", "weighted"], ["b/4", "weighted"]]
    assert census.set_index(["box", "method"]).loc[("b/4", "greedy"), "normalized"] == 6.0


def test_against_paper_pairs_each_cell_with_the_published_one(tmp_path):
    table = pd.DataFrame({"s": [100, 100], "box": ["b", "b/4"], "method": ["halton", "global"],
                          "normalized": [6.82e-3, 1.114e-7]})
    side = qmc_table2.against_paper(table, "cpu", tmp_path).set_index(["s", "method"])
    assert side.loc[("100", "halton_b"), "ratio"] == "2"  # the paper's 3.41e-3
    assert side.loc[("100", "global_b4"), "ratio"] == "2"  # the paper's 5.57e-8
    assert side.loc[("100", "halton_b"), "verdict"] == "ours worse"
    assert side.loc[("300", "halton_b"), "ours"] == "not run"
    assert side.loc[("300", "halton_b"), "verdict"] == "not run: not yet"  # the verdict record's word
    assert "verdict" not in qmc_table2.against_paper(table, "cpu", tmp_path, verdicts=False)


def test_why_they_differ_quotes_the_ratios_it_is_given():
    table = pd.DataFrame({"s": [100, 300], "box": ["b", "b"], "method": ["halton", "halton"],
                          "normalized": [0.009, 0.003], "expected_mc": [0.010, 0.004]})
    side = pd.DataFrame({"method": ["halton_b", "halton_b", "global_b"], "ratio": ["2.8", "8.7", "1.67e+04"]})
    text = qmc_table2._why_they_differ(table, side)
    assert "0.75-0.90 x MC's expectation" in text
    assert "Halton cells are 2.8-8.7 x below ours, its adaptive ones 1.67e+04-1.67e+04 x" in text
