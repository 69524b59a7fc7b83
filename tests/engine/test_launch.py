"""rfbench-campaign: one launch per target, resume, and exactly-once under a kill, on joblib and Ray."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from rfbench.engine import records
from tests.conftest import REPO
from tests.engine.conftest import RAY_ENV

pytestmark = pytest.mark.slow

SMALL = ["--", "experiment.trials=3", "experiment.n_gram=200", "classifier.log2_C=[0]"]
METRICS = ["gram_error", "test_accuracy", "C"]


def campaign(results: Path, *args: str, env: dict | None = None, **popen) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "rfbench.engine.launch", "example", "m_sweep", "--results", str(results), *args]
    return subprocess.Popen(cmd, cwd=REPO, env={**os.environ, **(env or {})}, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, **popen)


def finished(proc: subprocess.Popen) -> str:
    out, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, out[-3000:]
    return out


def trials(results: Path) -> pd.DataFrame:
    return records.collect(results / "sweep_m").set_index(["run_id", "trial"]).sort_index()


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """The example campaign run once on joblib, uninterrupted: 4 runs x 3 trials."""
    results = tmp_path_factory.mktemp("whole")
    out = finished(campaign(results, *SMALL))
    assert "4 job(s), 0 complete, 4 to run" in out
    return results, trials(results)


def test_a_campaign_records_every_trial_and_a_rerun_has_nothing_to_do(whole):
    results, first = whole
    assert len(first) == 12 and sorted(first["feature_map.m_over_d"].unique()) == [1, 2, 4, 8]
    out = finished(campaign(results, *SMALL))
    assert "campaign example m_sweep: all 4 job(s) complete, nothing to run" in out
    assert "no completed job" not in out  # the line above says it once
    pd.testing.assert_frame_equal(trials(results), first)


def test_a_dry_run_lists_the_jobs_longest_first_and_writes_nothing(whole, tmp_path):
    results, first = whole
    out = finished(campaign(results, "--dry-run", *SMALL[:1], "experiment.trials=4", *SMALL[2:]))
    listed = [line for line in out.splitlines() if "feature_map.m_over_d=" in line]
    # longest first by the recorded seconds of a trial (the sum of its time_* columns, mean over trials)
    seconds = first.filter(like="time_").sum(axis=1).groupby(first["feature_map.m_over_d"]).mean()
    order = [float(line.split("feature_map.m_over_d=")[1].split()[0]) for line in listed]
    assert len(listed) == 4 and order == sorted(seconds.index, key=lambda m: -seconds[m])
    pd.testing.assert_frame_equal(trials(results), first)


def test_a_killed_campaign_resumes_with_every_trial_once_and_the_same_numbers(whole, tmp_path):
    proc = campaign(tmp_path, *SMALL, start_new_session=True)
    deadline = time.time() + 300
    while not any(len(records.read_trials(p)) for p in records.record_paths(tmp_path, "**/runs/*/trials.csv")):
        assert proc.poll() is None and time.time() < deadline, proc.stdout.read()[-3000:]
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert len(trials(tmp_path)) < 12  # killed midway
    finished(campaign(tmp_path, *SMALL))
    resumed = trials(tmp_path)
    assert not resumed.index.duplicated().any()
    pd.testing.assert_frame_equal(resumed[METRICS], whole[1][METRICS])


@pytest.mark.parametrize("to", ["the campaign alone", "its process group"])
def test_a_sigint_ends_the_campaign_its_jobs_and_their_workers_in_one_line(tmp_path, to):
    """kill -INT of rfbench-campaign alone used to end it and leave its subprocess and that one's joblib workers
    computing, orphaned; a terminal's Ctrl-C (the whole group) must not reach the jobs twice either."""
    proc = campaign(tmp_path, "--", "experiment.trials=80", *SMALL[2:], start_new_session=True)
    deadline = time.time() + 300
    while not any(len(records.read_trials(p)) for p in records.record_paths(tmp_path, "**/runs/*/trials.csv")):
        assert proc.poll() is None and time.time() < deadline, proc.stdout.read()[-3000:]
        time.sleep(0.2)
    if to == "the campaign alone":
        proc.send_signal(signal.SIGINT)
    else:
        os.killpg(proc.pid, signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out[-3000:]
    assert "interrupted" in out and "rerun the same command to resume" in out and "Traceback" not in out, out
    deadline = time.time() + 30
    while _group_alive(proc.pid):  # the jobs' subprocess and its workers end with it
        assert time.time() < deadline, subprocess.run(["ps", "-o", "pid,args", "-g", str(proc.pid)],
                                                      capture_output=True, text=True).stdout
        time.sleep(0.2)
    out = finished(campaign(tmp_path, "--dry-run", "--", "experiment.trials=80", *SMALL[2:]))
    assert "4 job(s)" in out and "to run" in out


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_same_campaign_on_a_ray_cluster_on_loopback_gives_the_same_numbers(whole, tmp_path, ray_head):
    finished(campaign(tmp_path, "--launcher", "ray_cluster", *SMALL, f"hydra.launcher.ray.init.address={ray_head}",
                      env=RAY_ENV))
    pd.testing.assert_frame_equal(trials(tmp_path)[METRICS], whole[1][METRICS])


def test_a_killed_joblib_worker_ends_the_campaign_in_one_line_with_the_jobs_done(tmp_path, monkeypatch):
    """joblib's TerminatedWorkerError (a worker SIGKILLed, as by the OOM killer) becomes WorkerKilled: one line
    with the signal, the jobs complete of those launched and how to resume; no traceback (issue 48)."""
    from joblib.externals.loky.process_executor import TerminatedWorkerError
    from omegaconf import OmegaConf

    from rfbench.engine import campaign as campaign_
    from rfbench.engine import interrupt, launch

    complete = {("a=1",)}

    class KilledWorker:
        def launch(self, jobs, initial_job_idx):
            complete.add(("a=2",))  # one job finished before the kill
            raise TerminatedWorkerError("A worker process managed by the executor was unexpectedly terminated. "
                                        "The exit codes of the workers are {SIGKILL(-9)}")

    sweeper = launch.CampaignSweeper("p", "t")
    sweeper.config, sweeper.launcher = OmegaConf.create({"hydra": {"sweep": {"dir": str(tmp_path)}}}), KilledWorker()
    monkeypatch.setattr(campaign_, "plan", lambda paper, target, extra: campaign_.Plan(
        paper, target, jobs=[["a=1"], ["a=2"], ["a=3"]]))
    monkeypatch.setattr(sweeper, "_status", lambda job: {"job": job, "run_dir": tmp_path, "seconds": 1.0,
                                                         "complete": tuple(job) in complete})
    with pytest.raises(interrupt.WorkerKilled) as killed:
        sweeper.sweep([])
    assert interrupt.message(killed.value) == ("a campaign job's worker was killed (signal 9; out of memory?) after "
                                               "1 of 2 jobs; rerun the same command to resume")


def _sweeper(tmp_path, monkeypatch, status, n_jobs=-1):
    """A CampaignSweeper over jobs a=1, a=2, a=3 whose statuses ``status(job)`` gives, on a joblib-like launcher."""
    from types import SimpleNamespace

    from omegaconf import OmegaConf

    from rfbench.engine import campaign as campaign_
    from rfbench.engine import launch

    sweeper = launch.CampaignSweeper("example", "m_sweep")
    sweeper.config = OmegaConf.create({"hydra": {"sweep": {"dir": str(tmp_path)}}})
    sweeper.launcher = SimpleNamespace(joblib={"n_jobs": n_jobs}, launch=lambda jobs, initial_job_idx: [])
    monkeypatch.setattr(campaign_, "plan", lambda paper, target, extra: campaign_.Plan(
        paper, target, jobs=[["a=1"], ["a=2"], ["a=3"]]))
    monkeypatch.setattr(sweeper, "_status", status)
    return sweeper


def _refusal(sweeper, capsys) -> str:
    """What ``sweeper`` says on stderr as it refuses the campaign before any job runs (exit 2)."""
    sweeper.launcher.launch = lambda jobs, initial_job_idx: pytest.fail("a job ran")
    with pytest.raises(SystemExit) as exit_:
        sweeper.sweep([])
    assert exit_.value.code == 2
    return capsys.readouterr().err


def test_a_bad_sweep_entry_is_one_line_naming_the_file_target_and_job_before_any_work(tmp_path, monkeypatch, capsys):
    """feature_map.m_over_d=1,-1 in a campaign file: exit 2 (not a ConfigError traceback, exit 1) (issue 48)."""
    from rfbench.engine.config import ConfigError

    def status(job):
        if job == ["a=2"]:
            raise ConfigError("feature_map.m_over_d=-1 is invalid: a number > 0")
        return {"job": job, "run_dir": tmp_path, "complete": False, "seconds": 1.0}

    sweeper = _sweeper(tmp_path, monkeypatch, status)
    assert _refusal(sweeper, capsys) == ("rfbench-campaign: error: configs/campaign/example.yaml, target m_sweep, job "
                                         "a=2: feature_map.m_over_d=-1 is invalid: a number > 0\n")


@pytest.mark.parametrize(("n_jobs", "workers"), [(12, 2), (10**6, 2), (-1, 2), (1, 1)])
def test_joblib_workers_are_capped_at_the_cores_and_the_jobs(tmp_path, monkeypatch, n_jobs, workers):
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    sweeper = _sweeper(tmp_path, monkeypatch, lambda job: {"job": job, "run_dir": tmp_path, "seconds": 1.0,
                                                           "complete": job == ["a=1"]}, n_jobs)
    sweeper.sweep([])
    assert sweeper.launcher.joblib["n_jobs"] == workers  # 2 jobs to run on 4 cores


@pytest.mark.parametrize("n_jobs", [0, -5, "many"])
def test_joblib_n_jobs_giving_no_worker_is_refused(tmp_path, monkeypatch, capsys, n_jobs):
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    sweeper = _sweeper(tmp_path, monkeypatch, lambda job: {"job": job, "run_dir": tmp_path, "seconds": 1.0,
                                                           "complete": False}, n_jobs)
    with pytest.raises(SystemExit) as exit_:
        sweeper.sweep([])
    assert exit_.value.code == 2 and f"hydra.launcher.n_jobs={n_jobs!r} is invalid" in capsys.readouterr().err
