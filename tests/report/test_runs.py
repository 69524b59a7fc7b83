"""Collecting recorded runs for the reports."""
import pandas as pd

from rfbench.report.runs import deviations


def test_deviations_leave_out_an_entry_that_opens_a_longer_one():
    trials = pd.DataFrame({"deviations": [
        "CTG: 25 features; a random split",                        # its CV run
        "CTG: 25 features; a random split; selected on test",      # its test-grid run adds the selection
        "CTG: 25 features; a random split; selected on test",
        "CTG: 25",                                                 # a prefix, but not of whole entries
        "", None]})
    assert deviations(trials) == ["CTG: 25", "CTG: 25 features; a random split; selected on test"]
