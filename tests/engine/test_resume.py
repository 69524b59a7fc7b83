"""Interrupted, repeated and concurrent runs of one config record every trial exactly once."""
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from rfbench.engine import frames, records
from rfbench.storage import atomic
from tests.conftest import REPO

pytestmark = pytest.mark.slow

TRIALS = 4
METRICS = ["trial", "gram_error", "test_accuracy", "cv_accuracy", "C"]


def command(results_dir: Path) -> list[str]:
    # A 3-value C grid makes a trial take ~0.5 s, long enough to be interrupted in.
    return [sys.executable, "-m", "rfbench", f"experiment.results_dir={results_dir}", f"experiment.trials={TRIALS}",
            "feature_map.m_over_d=1", "experiment.n_gram=200", "classifier.log2_C=[-2,0,2]"]


def default_sigint() -> None:
    # A shell without job control starts background jobs with SIGINT ignored, and Python
    # then never raises KeyboardInterrupt; give the run the Ctrl-C a terminal user has.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(results_dir: Path) -> subprocess.Popen:
    return subprocess.Popen(command(results_dir), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=default_sigint)


def finish(proc: subprocess.Popen) -> None:
    _, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 0, stderr[-3000:]


def trials_csv(results_dir: Path) -> Path:
    return results_dir / "default" / "runs" / os.listdir(results_dir / "default" / "runs")[0] / "trials.csv"


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> pd.DataFrame:
    tmp = tmp_path_factory.mktemp("uninterrupted")
    finish(start(tmp))
    return records.read_trials(trials_csv(tmp))[METRICS]


def wait_for_first_row(proc: subprocess.Popen, results_dir: Path) -> None:
    while True:
        assert proc.poll() is None, "the run ended before it could be interrupted"
        try:
            if len(records.read_trials(trials_csv(results_dir))) >= 1:
                return
        except (FileNotFoundError, IndexError):
            pass
        time.sleep(0.02)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_interrupted_run_resumes_to_the_uninterrupted_result(tmp_path, uninterrupted, sig):
    proc = start(tmp_path)
    wait_for_first_row(proc, tmp_path)
    os.killpg(proc.pid, sig)
    proc.communicate(timeout=60)
    assert proc.returncode != 0
    partial = records.read_trials(trials_csv(tmp_path))
    # Workers finishing their trials in the same few milliseconds as the first may all be recorded
    # before the signal lands (seen on an idle machine): every row is then whole, none duplicated.
    assert 1 <= len(partial) <= TRIALS and partial["trial"].is_unique
    rerun = subprocess.run(command(tmp_path), cwd=REPO, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    if len(partial) < TRIALS:
        assert (f"{len(partial)} of {TRIALS} trials already recorded; computing {TRIALS - len(partial)}"
                in rerun.stdout + rerun.stderr)
    pd.testing.assert_frame_equal(records.read_trials(trials_csv(tmp_path))[METRICS], uninterrupted)


def test_two_processes_on_one_run_share_the_trials(tmp_path, uninterrupted):
    first, second = start(tmp_path), start(tmp_path)
    finish(first)
    finish(second)
    out = trials_csv(tmp_path)
    pd.testing.assert_frame_equal(records.read_trials(out)[METRICS], uninterrupted)
    # Each trial is claimed before it is computed, so the two logs hold each trial once.
    computed = re.findall(rf"INFO trial (\d+)/{TRIALS}:", (out.parent / "run.log").read_text())
    assert sorted(map(int, computed)) == list(range(1, TRIALS + 1))


def _killed_at_rename(path: Path) -> None:
    """A writer of ``path`` killed (SIGKILL) after writing its temporary, before the rename."""
    atomic.os.replace = lambda *_: os.kill(os.getpid(), signal.SIGKILL)
    with atomic.atomic_write(path, "w") as handle:
        handle.write("never renamed")


@pytest.fixture
def finished(tmp_path) -> Path:
    """A run of TRIALS trials; returns its trials.csv."""
    finish(start(tmp_path))
    return trials_csv(tmp_path)


def test_rerun_removes_stray_temporaries_and_repairs_a_cut_row(tmp_path, finished, uninterrupted):
    for name in ("trials.csv", "trials.csv", "summary.csv"):
        killed = multiprocessing.get_context("fork").Process(target=_killed_at_rename, args=(finished.parent / name,))
        killed.start()
        killed.join()
        assert killed.exitcode == -signal.SIGKILL
    assert len(list(finished.parent.glob(".*.part"))) == 3
    text = records.read_text(finished)
    frames.gzipped(finished).unlink(missing_ok=True)  # stored gzipped once over the threshold: cut it plain
    finished.write_text(text[:-25])  # the last row cut short, as by a full disk
    rerun = subprocess.run(command(tmp_path), cwd=REPO, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    assert list(finished.parent.glob(".*.part")) == []
    assert "dropped an incomplete last line" in rerun.stdout
    assert f"{TRIALS - 1} of {TRIALS} trials already recorded; computing 1" in rerun.stdout
    pd.testing.assert_frame_equal(records.read_trials(finished)[METRICS], uninterrupted)


def test_rerun_with_fewer_trials_keeps_every_recorded_trial_in_the_summary(tmp_path, finished):
    rerun = subprocess.run([*command(tmp_path), "experiment.trials=2"], cwd=REPO, capture_output=True, text=True,
                           timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    summary = pd.read_csv(finished.parent / "summary.csv")
    trials = records.read_trials(finished)
    assert summary.loc[0, "test_accuracy_count"] == TRIALS == len(trials)
    assert summary.loc[0, "test_accuracy_mean"] == pytest.approx(trials["test_accuracy"].mean())
