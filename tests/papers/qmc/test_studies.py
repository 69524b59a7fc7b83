"""Issue 45's QMC studies: where a paper value sits on a sweep (log-log crossings)."""
import numpy as np
import pandas as pd
import pytest

from rfbench.papers.qmc import studies


def test_a_crossing_is_log_log_linear_between_adjacent_sweep_points():
    factors, values = np.array([4.0, 1.0, 2.0]), np.array([1e-4, 1e-2, 1e-3])  # v = 1e-2 f^(-log2 10), unsorted
    assert studies.crossings(factors, values, 10**-2.5) == [pytest.approx(2**0.5, rel=1e-12)]
    assert studies.crossings(factors, values, 1e-3) == [pytest.approx(2.0)]
    assert studies.crossings(factors, values, 1e-5) == [] and studies.crossings(factors, values, 1.0) == []


def test_a_curve_that_turns_crosses_twice():
    found = studies.crossings(np.array([1.0, 2.0, 4.0]), np.array([1.0, 0.01, 1.0]), 0.1)
    assert found == [pytest.approx(2**0.5), pytest.approx(2**1.5)]


def test_table3s_sigma_study_runs_only_at_the_ends_and_inside_of_the_halton_band():
    studies.check_band([2.076, 2.377, 2.677], 2.0764, 2.6771)  # the band as its record prints it
    with pytest.raises(ValueError, match=r"not the ends and inside of the band 2\.076-2\.677"):
        studies.check_band([2.0, 2.5, 3.0], 2.0764, 2.6771)  # the sweep's own factors
    with pytest.raises(ValueError, match="rerun the study"):
        studies.check_band([2.076, 2.377, 2.677, 3.0], 2.0764, 2.6771)  # one outside the band


def test_a_cells_range_over_the_band_is_widened_by_twice_its_measured_spread():
    assert studies.widened(np.array([0.031, 0.035, 0.033]), 0.001) == (pytest.approx(0.029), pytest.approx(0.037))
    low, high = studies.widened(np.array([0.031]), float("nan"))
    assert np.isnan(low) and np.isnan(high)  # no measured spread: its range holds no value


def test_the_near_optimal_lambdas_are_those_within_one_standard_error_of_the_least_summed_cv_error():
    # two maps, three folds, s = 100: per-fold summed errors at 0.01 are 0.10, 0.12, 0.14 (mean 0.12, se 0.01155)
    per_fold = {0.001: [0.13, 0.13, 0.13], 0.01: [0.10, 0.12, 0.14], 0.1: [0.135, 0.135, 0.135]}
    folds = pd.DataFrame([{"s": 100, "lam": lam, "fold": k, "method": m, "cv_error": total / 2}
                          for lam, totals in per_fold.items() for k, total in enumerate(totals) for m in ("a", "b")])
    sets = studies.near_optimal(folds).set_index("lam")
    se = np.std([0.10, 0.12, 0.14], ddof=1) / np.sqrt(3)
    assert sets.loc[0.01, "summed_cv"] == pytest.approx(0.12) and sets["se"].iloc[0] == pytest.approx(se)
    assert sets["least_lam"].iloc[0] == 0.01
    assert sets["near_optimal"].to_dict() == {0.001: True, 0.01: True, 0.1: False}  # 0.13 <= 0.1315 < 0.135


def _arms(source: str, method: str, s: int, **values: float) -> pd.DataFrame:
    return pd.DataFrame([{"source": source, "method": method, "s": s, "arm": arm, "value": v}
                         for arm, v in values.items()])


def test_an_arm_is_named_by_its_scaling_and_its_cg_iterations_where_they_are_not_ours():
    assert studies.arm_name("none", 100) == "none" and studies.arm_name("minmax", 3000) == "minmax_cg3000"


def test_a_table2_arm_explains_when_it_closes_half_of_the_gap_on_the_log_scale():
    paper = pd.DataFrame({"method": ["global_b4", "weighted_b"], "s": [100, 100], "value": [1e-8, 1e-4]})
    arms = pd.concat([_arms("Table 2", "global_b4", 100, minmax=1e-4, none=9e-7, standard=2e-4),  # gap 4, 1.95 dec.
                      _arms("Table 2", "weighted_b", 100, minmax=1e-2, none=2e-3, minmax_cg3000=5e-3)])
    table = studies.scaling_explained(arms, paper, "Table 2", None).set_index("method")
    assert table.loc["global_b4", "closing"] == "none" and table.loc["global_b4", "explained"]
    # 2e-3 is 1.3 decades from 1e-4, more than half of ours' 2: linearly it would close half of the gap, not here
    assert pd.isna(table.loc["weighted_b", "closing"]) and not table.loc["weighted_b", "explained"]
    assert not table["in_range"].any() and table.loc["weighted_b", "minmax_cg3000"] == 5e-3


def test_a_table3_cell_is_explained_by_the_arms_range_widened_by_its_measured_spread():
    paper = pd.DataFrame({"method": ["halton", "halton", "greedy_b"], "s": [500, 100, 100],
                          "value": [0.0348, 0.0300, 0.0290]})
    arms = pd.concat([_arms("Table 3", "halton", 500, minmax=0.0304, none=0.0480, standard=0.0400),
                      _arms("Table 3", "halton", 100, minmax=0.0347, none=0.0430, standard=0.0640),
                      _arms("Table 3", "greedy_b", 100, minmax=0.0340, none=0.0420, standard=0.0610)])
    spread = pd.Series({("halton", 100): 0.0001, ("greedy_b", 100): 0.0030})
    table = studies.scaling_explained(arms, paper, "Table 3", spread).set_index(["method", "s"])
    assert table.loc[("halton", 500), "in_range"] and pd.isna(table.loc[("halton", 500), "closing"])
    assert not table.loc[("halton", 100), "explained"]  # every arm above the paper's value, by more than 2 sd
    assert table.loc[("greedy_b", 100), "explained"] and table.loc[("greedy_b", 100), "low"] == pytest.approx(0.028)


def test_a_cell_the_study_does_not_run_is_left_out():
    paper = pd.DataFrame({"method": ["halton"], "s": [300], "value": [0.0303]})
    assert studies.scaling_explained(_arms("Table 3", "halton", 300, minmax=0.0307), paper, "Table 3", None).empty
