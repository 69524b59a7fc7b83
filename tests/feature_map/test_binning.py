"""Random binning features: collision law, convergence to the Laplacian kernel, CSR layout, bad input."""
import numpy as np
import pytest
from scipy import stats

from rfbench.feature_map import binning as binning_module
from rfbench.feature_map.binning import RandomBinning
from rfbench.kernel.gaussian import GaussianKernel
from rfbench.kernel.laplacian import LaplacianKernel


def laplacian(D: np.ndarray, sigma: float) -> np.ndarray:
    """exp(-||D||_1 / sigma), written out independently of the package."""
    return np.exp(-np.sum(np.abs(D), axis=-1) / sigma)


def direct_bins(fmap: RandomBinning, X: np.ndarray) -> np.ndarray:
    """Integer bin vectors floor((x - u) / delta), shape (n, P, d), without hashing."""
    return np.floor((X[:, None, :] - fmap.shifts_) / fmap.pitches_).astype(np.int64)


def collision_fraction(fmap: RandomBinning, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """(1/P) #{p : x and y share a bin of grid p}, from the bin vectors themselves."""
    BX, BY = direct_bins(fmap, X), direct_bins(fmap, Y)
    return np.all(BX[:, None] == BY[None], axis=-1).mean(axis=-1)


def test_mean_inner_product_over_draws_converges_to_the_kernel():
    sigma, P, draws = 1.5, 25, 400
    X = np.array([[0.0, 0.0, 0.0], [0.1, -0.2, 0.05], [0.6, 0.3, -0.4], [-1.0, 1.2, 0.8], [2.0, -1.5, 0.7]])
    mean = np.zeros((len(X), len(X)))
    for seed in range(draws):
        Z = RandomBinning(n_components=P, sigma=sigma, dtype="float64", random_state=seed).fit_transform(X)
        mean += (Z @ Z.T).toarray() / draws
    K = laplacian(X[:, None] - X[None], sigma)
    assert 0.01 < K.min() and np.sort(K.ravel())[-len(X) - 1] < 0.95  # informative pairs
    # each entry is a mean of draws * P independent Bernoulli(k) collisions
    stderr = np.sqrt(K * (1 - K) / (draws * P))
    np.testing.assert_array_less(np.abs(mean - K), 4.5 * stderr + 1e-12)


def test_collision_probability_given_the_pitch_is_the_triangle():
    """Over the shift u, one grid on R^1 joins x and y with probability max(0, 1 - |x - y| / delta)."""
    sigma, delta_xy = 1.0, 0.8
    fmap = RandomBinning(n_components=40_000, sigma=sigma, random_state=3).fit([[0.3], [1.1]])
    H = fmap.bin_hashes([[0.3], [1.1]])
    collide = H[0] == H[1]
    pitch = fmap.pitches_[:, 0]
    triangle = np.maximum(0.0, 1.0 - delta_xy / pitch)
    groups = np.array_split(np.argsort(pitch), 10)
    for g in groups:
        q = triangle[g]
        stderr = np.sqrt(np.sum(q * (1 - q))) / len(g)
        assert abs(collide[g].mean() - q.mean()) <= 4.5 * stderr + 1e-12
    # averaged over delta ~ p(delta), the triangle is the kernel
    assert abs(collide.mean() - np.exp(-delta_xy / sigma)) < 4.5 * np.sqrt(0.25 / len(pitch))


def test_pitch_density_is_delta_times_second_derivative_of_the_kernel():
    """p(delta) = delta k''(delta) (k'' by finite differences of the kernel) is Gamma(2, sigma)."""
    sigma, h = 0.7, 1e-4
    k = LaplacianKernel(1, sigma=sigma).value
    delta = np.linspace(0.05, 5.0, 40)[:, None]
    second = (k(delta + h) - 2 * k(delta) + k(delta - h)) / h**2
    np.testing.assert_allclose(delta[:, 0] * second, stats.gamma(2, scale=sigma).pdf(delta[:, 0]), rtol=1e-5)

    fmap = RandomBinning(n_components=5000, sigma=sigma, random_state=4).fit(np.zeros((1, 2)))
    assert stats.kstest(fmap.pitches_.ravel(), stats.gamma(2, scale=sigma).cdf).pvalue > 1e-3
    ratio = fmap.shifts_ / fmap.pitches_
    assert np.all((0 <= ratio) & (ratio < 1)) and stats.kstest(ratio.ravel(), "uniform").pvalue > 1e-3


def test_hashed_columns_are_exactly_the_bins():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 2))
    fmap = RandomBinning(n_components=20, sigma=1.0, random_state=6).fit(X)
    H, B = fmap.bin_hashes(X), direct_bins(fmap, X)
    same_hash = H[:, None, :] == H[None, :, :]
    same_bin = np.all(B[:, None] == B[None], axis=-1)
    assert np.array_equal(same_hash, same_bin) and 0.01 < same_bin.mean() < 0.99


