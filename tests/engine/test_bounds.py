"""Bounded work (issue 48 points 3 and 6): every count is checked against what can run before anything is
allocated for it, the refusal naming the key (exit 2, nothing written), and more campaign workers than cores
only when asked for by name."""
import logging
import os

import pytest

from rfbench.engine import config, launch
from tests.engine.test_config import compose_cfg
from tests.engine.test_launch import _refusal, _sweeper
from tests.test_hostile_input import assert_refused, rfbench


@pytest.mark.parametrize("key", ["experiment.blas_threads", "classifier.n_jobs"])
def test_threads_beyond_the_cores_are_refused_naming_the_key(monkeypatch, key):
    """blas_threads=1e9 started the run, then blamed the classifier's memory (its CV threads' Hessians)."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    config.validate(compose_cfg(f"{key}=2"))  # the cores themselves are accepted
    with pytest.raises(config.ConfigError) as err:
        config.validate(compose_cfg(f"{key}=3"))
    assert str(err.value).startswith(f"{key}=3 is invalid: an integer >= 1, or null for ")
    assert "at most 2, the cores a job may use" in str(err.value)


def _to_run(tmp_path):
    """Statuses of the sweeper's jobs a=1, a=2, a=3: all three to run."""
    return lambda job: {"job": job, "run_dir": tmp_path, "seconds": 1.0, "complete": False}


def test_workers_asked_for_by_name_are_given_beyond_the_cores_and_the_log_says_so(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    sweeper = _sweeper(tmp_path, monkeypatch, _to_run(tmp_path))
    sweeper.workers = 3
    with caplog.at_level(logging.WARNING, logger=launch.__name__):
        sweeper.sweep([])
    assert sweeper.launcher.joblib["n_jobs"] == 3
    assert "3 joblib workers on 2 core(s), as --workers 3 asks: they share the cores" in caplog.text


def test_workers_asked_for_are_still_capped_at_the_jobs_to_run(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    sweeper = _sweeper(tmp_path, monkeypatch, _to_run(tmp_path))
    sweeper.workers = 10**6  # not a million processes for three jobs
    sweeper.sweep([])
    assert sweeper.launcher.joblib["n_jobs"] == 3


def test_n_jobs_is_capped_at_the_cores_and_the_log_names_the_opt_out(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    sweeper = _sweeper(tmp_path, monkeypatch, _to_run(tmp_path), n_jobs=12)
    with caplog.at_level(logging.INFO, logger=launch.__name__):
        sweeper.sweep([])
    assert sweeper.launcher.joblib["n_jobs"] == 2
    assert "2 joblib worker(s), not 12: 2 core(s), 3 job(s) to run (rfbench-campaign --workers 12 runs that many" \
        in caplog.text


def test_the_dry_runs_workers_only_estimate(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    sweeper = _sweeper(tmp_path, monkeypatch, _to_run(tmp_path))
    sweeper.workers, sweeper.dry_run = 3, True
    sweeper.sweep([])
    assert sweeper.launcher.joblib["n_jobs"] == 2
    assert "list schedule on 3 worker(s)" in capsys.readouterr().out


def test_workers_on_a_launcher_without_joblib_workers_are_refused(tmp_path, monkeypatch, capsys):
    sweeper = _sweeper(tmp_path, monkeypatch, _to_run(tmp_path))
    sweeper.launcher.joblib, sweeper.workers = None, 4  # slurm, ray: their own settings say how many at once
    assert _refusal(sweeper, capsys) == ("rfbench-campaign: error: --workers 4 sets the joblib launcher's workers: "
                                         "give it with --launcher joblib, or --dry-run for the estimate on that many\n")


@pytest.mark.slow
@pytest.mark.parametrize("override, says", [
    ("experiment.blas_threads=1000000000", "experiment.blas_threads=1000000000 is invalid: an integer >= 1"),
    ("experiment.n_gram=1000000000000", "experiment.n_gram=1000000000000 is invalid: dataset spambase has only "
                                        "2760 training points; choose 0 <= n_gram <= 2760"),
    ("feature_map.m_over_d=1e12", "feature_map.m_over_d=1000000000000.0 is invalid (M = 57000000000000 on d=57"),
    ("feature_map.n_components=1000000000000", "feature_map.n_components=1000000000000 is invalid (M = "),
])
def test_a_huge_count_is_one_line_naming_its_key_and_writes_nothing(tmp_path, override, says):
    assert_refused(rfbench(tmp_path, override), "rfbench", says)
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("value", ["0", "3", "1000000", "-3", "many"])
def test_a_sweeps_n_jobs_beyond_its_jobs_or_giving_no_worker_is_refused(monkeypatch, value):
    """hydra.launcher.n_jobs=10**6 on a plain sweep: joblib's pool starts every worker at once."""
    from rfbench.engine.preflight import check_command_line

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    with pytest.raises(config.ConfigError) as err:
        check_command_line(["-m", "hydra/launcher=joblib", f"hydra.launcher.n_jobs={value}",
                            "feature_map.m_over_d=1,2"], config.CONFIG_DIR)
    assert str(err.value) == (f"hydra.launcher.n_jobs={value} is invalid: an integer from 1 to the sweep's 2 job(s), "
                              "or -k for all 2 cores but k - 1 (-1: all, -2: one)")


@pytest.mark.parametrize("value", ["2", "-1"])
def test_a_sweeps_n_jobs_up_to_its_jobs_is_accepted_even_beyond_the_cores(monkeypatch, value):
    from rfbench.engine.preflight import check_command_line

    monkeypatch.setattr(os, "cpu_count", lambda: 1)  # 2 workers on 1 core: asked for, so given
    check_command_line(["-m", "hydra/launcher=joblib", f"hydra.launcher.n_jobs={value}", "feature_map.m_over_d=1,2",
                        "experiment.trials=1"], config.CONFIG_DIR)
