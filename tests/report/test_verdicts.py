"""The verdict record: its schema, the uncertainty rule, the categories and the counts."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rfbench.engine.records import RecordError
from rfbench.report import compare, published, verdicts
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


def test_the_printed_resolution_reads_a_published_csv_as_load_does(tmp_path, monkeypatch):
    """A space after each comma and a quoted note with a comma are a valid published.csv (load strips them):
    each number's resolution is still that of its printed text, on its line of the file."""
    path = tmp_path / "published.csv"
    path.write_text('# toy\n# sd trials: Table 1 = 10: "over 10 trials"\n'
                    "paper, source, dataset, method, metric, value, sd, unit, note\n"
                    'toy, Table 1, spambase, rff, test accuracy, 90.5, , %, "as printed, one run"\n'
                    "toy, Table 1, letter, rff, test accuracy, 72.54, 0.03, %,\n")
    monkeypatch.setattr(published, "path_of", lambda paper: path)
    table = verdicts.printed_resolution("toy")
    assert table[["dataset", "half_unit", "line"]].values.tolist() == [["spambase", 0.05, 4], ["letter", 0.005, 5]]


def _cell(**values) -> pd.Series:
    row = {"source": "Table 1", "dataset": "d", "method": "m", "metric": "test accuracy", "unit": "%", "mean": 90.0,
           "sd": np.nan, "n": 1, "published": 90.0, "published_sd": np.nan, "note": ""}
    return pd.Series({**row, **values})


def test_the_uncertainty_rule_branch_by_branch():
    plain = Rules(label=lambda row: "c")
    # n >= 2: the standard error over trials, from two trials on
    assert verdicts.ours_uncertainty(_cell(sd=0.4, n=4), plain) == (pytest.approx(0.2), "sd / sqrt(4)")
    assert verdicts.ours_uncertainty(_cell(sd=0.4, n=2), plain) == (pytest.approx(0.4 / np.sqrt(2)), "sd / sqrt(2)")
    # one run of an accuracy: the binomial standard error over the test rows, in the cell's unit (%); the test size
    # is the cell's own (a function of its row)
    binomial = Rules(label=lambda row: "c", n_test=lambda row: {"d": 400}[row["dataset"]])
    one_run = (pytest.approx(100 * np.sqrt(0.9 * 0.1 / 400)), "binomial, n_test = 400")
    assert verdicts.ours_uncertainty(_cell(mean=90.0), binomial) == one_run
    # one run whatever its sd says (an sd of one value is no spread), or with no count of runs at all
    assert verdicts.ours_uncertainty(_cell(mean=90.0, sd=0.0), binomial) == one_run
    assert verdicts.ours_uncertainty(_cell(mean=90.0, n=np.nan), binomial) == one_run
    # the binomial term is a proportion's: another metric of a cell with a test size keeps the stated tolerance
    error = verdicts.ours_uncertainty(_cell(metric="relative error", unit="fraction", mean=0.03, published=0.04),
                                      binomial)
    assert error == (pytest.approx(verdicts.RELATIVE_TOLERANCE * 0.04),
                     "deterministic, one run: 1% of the published value")
    # a cell not run has no uncertainty and no rule
    u, rule = verdicts.ours_uncertainty(_cell(mean=np.nan, n=np.nan), binomial)
    assert np.isnan(u) and rule == ""