def test_a_bins_hash_is_the_salt_plus_the_multipliers_times_its_indices_mod_2_to_the_64():
    """s_p + sum_k c_pk b_k mod 2^64 (the class docstring), in Python's exact integers: negative indices too."""
    X = np.random.default_rng(13).normal(size=(6, 3)) * 4.0
    fmap = RandomBinning(n_components=5, sigma=1.0, random_state=14).fit(X)
    H, B = fmap.bin_hashes(X), direct_bins(fmap, X)
    assert H.dtype == fmap.vocabulary_.dtype == np.uint64 and (B < 0).any() and (B > 0).any()
    salts, multipliers = fmap._salts.tolist(), fmap._multipliers.tolist()
    expected = [[(salts[p] + sum(c * b for c, b in zip(multipliers[p], B[i, p].tolist()))) % 2**64
                 for p in range(5)] for i in range(6)]
    assert H.tolist() == expected


@pytest.mark.parametrize("chunk_elements", [5, 12])
def test_chunks_of_rows_change_nothing_and_hash_each_row_once(monkeypatch, chunk_elements):
    """With P d = 6 numbers per row: 5 allows one row a chunk (the least), 12 two rows."""
    X = np.random.default_rng(15).normal(size=(7, 2))
    fmap = RandomBinning(n_components=3, sigma=1.0, random_state=16).fit(X)
    H, Z = fmap.bin_hashes(X), fmap.transform(X)
    chunk_rows = []

    def check_bins(bins):  # called once per chunk with its (rows, P, d) bin indices
        chunk_rows.append(len(bins))
        return RandomBinning._check_bins(fmap, bins)

    monkeypatch.setattr(binning_module, "_CHUNK_ELEMENTS", chunk_elements)
    monkeypatch.setattr(fmap, "_check_bins", check_bins)
    np.testing.assert_array_equal(fmap.bin_hashes(X), H)
    assert sum(chunk_rows) == len(X)  # every row once
    assert max(chunk_rows) * 6 <= max(chunk_elements, 6)  # the (rows, P, d) temporary within its bound
    assert (fmap.transform(X) != Z).nnz == 0


def test_training_rows_have_p_entries_and_one_column_per_occupied_bin():
    rng = np.random.default_rng(7)
    X, P = rng.normal(size=(200, 3)), 15
    fmap = RandomBinning(n_components=P, sigma=0.8, random_state=8).fit(X)
    Z = fmap.transform(X)
    occupied = {(p, *b) for row in direct_bins(fmap, X) for p, b in enumerate(row.tolist())}
    assert Z.format == "csr" and Z.dtype == np.float32 and Z.has_sorted_indices
    assert Z.shape == (200, len(occupied))
    np.testing.assert_array_equal(Z.getnnz(axis=1), P)
    np.testing.assert_allclose(Z.data, 1 / np.sqrt(P))
    np.testing.assert_allclose((Z @ Z.T).toarray(), collision_fraction(fmap, X, X), rtol=1e-6)


def test_an_unseen_bin_gets_no_entry_wherever_its_hash_falls_in_the_vocabulary():
    # One training point: 4 hashes; the far points' hashes fall below, between and above them.
    fmap = RandomBinning(n_components=4, sigma=1.0, random_state=17).fit([[0.0, 0.0]])
    far = np.random.default_rng(18).uniform(50.0, 500.0, size=(40, 2))
    H, V = fmap.bin_hashes(far), fmap.vocabulary_
    assert (H < V.min()).any() and (H > V.max()).any() and ((H > V.min()) & (H < V.max())).any()
    assert not np.isin(H, V).any()
    Z = fmap.transform(np.vstack([far, [[0.0, 0.0]]]))
    np.testing.assert_array_equal(Z.getnnz(axis=1), [0] * 40 + [4])


