"""The trial runner's handling of failures (on real, mirrored spambase)."""
import pytest
from hydra import compose, initialize_config_dir

from rfbench import config, experiment, results
from tests.conftest import REPO


def compose_cfg(results_dir, *overrides: str) -> dict:
    with initialize_config_dir(str(REPO / "configs"), version_base="1.3"):
        return config.to_dict(compose("config", overrides=[
            f"experiment.results_dir={results_dir}", "experiment.trials=2", "experiment.n_gram=100",
            "classifier=none", *overrides]))


def failing_after(n_trials: int, error: BaseException):
    """A stand-in for ``experiment._trial`` that completes ``n_trials`` trials, then raises."""
    real, calls = experiment._trial, []

    def trial(*args):
        calls.append(1)
        if len(calls) > n_trials:
            raise error
        return real(*args)
    return trial


@pytest.mark.parametrize("error", [RuntimeError("a bug"), KeyboardInterrupt()])
def test_a_run_failing_before_its_first_trial_leaves_no_run_dir(tmp_path, monkeypatch, error):
    cfg = compose_cfg(tmp_path)
    monkeypatch.setattr(experiment, "_trial", failing_after(0, error))
    with pytest.raises(type(error)):
        experiment.run(cfg)
    assert not results.run_dir(cfg).exists()
    assert list((tmp_path / "default" / "runs").iterdir()) == []


def test_a_run_failing_after_a_trial_keeps_it(tmp_path, monkeypatch):
    cfg = compose_cfg(tmp_path)
    monkeypatch.setattr(experiment, "_trial", failing_after(1, RuntimeError("a bug")))
    with pytest.raises(RuntimeError):
        experiment.run(cfg)
    assert results.recorded(results.run_dir(cfg) / "trials.csv") == {0}
