"""Gram approximation error and accuracy against direct dense computation."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from scipy import sparse
from scipy.spatial.distance import cdist

from rfbench.feature_map import AsKRFF, GaussianRFF, IdentityMap
from rfbench.metrics import (
    LANCZOS_MIN_SIZE,
    NORMS,
    accuracy,
    approximate_gram,
    relative_gram_error,
    relative_gram_errors,
    spectral_norm,
    test_scores,
)
from tests.feature_map.toy_maps import RandomBinning

RNG = np.random.default_rng(0)
X = RNG.normal(size=(30, 4))
Y = RNG.normal(size=(11, 4))


def dense_gram(fmap, A, B):
    """K~ from the complete factors [L_1 .. L_b] [R_1 .. R_b]^T in one product."""
    blocks = list(fmap.gram_blocks(A, B, block_size=10**9))
    return np.hstack([L for L, _ in blocks]) @ np.hstack([R for _, R in blocks]).T


@pytest.mark.parametrize("block_size", [1, 3, 7, 40, 1000])
def test_approximate_gram_equals_feature_products(block_size):
    rff = GaussianRFF(n_components=40, dtype="float64", random_state=0).fit(X)
    G = approximate_gram(rff, X, Y, block_size=block_size)
    assert G.shape == (30, 11) and G.dtype == np.float64
    np.testing.assert_allclose(G, rff.transform(X) @ rff.transform(Y).T, rtol=0, atol=1e-12)
    np.testing.assert_allclose(approximate_gram(IdentityMap().fit(X), X, Y), X @ Y.T, atol=1e-12)


def test_relative_gram_error_equals_direct_computation():
    K = np.exp(-cdist(X, X, "sqeuclidean") / 2)
    rff = GaussianRFF(n_components=25, variant="cos_offset", dtype="float64", random_state=1).fit(X)
    Z = rff.transform(X)
    direct = np.linalg.norm(K - Z @ Z.T) / np.linalg.norm(K)
    assert relative_gram_error(K, rff, X, block_size=4) == pytest.approx(direct, abs=1e-12)


@pytest.mark.parametrize("kernel", ["shift_gaussian", "cosh_gaussian"])
def test_block_size_does_not_change_the_error(kernel):
    U = RNG.uniform(size=(25, 4))
    fmap = AsKRFF(kernel=kernel, n_components=37, total_mass="exact", random_state=2).fit(U)
    K = fmap.kernel_(U, U)
    direct = np.linalg.norm(K - dense_gram(fmap, U, U)) / np.linalg.norm(K)
    errors = [relative_gram_error(K, fmap, U, block_size=b) for b in (1, 5, 36, 37, 1000)]
    np.testing.assert_allclose(errors, direct, rtol=0, atol=1e-10)


@pytest.mark.parametrize(("other", "M"), [(False, 20000), (True, 4096)], ids=["K(X,X)", "K(X,Y)"])
def test_memory_is_independent_of_the_number_of_features(other, M):
    """2 * 20000 features of 200 points would take 64 MB (13 MB for 4096); blocks of 256 need about 4 MB.

    The error is held to its expectation: K~_ij is the mean of M independent cos(w . d_ij), of
    variance (1 + k(2 d_ij) - 2 k(d_ij)^2) / (2M), so E||K - K~||_F^2 is the sum of these (0.0234
    ||K||_F squared here for M = 20000). Its own generator keeps the points the same whichever tests
    ran before (the module's RNG gave 0.0206 in another order). K(X,Y), with Y a copy of X, takes
    the general product, which honours ``block_size`` as well (blocks of the default 1024
    frequencies would take about 15 MB).
    """
    U = np.random.default_rng(4).normal(size=(200, 4))
    V = U.copy()
    rff = GaussianRFF(n_components=M, random_state=3).fit(U)
    sq_dist = cdist(U, U, "sqeuclidean")
    K = np.exp(-sq_dist / 2)
    expected = np.sqrt(np.sum(1 + np.exp(-2 * sq_dist) - 2 * K**2) / (2 * M)) / np.linalg.norm(K)
    tracemalloc.start()
    try:
        if other:
            G = approximate_gram(rff, U, V, block_size=256)
        else:
            error = relative_gram_error(K, rff, U, block_size=256)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    if other:
        error = np.linalg.norm(K - G) / np.linalg.norm(K)
    assert 0.5 * expected < error < 1.5 * expected, (error, expected)
    assert peak < 8 * 2**20, peak


def test_relative_gram_error_rejects_bad_K():
    rff = GaussianRFF(n_components=4).fit(X)
    with pytest.raises(ValueError, match=r"K has shape \(30, 29\), expected \(30, 30\) for X with 30 rows"):
        relative_gram_error(np.ones((30, 29)), rff, X)
    with pytest.raises(ValueError, match="K is all zeros"):
        relative_gram_error(np.zeros((30, 30)), rff, X)


def test_a_float32_K_is_compared_in_float64():
    """K is converted to float64 first: its norms and K - K~ in float32 would be some 1e-8 off."""
    K = np.exp(-cdist(X, X, "sqeuclidean") / 2).astype(np.float32)
    K64 = K.astype(np.float64)  # the same values
    rff = GaussianRFF(n_components=25, random_state=1).fit(X)
    residual = K64 - dense_gram(rff, X, X)
    errors = relative_gram_errors(K, rff, X, norms=NORMS)
    assert errors["fro"] == pytest.approx(np.linalg.norm(residual) / np.linalg.norm(K64), rel=1e-12)
    assert errors["spectral"] == pytest.approx(np.linalg.norm(residual, 2) / np.linalg.norm(K64, 2), rel=1e-12)


def test_accuracy():
    assert accuracy([1, -1, 1, 1], [1, 1, 1, -1]) == 0.5
    assert accuracy(np.array(["a", "b"]), np.array(["a", "b"])) == 1.0
    with pytest.raises(ValueError, match=r"equal length, got shapes \(3,\) and \(2,\)"):
        accuracy([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="non-empty"):
        accuracy([], [])


def test_the_test_scores_of_each_task():
    """Known answers: a 3-4-5 residual, and three right labels out of four."""
    assert test_scores("classification", [1, -1, 1, 1], [1, -1, 1, -1]) == {"test_accuracy": 0.75, "test_error": 0.25}
    scores = test_scores("regression", [0.0, 5.0], [3.0, 9.0])  # residual (3, 4), ||y_true|| = 5
    assert scores == {"test_relative_error": pytest.approx(1.0), "test_rmse": pytest.approx(np.sqrt(12.5))}
    with pytest.raises(ValueError, match="y_true is all zeros"):
        test_scores("regression", [0.0, 0.0], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"equal length, got shapes \(2,\) and \(3,\)"):
        test_scores("regression", [1.0, 2.0], [1.0, 2.0, 3.0])
    # One test point is a sample (residual 1, ||y_true|| = 2); none is refused.
    assert test_scores("regression", [2.0], [3.0]) == {"test_relative_error": 0.5, "test_rmse": 1.0}
    with pytest.raises(ValueError, match=r"non-empty .* got shapes \(0,\) and \(0,\)"):
        test_scores("regression", [], [])


def test_float32_targets_are_scored_by_their_values():
    """Targets and predictions are converted to float64 first: ||y_true|| summed in float32 would be 1e-8 off."""
    rng = np.random.default_rng(5)
    y_true, y_pred = rng.normal(size=(2, 1000)).astype(np.float32)
    expected = test_scores("regression", y_true.astype(np.float64), y_pred.astype(np.float64))
    assert test_scores("regression", y_true, y_pred) == expected


class _ShuffledBlocks(IdentityMap):
    """Factor pairs without structure: L = X[:, :2], R = X[:, 2:] and back, then pairs of odd widths 1 and 3
    (no halves: the sine block's test must not split them)."""

    def gram_blocks(self, X, Y=None, block_size=1):
        X, Y = self._validate_pair(X, Y)
        yield X[:, :2], Y[:, 2:]
        yield X[:, 2:], Y[:, :2]
        yield X[:, :1], Y[:, 3:]
        yield X[:, 1:], Y[:, :3]


class _SwappedHalves(IdentityMap):
    """K~ = X P X^T with R = [L2, L1], a near miss of the sine block's [L2, -L1]: L R^T is symmetric, not B - B^T."""

    def gram_blocks(self, X, Y=None, block_size=1):
        X, Y = self._validate_pair(X, Y)
        yield X, np.hstack([Y[:, 2:], Y[:, :2]])


@pytest.mark.parametrize(
    "fmap",
    [
        AsKRFF(kernel="shift_gaussian", n_components=33, random_state=4),  # R = L, R = -L and R = [L2, -L1]
        GaussianRFF(n_components=33, variant="cos_offset", random_state=4),
        _ShuffledBlocks(),
        _SwappedHalves(),
    ],
    ids=["askrff", "rff", "unstructured", "swapped-halves"],
)
def test_symmetric_shortcuts_equal_the_general_product(fmap):
    """Y=None recognizes structured factor pairs; Y=copy of X always takes the general GEMM."""
    fmap.fit(X)
    np.testing.assert_allclose(approximate_gram(fmap, X, block_size=7), dense_gram(fmap, X, X.copy()), atol=1e-13)
    np.testing.assert_allclose(approximate_gram(fmap, X, block_size=7), approximate_gram(fmap, X, X.copy()), atol=1e-13)


@pytest.mark.parametrize(
    ("kind", "other"), [("rff", False), ("rff", True), ("askrff", False)], ids=["K(X,X)", "K(X,Y)", "askrff-K(X,X)"]
)
def test_the_gram_is_summed_in_place_without_a_temporary_per_block(kind, other):
    """K~(X, Y) is one Fortran-ordered (n_x, n_y) buffer updated in place by BLAS; K~(X, X) three (the general
    sum, the rank-k updates, the skew part). A copy of a buffer per block (BLAS given a C-ordered one, or not
    allowed to overwrite it) would show as one more buffer at the peak. AsK-RFF of the cosh kernel gives every
    structure: R = L, R = -L (its negative part, of estimated mass 0.44 here) and the sine block."""
    U = np.random.default_rng(7).normal(size=(1000, 4))
    if kind == "rff":
        fmap = GaussianRFF(n_components=64, random_state=7).fit(U)
    else:
        fmap = AsKRFF(kernel="cosh_gaussian", n_components=64, random_state=7).fit(U)
    tracemalloc.start()
    try:
        G = approximate_gram(fmap, U, U[:800] if other else None, block_size=16)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    buffers = 1 if other else 3
    assert G.flags.f_contiguous
    assert peak < (buffers + 0.5) * G.nbytes, peak / G.nbytes  # measured: 0.1-0.2 buffer more


# --- sparse factors -------------------------------------------------------------------
def shared_cells(fmap: RandomBinning, A, B) -> np.ndarray:
    """The toy map's K~(A, B), counted from the cells directly."""
    return (fmap.cells(A)[:, None, :] == fmap.cells(B)[None, :, :]).sum(axis=2).astype(float)


def test_gram_of_a_million_sparse_columns_without_densifying_them():
    """4 x 250,000 columns: one dense row would take 8 MB, the 200 rows 1.6 GB."""
    U = RNG.uniform(size=(200, 4))
    fmap = RandomBinning(width=0.3, random_state=5).fit(U)
    tracemalloc.start()
    try:
        G = approximate_gram(fmap, U)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert G.shape == (200, 200) and G.dtype == np.float64
    np.testing.assert_array_equal(G, shared_cells(fmap, U, U))
    G_XY = approximate_gram(fmap, U, U[:30])
    np.testing.assert_array_equal(G_XY, shared_cells(fmap, U, U[:30]))
    # The sparse product is added into the Fortran-ordered buffer in place, not summed into a new (C-ordered) one.
    assert type(G) is type(G_XY) is np.ndarray and G.flags.f_contiguous and G_XY.flags.f_contiguous
    assert peak < 24 * 2**20, peak


class _MixedBlocks(IdentityMap):
    """K~ = X X^T in three blocks: a CSR pair, a dense-by-CSR pair and a CSR-by-dense pair."""

    def gram_blocks(self, X, Y=None, block_size=1):
        X, Y = self._validate_pair(X, Y)
        yield sparse.csr_array(X[:, :2]), sparse.csr_array(Y[:, :2])
        yield X[:, 2:3], sparse.csr_array(Y[:, 2:3])
        yield sparse.csr_array(X[:, 3:]), Y[:, 3:]


def test_sparse_and_mixed_factors_add_up_like_dense_ones():
    fmap = _MixedBlocks().fit(X)
    np.testing.assert_allclose(approximate_gram(fmap, X), X @ X.T, rtol=0, atol=1e-13)
    np.testing.assert_allclose(approximate_gram(fmap, X, Y), X @ Y.T, rtol=0, atol=1e-13)


def test_gram_error_of_sparse_features_in_both_norms():
    U = RNG.uniform(size=(80, 3))
    fmap = RandomBinning(random_state=6).fit(U)
    K = 3 * np.exp(-cdist(U, U, "cityblock"))  # an exact Gram to compare with (any would serve)
    residual = K - shared_cells(fmap, U, U)
    errors = relative_gram_errors(K, fmap, U, norms=NORMS, block_size=1)
    assert errors["fro"] == pytest.approx(np.linalg.norm(residual) / np.linalg.norm(K), rel=1e-12)
    assert errors["spectral"] == pytest.approx(np.linalg.norm(residual, 2) / np.linalg.norm(K, 2), rel=1e-12)


# --- spectral norm --------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 5, LANCZOS_MIN_SIZE - 1, LANCZOS_MIN_SIZE, 300])
@pytest.mark.parametrize("symmetric", [False, True], ids=["general", "symmetric"])
def test_spectral_norm_equals_lapack_on_random_matrices(n, symmetric):
    A = np.random.default_rng(n).standard_normal((n, n))
    if symmetric:
        A = A + A.T
    assert spectral_norm(A) == pytest.approx(np.linalg.norm(A, 2), rel=1e-12)


@pytest.mark.parametrize("n", [20, 200])
def test_spectral_norm_of_a_rank_one_matrix_is_its_scale(n):
    rng = np.random.default_rng(7)
    u, v = (w / np.linalg.norm(w) for w in rng.standard_normal((2, n)))
    assert spectral_norm(-3.5 * np.outer(u, v)) == pytest.approx(3.5, rel=1e-13)
    assert spectral_norm(2.0 * np.outer(u, u)) == pytest.approx(2.0, rel=1e-13)  # symmetric


@pytest.mark.parametrize("n", [LANCZOS_MIN_SIZE, 200])
def test_spectral_norm_of_a_symmetric_matrix_whose_dominant_eigenvalue_is_negative(n):
    """Q diag(-5, 2, 1, 0.5) Q^T: ||A||_2 = 5, the largest |lambda|, not the largest lambda (2).

    A Gram residual K~ - K is like this where K~ underestimates K most (e.g. on the diagonal).
    """
    Q = np.linalg.qr(np.random.default_rng(n).standard_normal((n, 4)))[0]
    A = (Q * [-5.0, 2.0, 1.0, 0.5]) @ Q.T
    A = (A + A.T) / 2  # exactly symmetric, so the Lanczos path on A itself (eigsh) runs
    assert spectral_norm(A) == pytest.approx(5.0, rel=1e-12)
    assert spectral_norm(-A) == pytest.approx(5.0, rel=1e-12)


@pytest.mark.parametrize("symmetric", [False, True], ids=["general", "symmetric"])
def test_spectral_norm_is_the_same_float_at_every_call(symmetric):
    """Lanczos from a fixed start vector: a record's spectral error is reproducible bit for bit
    (from ARPACK's own random start, repeated calls differ in the last bits)."""
    A = np.random.default_rng(3).standard_normal((300, 300))
    if symmetric:
        A = A + A.T
    assert len({spectral_norm(A) for _ in range(3)}) == 1


@pytest.mark.parametrize("n", [20, 300])
@pytest.mark.parametrize("symmetric", [False, True], ids=["general", "symmetric"])
def test_spectral_norm_of_a_float32_matrix_is_computed_in_float64(n, symmetric):
    """A is converted to float64 first: LAPACK or ARPACK in float32 would be some 1e-8 off."""
    A = np.random.default_rng(n).standard_normal((n, n))
    A = (A + A.T if symmetric else A).astype(np.float32)
    assert spectral_norm(A) == pytest.approx(np.linalg.norm(A.astype(np.float64), 2), rel=1e-12)


def test_spectral_norm_rejects_a_non_square_matrix():
    with pytest.raises(ValueError, match=r"A must be a non-empty square matrix, got shape \(3, 4\)"):
        spectral_norm(np.ones((3, 4)))


@pytest.mark.parametrize("n", [20, 150])
def test_relative_errors_of_a_known_rank_one_residual(n):
    """K = Q diag(s^2) Q^T + t u v^T, u, v orthogonal to Q's columns, and K~ = Q diag(s^2) Q^T.

    The residual K - K~ = t u v^T is asymmetric of spectral norm |t|; K's singular
    values are those of the two orthogonal parts, so ||K||_2 = max(s_1^2, |t|).
    """
    Q = np.linalg.qr(np.random.default_rng(8).standard_normal((n, 6)))[0]
    s, t = np.array([2.0, 1.5, 1.0, 0.5]), -3.0
    U = Q[:, :4] * s  # the identity map's K~ = U U^T = Q diag(s^2) Q^T
    K = U @ U.T + t * np.outer(Q[:, 4], Q[:, 5])
    errors = relative_gram_errors(K, IdentityMap().fit(U), U, norms=("spectral", "fro"))
    assert list(errors) == ["spectral", "fro"]
    assert errors["spectral"] == pytest.approx(3.0 / 4.0, rel=1e-12)
    assert errors["fro"] == pytest.approx(3.0 / np.sqrt(np.sum(s**4) + 9.0), rel=1e-12)


@pytest.mark.parametrize("n", [20, 150])
def test_relative_spectral_error_of_an_underestimating_approximation(n):
    """K = U U^T + 3 q q^T with q orthogonal to U's columns, and K~ = U U^T.

    The residual K~ - K = -3 q q^T is symmetric with its one nonzero eigenvalue
    negative: its spectral norm is 3, and ||K||_2 = max(s_1^2, 3) = 4.
    """
    Q = np.linalg.qr(np.random.default_rng(9).standard_normal((n, 5)))[0]
    s = np.array([2.0, 1.5, 1.0, 0.5])
    U = Q[:, :4] * s
    K = U @ U.T + 3.0 * np.outer(Q[:, 4], Q[:, 4])
    K = (K + K.T) / 2
    errors = relative_gram_errors(K, IdentityMap().fit(U), U, norms=("spectral", "fro"))
    assert errors["spectral"] == pytest.approx(3.0 / 4.0, rel=1e-10)
    assert errors["fro"] == pytest.approx(3.0 / np.sqrt(np.sum(s**4) + 9.0), rel=1e-10)


@pytest.mark.parametrize("kernel", ["sinh_gaussian", "cosh_gaussian"])
def test_spectral_error_of_an_asymmetric_kernel(kernel):
    U = RNG.uniform(size=(LANCZOS_MIN_SIZE + 6, 4))
    fmap = AsKRFF(kernel=kernel, n_components=30, random_state=9).fit(U)
    K = fmap.kernel_(U, U)
    assert not np.allclose(K, K.T)
    residual = K - dense_gram(fmap, U, U)
    errors = relative_gram_errors(K, fmap, U, norms=NORMS, block_size=7)
    assert errors["spectral"] == pytest.approx(np.linalg.norm(residual, 2) / np.linalg.norm(K, 2), rel=1e-10)
    assert errors["fro"] == relative_gram_error(K, fmap, U, block_size=7)  # the same operations, bit for bit


def test_relative_gram_errors_rejects_unknown_norms():
    rff = GaussianRFF(n_components=4).fit(X)
    K = np.eye(30)
    with pytest.raises(ValueError, match=r"norm 'nuc' is not valid; choose one or more of \('fro', 'spectral'\)"):
        relative_gram_errors(K, rff, X, norms=("fro", "nuc"))
    with pytest.raises(ValueError, match="norms is empty"):
        relative_gram_errors(K, rff, X, norms=())
    assert list(relative_gram_errors(K, rff, X, norms="spectral")) == ["spectral"]
    assert list(relative_gram_errors(K, rff, X)) == ["fro"]
