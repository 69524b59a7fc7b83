"""A verdict record keeps its cell's identity and numbers; judging is a fixed point; every stale row is found.

Each test kills a mutant of ``rfbench/report/verdicts.py`` that the other tests let live (tests/README.md,
"Mutation testing").
"""
import io
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from rfbench.engine.records import RecordError
from rfbench.report import compare, published, verdicts
from rfbench.report.verdicts import Rules
from tests.report.test_verdicts import _rules, _table


def test_a_cell_record_carries_its_rows_values_and_says_better_only_for_a_difference():
    table = _table()
    records = verdicts.cell_records(table, "askrff", _rules())
    for column in ("source", "metric", "unit", "mean", "sd", "n", "published", "published_sd"):
        pd.testing.assert_series_equal(records[column], table[column], check_dtype=False)
    np.testing.assert_allclose(records["difference"], table["mean"] - table["published"])
    # better is said of a higher or lower cell (and of one not comparable), blank where nothing differs
    assert dict(zip(records["cell"], records["better"])) == {
        "cod_rna linear": "no", "letter linear": "no", "spambase linear": "", "ijcnn1 linear": ""}


def test_a_claim_record_has_every_column_of_the_record_with_no_numbers():
    claims = pd.DataFrame({"source": ["Fig. 1"], "dataset": ["letter"], "claim": ["errors fall"],
                           "verdict": ["holds"], "evidence": ["12 of 12"]})
    records = verdicts.claim_records(claims, "askrff", verdicts.claim_kind)
    assert list(records.columns) == list(verdicts.COLUMNS)
    assert records[["mean", "u_ours", "threshold"]].isna().all(axis=None)
    assert list(verdicts.claim_records(claims.iloc[:0], "askrff", verdicts.claim_kind).columns) == list(
        verdicts.COLUMNS)  # no claim: still the record's columns


def test_judging_a_judged_table_changes_nothing():
    """A report may judge a table it reads back: its threshold and verdict columns are replaced, not doubled."""
    once = verdicts.judged(_table(), "askrff", _rules())
    pd.testing.assert_frame_equal(verdicts.judged(once, "askrff", _rules()), once)


def test_a_stale_row_is_found_after_a_row_the_published_file_does_not_hold():
    table = _table()
    unknown = table.iloc[[0]].assign(dataset="a dataset the paper never ran")
    stale = table.copy()
    stale.loc[stale["dataset"] == "letter", "published"] = 72.5  # the file says 72.541
    with pytest.raises(RecordError, match=r"line 4: published 72.5 but .*published.csv, line \d+, column value "
                                          r"says 72.541; the table is stale"):
        verdicts.cell_records(pd.concat([unknown, stale], ignore_index=True), "askrff", _rules())


def test_a_cell_record_names_its_paper_rule_and_threshold_and_a_reason_only_where_one_is_due():
    table = _table()
    never = table[table["dataset"] == "spambase"].assign(dataset="a dataset the paper never ran")  # not in the file
    records = verdicts.cell_records(pd.concat([table, never], ignore_index=True), "askrff", _rules())
    assert list(records.columns) == list(verdicts.COLUMNS)  # the record's columns, in its order
    assert list(verdicts.cell_records(table.iloc[:0], "askrff", _rules()).columns) == list(verdicts.COLUMNS)
    assert (records["paper"] == "askrff").all()
    run = records["mean"].notna()
    assert records["u_ours_rule"].tolist() == ["sd / sqrt(10)" if r else "" for r in run]
    # a judged cell's threshold is K sqrt(u_ours^2 + u_published^2); a cell not run has none
    np.testing.assert_allclose(records.loc[run, "threshold"].astype(float),
                               verdicts.K * np.hypot(records.loc[run, "u_ours"], records.loc[run, "u_published"]))
    assert records.loc[~run, "threshold"].isna().all()
    # a cell the file does not hold: its value's shortest form, 90.261, stands for its print (half a unit: 0.0005)
    assert records["u_published"].iloc[-1] == pytest.approx(np.hypot(0.120 / np.sqrt(10), 0.0005 / np.sqrt(3)))
    # a reason only for a named difference or a cell not run: blank (not NaN) for one that agrees or is lower
    assert dict(zip(records["cell"], records["reason"])) == {
        "spambase linear": "", "letter linear": "", "cod_rna linear": "other test set", "ijcnn1 linear": "make it",
        "a dataset the paper never ran linear": ""}


