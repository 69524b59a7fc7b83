"""A verdict record keeps its cell's identity and numbers; judging is a fixed point; every stale row is found.

Each test kills a mutant of ``rfbench/report/verdicts.py`` that the other tests let live (tests/README.md,
"Mutation testing").
"""
import numpy as np
import pandas as pd
import pytest

from rfbench.engine.records import RecordError
from rfbench.report import verdicts
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
