"""Label encoding and feature scaling, fitted on train only."""
import logging

import numpy as np
import pytest

from rfbench.dataset import DatasetError, load_dataset
from rfbench.dataset.preprocessing import (
    SCALINGS,
    encode_labels,
    min_max_each,
    min_max_pooled,
    min_max_scale,
    min_max_unit_rows,
)


def test_train_is_scaled_to_exactly_0_1_and_test_uses_the_train_map_unclipped():
    rng = np.random.default_rng(0)
    X_train = rng.normal(size=(200, 4)) * [1, 10, 1e-3, 1e5] + [0, 5, -2, 1e6]
    X_test = np.vstack([X_train[:3] * 3, rng.normal(size=(10, 4))])
    S_train, S_test = min_max_scale(X_train, X_test)
    np.testing.assert_array_equal(S_train.min(axis=0), 0.0)
    np.testing.assert_array_equal(S_train.max(axis=0), 1.0)
    low, high = X_train.min(axis=0), X_train.max(axis=0)
    np.testing.assert_allclose(S_test, (X_test - low) / (high - low), rtol=1e-12)
    assert S_test.min() < 0 or S_test.max() > 1  # outside [0, 1] on purpose: no clipping


def test_constant_training_column_maps_to_zero_in_both_splits_and_is_logged(caplog):
    X_train = np.array([[1.0, 7.0], [3.0, 7.0]])
    X_test = np.array([[2.0, 9.0]])
    with caplog.at_level(logging.INFO, logger="rfbench.dataset.preprocessing"):
        S_train, S_test = min_max_scale(X_train, X_test)
    np.testing.assert_array_equal(S_train, [[0, 0], [1, 0]])
    np.testing.assert_array_equal(S_test, [[0.5, 0]])
    assert "features [2] are constant" in caplog.text


def test_pooled_minmax_fits_one_map_on_train_and_test_together():
    X_train = np.array([[0.0, 10.0], [4.0, 30.0]])
    X_test = np.array([[-4.0, 20.0], [2.0, 50.0]])
    S_train, S_test = min_max_pooled(X_train, X_test)
    # Pooled: feature 1 spans [-4, 4], feature 2 [10, 50]; every row of both parts lies in [0, 1].
    np.testing.assert_allclose(S_train, [[0.5, 0.0], [1.0, 0.5]], rtol=1e-15)
    np.testing.assert_allclose(S_test, [[0.0, 0.25], [0.75, 1.0]], rtol=1e-15)


def test_each_part_minmax_maps_train_and_test_by_their_own_ranges():
    X_train = np.array([[0.0, 10.0], [4.0, 30.0], [2.0, 30.0]])
    X_test = np.array([[-4.0, 20.0], [2.0, 50.0], [0.0, 20.0]])
    S_train, S_test = min_max_each(X_train, X_test)
    np.testing.assert_allclose(S_train, [[0.0, 0.0], [1.0, 1.0], [0.5, 1.0]], rtol=1e-15)
    np.testing.assert_allclose(S_test, [[0.0, 0.0], [1.0, 1.0], [2 / 3, 0.0]], rtol=1e-15)


def test_minmax_unit_rows_scales_features_on_train_then_divides_each_row_by_its_norm():
    X_train = np.array([[0.0, 10.0], [4.0, 30.0], [2.0, 40.0]])
    X_test = np.array([[6.0, 25.0], [0.0, 10.0]])
    S_train, S_test = min_max_unit_rows(X_train, X_test)
    # Min-max gives [[0, 0], [1, 2/3], [1/2, 1]] and test [[3/2, 1/2], [0, 0]] (the training map,
    # unclipped); the all-zero rows stay zero.
    np.testing.assert_allclose(S_train, [[0, 0], [3 / 13 ** 0.5, 2 / 13 ** 0.5], [1 / 5 ** 0.5, 2 / 5 ** 0.5]],
                               rtol=1e-15)
    np.testing.assert_allclose(S_test, [[3 / 10 ** 0.5, 1 / 10 ** 0.5], [0, 0]], rtol=1e-15)


def test_an_unknown_scale_is_refused_naming_every_choice(tmp_path):
    cfg = {"name": "toy", "n_features": 2, "files": {"data": {"path": "toy.csv"}}, "scale": "minmax_rows",
           "split": {"kind": "random", "file": "data", "n_train": 1, "n_test": 1, "seed": 0}}
    with pytest.raises(DatasetError) as err:
        load_dataset(cfg, cache_dir=tmp_path, mirror="http://127.0.0.1:9")
    assert f"dataset.scale='minmax_rows' is invalid; choose one of {list(SCALINGS)}" in str(err.value)
    assert "'minmax_unit_rows'" in str(err.value)


def test_labels_become_sorted_class_indices_fitted_on_train():
    classes, y_train, y_test = encode_labels(np.array(["b", "a", "c", "a"]), np.array(["c", "a"]))
    assert classes.tolist() == ["a", "b", "c"]
    assert y_train.tolist() == [1, 0, 2, 0] and y_test.tolist() == [2, 0]
    assert y_train.dtype == y_test.dtype == np.int64


def test_numeric_labels_keep_their_original_values_in_classes():
    classes, y_train, y_test = encode_labels(np.array([1.0, -1.0, 1.0]), np.array([-1, 1]))
    assert classes.tolist() == [-1.0, 1.0] and y_test.tolist() == [0, 1]


@pytest.mark.parametrize("y_train, y_test, message", [
    ([0, 1, 0], [1, 2, 7], r"test labels \[2, 7\] do not occur in the training split"),
    ([3, 3], [3], r"only the label\(s\) \[3\]"),
])
def test_bad_labels_are_rejected(y_train, y_test, message):
    with pytest.raises(DatasetError, match=message):
        encode_labels(np.array(y_train), np.array(y_test))
