"""One sweep through every launcher gives the same numbers, and BLAS threads fit the cores."""
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from rfbench.engine import records
from tests.conftest import REPO
from tests.engine.conftest import RAY_ENV

pytestmark = pytest.mark.slow

SWEEP = ["-m", "experiment.name=sweep", "feature_map.m_over_d=1,2", "experiment.trials=2",
         "experiment.n_gram=200", "classifier.log2_C=[0]"]
METRICS = ["gram_error", "test_accuracy", "cv_accuracy", "C"]


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


def test_ray_cluster_gives_the_same_numbers(basic, tmp_path, ray_head):
    trials = sweep(tmp_path, "hydra/launcher=ray_cluster", f"hydra.launcher.ray.init.address={ray_head}",
                   env=RAY_ENV)
    pd.testing.assert_frame_equal(trials[METRICS], basic[METRICS])
    assert (trials["experiment.blas_threads"] == 1).all()
