"""QMC's tests: a toy dataset for the jobs that read one, and a job's records written by hand."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from rfbench.engine import records
from rfbench.papers.qmc import learnt
from rfbench.papers.qmc import report as qmc

SIGMA = 0.8
rng = np.random.default_rng(0)
X = rng.random((40, 2))
Y = np.sin(3 * X[:, 0]) + X[:, 1]
TOY = SimpleNamespace(X_train=X[:30], y_train=Y[:30], X_test=X[30:], y_test=Y[30:], task="regression")


@pytest.fixture
def toy(monkeypatch):
    """A dataset 'toy' whose rows are TOY and whose sigma choice is fixed (no data, no CV)."""
    monkeypatch.setattr(learnt, "load_dataset", lambda data: TOY)
    monkeypatch.setattr(qmc, "select_sigma", lambda *a, **k: {"sigma": SIGMA, "lambda": 0.1, "cv_score": 0.5,
                                                              "median_distance": 0.4})
    learnt._setting.cache_clear()
    yield {"name": "toy"}
    learnt._setting.cache_clear()


def record(run, frames, **trial):
    """Write ``frames`` as trial 0 of a job's run, as the engine does."""
    run.mkdir(parents=True)
    for key, frame in frames.items():
        records.write_csv(run / f"{key}.csv", frame.assign(trial=0))
    records.write_csv(run / "trials.csv", pd.DataFrame([{"run_id": run.name, "trial": 0, **trial}]))
    return run