def test_a_higher_accuracy_is_better_and_a_lower_one_worse():
    table = _table()
    table.loc[table["dataset"] == "letter", "mean"] = 80.0  # published 72.541: ours higher, an accuracy
    records = verdicts.cell_records(table, "askrff", _rules())
    assert dict(zip(records["cell"], zip(records["verdict"], records["better"]))) == {
        "spambase linear": ("agrees", ""), "letter linear": ("higher", "yes"),
        "cod_rna linear": ("not comparable", "no"), "ijcnn1 linear": ("not run: not yet", "")}


@pytest.mark.parametrize("notes", ["given", "none"])
def test_a_cells_note_is_its_evidence_and_no_note_none(notes):
    """Its note (a transcription remark) is quoted as a cell's evidence; a blank note, NaN as a table read back
    from its CSV holds it, or a table without notes, quotes nothing."""
    table = _table()
    if notes == "given":
        table["note"] = table["note"].astype(object)
        table.loc[table["dataset"] == "spambase", "note"] = "printed in bold"
        table.loc[table["dataset"] == "letter", "note"] = np.nan
    else:
        table = table.drop(columns="note")
    records = verdicts.cell_records(table, "askrff", _rules())
    said = "printed in bold" if notes == "given" else ""
    assert dict(zip(records["cell"], records["evidence"])) == {
        "spambase linear": said, "letter linear": "", "cod_rna linear": "", "ijcnn1 linear": ""}


@pytest.mark.parametrize("obtainable", [True, False])
def test_a_cell_not_run_gets_its_own_command_or_why_its_data_cannot_be_had(obtainable):
    """The rules are functions of the cell's row: each cell not run gets its own reason."""
    rules = replace(_rules(), not_yet=lambda row: f"make askrff-{row['dataset']}",
                    not_obtainable=lambda row: None if obtainable else f"{row['dataset']} is not in the mirror")
    ijcnn = verdicts.cell_records(_table(), "askrff", rules).set_index("cell").loc["ijcnn1 linear"]
    assert (ijcnn["verdict"], ijcnn["reason"]) == (("not run: not yet", "make askrff-ijcnn1") if obtainable else
                                                   ("not run: data not obtainable", "ijcnn1 is not in the mirror"))


def test_a_metric_the_paper_did_not_publish_for_a_cell_is_no_published_value_not_a_stale_row():
    """Ours may give a cell several metrics (compare.compare joins them all): one the paper lacks is its own
    cell, with no published value, never checked against the paper's value of another metric."""
    table = _table()
    time = table.iloc[[0]].assign(metric="time", unit="s", mean=1.2, sd=0.1, n=10, published=np.nan,
                                  published_sd=np.nan, difference=np.nan)
    records = verdicts.cell_records(pd.concat([table, time], ignore_index=True), "askrff", _rules())
    assert records.iloc[-1][["metric", "verdict"]].tolist() == ["time", "no published value"]
    assert records.iloc[:-1]["verdict"].tolist() == verdicts.cell_records(table, "askrff", _rules())["verdict"].tolist()


def _qmc_halton(float_s: bool) -> pd.DataFrame:
    """qmc's cpu halton cell at s = 100 as Table 1 prints it (0.0367, file line 25) and as Table 3 does (0.0304):
    one key under two sources; with ``float_s``, s as the float 100.0 (a column of whole numbers pandas read as
    floats)."""
    pub = published.load(published.path_of("qmc"))
    pub = pub[pub["source"].isin(["Table 1", "Table 3"]) & (pub["dataset"] == "cpu") & (pub["method"] == "halton")
              & (pub["s"] == "100")]
    table = pd.concat([compare.compare(part, part[["dataset", "method", "s", "metric", "unit"]].assign(
        mean=0.035, sd=np.nan, n=1)) for _, part in pub.groupby("source")], ignore_index=True)  # a table per source
    return table.astype({"s": float}) if float_s else table


@pytest.mark.parametrize("float_s", [False, True])
def test_each_cell_is_checked_against_its_own_source_and_keys(float_s):
    table, rules = _qmc_halton(float_s), Rules(label=lambda row: row["source"])
    assert table["published"].tolist() == [0.0367, 0.0304]
    records = verdicts.cell_records(table, "qmc", rules)  # current: each source's value is its own
    assert records["cell"].tolist() == ["Table 1", "Table 3"]
    table.loc[0, "published"] = 0.0304  # Table 1's cell given Table 3's value: stale
    with pytest.raises(RecordError, match=r"line 2: published 0.0304 but .*qmc/published.csv, line 25, column value "
                                          r"says 0.0367; the table is stale"):
        verdicts.cell_records(table, "qmc", rules)


