"""The GMM kernel and its transform (Li 2017, eqs. 2-3) against the direct definition."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist

from rfbench.kernel import gmm
from rfbench.kernel.gmm import GMMKernel, gmm_transform


def direct_gmm(u: np.ndarray, v: np.ndarray) -> float:
    """Eq. (3) on the transform of eq. (2), written out coordinate by coordinate (1-based as in the paper)."""
    def split(x):
        t = np.zeros(2 * len(x))
        for i, xi in enumerate(x, start=1):
            if xi > 0:
                t[2 * i - 2] = xi       # u~_{2i-1}
            else:
                t[2 * i - 1] = -xi      # u~_{2i}
        return t

    tu, tv = split(u), split(v)
    top, bottom = np.minimum(tu, tv).sum(), np.maximum(tu, tv).sum()
    return top / bottom if bottom > 0 else 0.0


def tiny_data() -> np.ndarray:
    rng = np.random.default_rng(3)
    X = rng.standard_normal((7, 4))
    X[X > 1.0] = 0.0          # exact zeros
    X[2] = 0.0                # an all-zero row
    X[3] = 2.5 * X[4]         # a scaled copy
    X[5] = -X[6]              # opposite signs everywhere
    return X


def test_transform_is_the_papers_example():
    np.testing.assert_array_equal(gmm_transform([[-5.0, 3.0]]), [[0.0, 5.0, 3.0, 0.0]])


def test_sparse_transform_equals_dense():
    X = tiny_data()
    T = gmm_transform(sp.csr_matrix(X))
    assert sp.issparse(T) and T.nnz == np.count_nonzero(X)
    np.testing.assert_array_equal(T.toarray(), gmm_transform(X))


def test_a_sparse_input_keeps_its_shape_when_its_last_row_and_column_are_zero():
    """The shape is the input's (n, 2D), not the one its nonzeros reach."""
    X = np.zeros((3, 4))
    X[0, 1], X[1, 0] = -2.0, 5.0
    T = gmm_transform(sp.csr_matrix(X))
    assert T.shape == (3, 8)
    np.testing.assert_array_equal(T.toarray(), gmm_transform(X))


# The same numbers in machine types whose negation misbehaves: int8's -128 overflows, unsigned ones wrap, bool has none.
TYPED_DATA = {
    "int8": np.array([[-128, 3, 0], [5, 0, -1], [0, 0, 0], [127, -7, 1]], dtype=np.int8),
    "uint8": np.array([[128, 3, 0], [5, 0, 255], [0, 0, 0]], dtype=np.uint8),
    "bool": np.array([[True, False, True], [False, False, False]]),
    "float32": np.array([[-1.5, 0.0, 2.25]], dtype=np.float32),
}


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("dtype", sorted(TYPED_DATA))
def test_the_transform_of_any_numeric_type_is_the_float64_split_of_its_values(dtype, sparse):
    """Eq. (2) splits the numbers, not their machine type: column 2i is max(x_i, 0), 2i + 1 is max(-x_i, 0)."""
    X = TYPED_DATA[dtype]
    values = X.astype(np.float64)
    expected = np.stack([np.maximum(values, 0.0), np.maximum(-values, 0.0)], axis=-1).reshape(len(X), -1)
    T = gmm_transform(sp.csr_matrix(X) if sparse else X)
    assert T.dtype == np.float64
    np.testing.assert_array_equal(T.toarray() if sparse else T, expected)


def test_gram_matches_direct_definition():
    X = tiny_data()
    Y = np.random.default_rng(4).standard_normal((3, 4))
    brute = np.array([[direct_gmm(x, y) for y in Y] for x in X])
    np.testing.assert_allclose(GMMKernel(4)(X, Y), brute, rtol=1e-13, atol=1e-15)
    K = GMMKernel(4)(X)
    np.testing.assert_allclose(K, [[direct_gmm(x, y) for y in X] for x in X], rtol=1e-13, atol=1e-15)
    assert K.dtype == np.float64 and K.shape == (7, 7)


def test_special_values_and_zero_row_rule():
    K = GMMKernel(4)(tiny_data())
    nonzero = [0, 1, 3, 4, 5, 6]
    np.testing.assert_array_equal(np.diag(K)[nonzero], 1.0)
    assert K[2, 2] == 0.0 and not K[2].any()            # GMM(0, .) = 0, the documented 0/0 rule
    assert K[5, 6] == 0.0                               # no shared sign anywhere
    assert K[3, 4] == pytest.approx(1 / 2.5, rel=1e-14)  # min/max of a positive multiple
    np.testing.assert_array_equal(K, K.T)


def test_tiles_cover_the_gram_and_the_symmetric_path_agrees():
    # More rows and columns than one tile, with ragged last tiles; l1 distances from scipy.
    rng = np.random.default_rng(5)
    X, Y = rng.standard_normal((gmm.TILE_ROWS + 13, 6)), rng.standard_normal((3 * gmm.TILE_COLUMNS + 5, 6))
    distance = cdist(X, Y, "cityblock")
    total = np.abs(X).sum(1)[:, None] + np.abs(Y).sum(1)[None, :]
    np.testing.assert_allclose(GMMKernel(6)(X, Y), (total - distance) / (total + distance), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(GMMKernel(6)(X), GMMKernel(6)(X, X.copy()), rtol=1e-14)


def test_gmm_equals_min_max_kernel_on_nonnegative_data():
    X = np.random.default_rng(6).random((5, 3))
    min_max = np.minimum(X[:, None], X[None]).sum(-1) / np.maximum(X[:, None], X[None]).sum(-1)
    np.testing.assert_allclose(GMMKernel(3)(X), min_max, rtol=1e-13)


def test_value_is_undefined_and_bad_input_refused():
    with pytest.raises(NotImplementedError, match=r"not shift-invariant.*use the Gram matrix kernel\(X, Y\)"):
        GMMKernel(2).value(np.zeros((1, 2)))
    with pytest.raises(ValueError, match=r"X must be 2-D of shape \(n, D\), got shape \(3,\)"):
        gmm_transform(np.zeros(3))
    with pytest.raises(ValueError, match="d must be a positive integer, got 0"):
        GMMKernel(0)
    with pytest.raises(ValueError, match="last axis of length d=3"):
        GMMKernel(3)(np.zeros((2, 4)))
