"""The trial runner: failures and progress (on real, mirrored spambase)."""
import errno
import os
import re

import pytest
from hydra import compose, initialize_config_dir

from rfbench.engine import config, progress, records, runner
from tests.conftest import REPO


def compose_cfg(results_dir, *overrides: str) -> dict:
    with initialize_config_dir(str(REPO / "configs"), version_base="1.3"):
        return config.to_dict(compose("config", overrides=[
            f"experiment.results_dir={results_dir}", "experiment.trials=2", "experiment.n_gram=100",
            "classifier=none", *overrides]))


def failing_after(n_trials: int, error: BaseException):
    """A stand-in for ``runner._trial`` that completes ``n_trials`` trials, then raises."""
    real, calls = runner._trial, []

    def trial(*args):
        calls.append(1)
        if len(calls) > n_trials:
            raise error
        return real(*args)
    return trial


@pytest.mark.parametrize("error", [RuntimeError("a bug"), KeyboardInterrupt()])
def test_a_run_failing_before_its_first_trial_leaves_no_run_dir(tmp_path, monkeypatch, error):
    cfg = compose_cfg(tmp_path)
    monkeypatch.setattr(runner, "_trial", failing_after(0, error))
    with pytest.raises(type(error)):
        runner.run(cfg)
    assert list(tmp_path.iterdir()) == []  # nor the folders made for it


@pytest.mark.parametrize("error", [RuntimeError("a bug"), KeyboardInterrupt()])
def test_a_run_failing_before_its_first_trial_keeps_a_folder_it_found(tmp_path, monkeypatch, error):
    """A run folder that was there before (a committed config-only placeholder of a run still to compute) keeps
    its config.yaml byte for byte when the run fails before its first trial: the run removes only what it made."""
    cfg = compose_cfg(tmp_path)
    out = records.run_dir(cfg)
    out.mkdir(parents=True)
    records.write_config(out, cfg)
    placeholder = (out / records.CONFIG).read_bytes()
    monkeypatch.setattr(runner, "_trial", failing_after(0, error))
    with pytest.raises(type(error)):
        runner.run(cfg)
    assert (out / records.CONFIG).read_bytes() == placeholder
    assert not records.recorded(out / "trials.csv")


def test_a_run_failing_after_a_trial_keeps_it(tmp_path, monkeypatch):
    cfg = compose_cfg(tmp_path)
    monkeypatch.setattr(runner, "_trial", failing_after(1, RuntimeError("a bug")))
    with pytest.raises(RuntimeError):
        runner.run(cfg)
    assert records.recorded(records.run_dir(cfg) / "trials.csv") == {0}


