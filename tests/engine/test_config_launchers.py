"""The cores a job may use and its BLAS threads, read from the Hydra launcher of a composed config: joblib's
workers share the machine's cores, SLURM and Ray grant each job its own."""
import os

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.hydra_config import HydraConfig

from rfbench.engine import config
from tests.conftest import REPO

CORES = 8


@pytest.fixture
def launcher(monkeypatch):
    """``launcher(*overrides)`` makes the Hydra config composed with those overrides the current one, as inside
    a launched job; the machine has CORES cores."""
    monkeypatch.setattr(os, "cpu_count", lambda: CORES)

    def use(*overrides: str) -> None:
        with initialize_config_dir(str(REPO / "configs"), version_base="1.3"):
            HydraConfig.instance().set_config(compose("config", overrides=list(overrides), return_hydra_config=True))

    yield use
    HydraConfig.instance().cfg = None


def test_outside_a_launched_job_blas_keeps_its_default_and_a_job_has_the_machines_cores():
    assert not HydraConfig.initialized()
    assert config.blas_threads_per_job() is None
    assert config.job_cores() == (os.cpu_count() or 1)


def test_the_basic_launcher_runs_one_job_at_a_time_with_the_librarys_threads(launcher):
    launcher()
    assert config.blas_threads_per_job() is None
    assert config.job_cores() == CORES


@pytest.mark.parametrize("n_jobs, threads", [
    (1, 8), (2, 4), (3, 2), (8, 1), (20, 1),  # the cores shared among the workers, at least one each
    (-1, 1), (-2, 1), (-5, 2), (-7, 4), (-8, 8),  # -k: all cores but k - 1 workers (joblib's rule)
])
def test_joblib_workers_share_the_machines_cores(launcher, n_jobs, threads):
    launcher("hydra/launcher=joblib", f"hydra.launcher.n_jobs={n_jobs}")
    assert config.blas_threads_per_job() == threads
    assert config.job_cores() == CORES


@pytest.mark.parametrize("cpus, cores", [(2, CORES), (16, 16)])
def test_slurm_grants_each_job_its_cpus_per_task(launcher, cpus, cores):
    """A submitting host may have fewer cores than the nodes: a job may use what SLURM grants it."""
    launcher("hydra/launcher=slurm", f"hydra.launcher.cpus_per_task={cpus}")
    assert config.blas_threads_per_job() == cpus
    assert config.job_cores() == cores


@pytest.mark.parametrize("cpus, cores", [(1, CORES), (12, 12)])
def test_ray_grants_each_task_its_num_cpus(launcher, cpus, cores):
    launcher("hydra/launcher=ray_cluster", f"hydra.launcher.ray.remote.num_cpus={cpus}")
    assert config.blas_threads_per_job() == cpus
    assert config.job_cores() == cores


def test_a_ray_task_without_num_cpus_gets_rays_default_of_one(launcher):
    launcher("hydra/launcher=ray_cluster", "~hydra.launcher.ray.remote.num_cpus")
    assert config.blas_threads_per_job() == 1
