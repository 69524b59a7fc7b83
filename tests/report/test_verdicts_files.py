"""The verdict files and the tables they are made from: read whole or refused, naming the file, the fault and the fix.

Each test kills mutants of ``rfbench/report/verdicts.py`` that the other tests let live (tests/README.md,
"Mutation testing") in ``normalized``, ``validate``, ``check_evidence``, ``write``, ``load``, ``report_files``,
``tables``, ``checked_table``, ``paper_records`` and ``check_citations``.
"""
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rfbench.engine.records import RecordError
from rfbench.report import compare, published, verdicts
from rfbench.report.verdicts import EXPLAINED, UNEXPLAINED, Cause, Rules
from tests.report.test_distrust import ROWS, _published

#: An explained cause with the numbers it read from its record (a sweep: no row of its own for the cell).
SWEEP = Cause(EXPLAINED + "the sweep of sigma (record: toy/table1/sweep.csv)",
              "toy/table1/sweep.csv (4 rows): 79 to 81")


def _rules() -> Rules:
    return Rules(label=lambda row: f"{row['dataset']} {row['method']}",
                 cause=lambda row: SWEEP if row["dataset"] == "spambase" else UNEXPLAINED)


def _row(**values) -> dict:
    """One record: a judged cell that agrees, its text blank, its numbers missing but its threshold."""
    return {c: "" for c in verdicts.TEXT} | {"paper": "qmc", "source": "Table 1", "kind": "cell", "cell": "cpu mc",
                                               "verdict": "agrees", "threshold": 0.5} | values


@pytest.fixture
def toy(tmp_path, monkeypatch) -> Path:
    """A paper ``toy``: its published.csv, and below ``results/toy`` a judged comparison table (spambase far below
    the paper's value, letter agreeing) and a claim table as compare.check_claims writes it (its columns alone)."""
    path = _published(tmp_path, ROWS)
    real = published.path_of
    monkeypatch.setattr(published, "path_of", lambda paper: path if paper == "toy" else real(paper))
    ours = pd.DataFrame({"dataset": ["spambase", "letter"], "method": "rff", "metric": "test accuracy", "unit": "%",
                         "mean": [80.0, 72.50], "sd": [0.2, 0.1], "n": [10, 10]})
    folder = tmp_path / "results" / "toy" / "table1"
    folder.mkdir(parents=True)
    verdicts.judged(compare.compare(published.load(path), ours), "toy", _rules()).to_csv(folder / "table1.csv",
                                                                                       index=False)
    claims = pd.DataFrame({"source": ["Fig. 1", "Table 1"], "dataset": ["", "letter"],
                           "claim": ["errors fall", "(our check, not the paper's) equal width"],
                           "verdict": ["holds", "not run"], "evidence": ["12 of 12", "no runs"]})
    assert list(claims.columns) == list(compare.check_claims(published.load(path), {}).columns)
    claims.to_csv(folder / "claims.csv", index=False)
    return tmp_path / "results" / "toy"


def test_a_papers_records_hold_its_cells_with_their_evidence_and_its_claims(toy):
    found = verdicts.paper_records(toy, "toy", _rules(), not_yet_claims="make toy").set_index("cell")
    assert (found["paper"] == "toy").all()
    assert found.loc["spambase rff", ["verdict", "cause"]].tolist() == ["lower", SWEEP]
    # read with the results folder: an explained cell carries the numbers its cause read (else refused on write)
    assert found.loc["spambase rff", "evidence"] == SWEEP.evidence
    # the claim table is read (its columns are exactly compare.check_claims's): a claim without a dataset is named
    # by its statement alone, our check is told apart, and one not run gets the command that runs it
    claims = found[found["kind"] != "cell"]
    assert claims[["kind", "verdict", "reason", "evidence"]].to_dict("index") == {
        "errors fall": {"kind": "claim", "verdict": "holds", "reason": "", "evidence": "12 of 12"},
        "letter (our check, not the paper's) equal width": {"kind": "check", "verdict": "not run: not yet",
                                                            "reason": "make toy", "evidence": "no runs"}}
    verdicts.write(toy, found.reset_index())
    # no command given: none is invented, and a claim not run without its command is refused when written
    bare = verdicts.paper_records(toy, "toy", _rules())
    assert bare.loc[bare["verdict"] == "not run: not yet", "reason"].tolist() == [""]
    with pytest.raises(RecordError, match=r"letter \(our check.*needs a reason"):
        verdicts.write(toy, bare)


