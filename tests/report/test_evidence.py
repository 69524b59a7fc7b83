"""The evidence of an explained cell: the cited record's row for the cell, read when the verdicts are made."""
from __future__ import annotations

import pandas as pd
import pytest

from rfbench.engine.records import RecordError
from rfbench.report import evidence, verdicts
from rfbench.report.verdicts import EXPLAINED, UNEXPLAINED, Cause, Rules

CAUSE = EXPLAINED + "the sweep (`make qmc-table1-protocol`; record: qmc/study/arms.csv; runs a1)"


@pytest.fixture
def root(tmp_path):
    (tmp_path / "qmc" / "study").mkdir(parents=True)
    pd.DataFrame({"method": ["mc", "halton", "halton"], "s": [100, 100, 500], "published": [0.04, 0.0367, 0.03],
                  "low": [0.01, 0.0347, 0.02], "high": [0.05, 0.0831, 0.04], "reached": [True, True, False],
                  "note": ["", "file order", ""], "runs": ["a1", "a1", "a1"]}).to_csv(
        tmp_path / "qmc" / "study" / "arms.csv", index=False)
    return tmp_path


def _cell(**values) -> pd.Series:
    return pd.Series({"source": "Table 1", "dataset": "cpu", "method": "halton", "s": 100.0, "mean": 0.0346,
                      "published": 0.0367} | values)


def test_the_cited_records_row_for_the_cell_is_quoted(root):
    """Keys match by value (s 100.0 is 100), run ids and blank values are left out, numbers to 5 digits."""
    said = evidence.quoted(["qmc/study/arms.csv"], _cell(), root)
    assert said == ("qmc/study/arms.csv (method halton, s 100): published = 0.0367; low = 0.0347; high = 0.0831; "
                    "reached = True; note = file order")
    assert evidence.quotes(said, ["qmc/study/arms.csv"])
    assert not evidence.quotes(said, ["qmc/study/other.csv"])


def test_no_row_or_no_csv_quotes_nothing(root):
    assert evidence.quoted(["qmc/study/arms.csv"], _cell(method="sobol"), root) == ""  # no row for the cell
    assert evidence.quoted(["qmc/study/arms.csv"], _cell(s=float("nan")), root) == ""  # two halton rows: no one
    assert evidence.quoted(["qmc/study/gone.csv", "qmc/study"], _cell(), root) == ""  # absent, a folder


def test_a_cited_run_picks_its_row_among_several(tmp_path):
    (tmp_path / "askrff" / "liblinear").mkdir(parents=True)
    pd.DataFrame({"dataset": ["letter", "letter"], "solver": ["dual", "primal"], "accuracy": [71.5, 72.25],
                  "run_id": ["r1", "r2"]}).to_csv(tmp_path / "askrff" / "liblinear" / "liblinear.csv", index=False)
    cited = ["askrff/liblinear/runs/r2", "askrff/liblinear/liblinear.csv"]
    assert evidence.quoted(cited, _cell(dataset="letter", method="linear"), tmp_path) == \
        "askrff/liblinear/liblinear.csv (dataset letter): solver = primal; accuracy = 72.25"


def _records(cause, root) -> pd.DataFrame:
    table = pd.DataFrame([{"source": "Table 1", "dataset": "spambase", "method": "linear", "approximation": "Linear",
                           "metric": "test accuracy", "unit": "%", "mean": 93.0, "sd": 0.1, "n": 10,
                           "published": 90.261, "published_sd": 0.12, "note": "train 3,000"}])
    rules = Rules(label=lambda row: f"{row['dataset']} {row['method']}", cause=lambda row: cause)
    return verdicts.cell_records(table, "askrff", rules, root)


def test_an_explained_cell_carries_its_records_numbers_after_its_note(tmp_path):
    (tmp_path / "askrff" / "seeds").mkdir(parents=True)
    pd.DataFrame({"method": ["linear"], "approximation": ["Linear"], "min": [89.6], "max": [90.9],
                  "paper": [90.261], "within 2 sd": [True]}).to_csv(tmp_path / "askrff" / "seeds" / "seeds.csv",
                                                                       index=False)
    record = _records(EXPLAINED + "the seeds (record: askrff/seeds/seeds.csv)", tmp_path).iloc[0]
    assert record["evidence"] == ("train 3,000. askrff/seeds/seeds.csv (method linear, approximation Linear): "
                                  "min = 89.6; max = 90.9; paper = 90.261; within 2 sd = True")
    verdicts.validate(verdicts.normalized(pd.DataFrame([record])))
    given = Cause(EXPLAINED + "the sweep (record: askrff/seeds/seeds.csv)", "askrff/seeds/seeds.csv (2 rows): 1 to 2")
    record = _records(given, tmp_path).iloc[0]
    assert (record["cause"], record["evidence"]) == (given, "train 3,000. " + given.evidence)
    assert type(record["cause"]) is str  # the record holds its text
    assert _records(UNEXPLAINED, tmp_path).iloc[0]["evidence"] == "train 3,000"


def test_an_explained_cause_without_its_records_numbers_is_refused(tmp_path):
    """Empty evidence, a note only, or a cause citing only a make target: refused when the records are written."""
    (tmp_path / "askrff" / "seeds").mkdir(parents=True)
    pd.DataFrame({"method": ["rbf"], "min": [1.0]}).to_csv(tmp_path / "askrff" / "seeds" / "seeds.csv", index=False)
    for cause in (EXPLAINED + "the seeds (record: askrff/seeds/seeds.csv)",  # the record has no row for the cell
                  EXPLAINED + "the seeds, `make askrff-split-seeds`"):  # nothing to read numbers from
        frame = _records(cause, tmp_path)
        assert frame.iloc[0]["evidence"] == "train 3,000"
        with pytest.raises(RecordError, match="quotes none of the records it cites"):
            verdicts.write(tmp_path / "askrff", frame)
        assert not (tmp_path / "askrff" / verdicts.FILE).exists()
    row = {c: "" for c in verdicts.COLUMNS} | {"paper": "qmc", "source": "Table 1", "kind": "cell", "cell": "cpu mc",
                                                  "verdict": "lower", "cause": CAUSE, "evidence": "", "threshold": 0.5}
    cited = r"quotes none of the records it cites \(\['qmc/study/arms.csv'\]\)"
    with pytest.raises(RecordError, match=rf"'cpu mc'.*{cited}"):
        verdicts.validate(verdicts.normalized(pd.DataFrame([row])))