def test_a_deterministic_one_run_cell_gets_the_stated_tolerance_and_a_measured_spread_wins():
    error = _cell(metric="relative error", unit="fraction", mean=0.03, published=0.0367)
    u, rule = verdicts.ours_uncertainty(error, Rules(label=lambda row: "c"))
    assert u == pytest.approx(verdicts.RELATIVE_TOLERANCE * 0.0367) and u > 0 and "deterministic" in rule
    measured = Spread(0.001, "scramble seeds", "qmc/table2/spread.csv")
    spread = Rules(label=lambda row: "c", spread=lambda row: measured if row["dataset"] == "d" else None)
    u, rule = verdicts.ours_uncertainty(error, spread)
    assert u == 0.001 and rule == "scramble seeds (record: qmc/table2/spread.csv)"
    # a spread measured by a make target is named as one, not as a record path
    made = Rules(label=lambda row: "c", spread=lambda row: Spread(0.002, "sigma sweep", "make qmc-sigma"))
    assert verdicts.ours_uncertainty(error, made) == (0.002, "sigma sweep (make qmc-sigma)")
    # no published value to take a fraction of: a deterministic cell is exact (its record says "no published value")
    unpublished = _cell(metric="relative error", unit="fraction", mean=0.03, published=np.nan)
    assert verdicts.ours_uncertainty(unpublished, Rules(label=lambda row: "c")) == (0.0, "deterministic, one run")


def test_the_partition_spread_is_added_to_every_cell_of_its_table_alike():
    rules = Rules(label=lambda row: "c", n_test=lambda row: 400,
                  partition=lambda source, dataset: Spread(0.3, "split seeds", "p/s.csv")
                  if (source, dataset) == ("Table 1", "d") else None)
    for cell, alone in ((_cell(sd=0.4, n=4), 0.2), (_cell(mean=90.0), 100 * np.sqrt(0.9 * 0.1 / 400))):
        u, rule = verdicts.ours_uncertainty(cell, rules)
        assert u == pytest.approx(np.hypot(alone, 0.3)) and rule.endswith("partition: split seeds (record: p/s.csv)")
        assert verdicts.ours_uncertainty(cell.replace({"d": "other"}), rules)[0] == pytest.approx(alone)
        assert verdicts.ours_uncertainty(cell.replace({"Table 1": "Table 2"}), rules)[0] == pytest.approx(alone)


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
    binomial = Rules(label=lambda row: "c", n_test=lambda row: {"d": 200}[row["dataset"]])
    accuracy = _cell(published=100.0)  # the paper's one-run perfect score: binomial with its floor, and rounding
    u = verdicts.published_uncertainty(accuracy, binomial, 0.05, {})
    assert u == pytest.approx(np.hypot(100 * verdicts.binomial_se(1.0, 200), 0.05 / np.sqrt(3)))
    u = verdicts.published_uncertainty(_cell(published=90.0), binomial, 0.05, {})  # 90 % is the proportion 0.9
    assert u == pytest.approx(np.hypot(100 * np.sqrt(0.9 * 0.1 / 200), 0.05 / np.sqrt(3)))


def test_a_published_value_the_file_does_not_hold_has_the_rounding_of_its_shortest_form():
    """A cell whose published value is not in the paper's published.csv (no printed resolution): its
    shortest repr stands for its print, 0.0367 -> half of 1e-4."""
    error = _cell(metric="relative error", unit="fraction", published=0.0367)
    assert verdicts.published_uncertainty(error, Rules(label=lambda row: "c"), np.nan, {}) == \
        pytest.approx(5e-5 / np.sqrt(3))


def test_judge_agrees_at_the_threshold_itself_and_not_beyond():
    verdict, threshold = verdicts.judge(0.5, 0.3, 0.4)
    assert (verdict, threshold) == ("agrees", 1.0)
    assert verdicts.judge(1.0, 0.3, 0.4)[0] == "agrees"  # |d| == K sqrt(0.3^2 + 0.4^2) exactly: <=, not <
    assert verdicts.judge(-1.0, 0.3, 0.4)[0] == "agrees"
    assert verdicts.judge(np.nextafter(1.0, 2.0), 0.3, 0.4)[0] == "higher"
    assert verdicts.judge(-1.01, 0.3, 0.4)[0] == "lower"
    for u_ours, u_pub in ((0.0, 5e-9), (1.3, 0.005), (0.1, 2.0)):
        assert verdicts.judge(0.0, u_ours, u_pub)[1] >= max(u_ours, u_pub)


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