def test_the_copies_a_run_folder_holds_are_not_counted(toy):
    """A run folder below the paper's may hold tables of its own (a run's copy): each cell and claim counts once."""
    run = toy / "table1" / "runs" / "0a1b"
    run.mkdir(parents=True)
    for name in ("table1.csv", "claims.csv"):
        (run / name).write_text((toy / "table1" / name).read_text())
    found = verdicts.paper_records(toy, "toy", _rules(), not_yet_claims="make toy")
    assert sorted(found["cell"]) == ["errors fall", "letter (our check, not the paper's) equal width", "letter rff",
                                     "spambase rff"]


@pytest.mark.parametrize("edit, message", [
    # its last row with one field too many: damage, refused before pandas would stop on it
    (lambda text: text.rstrip("\n") + ",1\n", r"is damaged \(rows of \[\d+, \d+\] fields"),
    # spambase's row (line 3): a verdict that is no shown one, every number present
    (lambda text: text.replace(",ours worse,", ",ours much worse,"), r"line\(s\) \[3\]: a verdict that is none of"),
    # spambase's row: no published value, yet judged
    (lambda text: text.replace(",90.5,", ",,"), r"line\(s\) \[3\]: .*a missing mean or published value"),
], ids=["ragged", "unknown verdict", "no published value"])
def test_a_damaged_comparison_table_is_refused_naming_it_and_the_fix(toy, edit, message):
    path = toy / "table1" / "table1.csv"
    path.write_text(edit(path.read_text()))
    with pytest.raises(RecordError, match=message) as error:
        verdicts.paper_records(toy, "toy", _rules())
    assert str(error.value).startswith(str(path)) and f"restore it (git checkout -- {path})" in str(error.value)


def test_a_cell_without_a_published_value_is_read_and_one_with_neither_number_is_refused(tmp_path):
    """A table with exactly the columns of a comparison table is one: its "no published value" cell is counted
    (its published value blank), a judged cell without our mean is not."""
    table = pd.DataFrame({"source": "Table 1", "metric": "test accuracy", "unit": "%", "mean": [90.0, 70.0, np.nan],
                          "sd": 0.1, "n": 10, "published": [90.1, np.nan, 80.0], "published_sd": np.nan,
                          "difference": [-0.1, np.nan, np.nan], "threshold": [0.5, np.nan, np.nan],
                          "verdict": ["agrees", "no published value", "not run: not yet"]})
    assert set(table.columns) == verdicts.COMPARISON
    path = tmp_path / "t.csv"
    table.to_csv(path, index=False)
    assert verdicts.checked_table(path, verdicts.COMPARISON)["verdict"].tolist() == table["verdict"].tolist()
    table.assign(verdict="agrees").iloc[[0, 2]].to_csv(path, index=False)
    with pytest.raises(RecordError, match=r"line\(s\) \[3\]: a verdict that is none of \['agrees', 'ours better'"):
        verdicts.checked_table(path, verdicts.COMPARISON)


@pytest.mark.parametrize("columns, missing", [
    (["source", "verdict"], ["claim", "dataset", "evidence"]),  # a table of verdicts and nothing else
    (["source", "dataset", "claim", "verdict"], ["evidence"]),
    (sorted(verdicts.COMPARISON - {"threshold"}), ["threshold"]),
])
def test_a_table_of_verdicts_missing_a_column_is_refused_naming_the_nearer_tables_columns(tmp_path, columns,
                                                                                          missing):
    (tmp_path / "toy").mkdir()
    pd.DataFrame([{c: "holds" if c == "verdict" else "1" for c in columns}]).to_csv(tmp_path / "toy" / "t.csv",
                                                                                   index=False)
    for kind in (verdicts.COMPARISON, verdicts.CLAIMS):
        with pytest.raises(RecordError, match=re.escape(f"lacks the columns {missing} of a comparison or claim table")):
            verdicts.tables(tmp_path, kind)


