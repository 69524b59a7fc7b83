"""rfbench.dataset.partition: a file's rows under the config's split or in the file's order."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from rfbench.dataset import partition
from rfbench.dataset.loader import Dataset


def file_loader(X: np.ndarray, y: np.ndarray) -> Callable[[dict], Dataset]:
    """A stand-in for ``load_dataset`` on one toy file: scale none (asserted), a seeded random split of
    ``n_train`` / ``n_test`` rows, or the whole file on both sides for a ``files`` split (the file's order)."""
    def load(node: dict) -> Dataset:
        assert node["scale"] == "none"
        split = node["split"]
        if split["kind"] == "files":
            return Dataset("toy", X, y, X, y, np.empty(0), (), "regression")
        rows = np.random.default_rng(split["seed"]).permutation(len(X))
        train, test = rows[:split["n_train"]], rows[split["n_train"]:split["n_train"] + split["n_test"]]
        return Dataset("toy", X[train], y[train], X[test], y[test], np.empty(0), (), "regression")
    return load


X = np.arange(20.0).reshape(10, 2)
Y = np.arange(10.0)
NODE = {"name": "toy", "scale": "minmax", "split": {"kind": "random", "file": "data", "n_train": 6, "n_test": 3,
                                                    "seed": 1}}


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setattr(partition, "load_dataset", file_loader(X, Y))


def test_the_file_order_trains_on_the_first_rows_and_tests_on_the_next(toy):
    rows = partition.partitioned(NODE, "file_order")
    np.testing.assert_array_equal(rows.y_train, [0, 1, 2, 3, 4, 5])
    np.testing.assert_array_equal(rows.y_test, [6, 7, 8])
    np.testing.assert_array_equal(rows.X_test, X[6:9])


def test_the_random_partition_is_the_configs_split_unscaled(toy):
    rows = partition.partitioned(NODE, "random")
    expected = file_loader(X, Y)({**NODE, "scale": "none"})
    np.testing.assert_array_equal(rows.X_train, expected.X_train)
    np.testing.assert_array_equal(rows.y_test, expected.y_test)
    assert NODE["scale"] == "minmax"  # the caller's node is left as it was
