"""One sweep through every launcher gives the same numbers, and BLAS threads fit the cores."""
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from rfbench.engine import records
from tests.conftest import REPO

pytestmark = pytest.mark.slow

SWEEP = ["-m", "experiment.name=sweep", "feature_map.m_over_d=1,2", "experiment.trials=2",
         "experiment.n_gram=200", "classifier.log2_C=[0]"]
METRICS = ["gram_error", "test_accuracy", "cv_accuracy", "C"]
# Ray on one machine: loopback only, no auth token, no usage statistics (a throw-away test cluster).
RAY_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "disabled",
           "RAY_USAGE_STATS_ENABLED": "0"}


def sweep(results_dir: Path, *launcher: str, env: dict | None = None) -> pd.DataFrame:
    """Run SWEEP with the given launcher overrides; return its trials by (run_id, trial)."""
    cmd = [sys.executable, "-m", "rfbench", *SWEEP, f"experiment.results_dir={results_dir}", *launcher]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return records.collect(results_dir / "sweep").set_index(["run_id", "trial"]).sort_index()


@pytest.fixture(scope="module")
def basic(tmp_path_factory):
    return sweep(tmp_path_factory.mktemp("basic"))


def test_basic_launcher_leaves_blas_threads_to_the_library(basic):
    assert len(basic) == 4 and basic["experiment.blas_threads"].isna().all()


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_joblib_gives_the_same_numbers_with_any_number_of_workers(basic, tmp_path, n_jobs):
    trials = sweep(tmp_path, "hydra/launcher=joblib", f"hydra.launcher.n_jobs={n_jobs}")
    pd.testing.assert_frame_equal(trials[METRICS], basic[METRICS])
    cores = os.cpu_count()
    assert (trials["experiment.blas_threads"] == max(1, cores // min(n_jobs, cores))).all()


def test_slurm_config_is_ready_and_threads_follow_cpus_per_task():
    cmd = [sys.executable, "-m", "rfbench", "hydra/launcher=slurm", "hydra.launcher.cpus_per_task=4", "--cfg", "all",
           "--resolve"]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "_target_: hydra_plugins.hydra_submitit_launcher.submitit_launcher.SlurmLauncher" in proc.stdout
    assert "blas_threads: 4" in proc.stdout


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def ray_head(tmp_path):
    """A Ray head node bound to 127.0.0.1, started with ``ray start --block`` and stopped after."""
    ray = shutil.which("ray", path=str(Path(sys.executable).parent))
    if ray is None:
        pytest.skip("ray is not installed (pip install -e '.[launchers]')")
    port, log = _free_port(), tmp_path / "ray_head.log"
    # Workers inherit the head's environment, so the data mirror is set here.
    head = subprocess.Popen(
        [ray, "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={port}", "--num-cpus=2",
         "--include-dashboard=false", "--disable-usage-stats"],
        env={**os.environ, **RAY_ENV}, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)
    try:
        while "Ray runtime started" not in log.read_text():
            assert head.poll() is None, log.read_text()
            time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        head.terminate()  # `ray start --block` stops the processes it started on SIGTERM
        try:
            head.wait(timeout=60)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(head.pid, signal.SIGKILL)  # whatever of its session is left


def test_ray_cluster_gives_the_same_numbers(basic, tmp_path, ray_head):
    trials = sweep(tmp_path, "hydra/launcher=ray_cluster", f"hydra.launcher.ray.init.address={ray_head}",
                   env=RAY_ENV)
    pd.testing.assert_frame_equal(trials[METRICS], basic[METRICS])
    assert (trials["experiment.blas_threads"] == 1).all()
