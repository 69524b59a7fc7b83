import pandas as pd
import pytest

from rfbench import results


def test_write_atomic_leaves_no_temporary_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "trials.csv"
    results.write_atomic(target, "old\n")

    def boom(*_):
        raise KeyboardInterrupt

    monkeypatch.setattr(results.os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        results.write_atomic(target, "new\n")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["trials.csv"]


def test_summarize_matches_pandas_mean_and_sample_std():
    trials = pd.DataFrame({"run_id": ["a"] * 3 + ["b"] * 2,
                           "test_accuracy": [0.9, 0.8, 0.7, 0.5, 0.6],
                           "dataset.name": ["s"] * 5})
    summary = results.summarize(trials).set_index("run_id")
    assert summary.loc["a", "test_accuracy_mean"] == pytest.approx(0.8)
    assert summary.loc["a", "test_accuracy_std"] == pytest.approx(0.1)
    assert summary.loc["b", "test_accuracy_count"] == 2