def _rr_cpu_act(size: str) -> pd.DataFrame:
    """rr's cpu_act cells: Fourier+LS (size D = 300, printed 3.6), CVM (5.5) and Exact SVM (printed 11), the last
    two without a size; ours of Fourier+LS only. ``size``: as compare.compare writes it ("text"), as read back
    from its CSV (the blank sizes NaN), or a table without the size column."""
    pub = published.load(published.path_of("rr"))
    pub = pub[(pub["dataset"] == "cpu_act") & pub["method"].isin(["Fourier+LS", "CVM", "Exact SVM"])]
    ours = pub.iloc[[0]][["dataset", "method", "size", "metric", "unit"]].assign(mean=3.7, sd=0.1, n=3)
    table = compare.compare(pub, ours)
    if size == "read back":
        table = pd.read_csv(io.StringIO(table.to_csv(index=False)))
    return table.drop(columns="size") if size == "none" else table


@pytest.mark.parametrize("size", ["text", "read back", "none"])
def test_a_blank_key_is_found_however_the_table_holds_it(size):
    """A cell the file gives no size has its printed resolution (half a unit of "11": 0.5, not of 11.0's 0.05)
    and is checked for staleness, whether its size is "", NaN or absent."""
    table, rules = _rr_cpu_act(size), Rules(label=lambda row: row["method"])
    records = verdicts.cell_records(table, "rr", rules).set_index("cell")
    assert records.loc["Exact SVM", "u_published"] == pytest.approx(0.5 / np.sqrt(3))
    assert records.loc["CVM", "u_published"] == pytest.approx(0.05 / np.sqrt(3))
    table.loc[table["method"] == "Exact SVM", "published"] = 12.0
    with pytest.raises(RecordError, match=r"published 12 but .*rr/published.csv, line \d+, column value says 11;"):
        verdicts.cell_records(table, "rr", rules)


def test_an_explained_cause_quotes_its_records_row_for_the_cell_after_the_note(tmp_path):
    """A plain explained cause (not a Cause carrying its numbers): its numbers are read from the record it cites,
    the row for the cell (dataset letter), and quoted after the cell's note."""
    (tmp_path / "askrff" / "table1").mkdir(parents=True)
    (tmp_path / "askrff" / "table1" / "multiclass.csv").write_text("dataset,one_vs_rest\nspambase,90.1\nletter,72.5\n")
    cause = verdicts.EXPLAINED + "the multi-class study (record: askrff/table1/multiclass.csv; make askrff)"
    rules = replace(_rules(), cause=lambda row: cause if row["dataset"] == "letter" else verdicts.UNEXPLAINED)
    table = _table()
    table.loc[table["dataset"] == "letter", "note"] = "printed in bold"
    letter = verdicts.cell_records(table, "askrff", rules, tmp_path).set_index("cell").loc["letter linear"]
    assert (letter["cause"], letter["evidence"]) == (
        cause, "printed in bold. askrff/table1/multiclass.csv (dataset letter): one_vs_rest = 72.5")


def test_a_claim_record_names_its_paper_source_kind_claim_verdict_reason_and_evidence():
    claims = pd.DataFrame({"source": ["Fig. 1", "Sec. 5", "Fig. 2"], "dataset": ["letter", "", np.nan],
                           "claim": ["errors fall", "(our check) bounded", "times grow"],
                           "verdict": ["holds", "not run", "fails"], "evidence": ["12 of 12", "no runs", "3 of 5"]})
    text = ["paper", "source", "kind", "cell", "verdict", "reason", "evidence"]
    records = verdicts.claim_records(claims, "askrff", verdicts.claim_kind, "make askrff")
    # the cell: the dataset then the claim, a blank dataset (NaN as read back from a CSV) left out
    assert records[text].values.tolist() == [
        ["askrff", "Fig. 1", "claim", "letter errors fall", "holds", "", "12 of 12"],
        ["askrff", "Sec. 5", "check", "(our check) bounded", "not run: not yet", "make askrff", "no runs"],
        ["askrff", "Fig. 2", "claim", "times grow", "fails", "", "3 of 5"]]
    # a claim table without datasets (claims about the paper as a whole): the claim alone
    assert verdicts.claim_records(claims.drop(columns="dataset"), "askrff", verdicts.claim_kind)["cell"].tolist() == [
        "errors fall", "(our check) bounded", "times grow"]
    # no command given: a claim not run has no reason, and the records refuse it rather than invent one
    unrun = verdicts.claim_records(claims, "askrff", verdicts.claim_kind)
    assert unrun["reason"].tolist() == ["", "", ""]
    with pytest.raises(RecordError, match=r"'\(our check\) bounded': verdict 'not run: not yet' needs a reason"):
        verdicts.validate(verdicts.normalized(unrun))
