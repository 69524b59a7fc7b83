"""A toy dataset for the jobs that take Figure 2's rows and sigma (qmc_gram, qmc_box_discrepancy)."""
import numpy as np
import pytest

from rfbench.papers.qmc import gram
from rfbench.papers.qmc import report as qmc

#: The toy dataset's rows, and the sigma its (stubbed) CV chooses.
X = np.random.default_rng(0).random((50, 3))
SIGMA = 0.8


@pytest.fixture
def toy(monkeypatch):
    """A dataset 'toy' whose rows are X and whose sigma choice is fixed (no data, no CV)."""
    monkeypatch.setitem(qmc.GRAM_DATASETS, "toy", qmc.GramSetting("toy_config", "Toy", None))
    monkeypatch.setattr(qmc, "gram_rows", lambda setting, seed, data: (X, np.zeros(len(X)), "regression"))
    monkeypatch.setattr(qmc, "select_sigma", lambda *a, **k: {"sigma": SIGMA, "lambda": 0.1, "cv_score": 0.5,
                                                              "median_distance": 0.4})
    gram._setting.cache_clear()
    gram.rows_and_sigma.cache_clear()
    yield {"name": "toy_config"}
    gram._setting.cache_clear()
    gram.rows_and_sigma.cache_clear()
