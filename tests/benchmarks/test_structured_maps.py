"""Smoke test of the structured-maps benchmark on tiny sizes: every section and contender is in the CSV."""
from __future__ import annotations

import pandas as pd

from benchmarks import structured_maps


def test_quick_run_writes_every_section_contender_and_goal(tmp_path, capsys):
    out = tmp_path / "structured.csv"
    structured_maps.main(["--quick", "--repeats", "1", "--out", str(out)])
    table = pd.read_csv(out)
    assert set(table.section) == {"grid", "sorf_goal", "peers"}
    timed = table[table.seconds.notna()]
    assert (timed.seconds > 0).all() and (timed.peak_mib > 0).all()
    grid = timed[timed.section == "grid"]
    assert len(grid) == 3 * 2 * 2  # 3 contenders at 2 d x 2 D
    peers = set(timed[timed.section == "peers"].name)
    assert {structured_maps.DENSE, structured_maps.FASTFOOD, structured_maps.OURS64, "RBFSampler float64"} <= peers
    extra_found = structured_maps.extra_fastfood()[0] is not None
    assert (structured_maps.EXTRA in peers) == extra_found
    goals = table[table.goal.notna()]
    assert set(goals.name) >= {"dense / SORF time", "SORF / dense Gram error"}
    assert "Gram error dense" in goals[goals.name == "SORF / dense Gram error"].note.iloc[0]
    assert capsys.readouterr().out.startswith("`python -m benchmarks.structured_maps --quick`")
