"""QMC's verdict rules: the split-seed sweep as the spread and the cause of one-run cpu cells."""
import pandas as pd
import pytest

from rfbench.papers.qmc import verdicts
from rfbench.report.verdicts import EXPLAINED, UNEXPLAINED, Spread


def _row(dataset: str, mean: float, metric: str = "relative error") -> pd.Series:
    return pd.Series({"source": "Table 3", "dataset": dataset, "method": "halton", "s": 100, "metric": metric,
                      "mean": mean, "published": 0.030})


def test_the_split_seed_sweep_is_every_cpu_cells_partition_term_and_explains_only_gaps_it_reaches(tmp_path):
    (tmp_path / "table1").mkdir()
    means = [0.029, 0.030, 0.031, 0.032]  # ours is seed 0: the other partitions move a cell up by 0.001 .. 0.003
    pd.DataFrame({"split_seed": range(4), "mean": means}).to_csv(tmp_path / "table1" / "splits.csv", index=False)
    rules = verdicts.rules(tmp_path)
    for source in ("Table 1", "Table 3"):
        spread = rules.partition(source, "cpu")
        assert spread.sd == pytest.approx(pd.Series(means).std()) and "4 cpu partitions" in spread.name
        assert spread.record == "qmc/table1/splits.csv"
    assert rules.partition("Table 1", "census") is None  # the sweep is cpu's
    assert rules.partition("Table 2", "cpu") is None  # of relative error, not of the box discrepancy
    assert rules.cause(_row("cpu", 0.0285)).startswith(EXPLAINED)  # 0.0285 + 0.0015 reaches the paper's 0.030
    assert "record: qmc/table1/splits.csv" in rules.cause(_row("cpu", 0.0285))
    assert rules.cause(_row("cpu", 0.0305)) == UNEXPLAINED  # above the paper's: no partition moves it down
    assert rules.cause(_row("cpu", 0.0265)) == UNEXPLAINED  # the sweep's range never reaches the paper's value
    measured = Spread(0.0004, "scramble seeds", "qmc/table3/spread.csv")
    assert verdicts.rules(tmp_path, spreads=lambda row: measured).spread(_row("cpu", 0.03)) is measured
    assert "house_16h" in rules.not_comparable(_row("census", 0.5))
    assert rules.not_comparable(_row("cpu", 0.03)) is None
