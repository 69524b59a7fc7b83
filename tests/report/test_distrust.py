"""Reports distrust their inputs (issue 48, point 4): a committed table that disagrees with published.csv, a
verdicts.csv missing a column, NaN where a number is needed and a published value that is no printed number
each stop the report with one line naming the file; nothing stale or partial is counted."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rfbench.engine.records import RecordError
from rfbench.papers.tutorial import report as tutorial_report
from rfbench.papers.tutorial import verdicts as tutorial_verdicts
from rfbench.report import compare, numbers, project, published, verdicts
from rfbench.report.verdicts import UNEXPLAINED, Rules

HEADER = "paper,source,dataset,method,metric,value,sd,unit,note"
ROWS = ["toy,Table 1,spambase,rff,test accuracy,90.5,,%,", "toy,Table 1,letter,rff,test accuracy,72.54,0.03,%,"]


def _published(folder: Path, rows: list[str]) -> Path:
    path = folder / "published.csv"
    path.write_text("\n".join(["# toy: generated for the test", "# sd trials: Table 1 = 10: \"over 10 trials\"",
                               HEADER, *rows]) + "\n")
    return path


@pytest.fixture
def toy(tmp_path, monkeypatch) -> Path:
    """A paper ``toy`` with its published.csv in ``tmp_path`` and a judged comparison table below ``results``."""
    path = _published(tmp_path, ROWS)
    real = published.path_of
    monkeypatch.setattr(published, "path_of", lambda paper: path if paper == "toy" else real(paper))
    ours = pd.DataFrame({"dataset": ["spambase", "letter"], "method": "rff", "metric": "test accuracy", "unit": "%",
                         "mean": [90.4, 72.50], "sd": [0.2, 0.1], "n": [10, 10]})
    table = verdicts.judged(compare.compare(published.load(path), ours), "toy", _rules())
    (tmp_path / "results" / "toy" / "table1").mkdir(parents=True)
    table.to_csv(tmp_path / "results" / "toy" / "table1" / "table1.csv", index=False)
    return tmp_path


def _rules() -> Rules:
    return Rules(label=lambda row: f"{row['dataset']} {row['method']}", cause=lambda row: UNEXPLAINED)


def test_a_table_that_agrees_with_published_csv_is_counted(toy):
    found = verdicts.paper_records(toy / "results" / "toy", "toy", _rules())
    assert found["verdict"].tolist() == ["agrees", "agrees"]
    assert sorted(found["published"].astype(float)) == [72.54, 90.5]


@pytest.mark.parametrize("edited, line, column", [
    ("toy,Table 1,spambase,rff,test accuracy,90.55,,%,", 4, "value"),  # the value: judged with the old one before
    ("toy,Table 1,spambase,rff,test accuracy,90.5,0.1,%,", 4, "sd"),   # a ± added
])
def test_a_table_older_than_an_edit_of_published_csv_is_refused_naming_both_files(toy, edited, line, column):
    _published(toy, [edited, ROWS[1]])
    table = toy / "results" / "toy" / "table1" / "table1.csv"
    with pytest.raises(RecordError) as error:
        verdicts.paper_records(toy / "results" / "toy", "toy", _rules())
    message = str(error.value)
    assert f"{table}, line " in message and f"{toy / 'published.csv'}, line {line}, column {column}" in message
    assert "stale" in message and "make toy" in message and "\n" not in message


def test_a_verdicts_file_missing_a_column_is_refused_not_filled_with_blanks(toy):
    frame = verdicts.paper_records(toy / "results" / "toy", "toy", _rules())
    path = verdicts.write(toy / "results" / "toy", frame)
    assert len(verdicts.load(path)) == 2
    pd.read_csv(path).drop(columns="threshold").to_csv(path, index=False)
    with pytest.raises(RecordError, match=r"lacks the column\(s\) \['threshold'\].*make report"):
        verdicts.load(path)
    path.write_text(path.read_text()[:-20])  # cut short
    with pytest.raises(RecordError, match="cut short"):
        verdicts.load(path)


@pytest.mark.parametrize("value", ["nan", "inf", "-Infinity", "1_000", "9O.5", "0x1p3"])
def test_a_published_value_that_is_no_printed_number_is_one_line_naming_line_and_column(tmp_path, value):
    path = _published(tmp_path, [f"toy,Table 1,spambase,rff,test accuracy,{value},,%,", ROWS[1]])
    with pytest.raises(published.PublishedError) as error:
        published.load(path)
    assert str(error.value).startswith(f"{path}, line 4, column value: {value!r} is not a number as printed")


@pytest.mark.parametrize("value, expected", [("90.5", 90.5), ("-3.41e-3", -3.41e-3), (".5", 0.5), ("15", 15.0)])
def test_printed_numbers_are_still_read(tmp_path, value, expected):
    path = _published(tmp_path, [f"toy,Table 1,spambase,rff,test accuracy,{value},,%,"])
    assert published.load(path)["value"].tolist() == [expected]


def test_the_project_report_says_a_published_error_in_one_line(tmp_path, monkeypatch, capsys):
    bad = _published(tmp_path, ["toy,Table 1,spambase,rff,test accuracy,n/a,,%,"])
    monkeypatch.setattr(project, "write", lambda root: published.load(bad))
    with pytest.raises(SystemExit) as stop:
        project.main(["--results", str(tmp_path)])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and f"{bad}, line 4, column value" in err


def test_the_project_report_writes_nothing_when_a_later_paper_is_refused(tmp_path, monkeypatch):
    def records(root, paper):
        if paper.folder == project.PAPERS[-1].folder:
            raise RecordError("damaged")
        return verdicts.normalized(pd.DataFrame([{"paper": paper.folder, "source": "s", "kind": "claim", "cell": "c",
                                                  "verdict": "holds", "evidence": "1 of 1"}]))
    monkeypatch.setattr(project, "paper_records", records)
    with pytest.raises(RecordError):
        project.write(tmp_path)
    assert not list(tmp_path.rglob("*"))


def test_finite_names_the_trial_of_a_frame_and_the_lines_of_a_table():
    frame = pd.DataFrame({"trial": [0, 0, 1], "K": [1, 50, 50], "rms": [0.5, np.nan, 0.1]})
    with pytest.raises(RecordError, match=r"^runs/x, column rms: 'nan' at trial 0 where a number is needed; redo$"):
        numbers.finite(frame, ["K", "rms"], "runs/x", "redo")
    table = pd.DataFrame({"K": range(10), "rms": [np.inf] * 7 + [0.1] * 3})
    with pytest.raises(RecordError, match=r"'inf' at lines \[2, 3, 4, 5, 6, \.\.\.\] \(7 in all\)"):
        numbers.finite(table, ["rms"], "t.csv", "redo")
    assert numbers.finite(frame.fillna(0.2), ["K", "rms"], "runs/x", "redo") is not None


def test_nan_in_the_tutorials_table_is_no_claims_evidence(tmp_path):
    folder = tmp_path / "tutorial"
    folder.mkdir()
    pd.DataFrame({"K": [1, 50, 100], "mean_estimate": [0.6, 0.61, 0.6], "rms_error_vs_stated": [0.5, np.nan, np.nan],
                  "rms_error_vs_limit": [0.4, 0.07, 0.05]}).to_csv(folder / "tutorial.csv", index=False)
    with pytest.raises(RecordError, match=r"tutorial\.csv, column rms_error_vs_stated: 'nan' at lines \[3, 4\]"):
        tutorial_verdicts.tutorial_claims(folder)


def test_a_records_evidence_quoting_nan_is_refused():
    row = {c: "" for c in verdicts.TEXT} | {"paper": "tutorial", "source": "demo", "kind": "claim", "cell": "c",
                                               "verdict": "fails", "evidence": "RMS error: at least nan (a tenth)"}
    with pytest.raises(RecordError, match="quotes a missing number"):
        verdicts.validate(verdicts.normalized(pd.DataFrame([row])))
    verdicts.validate(verdicts.normalized(pd.DataFrame([row | {"evidence": "at least 0.0613 (financial)"}])))


@pytest.mark.parametrize("results", ["nan", "1e3"])
def test_the_tutorial_report_refuses_a_results_tree_hydra_would_read_as_a_number(tmp_path, monkeypatch, capsys,
                                                                                    results):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        tutorial_report.main(["--results", results])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and f"--results {results} is not a directory" in err
    assert not list(tmp_path.iterdir())
