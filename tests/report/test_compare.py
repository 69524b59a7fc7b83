"""The join of our results to the published values (no verdict: the records give it), and the claims."""
import numpy as np
import pandas as pd
import pytest

from rfbench.report import compare
from rfbench.report.compare import ClaimCheck

KEYS = ["dataset", "method", "s"]


def _published(rows):
    """Published rows as :func:`rfbench.report.published.load` returns them (keys as text)."""
    columns = ["paper", "source", "dataset", "method", "s", "metric", "value", "sd", "unit", "note"]
    return pd.DataFrame([["p", "Table 1", *row, ""] for row in rows], columns=columns)


def _ours(rows):
    return pd.DataFrame(rows, columns=[*KEYS, "metric", "unit", "mean", "sd", "n"])


def test_join_keeps_missing_cells_on_both_sides_and_matches_numeric_keys():
    acc = "test accuracy"
    pub = _published([("a", "m1", "100", acc, 90.0, 1.0, "%"), ("a", "m2", "100", acc, 91.0, 1.0, "%")])
    ours = _ours([("a", "m1", 100.0, acc, "%", 90.5, 0.5, 3),   # the float 100.0 meets the published "100"
                  ("a", "m3", 100.0, acc, "%", 95.0, 0.5, 3)])  # a cell the paper does not have
    table = compare.compare(pub, ours).set_index(["method"])
    assert len(table) == 3 and "verdict" not in table and "threshold" not in table
    assert table.loc["m1", "difference"] == pytest.approx(0.5)
    assert np.isnan(table.loc["m2", "mean"]) and np.isnan(table.loc["m2", "difference"])
    assert np.isnan(table.loc["m3", "published"]) and table.loc["m3", "unit"] == "%"
    assert table.loc["m1", "s"] == "100"


def test_claim_rows_are_not_cells_and_units_must_match():
    pub = _published([("a", "m1", "", "test accuracy", 90.0, 1.0, "%"),
                      ("", "falls", "", "claim", np.nan, np.nan, "")])
    ours = _ours([("a", "m1", "", "test accuracy", "fraction", 0.9, 0.01, 3)])
    with pytest.raises(ValueError, match="published in '%', ours in 'fraction'; summarize ours with the published"):
        compare.compare(pub, ours)
    with pytest.raises(ValueError, match=r"our results lack column\(s\) \['s'\]"):
        compare.compare(pub, ours.drop(columns="s"))
    table = compare.compare(pub, ours.assign(unit="%", mean=90.0))
    assert table["method"].tolist() == ["m1"]


def test_summarize_converts_to_the_published_unit_with_sample_sd():
    trials = pd.DataFrame({"dataset": ["a", "a", "a", "b"], "method": ["m"] * 4, "s": [1, 1, 1, 1],
                           "test_accuracy": [0.90, 0.92, 0.94, 0.80]})
    ours = compare.summarize(trials, KEYS, "test_accuracy", metric="test accuracy", unit="%").set_index("dataset")
    assert ours.loc["a", "mean"] == pytest.approx(92.0) and ours.loc["a", "sd"] == pytest.approx(2.0)
    assert ours.loc["a", "n"] == 3 and ours.loc["a", "unit"] == "%" and ours.loc["a", "metric"] == "test accuracy"
    assert np.isnan(ours.loc["b", "sd"]) and ours.loc["b", "n"] == 1


def test_claims_get_verdicts_from_their_checks():
    pub = _published([("", "falls", "", "claim", np.nan, np.nan, ""), ("", "rises", "", "claim", np.nan, np.nan, ""),
                      ("x", "flat", "", "claim", np.nan, np.nan, "")])
    pub["note"] = ["error falls", "time rises", "flat on x"]
    checks = {"falls": lambda row: compare.all_of({"a": True, "b": True}, "curves"),
              "rises": lambda row: compare.all_of({"a (1 -> 0.5)": False, "b": True}, "curves"),
              "flat": lambda row: ClaimCheck(None, f"{row['dataset']} not run")}
    claims = compare.check_claims(pub, checks)
    assert claims["verdict"].tolist() == ["holds", "fails", "not run"]
    assert claims["evidence"].tolist() == ["2 of 2 curves", "1 of 2 curves; not in: a (1 -> 0.5)", "x not run"]
    assert claims["claim"].tolist() == ["error falls", "time rises", "flat on x"]
    assert compare.all_of({}, "curves") == ClaimCheck(None, "no curves to check")
    with pytest.raises(ValueError, match=r"checks \['flat'\] that the report does not define; defined: \['falls'"):
        compare.check_claims(pub, {k: checks[k] for k in ("falls", "rises")})
