"""Table 2 rows of the QMC report: each adaptive sequence's discrepancy against Halton's."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rfbench.qmc.adaptive import halton_frequencies
from rfbench.qmc.discrepancy import BoxDiscrepancy
from rfbench.reports import qmc_table2


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
