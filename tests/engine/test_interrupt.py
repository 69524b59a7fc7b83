"""Ctrl-C and SIGTERM end a real ``rfbench`` process with one line, 130 / 143, and no empty run folder."""
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rfbench.engine import records
from tests.conftest import REPO
from tests.engine.test_resume import TRIALS, command, default_sigint, trials_csv, wait_for_first_row

pytestmark = pytest.mark.slow


def start(results_dir: Path) -> subprocess.Popen:
    return subprocess.Popen(command(results_dir), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=default_sigint)


def wait_for_run_folder(proc: subprocess.Popen, results_dir: Path) -> None:
    while not list(results_dir.glob("default/runs/*/run.log")):
        assert proc.poll() is None, "the run ended before it could be interrupted"
        time.sleep(0.01)


def interrupted(results_dir: Path, wait, sig: int) -> tuple[int, str]:
    """Start a run, ``wait(proc, results_dir)``, send ``sig`` to it; its exit status and stderr."""
    proc = start(results_dir)
    wait(proc, results_dir)
    os.killpg(proc.pid, sig)
    _, stderr = proc.communicate(timeout=60)
    return proc.returncode, stderr


def test_sigterm_before_the_first_trial_leaves_nothing_and_one_line(tmp_path):
    status, stderr = interrupted(tmp_path, wait_for_run_folder, signal.SIGTERM)
    assert status == 143, stderr
    assert stderr == f"rfbench: interrupted after 0 of {TRIALS} trials; rerun the same command to resume\n"
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_after_a_trial_says_how_many_are_recorded(tmp_path):
    status, stderr = interrupted(tmp_path, wait_for_first_row, signal.SIGINT)
    assert status == 130
    recorded = len(records.read_trials(trials_csv(tmp_path)))
    assert re.fullmatch(rf"rfbench: interrupted after {recorded} of {TRIALS} trials; rerun the same command to "
                        r"resume\n", stderr), stderr


def test_a_signal_does_not_wait_for_a_models_running_fits():
    """A fit still running in a pool thread (minutes for LSQR on binning codes) does not delay the exit."""
    script = ("import os, signal, threading, time\n"
              "from rfbench.engine import interrupt\n"
              "with interrupt.interruptible('probe'):\n"
              "    threading.Thread(target=time.sleep, args=(60,)).start()\n"
              "    os.kill(os.getpid(), signal.SIGTERM)\n"
              "    time.sleep(60)\n")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=50)
    assert proc.returncode == 143 and time.perf_counter() - start < 30, proc.stderr
    assert proc.stderr == "probe: interrupted before starting a trial; rerun the same command to resume\n"
