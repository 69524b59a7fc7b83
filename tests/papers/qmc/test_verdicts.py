"""QMC's verdict rules: the split-seed sweep as the spread and the cause of one-run cpu cells."""
import pandas as pd
import pytest

from rfbench.papers.qmc import verdicts
from rfbench.report.verdicts import EXPLAINED, UNEXPLAINED


def _row(dataset: str, mean: float, metric: str = "relative error") -> pd.Series:
    return pd.Series({"source": "Table 3", "dataset": dataset, "method": "halton", "s": 100, "metric": metric,
                      "mean": mean, "published": 0.030})


def test_the_split_seed_sweep_gives_one_run_cpu_cells_their_spread_and_explains_gaps_within_its_range(tmp_path):
    (tmp_path / "table1").mkdir()
    means = [0.029, 0.030, 0.031, 0.032]
    pd.DataFrame({"split_seed": range(4), "mean": means}).to_csv(tmp_path / "table1" / "splits.csv", index=False)
    rules = verdicts.rules(tmp_path)
    spread = rules.spread(_row("cpu", 0.031))
    assert spread.sd == pytest.approx(pd.Series(means).std()) and "4 cpu partitions" in spread.name
    assert rules.spread(_row("census", 0.5)) is None  # the sweep is cpu's
    assert rules.spread(_row("cpu", 0.003, "box discrepancy")) is None
    assert rules.cause(_row("cpu", 0.0325)).startswith(EXPLAINED)  # gap 0.0025 <= range 0.003
    assert rules.cause(_row("cpu", 0.0335)) == UNEXPLAINED
    assert "house_16h" in rules.not_comparable(_row("census", 0.5))
    assert rules.not_comparable(_row("cpu", 0.03)) is None
