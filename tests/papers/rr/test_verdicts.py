"""Rahimi and Recht's verdict rules: the substitute and the duplicated test set are not comparable, and
explained by their data difference; cpu_act's gaps by the intercept study when it closes half of one."""
import pandas as pd
import yaml

from rfbench.papers.rr import verdicts
from rfbench.report.verdicts import EXPLAINED, UNEXPLAINED, citations


def _config(folder, run_id, dataset, feature_map):
    path = folder / "table1" / "runs" / run_id / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(yaml.safe_dump({"dataset": {"name": dataset}, "feature_map": {"name": feature_map}}))


def test_kddcup99_and_census_house_are_not_comparable_and_covtype_not_obtainable(tmp_path):
    rules = verdicts.rules(tmp_path / "rr")
    row = {"method": "Fourier+LS", "size": "D = 50", "mean": 3.3, "published": 3.6}
    kdd, census, cpu = (pd.Series({**row, "dataset": d}) for d in ("kddcup99", "census_house", "cpu_act"))
    # no run on their data: nothing shows which data ran, so no explanation
    assert "'corrected' test set" in rules.not_comparable(kdd) and rules.cause(kdd) == UNEXPLAINED
    assert rules.n_test(pd.Series({**row, "dataset": "a9a"})) == 16281 and rules.n_test(kdd) is None
    assert "stands in for the paper's 119-dimensional Census" in rules.not_comparable(census)
    assert rules.cause(census) == UNEXPLAINED and rules.not_comparable(cpu) is None
    assert rules.cause(cpu) == UNEXPLAINED  # no intercept study yet
    assert "mirror" in rules.not_obtainable(pd.Series({**row, "dataset": "covtype"}))
    assert rules.label(kdd) == "kddcup99 Fourier+LS D = 50"


def test_a_cell_on_other_data_cites_the_config_of_its_own_feature_maps_run(tmp_path):
    folder = tmp_path / "rr"
    _config(folder, "r1", "census_house", "binning")
    _config(folder, "r2", "census_house", "rff")
    rules = verdicts.rules(folder)
    fourier = rules.cause(pd.Series({"dataset": "census_house", "method": "Fourier+LS"}))
    binning = rules.cause(pd.Series({"dataset": "census_house", "method": "Binning+LS"}))
    assert fourier.startswith(EXPLAINED) and citations(fourier)[0] == ["rr/table1/runs/r2/config.yaml"]
    assert citations(binning)[0] == ["rr/table1/runs/r1/config.yaml"]


def test_the_intercept_study_explains_a_gap_it_closes_at_least_half_of(tmp_path):
    folder = tmp_path / "rr"
    (folder / "table1").mkdir(parents=True)
    pd.DataFrame({"dataset": ["cpu_act", "cpu_act"], "method": ["Fourier+LS", "Binning+LS"],
                  "without intercept": [3.5, 3.0], "run without": ["f1", "b1"]}).to_csv(
        folder / "table1" / "intercept.csv", index=False)
    rules = verdicts.rules(folder)
    # Fourier: gap 3.3 - 3.6 = -0.3, the arm's 3.5 - 3.6 = -0.1: closes more than half
    fourier = rules.cause(pd.Series({"dataset": "cpu_act", "method": "Fourier+LS", "mean": 3.3, "published": 3.6}))
    assert fourier.startswith(EXPLAINED) and "make rr-cpu-act-intercept" in fourier
    assert citations(fourier)[0] == ["rr/table1_nointercept/runs/f1", "rr/table1/intercept.csv"]
    # Binning: gap 2.8 - 5.3 = -2.5, the arm's 3.0 - 5.3 = -2.3: not half
    binning = pd.Series({"dataset": "cpu_act", "method": "Binning+LS", "mean": 2.8, "published": 5.3})
    assert rules.cause(binning) == UNEXPLAINED