def _qmc_table() -> pd.DataFrame:
    """A comparison table of two of qmc's published cells at s = 100, each printed without a ±: Table 1's cpu
    halton relative error 0.0367 (Table 1 cites its trials) and Table 2's cpu weighted_b4 box discrepancy 1.67e-8."""
    pub = published.load(published.path_of("qmc"))
    cells = {("Table 1", "halton"), ("Table 2", "weighted_b4")}
    pub = pub[[(row["source"], row["method"]) in cells and row["s"] == "100" for _, row in pub.iterrows()]]
    return compare.compare(pub, pub[["dataset", "method", "s", "metric", "unit"]].assign(mean=0.0, sd=np.nan, n=1))


@pytest.mark.parametrize(("paper", "method", "column", "value", "says"), [
    # a change far below pandas' default tolerances (relative 1e-5, absolute 1e-8) is a change: only the round-off
    # of one float is the same value
    ("askrff", "linear", "published", 90.2605, r"published 90.2605 but .*, column value says 90.261;"),
    ("qmc", "weighted_b4", "published", 1.66e-8, r"published 1.66e-08 but .*, column value says 1.67e-08;"),
    # a ± the file no longer has (judged with it, the cell's u_published would be the sd over Table 1's 10 trials),
    # or has and the table lacks: a missing number is named as blank
    ("qmc", "halton", "published_sd", 0.001, r"published_sd 0.001 but .*, column sd says blank;"),
    ("askrff", "linear", "published_sd", np.nan, r"published_sd blank but .*, column sd says 0.12;"),
])
def test_a_table_whose_published_numbers_differ_at_all_from_the_file_is_refused_as_stale(paper, method, column,
                                                                                          value, says):
    """The refusal names where (a table with no path: "a comparison table"), the line, both numbers and the fix."""
    table = _table() if paper == "askrff" else _qmc_table()
    rules = Rules(label=lambda row: row["dataset"])
    verdicts.cell_records(table, paper, rules)  # as drawn, the table is current
    at = int(np.flatnonzero((table["method"] == method) & table["dataset"].isin(["spambase", "cpu"]))[0])
    table.loc[at, column] = value
    with pytest.raises(RecordError, match=rf"^a comparison table, line {at + 2}: {says} the table is stale: rerun "
                                          rf"`make {paper}`"):
        verdicts.cell_records(table, paper, rules)


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
    ({"threshold": ""}, "verdict 'agrees' without a threshold"),  # a judged cell: "agrees" needs the number
    ({"threshold": np.nan, "verdict": "not comparable", "reason": "other test set"}, "without a threshold"),
    ({"mean": "abc", "sd": "0.1"}, r"mean='abc' where a number belongs"),  # hand-edited: not counted silently
    ({"threshold": "n/a"}, r"threshold='n/a' where a number belongs"),
])
def test_validate_names_the_cell_and_the_valid_choices(change, message):
    row = {c: "" for c in verdicts.COLUMNS} | {"paper": "rr", "source": "Table 1", "kind": "cell", "cell": "a9a",
                                                  "verdict": "agrees", "threshold": 0.5}
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


def test_a_cell_whose_measured_spread_is_nan_is_refused_naming_the_cell():
    """A spread record with a blank sd must stop the report, not judge the cell "lower" against a NaN threshold."""
    rules = Rules(label=lambda row: "cpu halton s=100",
                  spread=lambda row: Spread(np.nan, "scramble seeds", "qmc/x.csv"))
    cell = _cell(metric="relative error", unit="fraction", mean=0.0367, published=0.0367)
    with pytest.raises(ValueError, match=r"qmc Table 1, cpu halton s=100 \(u_ours by scramble seeds \(record: "
                                         r"qmc/x.csv\)\): u_ours = nan.*must be a number >= 0"):
        verdicts.cell_records(pd.DataFrame([cell]), "qmc", rules)
