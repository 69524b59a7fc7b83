"""AsK-RFF's verdict rules: cod_rna's other test set, and the measurements that explain Table 1's gaps."""
import pandas as pd

from rfbench.papers.askrff import verdicts
from rfbench.report.verdicts import EXPLAINED, UNEXPLAINED


def _row(dataset: str, method: str, approximation: str, mean: float, published: float) -> pd.Series:
    return pd.Series({"dataset": dataset, "method": method, "approximation": approximation, "mean": mean,
                      "published": published})


def test_cod_rna_is_not_comparable_and_its_shift_is_measured_by_the_deterministic_linear_cell():
    table = pd.DataFrame([_row("cod_rna", "linear", "Linear", 89.59, 91.62)])
    rules = verdicts.rules(table)
    cell = _row("cod_rna", "gaussian", "RBF", 94.4, 95.8)
    assert "cod-rna.t" in rules.not_comparable(cell)
    assert rules.cause(cell) == EXPLAINED + ("the test set: a shift shared by every method, the deterministic Linear "
                                             "included (record: askrff/table1/table1.csv, rows cod_rna)")
    # without the Linear cell there is no measurement
    assert verdicts.rules(table.iloc[:0]).cause(cell) == UNEXPLAINED


def test_a_cause_only_probed_or_shown_among_our_runs_is_unexplained():
    rules = verdicts.rules(pd.DataFrame(columns=["dataset", "method", "mean", "published"]))
    assert rules.cause(_row("spambase", "gaussian", "RBF", 93.2, 92.5)) == UNEXPLAINED  # split seeds: a probe
    assert rules.cause(_row("ijcnn1", "sinh_gaussian", "Asy", 95.4, 93.7)) == UNEXPLAINED  # equal width: ours only
    assert rules.cause(_row("ijcnn1", "linear", "Linear", 91.8, 91.0)) == UNEXPLAINED
    assert rules.cause(_row("letter", "linear", "Linear", 68.6, 72.5)) == UNEXPLAINED  # multi-class: a probe
    assert rules.cause(_row("letter", "gaussian", "RBF", 79.7, 77.5)) == UNEXPLAINED
    assert rules.not_comparable(_row("letter", "gaussian", "RBF", 79.7, 77.5)) is None
