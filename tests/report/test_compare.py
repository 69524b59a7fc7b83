"""The join of our results to the published values, the verdict rule, and the claims."""
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


def _verdicts(table):
    return dict(zip(zip(table["dataset"], table["method"]), zip(table["verdict"], table["threshold"])))


def test_the_verdict_rule_on_numbers_with_known_answers():
    acc, err = "test accuracy", "relative error"
    pub = _published([
        ("a", "m1", "", acc, 90.0, 1.0, "%"),    # threshold 2 sqrt(1^2/4 + 1^2) = 2.2361
        ("b", "m1", "", acc, 90.0, 1.0, "%"),
        ("c", "m1", "", acc, 90.0, 1.0, "%"),
        ("d", "m1", "", err, 0.0500, np.nan, "fraction"),  # no sd: tolerance 0.002 + 2 * 0.001 / 2 = 0.003
        ("e", "m1", "", err, 0.0500, np.nan, "fraction"),
        ("f", "m1", "", err, 0.0500, np.nan, "fraction"),
        ("g", "m1", "", acc, 80.0, np.nan, "%"),  # no sd, one trial: tolerance 0.5 alone
    ])
    ours = _ours([
        ("a", "m1", "", acc, "%", 92.2, 1.0, 4),        # +2.2 <= 2.2361: agrees
        ("b", "m1", "", acc, "%", 92.3, 1.0, 4),        # +2.3: higher accuracy, ours better
        ("c", "m1", "", acc, "%", 87.7, 1.0, 4),        # -2.3: ours worse
        ("d", "m1", "", err, "fraction", 0.0529, 0.001, 4),  # +0.0029 <= 0.003: agrees
        ("e", "m1", "", err, "fraction", 0.0531, 0.001, 4),  # +0.0031: higher error, ours worse
        ("f", "m1", "", err, "fraction", 0.0469, 0.001, 4),  # -0.0031: ours better
        ("g", "m1", "", acc, "%", 79.4, np.nan, 1),     # -0.6 > 0.5: ours worse
    ])
    found = _verdicts(compare.compare(pub, ours))
    assert {k: v for k, (v, _) in found.items()} == {
        ("a", "m1"): "agrees", ("b", "m1"): "ours better", ("c", "m1"): "ours worse", ("d", "m1"): "agrees",
        ("e", "m1"): "ours worse", ("f", "m1"): "ours better", ("g", "m1"): "ours worse"}
    assert found[("a", "m1")][1] == pytest.approx(2 * np.sqrt(1.25))
    assert found[("d", "m1")][1] == pytest.approx(0.003)
    assert found[("g", "m1")][1] == pytest.approx(0.5)


def test_join_keeps_missing_cells_on_both_sides_and_matches_numeric_keys():
    acc = "test accuracy"
    pub = _published([("a", "m1", "100", acc, 90.0, 1.0, "%"), ("a", "m2", "100", acc, 91.0, 1.0, "%")])
    ours = _ours([("a", "m1", 100.0, acc, "%", 90.5, 0.5, 3),   # the float 100.0 meets the published "100"
                  ("a", "m3", 100.0, acc, "%", 95.0, 0.5, 3)])  # a cell the paper does not have
    table = compare.compare(pub, ours).set_index(["method"])
    assert len(table) == 3
    assert table.loc["m1", "verdict"] == "agrees" and table.loc["m1", "difference"] == pytest.approx(0.5)
    assert table.loc["m2", "verdict"] == "not run" and np.isnan(table.loc["m2", "mean"])
    assert table.loc["m3", "verdict"] == "no published value" and table.loc["m3", "unit"] == "%"
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


def test_verdict_counts_follow_the_verdict_order():
    table = pd.DataFrame({"verdict": ["not run", "agrees", "ours worse", "agrees"]})
    counts = compare.verdict_counts(table)
    assert counts.to_dict("list") == {"verdict": ["agrees", "ours worse", "not run"], "count": [2, 1, 1]}
