"""Loading and validating a paper's published-values CSV."""
import re

import numpy as np
import pytest

from rfbench.report import published
from rfbench.report.published import PublishedError

HEADER = "# PUBLISHED VALUES, for comparison only\npaper,source,dataset,method,s,metric,value,sd,unit,note\n"


def _write(tmp_path, rows: str, header: str = HEADER):
    path = tmp_path / "paper.csv"
    path.write_text(header + rows)
    return path


def test_a_valid_file_loads_with_numbers_as_floats_and_keys_as_text(tmp_path):
    path = _write(tmp_path, "qmc,Table 1,cpu,Halton,100,relative error,0.0304,,fraction,\n"
                            "qmc,Table 1,cpu,MC,100,relative error,0.0326,0.0012,fraction,# of trials: 10\n"
                            "\n"
                            "# a comment line between rows\n"
                            "qmc,Fig. 2,,gram_error_falls,,claim,,,,error falls with s\n")
    table = published.load(path)
    assert published.key_columns(table) == ["dataset", "method", "s"]
    assert table["value"].iloc[0] == 0.0304 and np.isnan(table["sd"].iloc[0]) and table["sd"].iloc[1] == 0.0012
    assert table["s"].tolist() == ["100", "100", ""]
    assert table["note"].iloc[1] == "# of trials: 10"  # only whole lines are comments


@pytest.mark.parametrize("row, message", [
    ("qmc,Table 1,cpu,MC,100,relative error,0.03x,,fraction,\n",
     "line 3, column value: '0.03x' is not a number"),
    ("qmc,Table 1,cpu,MC,100,rel error,0.03,,fraction,\n",
     "line 3, column metric: 'rel error' is not known; valid: ['box discrepancy', 'gram error', 'relative error', "
     "'test accuracy', 'test error', 'time', 'claim']"),
    ("qmc,Table 1,cpu,MC,100,relative error,0.03,,percent,\n",
     "line 3, column unit: 'percent' is not known; valid: ['fraction', '%', 's']"),
    ("qmc,Table 1,cpu,MC,100,relative error,,,fraction,\n", "line 3, column value: blank"),
    ("qmc,Table 1,cpu,MC,100,relative error,0.03,-0.1,fraction,\n", "line 3, column sd: -0.1 is negative"),
    ("qmc,,cpu,MC,100,relative error,0.03,,fraction,\n", "line 3: columns paper and source must not be blank"),
    ("qmc,Fig. 2,,falls,,claim,1.0,,,error falls\n", "line 3: a claim names its check in column method"),
])
def test_a_bad_row_is_named_by_file_line_and_column(tmp_path, row, message):
    path = _write(tmp_path, row)
    with pytest.raises(PublishedError, match=re.escape(f"{path}, {message}")):
        published.load(path)


def test_a_missing_column_a_repeated_cell_and_two_papers_are_refused(tmp_path):
    path = _write(tmp_path, "qmc,Table 1,cpu,MC,0.03,,fraction,\n",
                  header="paper,source,dataset,method,metric,value,sd,unit\n")
    with pytest.raises(PublishedError, match=re.escape(f"{path}: missing column(s) ['note']")):
        published.load(path)
    row = "qmc,Table 1,cpu,MC,100,relative error,0.03,,fraction,\n"
    path = _write(tmp_path, row + "qmc,Table 1,cpu,MC,200,relative error,0.03,,fraction,\n" + row)
    with pytest.raises(PublishedError, match=re.escape(f"{path}, lines [3, 5]: the same")):
        published.load(path)
    path = _write(tmp_path, row + "li,Table 1,cpu,MC,200,relative error,0.03,,fraction,\n")
    with pytest.raises(PublishedError, match=r"column paper: one paper per file, found \['li', 'qmc'\]"):
        published.load(path)


def test_every_packaged_file_is_valid_and_says_its_values_are_published():
    for path in published.path_of("askrff").parent.glob("*.csv"):
        assert path.read_text().startswith("# PUBLISHED VALUES")
        assert len(published.load(path))


def test_sd_trials_reads_each_sources_cited_number_of_trials(tmp_path):
    path = tmp_path / "published.csv"
    path.write_text('# sd trials: Table 1 = 10: "over 10 trials" (Table 1 caption)\n'
                    "paper,source,dataset,method,metric,value,sd,unit,note\n")
    assert published.sd_trials(path) == {"Table 1": 10}
    path.write_text("# sd trials: Table 1 = 10\n" + path.read_text().split("\n", 1)[1])  # no citation
    with pytest.raises(published.PublishedError, match="line 1"):
        published.sd_trials(path)


def test_every_paper_with_a_printed_sd_cites_its_trials():
    for paper in ("askrff", "qmc", "li", "rr"):
        table = published.load(published.path_of(paper))
        with_sd = set(table.loc[table["sd"].notna(), "source"])
        assert with_sd <= set(published.sd_trials(published.path_of(paper))), paper
