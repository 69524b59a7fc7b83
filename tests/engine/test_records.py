import multiprocessing

import pandas as pd
import pytest

from rfbench.engine import atomic, records


def test_write_atomic_leaves_no_temporary_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "trials.csv"
    records.write_atomic(target, "old\n")

    def boom(*_):
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        records.write_atomic(target, "new\n")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["trials.csv"]


def test_summarize_matches_pandas_mean_and_sample_std():
    trials = pd.DataFrame({"run_id": ["a"] * 3 + ["b"] * 2,
                           "test_accuracy": [0.9, 0.8, 0.7, 0.5, 0.6],
                           "dataset.name": ["s"] * 5})
    summary = records.summarize(trials).set_index("run_id")
    assert summary.loc["a", "test_accuracy_mean"] == pytest.approx(0.8)
    assert summary.loc["a", "test_accuracy_std"] == pytest.approx(0.1)
    assert summary.loc["b", "test_accuracy_count"] == 2


def _record_every_fourth(path, start):
    for t in range(start, 40, 4):
        records.record_trial(path, {"trial": t, "writer": start})


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
    records.record_trial(path, {"trial": 1, "value": 0.5})
    records.record_trial(path, {"trial": 0, "value": 0.1})
    trials = records.record_trial(path, {"trial": 1, "value": 0.9})
    assert trials.to_dict("list") == {"trial": [0, 1], "value": [0.1, 0.5]}
    assert records.recorded(path) == {0, 1}
    records.clear_trials(path)
    assert records.recorded(path) == set()


def test_a_claimed_trial_is_busy_for_others_until_released(tmp_path):
    with records.claim(tmp_path, 3) as mine:
        with records.claim(tmp_path, 3, wait=False) as other, records.claim(tmp_path, 4, wait=False) as free:
            assert mine and not other and free
    with records.claim(tmp_path, 3, wait=False) as again:
        assert again


def test_a_row_cut_short_is_not_a_recorded_trial_and_is_repaired(tmp_path, caplog):
    path = tmp_path / "trials.csv"
    for t in range(3):
        records.record_trial(path, {"trial": t, "test_accuracy": 0.5 + t / 10, "gram_error": 0.1})
    whole = path.read_text()
    assert whole.endswith("\n2,0.7,0.1\n")
    path.write_text(whole[:-5])  # cut inside the last row: "2,0.7" lost its Gram error
    assert records.recorded(path) == {0, 1}
    assert not records.read_trials(path).isna().any().any()
    with caplog.at_level("WARNING", logger="rfbench"):
        records.repair_trials(path)
    assert path.read_text() == whole[:whole.rindex("2,")]
    assert "incomplete last line" in caplog.text and "'2,0.7'" in caplog.text
    records.repair_trials(path)  # a whole file is left alone
    assert path.read_text() == whole[:whole.rindex("2,")]


def test_a_file_cut_inside_its_header_holds_no_trials(tmp_path):
    path = tmp_path / "trials.csv"
    path.write_text("trial,test_acc")
    assert records.recorded(path) == set() and records.read_trials(path).empty


def test_run_dir_without_trials_is_removed_unless_in_use(tmp_path):
    run = tmp_path / "runs" / "abc"
    run.mkdir(parents=True)
    (run / "config.yaml").write_text("x: 1\n")
    with records.claim(run, 0):  # another process computing trial 0
        assert not records.remove_if_no_trials(run)
    records.record_trial(run / "trials.csv", {"trial": 1})
    assert not records.remove_if_no_trials(run)
    assert run.is_dir()
    records.clear_trials(run / "trials.csv")
    assert records.remove_if_no_trials(run)
    assert list(tmp_path.joinpath("runs").iterdir()) == []


def test_one_trial_shows_its_mean_without_a_nan_sd():
    summary = records.summarize(pd.DataFrame({"run_id": ["a"], "test_accuracy": [0.91]})).iloc[0]
    assert records.format_mean_sd(summary, "test_accuracy") == "0.9100"
    two = records.summarize(pd.DataFrame({"run_id": ["a", "a"], "test_accuracy": [0.9, 0.8]})).iloc[0]
    assert records.format_mean_sd(two, "test_accuracy") == f"0.8500 +- {0.1 / 2 ** 0.5:.4f}"


def test_where_the_data_came_from_is_not_a_config_column():
    """As in the run id: a URL's pinned hash or a mirror does not split a run into two series."""
    frame = pd.DataFrame(columns=["dataset.name", "dataset.mirror", "dataset.files.data.urls",
                                  "dataset.files.data.sha256", "experiment.trials", "test_accuracy"])
    assert records.config_columns(frame) == ["dataset.name", "dataset.files.data.sha256"]


def test_a_run_id_that_reads_as_a_number_stays_text(tmp_path):
    """Run ids are 12 hex digits: 3425406e1568 (a float's notation) and 012345678901 must survive a resume."""
    path = tmp_path / "trials.csv"
    for run_id in ("3425406e1568", "012345678901"):
        records.record_trial(path, {"run_id": run_id, "trial": 0, "x": 1.0})
        records.record_trial(path, {"run_id": run_id, "trial": 1, "x": 2.0})  # merges with the row read back
        assert records.read_trials(path)["run_id"].tolist() == [run_id, run_id]
        assert path.read_text().count(run_id) == 2
        path.unlink()
