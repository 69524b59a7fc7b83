"""QMC Table 1's protocol study: the arms' rows (seeded random, file order) and scalings."""
from __future__ import annotations

import json

import numpy as np
import pytest

from rfbench.papers.qmc import ridge
from tests.papers.qmc.conftest import X_FILE, Y_FILE


def _arm(data, partition, scaling):
    return ridge._arm(json.dumps(data, sort_keys=True), partition, scaling, 0)


def test_file_order_trains_on_the_first_rows_and_tests_on_the_next(toy_file):
    data, choice = _arm(toy_file, "file_order", "none")
    np.testing.assert_array_equal(data.X_train, X_FILE[:30])
    np.testing.assert_array_equal(data.X_test, X_FILE[30:45])
    np.testing.assert_array_equal(data.y_test, Y_FILE[30:45])
    assert choice["sigma"] == 2.0 + X_FILE[0, 0] and (choice["n_train"], choice["n_test"]) == (30, 15)


def test_the_scalings_are_fitted_on_the_training_part(toy_file):
    rows = np.random.default_rng(4).permutation(50)
    train, test = X_FILE[rows[:30]], X_FILE[rows[30:45]]
    minmax, _ = _arm(toy_file, "random", "minmax")
    low, high = train.min(axis=0), train.max(axis=0)
    np.testing.assert_allclose(minmax.X_train, (train - low) / (high - low), rtol=1e-12)
    np.testing.assert_allclose(minmax.X_test, (test - low) / (high - low), rtol=1e-12)
    standard, _ = _arm(toy_file, "random", "standard")
    np.testing.assert_allclose(standard.X_train.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(standard.X_train.std(axis=0), 1, rtol=1e-12)
    np.testing.assert_allclose(standard.X_test, (test - train.mean(axis=0)) / train.std(axis=0), rtol=1e-12)
    none, _ = _arm(toy_file, "random", "none")
    np.testing.assert_array_equal(none.X_train, train)


def test_a_trial_scores_every_sequence_on_its_arm_with_its_own_sigma(toy_file):
    frames = ridge.protocol_cells(trial=0, seed=0, data=toy_file, partition="file_order", scaling="standard",
                                  sizes=[3, 6], sequences=["halton", "mc"])
    data, choice = _arm(toy_file, "file_order", "standard")
    expected = ridge.sequence_errors(data, choice["sigma"], 0.01, "mc", ridge.trial_seed(0, 0), [3, 6])
    got = frames["errors"].query("sequence == 'mc'").reset_index(drop=True)
    np.testing.assert_array_equal(got["relative_error"], expected["relative_error"])
    assert set(frames["errors"]["partition"]) == {"file_order"} and frames["setting"]["scaling"].iloc[0] == "standard"
    later = ridge.protocol_cells(trial=1, seed=0, data=toy_file, partition="file_order", scaling="standard",
                                 sizes=[3], sequences=["halton", "mc"])["errors"]
    assert list(later["sequence"]) == ["mc"]  # Halton is deterministic: trial 0 only


@pytest.mark.parametrize(("partition", "scaling", "message"), [
    ("first", "minmax", r"job.partition='first': choose one of \['random', 'file_order'\]"),
    ("random", "zscore", r"job.scaling='zscore': choose one of \['minmax', 'standard', 'none'\]"),
])
def test_an_unknown_arm_is_refused_naming_the_valid_ones(partition, scaling, message):
    with pytest.raises(ValueError, match=message):
        ridge.protocol_cells.check_params(partition=partition, scaling=scaling, sizes=[3], sequences=["mc"])