def test_normalized_orders_the_records_columns_and_blanks_the_text_it_lacks():
    """A claim's record says nothing of numbers, units or causes: its text is blank (not NaN, not filled in), its
    numbers missing, every column of the record in its order."""
    frame = verdicts.normalized(pd.DataFrame([{"verdict": "holds", "cell": "errors fall", "kind": "claim",
                                               "paper": "toy", "mean": np.nan}]))
    assert list(frame.columns) == list(verdicts.COLUMNS)
    assert frame.loc[0, list(verdicts.TEXT)].to_dict() == {c: "" for c in verdicts.TEXT} | {
        "paper": "toy", "kind": "claim", "cell": "errors fall", "verdict": "holds"}
    assert frame[[c for c in verdicts.COLUMNS if c not in verdicts.TEXT]].isna().all(axis=None)


def test_validate_refuses_a_frame_missing_a_column_naming_it_and_the_schema():
    frame = verdicts.normalized(pd.DataFrame([_row()])).drop(columns="threshold")
    with pytest.raises(RecordError) as error:
        verdicts.validate(frame)
    assert f"missing column(s) ['threshold']; a verdict record has {list(verdicts.COLUMNS)}" in str(error.value)


def test_write_and_load_name_the_file_of_a_refused_record(tmp_path):
    cell = "qmc Table 1 'cpu mc': verdict 'ours better' is not one of"
    with pytest.raises(RecordError, match="^" + re.escape(f"{tmp_path / 'verdicts.csv'}: {cell}")):
        verdicts.write(tmp_path, pd.DataFrame([_row(verdict="ours better")]))
    assert not (tmp_path / "verdicts.csv").exists()
    path = verdicts.write(tmp_path, pd.DataFrame([_row()]))
    path.write_text(path.read_text().replace(",agrees,", ",ours better,"))  # edited by hand
    with pytest.raises(RecordError, match="^" + re.escape(f"{path}: {cell}")):
        verdicts.load(path)


def test_load_reads_text_columns_as_text(tmp_path):
    """Cells named by a number (a sweep's sigma) keep their digits: the record's text is not parsed."""
    path = verdicts.write(tmp_path, pd.DataFrame([_row(cell="0.10"), _row(cell="1.50")]))
    back = verdicts.load(path)
    assert back["cell"].tolist() == ["0.10", "1.50"]


def test_an_explanation_without_its_numbers_is_refused_naming_the_cell_what_it_cites_and_the_fix():
    cause = EXPLAINED + "the sweep (record: qmc/sweep/arms.csv)"
    with pytest.raises(RecordError) as error:
        verdicts.validate(verdicts.normalized(pd.DataFrame([_row(verdict="lower", cause=cause,
                                                                  evidence="train 3,000")])))
    message = str(error.value)
    assert (f": qmc Table 1 'cpu mc': its cause {cause!r} is explained, but its evidence 'train 3,000' quotes none "
            "of the records it cites (['qmc/sweep/arms.csv'])") in message
    assert message.endswith("(rfbench.report.verdicts.Cause)")  # the way to give the numbers of a record with no row


def test_a_cause_citing_no_record_is_refused_naming_both_ways_to_cite_one(tmp_path):
    frame = pd.DataFrame([_row(verdict="lower", cause=EXPLAINED + "a probe over ten partitions")])
    with pytest.raises(ValueError) as error:
        verdicts.check_citations(frame, tmp_path, {"qmc"})
    assert "cites no record" in str(error.value)
    assert "('record: <paper>/<path>')" in str(error.value) and "('make <target>')" in str(error.value)
