"""cpu_act's protocol study (job=rr_protocol): the arms' rows and scalings, sigma's unit, the column cap."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from scipy.linalg import sqrtm

from rfbench.dataset import partition
from rfbench.model.ridge import ridge_cv
from rfbench.papers.rr import protocol
from tests.conftest import REPO
from tests.dataset.test_partition import file_loader

#: The toy file: 60 rows in the file's order, correlated features far from [0, 1].
_RAW = np.random.default_rng(3).normal(size=(60, 3))
X_FILE = _RAW @ np.array([[4.0, 1.0, 0.0], [0.0, 2.0, 0.5], [0.0, 0.0, 0.3]]) + [5.0, -1.0, 20.0]
Y_FILE = np.full(60, 7.0)  # a constant target: ridge with an intercept predicts it exactly


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setattr(partition, "load_dataset", file_loader(X_FILE, Y_FILE))
    protocol._arm.cache_clear()
    yield {"name": "toy", "scale": "minmax", "split": {"kind": "random", "file": "data", "n_train": 40,
                                                       "n_test": 15, "seed": 4}}
    protocol._arm.cache_clear()


def _arm(data, partition, scaling, norm="euclidean"):
    return protocol._arm(json.dumps(data, sort_keys=True), partition, scaling, norm, 0)


def test_file_order_trains_on_the_first_rows_and_tests_on_the_next(toy):
    data, _ = _arm(toy, "file_order", "none")
    np.testing.assert_array_equal(data.X_train, X_FILE[:40])
    np.testing.assert_array_equal(data.X_test, X_FILE[40:55])


def test_whitening_maps_the_training_covariance_to_the_identity_and_test_rows_alike():
    train, test = X_FILE[:40], X_FILE[40:]
    white_train, white_test = protocol.whiten(train, test)
    np.testing.assert_allclose(np.cov(white_train, rowvar=False), np.eye(3), atol=1e-10)
    inverse_root = np.linalg.inv(sqrtm(np.cov(train, rowvar=False)).real)  # independently: scipy's square root
    np.testing.assert_allclose(white_test, (test - train.mean(axis=0)) @ inverse_root, rtol=1e-9, atol=1e-9)
    with pytest.raises(ValueError, match="covariance is singular"):
        protocol.whiten(np.c_[train, 2 * train[:, 0]], np.c_[test, 2 * test[:, 0]])


def test_standardizing_is_fitted_on_the_training_part_and_leaves_a_constant_feature_centred():
    train, test = np.c_[X_FILE[:40], np.ones(40)], np.c_[X_FILE[40:], np.full(20, 3.0)]
    got_train, got_test = protocol.standardize(train, test)
    np.testing.assert_allclose(got_train[:, :3].mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(got_train[:, :3].std(axis=0), 1, rtol=1e-12)
    np.testing.assert_allclose(got_test[:, 0], (test[:, 0] - train[:, 0].mean()) / train[:, 0].std(), rtol=1e-12)
    np.testing.assert_array_equal(got_test[:, 3], 2.0)


def test_sigma_s_unit_is_the_median_distance_in_the_kernel_s_norm(toy):
    data, l2 = _arm(toy, "random", "standard")
    _, l1 = _arm(toy, "random", "standard", "cityblock")
    X = data.X_train  # 40 rows, fewer than MEDIAN_ROWS: all of them, every pair once
    pairs = np.triu_indices(len(X), 1)
    differences = X[pairs[0]] - X[pairs[1]]
    assert l2 == pytest.approx(np.median(np.sqrt((differences**2).sum(axis=1))), rel=1e-12)
    assert l1 == pytest.approx(np.median(np.abs(differences).sum(axis=1)), rel=1e-12)


def test_a_trial_fits_each_factor_within_the_cap_and_records_the_wider_ones(toy):
    frames = protocol.cells(trial=0, seed=0, data=toy, partition="random", scaling="whiten", method="Binning+LS",
                            size=20, factors=[0.01, 4.0], max_columns=100, log2_lambda=[-20, -10])
    errors = frames["errors"].set_index("factor")
    _, unit = _arm(toy, "random", "whiten", "cityblock")
    assert errors["sigma"].tolist() == pytest.approx([0.01 * unit, 4.0 * unit])
    # a tiny sigma puts nearly every row in its own bin of every grid: far over 100 columns, not fitted
    assert errors.loc[0.01, "columns"] > 100 and not errors.loc[0.01, "fitted"]
    assert np.isnan(errors.loc[0.01, "cv_error"])
    assert errors.loc[4.0, "fitted"] and errors.loc[4.0, "columns"] <= 100
    # the constant target is predicted exactly by the intercept
    assert errors.loc[4.0, "test_error"] == pytest.approx(0, abs=1e-6) and errors.loc[4.0, "cv_error"] < 1e-6
    assert set(errors["scaling"]) == {"whiten"} and set(errors["split_seed"]) == {4}
    fourier = protocol.cells(trial=0, seed=0, data=toy, partition="file_order", scaling="none", method="Fourier+LS",
                             size=5, factors=[1.0], max_columns=1, log2_lambda=[-20])["errors"]
    assert fourier["columns"].tolist() == [5] and not fourier["fitted"].item()  # D columns, over a cap of 1
    assert fourier["n_train"].item() == 40 and fourier["n_test"].item() == 15


def test_features_wider_than_a_fold_s_rows_take_the_dual_gram_with_the_same_errors(toy, monkeypatch):
    """40 training rows, folds of 32: binning codes over 32 columns decompose the n x n Gram, and their
    errors are those of the p x p one."""
    solvers, forced = [], {}

    def spy(task, **params):
        solvers.append(params["solver"])
        return ridge_cv(task, **(params | forced))

    monkeypatch.setattr(protocol, "ridge_cv", spy)
    args = {"trial": 0, "seed": 0, "data": toy, "partition": "random", "scaling": "minmax", "method": "Binning+LS",
            "size": 20, "factors": [0.05, 64.0], "max_columns": 10_000, "log2_lambda": [-20, -4, 0]}
    chosen = protocol.cells(**args)["errors"].set_index("factor")
    assert chosen.loc[0.05, "columns"] > 32 >= chosen.loc[64.0, "columns"]
    assert solvers == ["dual", "eigen"]
    forced["solver"] = "eigen"
    primal = protocol.cells(**args)["errors"].set_index("factor")
    for column in ("cv_error", "test_error"):
        np.testing.assert_allclose(chosen[column], primal[column], rtol=1e-8)
    assert chosen["lambda"].tolist() == primal["lambda"].tolist()


@pytest.mark.parametrize(("change", "message"), [
    ({"partition": "first"}, r"job.partition='first': choose one of \['random', 'file_order'\]"),
    ({"scaling": "pca"}, r"job.scaling='pca': choose one of \['none', 'minmax', 'standard', 'whiten'\]"),
    ({"method": "CVM"}, r"job.method='CVM': choose one of \['Fourier\+LS', 'Binning\+LS'\]"),
    ({"size": 0}, r"job.size=0: a positive integer"),
    ({"factors": [1, -2]}, r"job.factors=\[1, -2\]: one or more positive numbers"),
    ({"max_columns": 0}, r"job.max_columns=0: a positive integer"),
    ({"log2_lambda": [0.5]}, r"job.log2_lambda=\[0.5\]: one or more integer exponents"),
])
def test_bad_parameters_are_named_before_any_work(change, message):
    params = {"partition": "random", "scaling": "minmax", "method": "Fourier+LS", "size": 300, "factors": [1.0],
              "max_columns": 2048, "log2_lambda": [-20, 0], **change}
    with pytest.raises(ValueError, match=message):
        protocol.check_params(**params)


def test_the_job_refuses_a_bad_scaling_with_exit_2_and_writes_nothing(tmp_path):
    cmd = [sys.executable, "-m", "rfbench", "job=rr_protocol", "dataset=cpu_act", "job.scaling=pca",
           f"experiment.results_dir={tmp_path / 'results'}"]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "RFBENCH_CACHE": str(tmp_path)})
    assert proc.returncode == 2, proc.stderr
    assert "job.scaling='pca': choose one of ['none', 'minmax', 'standard', 'whiten']" in proc.stderr
    assert not (tmp_path / "results").exists()
