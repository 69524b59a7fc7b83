"""The fast Walsh-Hadamard transform against scipy's dense Hadamard matrix."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import hadamard

from rfbench.feature_map._hadamard import fwht, padded_width


@pytest.mark.parametrize("p", [1, 2, 4, 8, 64, 256])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fwht_is_the_dense_sylvester_matrix_applied(p, dtype):
    v = np.random.default_rng(p).normal(size=p).astype(dtype)
    expected = hadamard(p) @ v.astype(np.float64)
    fwht(v)
    np.testing.assert_allclose(v, expected, rtol=0, atol=1e-4 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize(("d", "p"), [(1, 1), (2, 2), (3, 4), (57, 64), (64, 64), (65, 128), (784, 1024)])
def test_padded_width_is_the_next_power_of_two(d, p):
    assert padded_width(d) == p
