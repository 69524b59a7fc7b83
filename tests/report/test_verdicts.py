"""The verdict record: its schema, the uncertainty rule, the categories and the counts."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rfbench.report import compare, verdicts
from rfbench.report.verdicts import EXPLAINED, UNEXPLAINED, Cause, Rules, Spread


@pytest.mark.parametrize(("text", "half"), [("92.69", 0.005), ("3.41e-3", 5e-6), ("15", 0.5), ("7.5", 0.05),
                                            ("0.0367", 5e-5), ("1.29E-06", 5e-9), (".5", 0.05)])
def test_half_a_unit_of_the_last_printed_digit(text, half):
    assert verdicts.half_unit(text) == pytest.approx(half)


def test_half_unit_refuses_what_is_not_a_number():
    with pytest.raises(ValueError, match="'n/a' is not a printed number"):
        verdicts.half_unit("n/a")


def test_every_published_number_of_every_paper_has_its_printed_resolution():
    for paper in ("askrff", "qmc", "li", "rr"):
        table = verdicts.printed_resolution(paper)
        assert len(table) and (table["half_unit"] > 0).all()


def _cell(**values) -> pd.Series:
    row = {"source": "Table 1", "dataset": "d", "method": "m", "metric": "test accuracy", "unit": "%", "mean": 90.0,
           "sd": np.nan, "n": 1, "published": 90.0, "published_sd": np.nan, "note": ""}
    return pd.Series({**row, **values})


def test_the_uncertainty_rule_branch_by_branch():
    plain = Rules(label=lambda row: "c")
    # n >= 2: the standard error over trials
    assert verdicts.ours_uncertainty(_cell(sd=0.4, n=4), plain) == (pytest.approx(0.2), "sd / sqrt(4)")
    # one run of an accuracy: the binomial standard error over the test rows, in the cell's unit (%)
    binomial = Rules(label=lambda row: "c", n_test=lambda row: 400)
    u, rule = verdicts.ours_uncertainty(_cell(mean=90.0), binomial)
    assert u == pytest.approx(100 * np.sqrt(0.9 * 0.1 / 400)) and rule == "binomial, n_test = 400"


def test_a_deterministic_one_run_cell_gets_the_stated_tolerance_and_a_measured_spread_wins():
    error = _cell(metric="relative error", unit="fraction", mean=0.03, published=0.0367)
    u, rule = verdicts.ours_uncertainty(error, Rules(label=lambda row: "c"))
    assert u == pytest.approx(verdicts.RELATIVE_TOLERANCE * 0.0367) and u > 0 and "deterministic" in rule
    measured = Spread(0.001, "scramble seeds", "qmc/table2/spread.csv")
    u, rule = verdicts.ours_uncertainty(error, Rules(label=lambda row: "c", spread=lambda row: measured))
    assert u == 0.001 and rule == "scramble seeds (record: qmc/table2/spread.csv)"


def test_the_partition_spread_is_added_to_every_cell_of_its_table_alike():
    rules = Rules(label=lambda row: "c", n_test=lambda row: 400,
                  partition=lambda source, dataset: Spread(0.3, "split seeds", "p/s.csv") if dataset == "d" else None)
    for cell, alone in ((_cell(sd=0.4, n=4), 0.2), (_cell(mean=90.0), 100 * np.sqrt(0.9 * 0.1 / 400))):
        u, rule = verdicts.ours_uncertainty(cell, rules)
        assert u == pytest.approx(np.hypot(alone, 0.3)) and rule.endswith("partition: split seeds (record: p/s.csv)")
        assert verdicts.ours_uncertainty(cell.replace({"d": "other"}), rules)[0] == pytest.approx(alone)


def test_the_binomial_term_has_a_continuity_floor_at_a_perfect_score():
    assert verdicts.binomial_se(1.0, 200) == pytest.approx(np.sqrt(0.0025 * 0.9975 / 200))
    assert verdicts.binomial_se(0.0, 200) == pytest.approx(verdicts.binomial_se(1.0, 200))
    assert verdicts.binomial_se(0.9, 200) == pytest.approx(np.sqrt(0.09 / 200))  # inside the clip: unchanged
    u, _ = verdicts.ours_uncertainty(_cell(mean=100.0), Rules(label=lambda row: "c", n_test=lambda row: 200))
    assert u == pytest.approx(100 * verdicts.binomial_se(1.0, 200))


def test_a_published_sd_is_over_the_papers_cited_trials():
    row = _cell(published=92.689, published_sd=0.207)
    u = verdicts.published_uncertainty(row, Rules(label=lambda row: "c"), 0.0005, {"Table 1": 10})
    assert u == pytest.approx(np.hypot(0.207 / np.sqrt(10), 0.0005 / np.sqrt(3)))
    with pytest.raises(ValueError, match="no number of trials cited"):
        verdicts.published_uncertainty(row, Rules(label=lambda row: "c"), 0.0005, {})


def test_a_printed_value_has_its_rounding_as_a_uniform_term_and_a_one_run_accuracy_its_binomial_one():
    error = _cell(metric="relative error", unit="%", published=7.5)
    assert verdicts.published_uncertainty(error, Rules(label=lambda row: "c"), 0.05, {}) == \
        pytest.approx(0.05 / np.sqrt(3))
    accuracy = _cell(published=100.0)  # the paper's one-run perfect score: binomial with its floor, and rounding
    u = verdicts.published_uncertainty(accuracy, Rules(label=lambda row: "c", n_test=lambda row: 200), 0.05, {})
    assert u == pytest.approx(np.hypot(100 * verdicts.binomial_se(1.0, 200), 0.05 / np.sqrt(3)))


def test_judge_agrees_at_the_threshold_itself_and_not_beyond():
    verdict, threshold = verdicts.judge(0.5, 0.3, 0.4, higher_is_better=True)
    assert (verdict, threshold) == ("agrees", 1.0)
    assert verdicts.judge(1.0, 0.3, 0.4, True)[0] == "agrees"  # |d| == K sqrt(0.3^2 + 0.4^2) exactly: <=, not <
    assert verdicts.judge(-1.0, 0.3, 0.4, True)[0] == "agrees"
    assert verdicts.judge(np.nextafter(1.0, 2.0), 0.3, 0.4, True)[0] == "higher"
    assert verdicts.judge(-1.01, 0.3, 0.4, True)[0] == "lower"
    for u_ours, u_pub in ((0.0, 5e-9), (1.3, 0.005), (0.1, 2.0)):
        assert verdicts.judge(0.0, u_ours, u_pub, True)[1] >= max(u_ours, u_pub)


def test_agrees_is_decided_before_not_comparable():
    rules = Rules(label=lambda row: "c", n_test=lambda row: 400, not_comparable=lambda row: "another dataset",
                  cause=lambda row: UNEXPLAINED)
    # Li's Splice gmm as printed (95.22), against two of ours: one within the threshold, one far
    near, far = (_cell(dataset="Splice", method="gmm", published=95.22, mean=m) for m in (95.5, 80.0))
    records = verdicts.cell_records(pd.DataFrame([near, far]).assign(difference=np.nan, threshold=np.nan,
                                                                     verdict=""), "li", rules)
    assert records[["verdict", "reason", "cause"]].values.tolist() == [
        ["agrees", "another dataset", ""], ["not comparable", "another dataset", UNEXPLAINED]]


def _table() -> pd.DataFrame:
    """A comparison table as compare.compare writes it: four cells of askrff's published file (its values: a
    table that disagrees with the file is refused as stale), one not run."""
    pub = pd.DataFrame({"paper": "askrff", "source": "Table 1",
                        "dataset": ["spambase", "ijcnn1", "letter", "cod_rna"],
                        "method": "linear", "approximation": "Linear", "metric": "test accuracy",
                        "value": [90.261, 91.011, 72.541, 91.618], "sd": [0.120, 0.048, 0.029, 0.002], "unit": "%",
                        "note": ""})
    ours = pd.DataFrame({"dataset": ["spambase", "letter", "cod_rna"], "method": "linear", "approximation": "Linear",
                         "metric": "test accuracy", "unit": "%", "mean": [90.27, 68.64, 89.59], "sd": [0.1, 0.1, 0.1],
                         "n": [10, 10, 10]})
    table = compare.compare(pub.iloc[[0, 2, 3]], ours)
    extra = compare.compare(pub.iloc[[1]], ours.iloc[:0])
    return pd.concat([table, extra], ignore_index=True)


def _rules() -> Rules:
    return Rules(label=lambda row: f"{row['dataset']} {row['method']}",
                 not_comparable=lambda row: "other test set" if row["dataset"] == "cod_rna" else None,
                 not_obtainable=lambda row: None, not_yet=lambda row: "make it",
                 cause=lambda row: MULTICLASS if row["dataset"] == "letter" else UNEXPLAINED)


#: An explained cause with the numbers it read from its record (validated: an explanation carries them).
MULTICLASS = Cause(EXPLAINED + "the multi-class study (record: askrff/table1/multiclass.csv)",
                   "askrff/table1/multiclass.csv (dataset letter): one-vs-rest = 72.5")


def test_cells_get_their_category_reason_and_cause():
    records = verdicts.cell_records(_table(), "askrff", _rules()).set_index("cell")
    spam = records.loc["spambase linear"]
    # published 90.261 ± 0.120 over Table 1's 10 trials, with half a unit of its last digit as uniform;
    # ours 0.1 / sqrt(10)
    assert spam["u_published"] == pytest.approx(np.hypot(0.120 / np.sqrt(10), 0.0005 / np.sqrt(3)))
    assert spam["u_ours"] == pytest.approx(0.1 / np.sqrt(10))
    # published 72.541 ± 0.029 over Table 1's 10 trials (askrff's published.csv cites them)
    assert records.loc["letter linear", "u_published"] == pytest.approx(np.hypot(0.029 / np.sqrt(10),
                                                                                 0.0005 / np.sqrt(3)))
    assert spam["verdict"] == "agrees" and spam["cause"] == ""
    letter = records.loc["letter linear"]
    assert (letter["verdict"], letter["better"]) == ("lower", "no")
    assert letter["cause"] == MULTICLASS and letter["evidence"] == ""  # no results folder: its numbers not read
    letter = verdicts.cell_records(_table(), "askrff", _rules(), Path("unused")).set_index("cell").loc["letter linear"]
    assert (letter["cause"], letter["evidence"]) == (MULTICLASS, MULTICLASS.evidence)
    records.loc["letter linear", "evidence"] = letter["evidence"]
    cod = records.loc["cod_rna linear"]
    assert (cod["verdict"], cod["reason"], cod["cause"]) == ("not comparable", "other test set", UNEXPLAINED)
    ijcnn = records.loc["ijcnn1 linear"]
    assert (ijcnn["verdict"], ijcnn["reason"]) == ("not run: not yet", "make it")
    frame = verdicts.validate(verdicts.normalized(records.reset_index()))
    said = verdicts.tally(frame)
    assert (said["agrees"], said["lower"], said["not comparable"], said["not run: not yet"]) == (1, 1, 1, 1)
    assert (said["explained"], said["unexplained"]) == (1, 1)


def test_a_judged_table_shows_each_cells_record_verdict_and_threshold():
    table, rules = _table(), _rules()
    records = verdicts.cell_records(table, "askrff", rules)
    shown = verdicts.judged(table, "askrff", rules)
    assert list(shown.columns) == [*table.columns[:-1], "threshold", "verdict", "note"]
    assert dict(zip(shown["dataset"], shown["verdict"])) == {
        "spambase": "agrees", "letter": "ours worse", "cod_rna": "not comparable", "ijcnn1": "not run: not yet"}
    assert shown["verdict"].tolist() == [verdicts.shown(r) for _, r in records.iterrows()]
    np.testing.assert_array_equal(shown["threshold"], records["threshold"].astype(float))
    again = verdicts.cell_records(shown, "askrff", rules)  # judging a judged table changes nothing
    pd.testing.assert_frame_equal(again, records)
    counted = verdicts.counts(pd.concat([shown, pd.DataFrame({"verdict": ["holds", "not run"]})]))
    assert counted.to_dict("list") == {"verdict": ["agrees", "ours worse", "not comparable", "not run: not yet",
                                                   "holds", "not run"], "count": [1, 1, 1, 1, 1, 1]}  # cells, claims


def test_shown_words_higher_and_lower_by_the_metrics_direction():
    row = pd.Series({"verdict": "lower", "better": "yes"})
    assert verdicts.shown(row) == "ours better"
    assert verdicts.shown(row.replace({"yes": "no"})) == "ours worse"
    assert verdicts.shown(pd.Series({"verdict": "not comparable", "better": "no"})) == "not comparable"


def test_a_cell_not_run_is_not_obtainable_when_the_paper_says_why():
    rules = Rules(label=lambda row: row["dataset"], not_obtainable=lambda row: "not in the mirror")
    records = verdicts.cell_records(_table().iloc[[3]], "askrff", rules)
    assert records[["verdict", "reason"]].values.tolist() == [["not run: data not obtainable", "not in the mirror"]]


def test_claims_and_our_checks_are_told_apart():
    claims = pd.DataFrame({"source": ["Fig. 1", "Table 1"], "dataset": ["", ""],
                           "claim": ["errors fall", "(our check, not the paper's) equal width"],
                           "verdict": ["holds", "not run"], "evidence": ["12 of 12", "no runs"]})
    records = verdicts.claim_records(claims, "askrff", verdicts.claim_kind, "make askrff")
    assert records[["kind", "verdict", "reason"]].values.tolist() == [
        ["claim", "holds", ""], ["check", "not run: not yet", "make askrff"]]
    said = verdicts.tally(records)
    assert (said["claim holds"], said["check not run: not yet"], said["check holds"]) == (1, 1, 0)


@pytest.mark.parametrize(("change", "message"), [
    ({"verdict": "ours better"}, "verdict 'ours better' is not one of"),
    ({"kind": "figure"}, "kind 'figure' is not one of"),
    ({"verdict": "not comparable", "reason": ""}, "needs a reason"),
    ({"verdict": "lower", "cause": ""}, "needs a cause"),
    ({"verdict": "higher", "cause": "the partition"}, "needs a cause"),
])
def test_validate_names_the_cell_and_the_valid_choices(change, message):
    row = {c: "" for c in verdicts.COLUMNS} | {"paper": "rr", "source": "Table 1", "kind": "cell", "cell": "a9a",
                                                  "verdict": "agrees"}
    frame = verdicts.normalized(pd.DataFrame([{**row, **change}]))
    with pytest.raises(ValueError, match=message) as error:
        verdicts.validate(frame)
    assert "rr Table 1 'a9a'" in str(error.value)


def test_write_then_load_keeps_the_records(tmp_path):
    frame = verdicts.cell_records(_table(), "askrff", _rules(), tmp_path)  # the explained cell with its numbers
    path = verdicts.write(tmp_path, frame)
    back = verdicts.load(path)
    assert back["verdict"].tolist() == frame["verdict"].tolist()
    assert list(back.columns) == list(verdicts.COLUMNS)
    assert (back.fillna(0).select_dtypes("number").to_numpy() ==
            pytest.approx(verdicts.normalized(frame).fillna(0).select_dtypes("number").to_numpy().astype(float)))


def _explained(cause: str, rule: str = "") -> pd.DataFrame:
    row = {c: "" for c in verdicts.COLUMNS} | {"paper": "qmc", "source": "Table 1", "kind": "cell", "cell": "cpu mc",
                                                  "verdict": "lower", "cause": cause, "u_ours_rule": rule}
    return verdicts.normalized(pd.DataFrame([row]))


def test_an_explanation_must_cite_a_record_that_exists(tmp_path):
    (tmp_path / "qmc" / "table1").mkdir(parents=True)
    (tmp_path / "qmc" / "table1" / "splits.csv").write_text("a\n1\n")
    targets = {"qmc-table1"}
    for fine in (EXPLAINED + "the sweep (record: qmc/table1/splits.csv)", EXPLAINED + "the sweep, `make qmc-table1`",
                 UNEXPLAINED):
        verdicts.check_citations(_explained(fine), tmp_path, targets)
    for bad, message in ((EXPLAINED + "a probe on spambase over ten partitions", "cites no record"),
                         (EXPLAINED + "the sweep (record: qmc/table1/gone.csv)", "does not exist"),
                         (EXPLAINED + "the sweep, make qmc-table9", "does not exist")):
        with pytest.raises(ValueError, match=message):
            verdicts.check_citations(_explained(bad), tmp_path, targets)
    with pytest.raises(ValueError, match="does not exist"):  # a measured spread names its record too
        verdicts.check_citations(_explained("", "sigma (record: qmc/table2/gone.csv)"), tmp_path, targets)


def test_chance_counts_the_disagreements_of_cells_compared_like_for_like():
    rows = [{"kind": "cell", "verdict": v, "threshold": t, "reason": r} for v, t, r in
            [("agrees", 1.0, "")] * 38 + [("higher", 1.0, ""), ("lower", 1.0, ""),
                                          ("not comparable", 1.0, "another dataset"),
                                          ("agrees", 1.0, "another dataset"), ("not run: not yet", np.nan, "make")]]
    said = verdicts.chance(pd.DataFrame(rows))
    p = 2 * (1 - 0.9772498680518208)  # P(|Z| > 2)
    assert said["compared"] == 40 and said["observed"] == 2
    assert said["expected"] == pytest.approx(40 * p)
    assert said["bound"] == 4  # the 95 % quantile of Binomial(40, 0.0455): P(X <= 3) < 0.95 <= P(X <= 4)
