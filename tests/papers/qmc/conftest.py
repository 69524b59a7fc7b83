"""QMC's tests: toy datasets for the jobs that read one, and a job's records written by hand."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from rfbench.dataset import partition
from rfbench.engine import config, records
from rfbench.papers.qmc import protocol, ridge
from rfbench.storage.atomic import write_atomic
from tests.dataset.test_partition import file_loader

#: The sigma every toy dataset's (stubbed) CV chooses.
SIGMA = 0.8
#: Figure 2's toy rows (qmc_gram, qmc_box_discrepancy).
X = np.random.default_rng(0).random((50, 3))
#: The learnt sequences' toy regression data (qmc_learnt, qmc_table3).
_rng = np.random.default_rng(0)
X_LEARNT = _rng.random((40, 2))
Y_LEARNT = np.sin(3 * X_LEARNT[:, 0]) + X_LEARNT[:, 1]
TOY = SimpleNamespace(X_train=X_LEARNT[:30], y_train=Y_LEARNT[:30], X_test=X_LEARNT[30:], y_test=Y_LEARNT[30:],
                      task="regression")


#: The toy file of the scaling arms (qmc_ridge_protocol, qmc_table2_scaling): 50 rows in the file's order, features
#: far from [0, 1].
X_FILE = np.random.default_rng(2).random((50, 2)) * [10.0, 3.0] + [5.0, -1.0]
Y_FILE = X_FILE[:, 0] - X_FILE[:, 1]


@pytest.fixture
def toy_file(monkeypatch):
    """A dataset node whose raw rows are the toy file's (the scaling arms rescale them); each arm's sigma choice
    depends on its rows (2 + |x_00|), with no CV."""
    monkeypatch.setattr(partition, "load_dataset", file_loader(X_FILE, Y_FILE))
    monkeypatch.setattr(protocol, "select_sigma", lambda X, y, task, seed: {
        "sigma": 2.0 + abs(float(X[0, 0])), "lambda": 0.01, "cv_score": 0.1, "median_distance": 0.5})
    ridge._arm.cache_clear()
    yield {"name": "toy", "scale": "minmax", "split": {"kind": "random", "file": "data", "n_train": 30,
                                                       "n_test": 15, "seed": 4}}
    ridge._arm.cache_clear()


def _fixed_sigma(monkeypatch):
    monkeypatch.setattr(protocol, "select_sigma", lambda *a, **k: {"sigma": SIGMA, "lambda": 0.1, "cv_score": 0.5,
                                                              "median_distance": 0.4})


@pytest.fixture
def toy(monkeypatch):
    """A dataset 'toy' whose rows are X and whose sigma choice is fixed (no data, no CV)."""
    monkeypatch.setitem(protocol.GRAM_DATASETS, "toy", protocol.GramSetting("toy_config", "Toy", None))
    rows = SimpleNamespace(X_train=X, y_train=np.zeros(len(X)), task="regression")
    yield from _loading(monkeypatch, rows, {"name": "toy_config"})


@pytest.fixture
def toy_learnt(monkeypatch):
    """A dataset 'toy' whose rows are TOY and whose sigma choice is fixed (no data, no CV)."""
    yield from _loading(monkeypatch, TOY, {"name": "toy"})


def _loading(monkeypatch, dataset, node):
    """Every QMC job given ``node`` loads ``dataset`` and chooses SIGMA."""
    monkeypatch.setattr(protocol, "load_dataset", lambda data: dataset)
    _fixed_sigma(monkeypatch)
    yield node


@pytest.fixture(autouse=True)
def _fresh_settings():
    """Each test starts and ends with :func:`protocol.setting`'s per-process cache empty (tests swap
    the data and the sigma choice)."""
    protocol.setting.cache_clear()
    yield
    protocol.setting.cache_clear()


def record(run, frames, **trial):
    """Write ``frames`` as trial 0 of a job's run, as the engine does, and a config.yaml with the dataset
    node the trial's ``dataset.*`` values give (what readers take a run's dataset from)."""
    dataset = {key.split(".", 1)[1]: value for key, value in trial.items() if key.startswith("dataset.")}
    cfg = OmegaConf.from_dotlist([f"dataset.{key}={value}" for key, value in dataset.items()])
    if run.parent.name == "runs":  # a run folder is named by its config's run id (every reader checks it)
        cfg.test_run = run.name  # the name the test gave: runs of one dataset stay apart
        run = run.with_name(config.run_id(OmegaConf.to_container(cfg)))
    run.mkdir(parents=True)
    write_atomic(run / "config.yaml", OmegaConf.to_yaml(cfg))
    for key, frame in frames.items():
        records.write_csv(run / f"{key}.csv", frame.assign(trial=0))
    records.write_csv(run / "trials.csv", pd.DataFrame([{"run_id": run.name, "trial": 0, **trial}]))
    return run
