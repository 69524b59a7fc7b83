"""Split kinds: sizes, disjointness, determinism, stratification and config checks."""
import numpy as np
import pytest

from rfbench.dataset import DatasetError
from rfbench.dataset.splits import apply_split, check_split

N = 100
DATA = {"data": (np.arange(N, dtype=float)[:, None], np.arange(N) % 4 == 0)}


def row_ids(part):
    return part[0][:, 0].astype(int)


def test_random_split_has_requested_sizes_disjoint_rows_and_leaves_the_rest_out():
    train, test = apply_split({"kind": "random", "file": "data", "n_train": 60, "n_test": 30, "seed": 0}, DATA)
    assert len(row_ids(train)) == 60 and len(row_ids(test)) == 30
    assert not set(row_ids(train)) & set(row_ids(test))
    np.testing.assert_array_equal(train[1], DATA["data"][1][row_ids(train)])  # labels stay with rows


def test_random_split_is_fixed_by_its_seed():
    split = {"kind": "random", "file": "data", "n_train": 60, "n_test": 30, "seed": 0}
    first, again = apply_split(split, DATA), apply_split(split, DATA)
    other = apply_split({**split, "seed": 1}, DATA)
    np.testing.assert_array_equal(row_ids(first[0]), row_ids(again[0]))
    assert not np.array_equal(row_ids(first[0]), row_ids(other[0]))


def test_random_split_larger_than_the_file_is_an_error():
    with pytest.raises(DatasetError, match="n_train \\+ n_test = 101 rows, but the file has 100"):
        apply_split({"kind": "random", "file": "data", "n_train": 91, "n_test": 10, "seed": 0}, DATA)


def test_stratified_split_keeps_class_proportions():
    split = {"kind": "stratified", "file": "data", "test_fraction": 0.2, "seed": 0}
    train, test = apply_split(split, DATA)
    assert len(test[1]) == 20 and len(train[1]) == 80
    assert test[1].sum() == 5 and train[1].sum() == 20  # 25% positives in both
    assert not set(row_ids(train)) & set(row_ids(test))


def test_files_split_uses_the_named_files_as_is():
    data = {"tr": DATA["data"], "te": (np.zeros((3, 1)), np.ones(3))}
    train, test = apply_split({"kind": "files", "train": "tr", "test": "te"}, data)
    assert train is data["tr"] and test is data["te"]


def test_a_list_of_files_is_pooled_in_order_before_the_random_split():
    data = {"a": (DATA["data"][0][:70], DATA["data"][1][:70]), "b": (DATA["data"][0][70:], DATA["data"][1][70:])}
    split = {"kind": "random", "file": ["a", "b"], "n_train": 60, "n_test": 40, "seed": 3}
    pooled = apply_split(split, data)
    single = apply_split({**split, "file": "data"}, DATA)
    for part, reference in zip(pooled, single):
        np.testing.assert_array_equal(part[0], reference[0])
        np.testing.assert_array_equal(part[1], reference[1])
    assert sorted([*row_ids(pooled[0]), *row_ids(pooled[1])]) == list(range(N))  # every row of both files


@pytest.mark.parametrize("split, message", [
    ({"kind": "kfold"}, "unknown split kind 'kfold'; valid kinds: files, random, stratified"),
    ({"kind": "random", "file": "data", "n_train": 5}, "takes exactly ['file', 'n_test', 'n_train', 'seed']"),
    ({"kind": "files", "train": "data", "test": "tst"}, "refers to file 'tst', but files has only ['data']"),
    ({"kind": "random", "file": ["data", "tst"], "n_train": 5, "n_test": 5, "seed": 0},
     "refers to file 'tst', but files has only ['data']"),
    ({"kind": "random", "file": "data", "n_train": 0, "n_test": 5, "seed": 0}, "positive integers, got 0, 5"),
    ({"kind": "stratified", "file": "data", "test_fraction": 1.5, "seed": 0}, "in (0, 1), got 1.5"),
])
def test_bad_split_configs_are_explained(split, message):
    with pytest.raises(DatasetError) as err:
        check_split(split, ["data"])
    assert message in str(err.value)