def test_the_model_selection_reports_its_fits(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(progress, "FIT_LOG_INTERVAL", 0.0)  # a line per fit
    cfg = compose_cfg(tmp_path, "classifier=liblinear", "classifier.log2_C=[-1,0,1]", "classifier.cv=2",
                      "experiment.trials=1")
    with caplog.at_level("INFO", logger="rfbench"):
        runner.run(cfg)
    found = [re.search(r"selection (\d+)/(\d+) fits", r.getMessage()) for r in caplog.records]
    fits = [tuple(map(int, match.groups())) for match in found if match]  # (the model's path line names none)
    total = 3 * 2 + 1  # each C on each fold, then the refit (the classifier may report several at once)
    assert fits[-1] == (total, total) and {t for _, t in fits} == {total}
    assert [done for done, _ in fits] == sorted({done for done, _ in fits})  # rising


def test_features_too_wide_for_the_dense_newton_path_take_the_iterative_one_and_say_so(tmp_path, monkeypatch):
    """Known only once the features exist: each trial's row records the path (``model_path``)."""
    from rfbench.model import liblinear as classifier
    monkeypatch.setattr(classifier, "MAX_NEWTON_FEATURES", 100)  # rff at M = 2d: 228 columns
    cfg = compose_cfg(tmp_path, "classifier=liblinear", "experiment.n_gram=0", "classifier.log2_C=[0]")
    trials = runner.run(cfg)
    (path,) = set(trials["model_path"])
    assert path.startswith("newton iterative: LibLinear -s 2 -e 1e-06") and len(trials) == 2


@pytest.mark.slow
@pytest.mark.parametrize("kernel, dataset", [(k, "letter") for k in (
    "gaussian", "linear", "shift_gaussian", "sinh_gaussian", "cosh_gaussian", "laplacian", "gmm", "cosine_rbf")]
    + [("gmm", "letter_li")])
def test_every_kernels_natural_command_runs_with_the_default_model(tmp_path, monkeypatch, kernel, dataset):
    """`rfbench kernel=<k> dataset=<d>` with the default model (classifier=liblinear, solver=newton), reduced:
    2 trials, 2 folds, 2 values of C, 1,500 letter rows (letter_li's files: 8 GCWS samples); the dense
    path's width capped at 1,024 so that the wide sparse codes take the iterative path, as at full size."""
    from rfbench.model import liblinear as classifier
    monkeypatch.setattr(classifier, "MAX_NEWTON_FEATURES", 1024)
    small = (["dataset.split.n_train=1500", "dataset.split.n_test=500"] if dataset == "letter"
             else ["feature_map.n_components=8"])
    trials = runner.run(compose_cfg(tmp_path, f"kernel={kernel}", f"dataset={dataset}", "classifier=liblinear",
                                    "classifier.cv=2", "classifier.log2_C=[0,5]", *small))
    assert list(trials["trial"]) == [0, 1] and (trials["test_accuracy"] > 1 / 26).all()
    wide = kernel in ("laplacian", "gmm") and dataset == "letter"
    assert set(trials["model_path"].str.split(":").str[0]) == {"newton iterative" if wide else "newton dense"}


def test_the_config_is_written_once_when_the_run_starts(tmp_path):
    """A resume, with nothing or with trials to do, keeps the recorded config: execution keys (here
    blas_threads, as a launcher sets it, and trials) change with the execution, not the results."""
    runner.run(compose_cfg(tmp_path, "experiment.trials=1", "experiment.blas_threads=1"))
    (recorded,) = tmp_path.rglob("config.yaml")
    before = recorded.read_text()
    runner.run(compose_cfg(tmp_path, "experiment.trials=1", "experiment.blas_threads=2"))
    assert recorded.read_text() == before and "blas_threads: 1" in before
    trials = runner.run(compose_cfg(tmp_path, "experiment.trials=2", "experiment.blas_threads=2"))  # a trial to do
    assert recorded.read_text() == before and list(trials["trial"]) == [0, 1]


def test_without_a_model_time_transform_still_times_the_training_features(tmp_path):
    """experiment.time_transform: the map's cost on the training set (spambase: 2,760 rows x 228
    float32 columns = 2.4 MiB, its peak traced memory at least that) with classifier=none, and the
    same run id as without it (an execution setting)."""
    plain = runner.run(compose_cfg(tmp_path / "a", "experiment.trials=1"))
    timed = runner.run(compose_cfg(tmp_path / "b", "experiment.trials=1", "experiment.time_transform=true"))
    assert "time_transform" not in plain and plain["run_id"].item() == timed["run_id"].item()
    row = timed.iloc[0]
    assert row["n_features"] == 228 and row["time_transform"] > 0 and row["memory_fit"] >= 0
    assert 2760 * 228 * 4 / 2**20 <= row["memory_transform"] < 100


@pytest.mark.parametrize(("code", "says"), [(errno.EROFS, "the file system is read-only"),
                                            (errno.ENOSPC, "the file system is full")])
def test_a_results_tree_that_refuses_writes_ends_the_run_in_one_line_records_intact(tmp_path, monkeypatch, code, says):
    """Read-only (even with nothing to do: the resume takes its locks) or full: a MachineFault naming the path
    and the fix, the recorded trial kept, nothing half-written (issue 48)."""
    cfg = compose_cfg(tmp_path, "experiment.trials=1")
    runner.run(cfg)
    run = records.run_dir(cfg)
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}

    real_open = os.open

    def refuse(path, flags, *args, **kwargs):  # every opening for writing: the locks, a resume's first write
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(code, os.strerror(code), str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(records.MachineFault, match=rf"cannot use {run}/\S+: {says} .*rerun the same command to resume"):
        runner.run(compose_cfg(tmp_path, "experiment.trials=2"))
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before
