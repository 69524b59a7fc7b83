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


def run_probe(body: str) -> subprocess.CompletedProcess:
    """Run ``body`` (indented under ``interruptible('probe')``) in a fresh interpreter."""
    script = ("import os, signal, threading, time\n"
              "from llvmlite import binding as llvm\n"
              "from llvmlite.binding import ffi\n"
              "from rfbench.engine import interrupt\n"
              "with interrupt.interruptible('probe'):\n" + body)
    return subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=25)


def test_a_signal_inside_numbas_llvm_lock_waits_for_its_release_and_leaves_it_free():
    """The CI hang: SIGTERM landed between llvmlite's lock acquire and its callbacks, the lock was never
    released, and the next compile, in a pool thread, waited for it forever."""
    proc = run_probe(
        "    def acquired():\n"  # llvmlite calls this just after taking its lock, as numba's event hook
        "        ffi.unregister_lock_callback(acquired, released)\n"
        "        os.kill(os.getpid(), signal.SIGTERM)\n"
        "        time.sleep(0.2)\n"
        "    released = lambda: None\n"
        "    ffi.register_lock_callback(acquired, released)\n"
        "    try:\n"
        "        llvm.get_process_triple()\n"
        "        print('llvm answered', flush=True)\n"
        "        time.sleep(20)\n"
        "    finally:\n"
        "        got = []\n"
        "        worker = threading.Thread(target=lambda: got.append(ffi.lib._lock._lock.acquire(timeout=5)))\n"
        "        worker.start()\n"
        "        worker.join()\n"
        "        print('a pool thread takes the lock' if got[0] else 'the lock is still held', flush=True)\n")
    assert proc.returncode == 143, proc.stderr
    assert proc.stdout == "llvm answered\na pool thread takes the lock\n"
    assert proc.stderr == "probe: interrupted before starting a trial; rerun the same command to resume\n"


def test_a_signal_inside_a_del_is_not_dropped():
    """Python prints and drops an exception raised in ``__del__`` (llvmlite disposes its objects there)."""
    proc = run_probe(
        "    class Disposed:\n"
        "        def __del__(self):\n"
        "            os.kill(os.getpid(), signal.SIGTERM)\n"
        "            time.sleep(0.2)\n"
        "    Disposed()\n"
        "    time.sleep(20)\n"
        "    print('the run went on', flush=True)\n")
    assert proc.returncode == 143 and proc.stdout == "", proc.stderr
    assert proc.stderr == "probe: interrupted before starting a trial; rerun the same command to resume\n"
