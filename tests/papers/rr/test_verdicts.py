"""Rahimi and Recht's verdict rules: the substitute and the duplicated test set are not comparable."""
import pandas as pd

from rfbench.papers.rr import verdicts
from rfbench.report.verdicts import UNEXPLAINED


def test_kddcup99_and_census_house_are_not_comparable_and_covtype_not_obtainable():
    rules = verdicts.rules()
    row = {"method": "Fourier+LS", "size": "D = 50"}
    kdd, census, cpu = (pd.Series({**row, "dataset": d}) for d in ("kddcup99", "census_house", "cpu_act"))
    # the duplicate count was taken outside the records: no explanation until a committed run shows it
    assert "'corrected' test set" in rules.not_comparable(kdd) and rules.cause(kdd) == UNEXPLAINED
    assert rules.n_test(pd.Series({**row, "dataset": "a9a"})) == 16281 and rules.n_test(kdd) is None
    assert "stands in for the paper's 119-dimensional Census" in rules.not_comparable(census)
    assert rules.cause(census) == UNEXPLAINED and rules.not_comparable(cpu) is None
    assert "mirror" in rules.not_obtainable(pd.Series({**row, "dataset": "covtype"}))
    assert rules.label(kdd) == "kddcup99 Fourier+LS D = 50"
