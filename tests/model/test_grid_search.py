"""The grid-search helpers shared by the ridge and kernel-SVM models."""
import numpy as np
import pytest
from sklearn.model_selection import KFold, StratifiedKFold

from rfbench.model.grid_search import Progress, check_grid, make_folds


def test_check_grid_returns_float64_and_names_bad_values():
    np.testing.assert_array_equal(check_grid("C_grid", [1, 2.5]), [1.0, 2.5])
    assert check_grid("lambda_grid", [0.0], allow_zero=True).tolist() == [0.0]
    with pytest.raises(ValueError, match=r"C_grid must be a non-empty 1-D sequence of floats > 0, got 'abc'"):
        check_grid("C_grid", "abc")
    with pytest.raises(ValueError, match=r"C_grid must be a non-empty 1-D sequence .* got \[\[1.0\]\]"):
        check_grid("C_grid", [[1.0]])
    with pytest.raises(ValueError, match=r"every value of C_grid must be finite and > 0, got C_grid\[0\] = 0.0"):
        check_grid("C_grid", [0.0])


def test_make_folds_are_sklearns_shuffled_folds():
    y = np.array([0, 1] * 10)
    folds = make_folds(4, y, stratified=True, random_state=3)
    expected = StratifiedKFold(4, shuffle=True, random_state=3).split(np.zeros((20, 1)), y)
    for (train, test), (train_e, test_e) in zip(folds, expected, strict=True):
        np.testing.assert_array_equal(train, train_e)
        np.testing.assert_array_equal(test, test_e)
    plain = make_folds(5, np.linspace(0, 1, 20), stratified=False, random_state=3)
    np.testing.assert_array_equal(plain[0][1], next(KFold(5, shuffle=True, random_state=3).split(np.zeros((20, 1))))[1])


def test_progress_counts_up_to_its_total():
    calls = []
    progress = Progress(lambda done, total: calls.append((done, total)), 5)
    progress(3)
    progress()
    Progress(None, 2)()  # no callback: nothing to call
    assert calls == [(3, 5), (4, 5)]