def test_unseen_bins_get_no_column_but_gram_blocks_stay_exact():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(100, 2))
    far = rng.normal(size=(4, 2)) * 0.05 + 100.0  # near each other, far from every training point
    fmap = RandomBinning(n_components=30, sigma=1.0, random_state=10).fit(X)
    assert fmap.transform(far).nnz == 0
    mixed = np.vstack([X[:3], far])
    for Y in (None, mixed):
        L, R = next(fmap.gram_blocks(mixed, Y))
        expected = collision_fraction(fmap, mixed, mixed)
        assert expected[3:, 3:].min() > 0  # the far points do collide with each other
        np.testing.assert_allclose((L @ R.T).toarray(), expected, rtol=1e-12)
    (L, R), = fmap.gram_blocks(mixed)
    assert R is L  # Y=None: X's hashes and one-hot serve both factors
    # against training points, dropping unseen bins changes nothing
    np.testing.assert_allclose((fmap.transform(mixed) @ fmap.transform(X).T).toarray(),
                               collision_fraction(fmap, mixed, X), rtol=1e-6)


def test_same_seed_same_features():
    X = np.random.default_rng(11).normal(size=(50, 4))
    a, b = (RandomBinning(n_components=8, random_state=12).fit_transform(X) for _ in range(2))
    assert (a != b).nnz == 0


def test_from_kernel_takes_the_bandwidth_and_refuses_other_kernels():
    fmap = RandomBinning.from_kernel(LaplacianKernel(3, sigma=2.5), n_components=7, random_state=0)
    assert (fmap.sigma, fmap.n_components) == (2.5, 7)
    with pytest.raises(ValueError, match=r"kernel 'gaussian'; supported: \['laplacian'\]"):
        RandomBinning.from_kernel(GaussianKernel(3), n_components=7)
    # an object without a name (here the kernel's name itself) is named by its type
    with pytest.raises(ValueError, match=r"kernel 'str'; supported: \['laplacian'\]"):
        RandomBinning.from_kernel("laplacian", n_components=7)


@pytest.mark.parametrize("P", [0, -3, 2.5, True])
def test_non_positive_number_of_grids_is_refused_naming_it(P):
    with pytest.raises(ValueError, match=f"n_components must be a positive integer, got {P!r}"):
        RandomBinning(n_components=P).fit(np.zeros((2, 2)))


def test_bad_sigma_and_dtype_are_refused():
    with pytest.raises(ValueError, match="sigma must be a positive finite number, got 0"):
        RandomBinning(sigma=0).fit(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="dtype='int8' is not supported"):
        RandomBinning(dtype="int8").fit(np.zeros((2, 2)))


def test_output_size_counts_the_nonzeros_per_row_and_the_drawn_numbers():
    X = np.random.default_rng(19).normal(size=(20, 3))
    fmap = RandomBinning(n_components=6, random_state=0).fit(X)
    drawn = fmap.pitches_.size + fmap.shifts_.size + fmap._multipliers.size + fmap._salts.size
    assert fmap.output_size(3) == (fmap.transform(X).getnnz(axis=1).max(), drawn) == (6, 3 * 6 * 3 + 6)


def test_bin_indices_are_refused_from_2_to_the_53_in_magnitude():
    """Below 2^53 float64 holds every integer; (x - u) / delta rounded to 2^53 may be 2^53 + 1, which it does not."""
    fmap = RandomBinning(n_components=2, random_state=0).fit([[0.0]])
    fmap.pitches_[:], fmap.shifts_[:] = 1.0, 0.0  # bin index = floor(x)
    fmap.bin_hashes([[2.0**53 - 1], [-(2.0**53 - 1)]])
    for x in (2.0**53, -(2.0**53)):
        with pytest.raises(ValueError, match=r"bin indices reach 9.01e\+15 >= 2\^53"):
            fmap.bin_hashes([[x]])


def test_data_too_spread_for_sigma_is_refused_and_the_suggested_fix_works():
    X = np.array([[0.0], [1e17]])
    with pytest.raises(ValueError, match="rescale X or increase sigma"):
        RandomBinning(n_components=3, sigma=1.0, random_state=0).fit(X)
    Z = RandomBinning(n_components=3, sigma=1e6, random_state=0).fit_transform(X)
    np.testing.assert_array_equal(Z.getnnz(axis=1), 3)
