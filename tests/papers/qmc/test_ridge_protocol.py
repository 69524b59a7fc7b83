"""QMC Table 1's protocol study: the arms' rows (seeded random, file order) and scalings."""
from __future__ import annotations

import json

import numpy as np
import pytest

from rfbench.dataset.loader import Dataset
from rfbench.papers.qmc import protocol, ridge

#: The toy file: 50 rows in the file's order, features far from [0, 1].
X_FILE = np.random.default_rng(2).random((50, 2)) * [10.0, 3.0] + [5.0, -1.0]
Y_FILE = X_FILE[:, 0] - X_FILE[:, 1]


def _load(node: dict) -> Dataset:
    """The loader on the toy file: scale none (asserted), a seeded random or a whole-file ("files") split."""
    assert node["scale"] == "none"
    split = node["split"]
    if split["kind"] == "files":
        return Dataset("toy", X_FILE, Y_FILE, X_FILE, Y_FILE, np.empty(0), (), "regression")
    rows = np.random.default_rng(split["seed"]).permutation(50)
    train, test = rows[:split["n_train"]], rows[split["n_train"]:split["n_train"] + split["n_test"]]
    return Dataset("toy", X_FILE[train], Y_FILE[train], X_FILE[test], Y_FILE[test], np.empty(0), (), "regression")


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setattr(ridge, "load_dataset", _load)
    monkeypatch.setattr(protocol, "select_sigma", lambda X, y, task, seed: {
        "sigma": 2.0 + abs(float(X[0, 0])), "lambda": 0.01, "cv_score": 0.1, "median_distance": 0.5})
    ridge._arm.cache_clear()
    yield {"name": "toy", "scale": "minmax", "split": {"kind": "random", "file": "data", "n_train": 30,
                                                       "n_test": 15, "seed": 4}}
    ridge._arm.cache_clear()


def _arm(data, partition, scaling):
    return ridge._arm(json.dumps(data, sort_keys=True), partition, scaling, 0)


def test_file_order_trains_on_the_first_rows_and_tests_on_the_next(toy):
    data, choice = _arm(toy, "file_order", "none")
    np.testing.assert_array_equal(data.X_train, X_FILE[:30])
    np.testing.assert_array_equal(data.X_test, X_FILE[30:45])
    np.testing.assert_array_equal(data.y_test, Y_FILE[30:45])
    assert choice["sigma"] == 2.0 + X_FILE[0, 0] and (choice["n_train"], choice["n_test"]) == (30, 15)


def test_the_scalings_are_fitted_on_the_training_part(toy):
    rows = np.random.default_rng(4).permutation(50)
    train, test = X_FILE[rows[:30]], X_FILE[rows[30:45]]
    minmax, _ = _arm(toy, "random", "minmax")
    low, high = train.min(axis=0), train.max(axis=0)
    np.testing.assert_allclose(minmax.X_train, (train - low) / (high - low), rtol=1e-12)
    np.testing.assert_allclose(minmax.X_test, (test - low) / (high - low), rtol=1e-12)
    standard, _ = _arm(toy, "random", "standard")
    np.testing.assert_allclose(standard.X_train.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(standard.X_train.std(axis=0), 1, rtol=1e-12)
    np.testing.assert_allclose(standard.X_test, (test - train.mean(axis=0)) / train.std(axis=0), rtol=1e-12)
    none, _ = _arm(toy, "random", "none")
    np.testing.assert_array_equal(none.X_train, train)


def test_a_trial_scores_every_sequence_on_its_arm_with_its_own_sigma(toy):
    frames = ridge.protocol_cells(trial=0, seed=0, data=toy, partition="file_order", scaling="standard",
                                  sizes=[3, 6], sequences=["halton", "mc"])
    data, choice = _arm(toy, "file_order", "standard")
    expected = ridge.sequence_errors(data, choice["sigma"], 0.01, "mc", ridge.trial_seed(0, 0), [3, 6])
    got = frames["errors"].query("sequence == 'mc'").reset_index(drop=True)
    np.testing.assert_array_equal(got["relative_error"], expected["relative_error"])
    assert set(frames["errors"]["partition"]) == {"file_order"} and frames["setting"]["scaling"].iloc[0] == "standard"
    later = ridge.protocol_cells(trial=1, seed=0, data=toy, partition="file_order", scaling="standard",
                                 sizes=[3], sequences=["halton", "mc"])["errors"]
    assert list(later["sequence"]) == ["mc"]  # Halton is deterministic: trial 0 only


@pytest.mark.parametrize(("partition", "scaling", "message"), [
    ("first", "minmax", r"job.partition='first': choose one of \['random', 'file_order'\]"),
    ("random", "zscore", r"job.scaling='zscore': choose one of \['minmax', 'standard', 'none'\]"),
])
def test_an_unknown_arm_is_refused_naming_the_valid_ones(partition, scaling, message):
    with pytest.raises(ValueError, match=message):
        ridge.protocol_cells.check_params(partition=partition, scaling=scaling, sizes=[3], sequences=["mc"])
