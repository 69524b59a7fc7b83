"""QMC Table 1's job: ridge on every prefix of every sequence, Halton at trial 0 only, sigma held."""
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from rfbench.dataset.loader import Dataset
from rfbench.engine.jobs import trial_seed
from rfbench.feature_map import QMCFourierFeatures
from rfbench.papers.qmc import protocol, ridge
from tests.conftest import REPO


def _toy(split_seed: int) -> Dataset:
    """80 rows of a smooth target, split 60 / 20 at random by ``split_seed``."""
    rng = np.random.default_rng(1)
    X = rng.random((80, 2))
    y = np.sin(4 * X[:, 0]) + X[:, 1] + 2
    rows = np.random.default_rng(split_seed).permutation(80)
    return Dataset("toy", X[rows[:60]], y[rows[:60]], X[rows[60:]], y[rows[60:]], np.empty(0), (), "regression")


@pytest.fixture
def toy(monkeypatch):
    """A dataset config 'toy' whose partition follows split.seed, and a sigma choice that tells which
    partition it was made on (sigma = 1 + the first training target)."""
    monkeypatch.setattr(protocol, "load_dataset", lambda cfg: _toy(cfg["split"]["seed"]))
    monkeypatch.setattr(protocol, "select_sigma", lambda X, y, task, seed: {
        "sigma": 1.0 + float(y[0]), "lambda": 0.01, "cv_score": 0.1, "median_distance": 0.5})
    return {"name": "toy", "split": {"seed": 3}}


def test_sequence_errors_prefix_equals_a_fresh_map_and_a_direct_ridge_solve():
    """Each s's error is that of ridge (lambda held) on a map of s points, solved directly."""
    data = _toy(0)
    recorded = ridge.sequence_errors(data, 0.5, 0.01, "halton", 0, [3, 10]).set_index("s")["relative_error"]
    for s in (3, 10):
        fmap = QMCFourierFeatures(n_components=s, sigma=0.5, sequence="halton", dtype="float64").fit(data.X_train)
        Z, Zt = fmap.transform(data.X_train), fmap.transform(data.X_test)
        mean_z, mean_y = Z.mean(axis=0), data.y_train.mean()
        Zc = Z - mean_z
        w = np.linalg.solve(Zc.T @ Zc + 0.01 * np.eye(2 * s), Zc.T @ (data.y_train - mean_y))
        pred = (Zt - mean_z) @ w + mean_y
        expected = np.linalg.norm(pred - data.y_test) / np.linalg.norm(data.y_test)
        assert recorded[s] == pytest.approx(expected, rel=1e-8)


def test_trial_0_has_every_sequence_and_later_trials_the_randomized_ones(toy):
    first = ridge.cells(trial=0, seed=5, data=toy, sizes=[3, 10], sequences=list(protocol.SEQUENCES))
    later = ridge.cells(trial=1, seed=5, data=toy, sizes=[3, 10], sequences=list(protocol.SEQUENCES))["errors"]
    assert list(first["errors"]["sequence"].unique()) == list(protocol.SEQUENCES) and len(first["errors"]) == 10
    assert list(later["sequence"].unique()) == ["sobol", "lattice", "digital_net", "mc"]
    assert set(later["seed"]) == {trial_seed(5, 1)} and set(first["errors"]["seed"]) == {trial_seed(5, 0)}
    sigma = 1.0 + _toy(3).y_train[0]  # chosen on the job's own partition
    assert first["setting"].iloc[0].to_dict() == {"sigma": sigma, "lambda": 0.01, "cv_score": 0.1,
                                                  "median_distance": 0.5, "n": 60, "d": 2, "seed": 5,
                                                  "cv_features": protocol.CV_FEATURES, "dataset": "toy"}
    mc = ridge.sequence_errors(_toy(3), sigma, 0.01, "mc", trial_seed(5, 1), [3, 10])
    pd.testing.assert_frame_equal(later.query("sequence == 'mc'").reset_index(drop=True), mc)


def test_the_split_study_holds_the_sigma_of_partition_0_and_scores_its_own_partition(toy):
    frames = ridge.cells(trial=0, seed=5, data=toy, sizes=[4], sequences=["mc"], sigma_split_seed=0)
    assert frames["setting"]["sigma"].iloc[0] == 1.0 + _toy(0).y_train[0] != 1.0 + _toy(3).y_train[0]
    expected = ridge.sequence_errors(_toy(3), 1.0 + _toy(0).y_train[0], 0.01, "mc", trial_seed(5, 0), [4])
    pd.testing.assert_frame_equal(frames["errors"], expected)
    assert toy["split"]["seed"] == 3  # the job's config is not changed


def test_an_unknown_sequence_is_refused_naming_the_valid_ones(toy):
    with pytest.raises(ValueError, match=r"job.sequences=\['mc', 'qmc'\]: choose one or more of \['halton'"):
        ridge.cells.check_params(sizes=[3], sequences=["mc", "qmc"])


@pytest.mark.parametrize(("override", "message"), [
    ("job.sequences=[qmc]", "job=qmc_ridge: job.sequences=['qmc']: choose one or more of ['halton', 'sobol'"),
    ("job.sizes=[0,10]", "job=qmc_ridge: job.sizes=[0, 10]: give one or more positive integers s"),
])
def test_the_command_line_refuses_bad_values_before_any_work(override, message, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "rfbench", "job=qmc_ridge", "dataset=cpu_act", override,
                           f"experiment.results_dir={tmp_path}"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
    assert not any(tmp_path.iterdir())
