"""The tutorial's verdict records: its two statements, judged on its demo's CSV."""
import re

import numpy as np
import pytest

from rfbench.papers.tutorial import verdicts
from tests.papers.tutorial.helpers import run_tutorial


def test_the_tutorials_claims_are_judged_on_its_csv(tmp_path):
    run_tutorial(tmp_path)
    claims = verdicts.tutorial_claims(tmp_path / "tutorial")
    assert claims["verdict"].tolist() == ["fails", "fails"]
    stated, limit = np.exp(-0.5) / np.sqrt(2 * np.pi), np.exp(-0.5)  # D = x - y = -1
    assert f"{stated:.4f}" in claims["evidence"][0] and f"{limit:.4f}" in claims["evidence"][0]
    # the error against the stated kernel stays near |limit - stated| for every K >= 50
    floor = float(re.search(r"at least ([0-9.]+)", claims["evidence"][1]).group(1))
    assert floor == pytest.approx(limit - stated, abs=0.01)
    records = verdicts.records(tmp_path)
    assert records[["kind", "verdict"]].values.tolist() == [["claim", "fails"], ["claim", "fails"]]


def test_without_its_csv_the_tutorial_has_no_records(tmp_path):
    assert verdicts.records(tmp_path).empty
