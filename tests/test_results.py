import multiprocessing

import pandas as pd
import pytest

from rfbench import atomic, results


def test_write_atomic_leaves_no_temporary_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "trials.csv"
    results.write_atomic(target, "old\n")

    def boom(*_):
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "replace", boom)
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


def _record_every_fourth(path, start):
    for t in range(start, 40, 4):
        results.record_trial(path, {"trial": t, "writer": start})


def test_concurrent_writers_keep_each_others_rows(tmp_path):
    path = tmp_path / "trials.csv"
    workers = [multiprocessing.get_context("fork").Process(target=_record_every_fourth, args=(path, i))
               for i in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    trials = pd.read_csv(path)
    assert list(trials["trial"]) == list(range(40))
    assert list(trials["writer"]) == [t % 4 for t in range(40)]


def test_first_recorded_row_of_a_trial_wins_and_clear_forgets_all(tmp_path):
    path = tmp_path / "trials.csv"
    results.record_trial(path, {"trial": 1, "value": 0.5})
    results.record_trial(path, {"trial": 0, "value": 0.1})
    trials = results.record_trial(path, {"trial": 1, "value": 0.9})
    assert trials.to_dict("list") == {"trial": [0, 1], "value": [0.1, 0.5]}
    assert results.recorded(path) == {0, 1}
    results.clear_trials(path)
    assert results.recorded(path) == set()


def test_a_claimed_trial_is_busy_for_others_until_released(tmp_path):
    with results.claim(tmp_path, 3) as mine:
        with results.claim(tmp_path, 3, wait=False) as other, results.claim(tmp_path, 4, wait=False) as free:
            assert mine and not other and free
    with results.claim(tmp_path, 3, wait=False) as again:
        assert again
