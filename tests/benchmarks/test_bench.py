"""Smoke test of the benchmark on tiny sizes: it runs and writes a complete CSV (no timing assertions)."""
from __future__ import annotations

import pandas as pd

from benchmarks import bench


def test_quick_bench_writes_every_section(tmp_path, capsys):
    out = tmp_path / "bench" / "bench.csv"
    bench.main(["--quick", "--repeats", "1", "--out", str(out)])
    table = pd.read_csv(out)
    assert set(table.section) == set(bench.SECTIONS)
    assert table[["load1", "load5", "load15"]].notna().all().all()
    ratios = table.dropna(subset=["ratio"])
    assert (ratios.ratio > 0).all() and ratios.goal.notna().all()
    transform = table[(table.section == "transform") & (table.unit == "features/s")]
    assert len(transform) == 7 and (transform.value > 0).all()  # 5 contenders, 2 bare limits
    rss = table[table.name.str.endswith("peak RSS")]
    assert list(rss.name) == [f"{k} peak RSS" for k in bench.GRAM_KERNELS]
    assert ((rss.value > 0) & (rss.value < 2)).all()  # GiB
    trials = table[table.section == "trials"]  # workers vs serial, and their records compared
    assert len(trials) == 3 and trials.note.str.endswith("records bit-identical: True").sum() == 1
    printed = capsys.readouterr().out
    assert printed.startswith("`python benchmarks/bench.py --quick`")
    assert "| end to end | wall time of the paper make targets | not timed here" in printed
    _check_model_selection(table[table.section == "model_selection"])


def _check_model_selection(table: pd.DataFrame) -> None:
    """The model-selection section: four contenders on one trial, both Newton paths at the tight solve."""
    timed = table[table.seconds.notna()]
    assert len(timed) == 4 and (timed.seconds > 0).all()
    assert timed.note.str.contains(r"C=\S+, test accuracy 0\.\d+, objective gap \S+, \d+\.\d CPU-s").all()
    for note in timed[timed.name.str.contains("newton")].note:  # both Newton paths converge to the tight solve
        assert abs(float(note.split("objective gap ")[1].split(",")[0])) < 1e-6
    assert table.ratio.notna().sum() == 3
    assert bench.classifier.NEWTON_BLOCK == 16  # the per-class contender's setting is undone


def test_median_seconds_calls_repeatedly():
    calls = []
    assert bench.median_seconds(lambda: calls.append(1), 3) >= 0
    assert len(calls) == 3



def test_interleaved_seconds_warms_up_then_alternates():
    calls = []
    times = bench.interleaved_seconds({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, 2)
    assert calls == ["a", "b"] * 3  # one untimed warm-up round, then two timed rounds
    calls.clear()
    bench.interleaved_seconds({"a": lambda: calls.append("a")}, 2, warm_up=False)
    assert calls == ["a", "a"]
    assert {k: len(v) for k, v in times.items()} == {"a": 2, "b": 2}
    assert all(t >= 0 for ts in times.values() for t in ts)


