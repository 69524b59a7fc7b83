"""The fast Walsh-Hadamard transform and its column loads and stores, against dense numpy."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import hadamard

from rfbench.feature_map._hadamard import fwht_columns, load_columns, padded_width, store_columns


@pytest.mark.parametrize("p", [1, 2, 4, 8, 64, 256])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fwht_is_the_dense_sylvester_matrix_applied_to_each_column(p, dtype):
    V = np.random.default_rng(p).normal(size=(p, 5)).astype(dtype)
    expected = hadamard(p) @ V.astype(np.float64)
    fwht_columns(V)
    np.testing.assert_allclose(V, expected, rtol=0, atol=1e-4 if dtype == np.float32 else 1e-12)


def test_load_pads_and_signs_rows_and_store_scales_a_slice():
    rng = np.random.default_rng(0)
    X, signs = rng.normal(size=(7, 3)), rng.choice([-1.0, 1.0], size=4)
    V = np.full((4, 5), np.nan)
    assert load_columns(X, 5, signs, V) == 2  # rows 5, 6 only
    np.testing.assert_array_equal(V[:, :2], np.vstack([X[5:].T * signs[:3, None], np.zeros((1, 2))]))
    out = np.zeros((7, 6))
    store_columns(V, 2, np.arange(4.0), 1, 3, out, 5, 4)  # block rows 1, 2 -> out columns 4, 5
    np.testing.assert_array_equal(out[5:, 4:], (V[1:3, :2] * np.arange(4.0)[1:3, None]).T)
    assert not out[:5].any() and not out[:, :4].any()


@pytest.mark.parametrize(("d", "p"), [(1, 1), (2, 2), (3, 4), (57, 64), (64, 64), (65, 128), (784, 1024)])
def test_padded_width_is_the_next_power_of_two(d, p):
    assert padded_width(d) == p
