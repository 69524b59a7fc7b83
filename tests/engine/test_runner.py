"""The trial runner: failures and progress (on real, mirrored spambase)."""
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
    lines = [r.getMessage() for r in caplog.records if "model selection" in r.getMessage()]
    fits = [tuple(map(int, re.search(r"selection (\d+)/(\d+) fits", line).groups())) for line in lines]
    total = 3 * 2 + 1  # each C on each fold, then the refit (the classifier may report several at once)
    assert fits[-1] == (total, total) and {t for _, t in fits} == {total}
    assert [done for done, _ in fits] == sorted({done for done, _ in fits})  # rising


def test_features_too_wide_for_the_newton_solver_are_a_config_error(tmp_path, monkeypatch):
    """Known only once the features exist; still `rfbench: error:` (ConfigError), not a traceback."""
    from rfbench.model import liblinear as classifier
    monkeypatch.setattr(classifier, "MAX_NEWTON_FEATURES", 100)  # rff at M = 2d: 228 columns
    cfg = compose_cfg(tmp_path, "classifier=liblinear", "experiment.n_gram=0", "classifier.log2_C=[0]")
    with pytest.raises(config.ConfigError, match=r"classifier.solver='newton' forms .* p=228 .* use a LibLinear"):
        runner.run(cfg)
    assert list(tmp_path.iterdir()) == []


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
