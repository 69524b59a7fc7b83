"""GCWS (Li 2017, Algorithm 1): consistent samples, b-bit one-hot CSR features, bad input."""
import numpy as np
import pytest
import scipy.sparse as sp

from rfbench.feature_map import gcws as gcws_module
from rfbench.feature_map.gcws import GCWS, index_width
from rfbench.kernel.gmm import GMMKernel


def data() -> np.ndarray:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((6, 5))
    X[X > 1.0] = 0.0
    X[1] = 3.0 * X[0]  # GMM = 1/3
    return X


def test_defaults_are_those_the_docstring_states():
    """What a configuration that leaves a parameter out gets (the class docstring's "default=")."""
    assert GCWS().get_params() == {"n_components": 128, "b": None, "gmm_transform": True, "empty_rows": "error",
                                   "dtype": "float32", "random_state": None}


@pytest.mark.parametrize(("m", "bits"), [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (8, 3), (9, 4), (1024, 10)])
def test_index_width_is_the_bits_of_the_largest_index(m, bits):
    # i* takes the values 0 .. m - 1: ceil(log2(m)) bits, and at least one
    assert index_width(m) == bits == max(1, int(np.ceil(np.log2(m))))


def test_collision_of_full_samples_estimates_gmm_kernel():
    # Theorem 1.1: Pr{(i*, t*) collide} = GMM; k = 40,000 samples are i.i.d. collisions.
    X, k = data(), 40_000
    i_star, t_star = GCWS(n_components=k, random_state=1).fit(X).samples(X)
    collide = ((i_star[:, None] == i_star[None]) & (t_star[:, None] == t_star[None])).mean(axis=-1)
    K = GMMKernel(5)(X)
    standard_error = np.sqrt(K * (1 - K) / k)
    assert np.all(np.abs(collide - K) <= 4.5 * standard_error + 1e-12), np.abs(collide - K) / standard_error
    assert collide[0, 1] == pytest.approx(1 / 3, abs=0.01)


def test_drawn_numbers_follow_their_stated_laws():
    """r_ij, c_ij ~ Gamma(2, 1) (mean 2, variance 2) and beta_ij ~ U(0, 1) (in [0, 1), mean 1/2, variance 1/12),
    m x k = 10 x 500 of each: the sample means within 4.5 standard errors of the laws' means."""
    gcws = GCWS(n_components=500, random_state=8).fit(data())
    r, c, beta = gcws.r_, np.exp(gcws.log_c_), gcws.beta_
    assert r.shape == c.shape == beta.shape == (10, 500)
    assert abs(r.mean() - 2.0) <= 4.5 * np.sqrt(2.0 / r.size)
    assert abs(c.mean() - 2.0) <= 4.5 * np.sqrt(2.0 / c.size)
    assert beta.min() >= 0.0 and beta.max() < 1.0
    assert abs(beta.mean() - 0.5) <= 4.5 * np.sqrt(1.0 / 12.0 / beta.size)


def test_estimate_converges_as_k_grows():
    X = data()
    K = GMMKernel(5)(X)
    gcws = GCWS(n_components=40_000, random_state=2).fit(X)
    i_star, t_star = gcws.samples(X)
    errors = []
    for k in (100, 40_000):
        same = (i_star[:, None, :k] == i_star[None, :, :k]) & (t_star[:, None, :k] == t_star[None, :, :k])
        errors.append(np.abs(same.mean(axis=-1) - K).max())
    assert errors[1] < errors[0] / 5


