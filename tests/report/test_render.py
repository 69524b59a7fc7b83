"""Writing comparisons: cells, side-by-side and paper layouts, Markdown with verdicts, the figure."""
import re

import numpy as np
import pandas as pd

from rfbench.report import compare, render


def _table():
    """A compared table as :func:`rfbench.report.verdicts.judged` returns it (its verdicts given here)."""
    pub = pd.DataFrame({"paper": "p", "source": "Table 1", "dataset": ["a", "a", "b"], "method": ["m1", "m2", "m1"],
                        "metric": "test accuracy", "value": [90.0, 91.0, 80.0], "sd": [1.0, 1.0, np.nan],
                        "unit": "%", "note": ""})
    ours = pd.DataFrame({"dataset": ["a", "b", "c"], "method": ["m1", "m1", "m1"], "metric": "test accuracy",
                         "unit": "%", "mean": [90.5, 85.0, 70.0], "sd": [0.5, np.nan, 1.0], "n": [3, 1, 3]})
    return compare.compare(pub, ours).assign(threshold=[2.2, 1.0, np.nan, np.nan],
                                             verdict=["agrees", "not run: not yet", "ours better",
                                                      "no published value"])


def test_cells_say_ours_published_difference_and_verdict():
    cells = _table().set_index(["dataset", "method"])
    assert render.cell_text(cells.loc[("a", "m1")], 2) == "90.50 ± 0.50 (90.00 ± 1.00) [+0.50] agrees"
    assert render.cell_text(cells.loc[("b", "m1")], 1, full=3) == "85.0 (80.0) [+5.0, 1 of 3 trials] ours better"
    assert render.cell_text(cells.loc[("a", "m2")], 2) == "not run: not yet (91.00 ± 1.00)"
    assert render.cell_text(cells.loc[("c", "m1")], 2) == "70.00 ± 1.00 (no published value)"


def test_differences_that_round_to_zero_show_no_minus_sign():
    assert render.signed(-0.0004, 2) == "+0.00"
    assert render.signed(-0.004, 2) == "+0.00"
    assert render.signed(-0.006, 2) == "-0.01"
    assert render.signed(0.0, 3) == "+0.000"
    row = _table().set_index(["dataset", "method"]).loc[("a", "m1")].copy()
    row["difference"] = -1e-9
    assert "[+0.00]" in render.cell_text(row, 2)


def test_markdown_puts_both_sides_next_to_each_other_with_verdicts_and_counts(tmp_path):
    table = _table()
    body = render.side_by_side(table, 2)
    assert body.columns.tolist() == ["source", "dataset", "method", "metric", "ours", "n", "published",
                                     "difference", "verdict"]
    claims = pd.DataFrame({"source": ["Fig. 1"], "dataset": [""], "claim": ["error falls"], "verdict": ["fails"],
                           "evidence": ["1 of 2 curves"]})
    path = render.write_markdown(tmp_path / "t.md", "Paper Table 1",
                                 render.comparison_sections(table, body, "published/p.csv", claims), ["a deviation"])
    md = path.read_text()
    lines = md.splitlines()
    assert lines[0] == "# Paper Table 1"
    row = next(line for line in lines if "| a " in line and "m1" in line)
    assert [c.strip() for c in row.strip("|").split("|")] == [
        "Table 1", "a", "m1", "test accuracy", "90.50 ± 0.50", "3", "90.00 ± 1.00", "+0.50", "agrees"]
    counts = re.findall(r"^\| (agrees|ours better|no published value|not run: not yet|fails) +\| +(\d+) \|$", md,
                        flags=re.M)
    assert counts == [("agrees", "1"), ("ours better", "1"), ("not run: not yet", "1"), ("no published value", "1"),
                      ("fails", "1")]  # cells, then claims
    assert "`published/p.csv` (transcribed from the paper, for comparison only)" in md
    assert "| Fig. 1   |           | error falls | fails     | 1 of 2 curves" in md
    assert md.endswith("## Deviations from the paper's protocol\n\n- a deviation\n")


def test_paper_layout_and_difference_figure(tmp_path):
    table = _table()
    grid = render.layout(table, [("m1",), ("m2",)], ["method"], "dataset", ["a", "b"], 1, labels=["method"])
    assert grid.to_dict("list") == {"method": ["m1", "m2"],
                                    "a": ["90.5 ± 0.5 (90.0 ± 1.0) [+0.5] agrees", "not run: not yet (91.0 ± 1.0)"],
                                    "b": ["85.0 (80.0) [+5.0, 1 of 3 trials] ours better", ""]}
    path = render.difference_figure(table, tmp_path / "d.png", ["dataset", "method"], "differences")
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_a_missing_number_or_text_shows_as_a_dash_and_the_rest_keeps_its_format():
    # the sd of one trial is NaN, an arm not run None: neither is a number a reader should see as "nan"
    table = pd.DataFrame({"sd": [0.012345678, np.nan], "arm": ["+0.50", None], "n": [10, 1]})
    text = render.markdown("t", [("", table)])
    assert "nan" not in text and "None" not in text
    assert "| 0.01235 | +0.50 |  10 |" in text and "| -       | -     |   1 |" in text
