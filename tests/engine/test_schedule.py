"""The list schedule of a campaign's jobs: LPT's makespan, and rfbench-campaign --dry-run --workers."""
import argparse
import math
import os
import subprocess
import sys

import pytest

from rfbench.engine import campaign, jobs, launch, records
from rfbench.engine.schedule import hours_minutes, makespan, parse_workers, summary
from tests.conftest import REPO


def test_longest_first_on_two_workers_is_graham_s_example():
    # 5 and 4 start; the 3s go to whoever is free: 4+3, 5+3, 7+3 = 10 (the best, {5,4} | {3,3,3}, is 9)
    assert makespan([3, 5, 3, 4, 3], 2) == 10


def test_many_workers_leave_the_longest_job_as_the_floor():
    assert makespan([5, 4, 3, 3, 3], 64) == 5
    assert makespan([5, 4, 3, 3, 3], 5) == 5


def test_one_worker_runs_all_the_work_and_no_job_takes_no_time():
    assert makespan([5, 4, 3, 3, 3], 1) == 18
    assert makespan([], 16) == 0


def test_equal_jobs_fill_the_workers_in_rounds():
    assert makespan([1.5] * 7, 3) == 4.5  # rounds of 3, 3, 1


def test_no_worker_is_refused():
    with pytest.raises(ValueError, match="workers=0"):
        makespan([1.0], 0)


def test_durations_read_as_hours_and_minutes():
    assert [hours_minutes(s) for s in (42, 7 * 60, 5877, math.inf)] == ["42 s", "7 min", "1 h 38 min", "unknown"]


def test_the_summary_gives_the_wall_time_its_floor_and_the_jobs_of_no_record():
    line = summary([3 * 3600, 2 * 3600, 2 * 3600, math.inf], 2)
    assert "on 2 worker(s)" in line and ": 4 h 00 min of wall time" in line
    assert "the longest job 3 h 00 min" in line and "the work 7 h 00 min / 2" in line
    assert line.endswith("; 1 job(s) with no recorded time not counted")


@pytest.mark.parametrize("text", ["0", "-2", "two", "1.5"])
def test_workers_must_be_a_positive_whole_number(text):
    with pytest.raises(argparse.ArgumentTypeError, match=repr(text)):
        parse_workers(text)


@pytest.mark.parametrize("argv, message", [
    (["--workers", "0", "--dry-run"], "argument --workers: '0' is invalid"),
    (["--workers", "2", "--", "hydra.launcher.n_jobs=3"],  # outside a dry run --workers runs on N workers
     "--workers 2 and hydra.launcher.n_jobs=3 both set the workers: give one"),
])
def test_bad_workers_are_refused_in_one_line_with_exit_2(argv, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        launch.main(["example", "m_sweep", "--results", str(tmp_path / "r"), *argv])
    assert exit_.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


@pytest.mark.slow
def test_a_dry_run_with_workers_prints_the_list_schedule_of_the_recorded_times(tmp_path):
    # reference records of the example campaign's 4 jobs, 2 trials each of known time: 500, 300, 200, 100 s a
    # trial; the dry run plans 3 trials a job, so 25, 15, 10, 5 min: on 2 workers 25+5 | 15+10 = 30 min
    times, empty = tmp_path / "times", tmp_path / "empty"
    for job, seconds in zip(campaign.plan("example", "m_sweep").jobs, (500.0, 300.0, 200.0, 100.0)):
        run = jobs.run_of(job, times)
        run.mkdir(parents=True)
        for trial in range(2):
            records.record_trial(run / "trials.csv", {"trial": trial, "time_fit": seconds - 1, "time_predict": 1.0})
    cmd = [sys.executable, "-m", "rfbench.engine.launch", "example", "m_sweep", "--results", str(empty),
           "--dry-run", "--workers", "2", "--", "experiment.trials=3", f"hydra.sweeper.times_from={times}"]
    out = subprocess.run(cmd, cwd=REPO, env=os.environ, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "list schedule on 2 worker(s)" in out.stdout and ": 30 min of wall time" in out.stdout
    assert "the longest job 25 min" in out.stdout and "the work 55 min / 2" in out.stdout
    assert "not counted" not in out.stdout
    assert not empty.exists()
