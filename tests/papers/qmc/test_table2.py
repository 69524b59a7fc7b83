"""Table 2 rows of the QMC report: each adaptive sequence's discrepancy against Halton's."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from rfbench.papers.qmc import table2 as qmc_table2
from rfbench.qmc.adaptive import halton_frequencies
from rfbench.qmc.discrepancy import BoxDiscrepancy


def test_table2_row_records_each_sequence_normalized_and_raw(tmp_path, monkeypatch):
    monkeypatch.setattr(qmc_table2, "GLOBAL_MAXITER", 5)
    X = np.random.default_rng(0).random((40, 2))
    path = tmp_path / "s8.csv"
    qmc_table2.table2_row(path, X, 0.8, 8)
    table = pd.read_csv(path).set_index(["box", "method"])
    assert len(table) == 8
    for box, fraction in qmc_table2.BOXES.items():
        b = fraction * (X.max(axis=0) - X.min(axis=0))
        halton = BoxDiscrepancy(b, 0.8, normalized=True).squared(halton_frequencies(8, 2, 0.8))
        assert table.loc[(box, "halton"), "normalized"] == pytest.approx(halton, rel=1e-12)
        for method in ("global", "weighted"):  # both start from the Halton points
            assert table.loc[(box, method), "normalized"] <= halton
        assert np.isfinite(table.loc[(box, "greedy"), "normalized"])
        # normalized = pi^d / prod(b) * raw
        ratio = table.loc[(box, "halton"), "normalized"] / table.loc[(box, "halton"), "raw"]
        assert ratio == pytest.approx(np.pi**2 / np.prod(b), rel=1e-10)


def test_census_rows_take_table3s_sequences_and_compute_haltons_on_both_boxes(tmp_path, monkeypatch):
    X = np.random.default_rng(3).random((40, 2))
    monkeypatch.setattr(qmc_table2.qmc, "load", lambda name, mirror=None: SimpleNamespace(X_train=X))
    assert qmc_table2.census_rows(tmp_path).empty
    folder = tmp_path / "table3" / qmc_table2.SUBSTITUTE
    folder.mkdir(parents=True)
    methods = ["halton", "global_b", "global_b4", "greedy_b", "greedy_b4", "weighted_b", "weighted_b4"]
    pd.DataFrame({"method": methods, "s": 8, "discrepancy": np.arange(7.0), "sigma": 0.8}).to_csv(
        folder / "s8.csv", index=False)
    rows = qmc_table2.census_rows(tmp_path).set_index(["box", "method"])["normalized"]
    assert len(rows) == 8
    assert rows[("b/4", "global")] == 2.0 and rows[("b", "weighted")] == 5.0
    b = X.max(axis=0) - X.min(axis=0)
    for box, fraction in qmc_table2.BOXES.items():
        expected = BoxDiscrepancy(fraction * b, 0.8, normalized=True).squared(halton_frequencies(8, 2, 0.8))
        assert rows[(box, "halton")] == pytest.approx(expected, rel=1e-12)


def test_against_paper_pairs_each_cell_with_the_published_one():
    table = pd.DataFrame({"s": [100, 100], "box": ["b", "b/4"], "method": ["halton", "global"],
                          "normalized": [6.82e-3, 1.114e-7]})
    side = qmc_table2.against_paper(table, "cpu").set_index(["s", "method"])
    assert side.loc[("100", "halton_b"), "ratio"] == "2"  # the paper's 3.41e-3
    assert side.loc[("100", "global_b4"), "ratio"] == "2"  # the paper's 5.57e-8
    assert side.loc[("100", "halton_b"), "verdict"] == "ours worse"
    assert side.loc[("300", "halton_b"), "ours"] == "not run"
    assert "verdict" not in qmc_table2.against_paper(table, "cpu", verdicts=False)


def test_why_they_differ_quotes_the_ratios_it_is_given():
    table = pd.DataFrame({"s": [100, 300], "box": ["b", "b"], "method": ["halton", "halton"],
                          "normalized": [0.009, 0.003], "expected_mc": [0.010, 0.004]})
    side = pd.DataFrame({"method": ["halton_b", "halton_b", "global_b"], "ratio": ["2.8", "8.7", "1.67e+04"]})
    text = qmc_table2._why_they_differ(table, side)
    assert "0.75-0.90 x MC's expectation" in text
    assert "Halton cells are 2.8-8.7 x below ours, its adaptive ones 1.67e+04-1.67e+04 x" in text