def test_features_are_b_bit_one_hot_csr_with_unit_rows():
    X, k, b = data(), 64, 3
    gcws = GCWS(n_components=k, b=b, random_state=3).fit(X)
    Z = gcws.transform(X)
    assert sp.isspmatrix_csr(Z) and Z.shape == (6, 2**b * k) and Z.nnz == 6 * k
    assert Z.indices.dtype == Z.indptr.dtype == np.int32  # 2^b k columns fit: half the memory of int64 indices
    np.testing.assert_array_equal(np.diff(Z.indptr), k)
    np.testing.assert_allclose(Z.data, 1 / np.sqrt(k), rtol=1e-7)
    i_star, _ = gcws.samples(X)
    for row in range(6):
        columns = Z.indices[Z.indptr[row]:Z.indptr[row + 1]]
        np.testing.assert_array_equal(columns // 2**b, np.arange(k))          # one nonzero per sample block
        np.testing.assert_array_equal(columns % 2**b, i_star[row] % 2**b)     # the lowest b bits of i*
    # z(u)^T z(v) is the fraction of b-bit collisions.
    low = i_star % 2**b
    np.testing.assert_allclose((Z @ Z.T).toarray(), (low[:, None] == low[None]).mean(-1), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_features_nonzeros_have_the_dtype_asked_for(dtype):
    Z = GCWS(n_components=16, dtype=dtype, random_state=0).fit(data()).transform(data())
    assert Z.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(Z.data, np.full(Z.nnz, 1 / np.sqrt(16), dtype=dtype))


def test_columns_beyond_2_to_the_31_get_64_bit_indices():
    # A fit with 2^b k > 2^31 columns needs m k >= 2^30 (r_ alone 8 GB); setting b_ by hand emulates its column
    # space on small data: sample j's column is still i* mod 2^b + 2^b j, up to 3 * 2^30 - 1.
    X, k = data(), 3
    gcws = GCWS(n_components=k, random_state=8).fit(X)
    i_star, _ = gcws.samples(X)
    gcws.b_ = 30
    Z = gcws.transform(X)
    assert Z.shape == (6, 3 * 2**30) and Z.indices.dtype == np.int64
    np.testing.assert_array_equal(Z.indices.reshape(6, k), i_star + 2**30 * np.arange(k))


@pytest.mark.parametrize(("gmm_transform", "b"), [(True, None), (True, 2), (False, None), (False, 2)])
def test_output_size_and_width_count_the_features_and_the_drawn_numbers(gmm_transform, b):
    """Known before fitting: k nonzeros per row, 3 m k numbers drawn (r, log c, beta), 2^b k columns."""
    X = np.abs(data())[:, :3]  # D = 3: m = 6 coordinates (3 bits) with the split, 3 (2 bits) without
    gcws = GCWS(n_components=16, b=b, gmm_transform=gmm_transform, random_state=9)
    size, width = gcws.output_size(3), gcws.output_width(3)
    Z = gcws.fit(X).transform(X)
    assert size == (Z.getnnz(axis=1).max(), gcws.r_.size + gcws.log_c_.size + gcws.beta_.size)
    assert width == Z.shape[1] == 16 * 2 ** (b or (3 if gmm_transform else 2))


def test_one_bit_keeps_the_parity_and_none_keeps_the_whole_index():
    X = data()
    i_star, _ = GCWS(n_components=32, random_state=4).fit(X).samples(X)
    Z1 = GCWS(n_components=32, b=1, random_state=4).fit(X).transform(X)
    np.testing.assert_array_equal(Z1.indices.reshape(6, 32) % 2, i_star % 2)
    full = GCWS(n_components=32, random_state=4).fit(X)
    assert full.b_ == index_width(10) == 4
    np.testing.assert_array_equal(full.transform(X).indices.reshape(6, 32) % 16, i_star)


def test_samples_index_the_split_coordinates():
    # A single nonzero coordinate is always the sample: column 2i if positive, 2i + 1 if negative.
    X = np.array([[0.0, 2.0, 0.0], [0.0, -2.0, 0.0], [0.0, 0.0, 1e-300]])
    i_star, _ = GCWS(n_components=16, random_state=5).fit(X).samples(X)
    np.testing.assert_array_equal(i_star, [[2] * 16, [3] * 16, [4] * 16])


def test_nonnegative_data_without_the_split_gives_the_same_collisions():
    X = np.abs(data())
    i_star, t_star = GCWS(n_components=5_000, gmm_transform=False, random_state=6).fit(X).samples(X)
    assert i_star.max() < 5
    collide = ((i_star[:, None] == i_star[None]) & (t_star[:, None] == t_star[None])).mean(axis=-1)
    np.testing.assert_allclose(collide, GMMKernel(5)(X), atol=4.5 * 0.5 / np.sqrt(5_000))


def test_same_seed_same_features_and_consistency_across_calls():
    X = data()
    a = GCWS(n_components=20, b=2, random_state=7).fit(X)
    b = GCWS(n_components=20, b=2, random_state=7).fit(X)
    assert (a.transform(X) != b.transform(X)).nnz == 0
    assert (a.transform(X[3:4]) != a.transform(X)[3]).nnz == 0  # a row's hash ignores the other rows


def test_zero_rows_are_refused_or_given_empty_rows():
    X = data()
    X[[2, 4]] = 0.0
    with pytest.raises(ValueError, match=r"2 row\(s\) of X are all zero \(rows \[2, 4\]\).*empty_rows='zero'"):
        GCWS(n_components=8).fit(X).transform(X)
    gcws = GCWS(n_components=8, b=2, empty_rows="zero", random_state=0).fit(X)
    Z = gcws.transform(X)
    np.testing.assert_array_equal(np.diff(Z.indptr), [8, 8, 0, 8, 0, 8])
    i_star, t_star = gcws.samples(X)
    assert i_star.dtype == t_star.dtype == np.int64  # "two int64 arrays"
    assert (i_star[[2, 4]] == -1).all() and (t_star[[2, 4]] == 0).all()


@pytest.mark.parametrize(("n_empty", "listed"), [(10, r"\(rows \[0, 1, 2, 3, 4, 5, 6, 7, 8, 9\]\);"),
                                                 (11, r"\(rows \[0, 1, 2, 3, 4, 5, 6, 7, 8, 9\] \.\.\.\);")],
                         ids=["ten", "eleven"])
def test_the_refusal_lists_ten_zero_rows_at_most(n_empty, listed):
    X = np.vstack([np.zeros((n_empty, 5)), data()])
    with pytest.raises(ValueError, match=rf"^{n_empty} row\(s\) of X are all zero {listed} GCWS cannot"):
        GCWS(n_components=4).fit(X).transform(X)


def greedy_chunks(row_nonzeros, chunk_elements):
    """Rows per chunk when a chunk takes the next rows while their nonzeros fit in chunk_elements (one row at least)."""
    chunks, rows, total = [], 0, 0
    for count in row_nonzeros:
        if rows and total + count > chunk_elements:
            chunks.append(rows)
            rows, total = 0, 0
        rows, total = rows + 1, total + count
    return chunks + [rows]


@pytest.mark.parametrize("chunk_elements", [3, 9, 16])
def test_chunks_change_nothing(monkeypatch, chunk_elements):
    """k = 8: transform samples 1 row a chunk (3, 9) or 2 (16); sampling takes <= 3, 9 or 16 nonzeros a chunk.

    Rows have 5, 5, 0, 4, 4, 5 nonzeros: sampling's chunks are [1] * 6 (3: each row alone exceeds it), [1, 3, 2]
    (9: 5 | 5 + 0 + 4 | 4 + 5, full chunks) and [4, 2] (16), as many rows as fit ("chunks of about CHUNK_ELEMENTS
    nonzeros"), and each chunk's row pointers start at its own first nonzero.
    """
    X = data()
    X[2] = 0.0
    gcws = GCWS(n_components=8, b=2, empty_rows="zero", random_state=0).fit(X)
    Z, (i_star, t_star) = gcws.transform(X), gcws.samples(X)
    monkeypatch.setattr(gcws_module, "CHUNK_ELEMENTS", chunk_elements)
    chunk_rows, sampled_rows = [], []

    def sample(rows):  # transform's chunks of rows
        chunk_rows.append(len(rows))
        return GCWS._sample(gcws, rows)

    def consistent_samples(indptr, coordinate, *args):  # sampling's chunks of nonzeros
        assert len(indptr) >= 2 and indptr[0] == 0 and indptr[-1] == len(coordinate), indptr
        sampled_rows.append(len(indptr) - 1)
        return consistent_samples_njit(indptr, coordinate, *args)

    consistent_samples_njit = gcws_module._consistent_samples
    monkeypatch.setattr(gcws_module, "_consistent_samples", consistent_samples)
    monkeypatch.setattr(gcws, "_sample", sample)
    assert (gcws.transform(X) != Z).nnz == 0
    assert sum(chunk_rows) == len(X) and max(chunk_rows) * 8 <= max(chunk_elements, 8)  # each row once, k numbers
    sampled_rows.clear()
    np.testing.assert_array_equal(gcws.samples(X)[0], i_star)
    assert sampled_rows == greedy_chunks(np.count_nonzero(X, axis=1), chunk_elements)
    np.testing.assert_array_equal(gcws.samples(X)[1], t_star)


def test_gram_blocks_is_one_float64_block():
    X = data()
    gcws = GCWS(n_components=8, b=2, random_state=0).fit(X)
    (L, R), = list(gcws.gram_blocks(X, X[:2]))
    assert L.dtype == np.float64 and (L != gcws.transform(X)).nnz == 0 and R.shape == (2, 32)
    (L, R), = list(gcws.gram_blocks(X))
    assert R is L  # Y=None: one transform serves both factors


def test_from_kernel_and_approximates():
    assert GMMKernel in GCWS.approximates
    gcws = GCWS.from_kernel(GMMKernel(5), n_components=12, b=4)
    assert (gcws.n_components, gcws.b) == (12, 4)


@pytest.mark.parametrize("b", [0, -1, 2.0, True, "4"])
def test_b_below_one_or_not_an_integer_is_refused(b):
    with pytest.raises(ValueError, match=rf"b={b!r} is invalid: need an integer >= 1"):
        GCWS(b=b).fit(data())


def test_b_beyond_the_index_width_is_refused_with_the_valid_range():
    # D = 5: i* takes 2D = 10 values, 4 bits.
    GCWS(n_components=4, b=4).fit(data())
    with pytest.raises(ValueError, match=r"b=5 is outside 1..4: the sampled index i\* takes m=10 values "
                                         r"\(2D for D=5\), so it has 4 bits; b=4 \(or b=None\)"):
        GCWS(n_components=4, b=5).fit(data())
    with pytest.raises(ValueError, match=r"b=4 is outside 1..3: .* m=5 values \(D for D=5\)"):
        GCWS(n_components=4, b=4, gmm_transform=False).fit(np.abs(data()))


@pytest.mark.parametrize("k", [0, -3, 1.5, None])
def test_k_not_positive_is_refused(k):
    with pytest.raises(ValueError, match=rf"n_components must be a positive integer, got {k!r}"):
        GCWS(n_components=k).fit(data())


def test_negative_data_without_the_transform_is_refused():
    X = np.abs(data())
    gcws = GCWS(n_components=4, gmm_transform=False).fit(X)
    X[3, 2] = -0.25
    message = (r"GCWS\(gmm_transform=False\) needs nonnegative data \(valid range: x >= 0\), but 1 "
               r"entries of X are negative, e.g. X\[3, 2\] = -0.25; use gmm_transform=True")
    with pytest.raises(ValueError, match=message):
        gcws.transform(X)
    with pytest.raises(ValueError, match=message):
        GCWS(n_components=4, gmm_transform=False).fit(X)


def test_other_parameters_are_checked():
    with pytest.raises(ValueError, match=r"empty_rows='skip' is not valid; choose one of \('error', 'zero'\)"):
        GCWS(empty_rows="skip").fit(data())
    with pytest.raises(ValueError, match=r"gmm_transform='yes' is invalid: need True or False"):
        GCWS(gmm_transform="yes").fit(data())
