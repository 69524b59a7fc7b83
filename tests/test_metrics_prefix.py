"""Gram errors of every prefix of a map's frequencies, in one pass, against independently built maps."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from scipy import sparse
from scipy.spatial.distance import cdist

from rfbench.feature_map import AsKRFF, GaussianRFF, IdentityMap
from rfbench.metrics import relative_gram_error, relative_gram_errors_by_prefix

RNG = np.random.default_rng(0)
X = RNG.normal(size=(30, 4))
K = np.exp(-cdist(X, X, "sqeuclidean") / 2)


def first_frequencies(rff: GaussianRFF, s: int) -> GaussianRFF:
    """A map fitted with n_components=s whose W (and b) are copies of rff's first s."""
    prefix = GaussianRFF(n_components=s, variant=rff.variant, random_state=99).fit(X)
    frequencies = 2 * s if rff.variant == "cos_offset_2m" else s
    prefix.random_weights_ = rff.random_weights_[:, :frequencies].copy()
    if rff.variant != "cos_sin":
        prefix.random_offset_ = rff.random_offset_[:frequencies].copy()
    return prefix


@pytest.mark.parametrize("variant", ["cos_sin", "cos_offset", "cos_offset_2m"])
@pytest.mark.parametrize("block_size", [1, 4, 1000])
def test_each_prefix_error_equals_that_of_its_own_map(variant, block_size):
    rff = GaussianRFF(n_components=40, variant=variant, random_state=1).fit(X)
    sizes = [1, 2, 7, 8, 23, 40]
    errors = relative_gram_errors_by_prefix(K, rff, X, sizes, block_size=block_size)
    expected = [relative_gram_error(K, first_frequencies(rff, s), X) for s in sizes]
    assert list(errors) == sizes
    np.testing.assert_allclose(list(errors.values()), expected, rtol=1e-12, atol=0)
    assert len(set(expected)) == len(sizes)  # the prefixes differ, so a wrong size would show


class _Refactored:
    """A map's segments with each factor pair (L, R) rewritten to pairs of the same sum of products L R^T, that
    take the other paths of the running sum: (2 L, R / 2) the general dense product, CSR copies the sparse one;
    or (L, R) kept and a sine block (L, [L2, -L1]) added with its negation (L, [-L2, L1]), a general product."""

    def __init__(self, fmap, rewrite):
        self.fmap, self.rewrite, self.n_components = fmap, rewrite, fmap.n_components

    def segment(self, start, stop):
        return _Refactored(self.fmap.segment(start, stop), self.rewrite)

    def gram_blocks(self, X, Y=None, block_size=1):
        for L, R in self.fmap.gram_blocks(X, Y, block_size=block_size):
            yield from self.rewrite(L, R)


def _with_a_sine_block(L, R):
    half = L.shape[1] // 2
    sine = np.hstack([L[:, half:], -L[:, :half]])
    return [(L, R), (L, sine), (L, -sine)]


@pytest.mark.parametrize("rewrite", [lambda L, R: [(2 * L, R / 2)],
                                     lambda L, R: [(sparse.csr_array(L), sparse.csr_array(R))],
                                     _with_a_sine_block],
                         ids=["general", "sparse", "sine"])
def test_a_segment_of_unstructured_or_sparse_factors_counts_each_of_its_frequencies(rewrite):
    """Each segment's K~ is a mean over its stop - start frequencies, weighted by them in the running sum
    whatever path its factors take (a segment of several frequencies: sizes 1, 3, 8, 12)."""
    rff = GaussianRFF(n_components=12, random_state=3).fit(X)
    sizes = [1, 3, 8, 12]
    errors = relative_gram_errors_by_prefix(K, _Refactored(rff, rewrite), X, sizes, block_size=5)
    expected = [relative_gram_error(K, first_frequencies(rff, s), X) for s in sizes]
    np.testing.assert_allclose(list(errors.values()), expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_K_of_another_dtype_is_compared_in_float64(dtype):
    """K is converted to float64 first: the same errors, to the bit, as for its values in float64 (a float32
    residual would be some 1e-8 off; an integer one cannot hold K~_s)."""
    rff = GaussianRFF(n_components=20, random_state=3).fit(X)
    K_other = np.rint(3 * K).astype(dtype) if dtype is np.int64 else K.astype(dtype)
    errors = relative_gram_errors_by_prefix(K_other, rff, X, [5, 20])
    assert errors == relative_gram_errors_by_prefix(K_other.astype(np.float64), rff, X, [5, 20])


@pytest.mark.parametrize("variant", ["cos_sin", "cos_offset", "cos_offset_2m"])
def test_segment_is_the_map_of_those_frequencies(variant):
    rff = GaussianRFF(n_components=12, variant=variant, dtype="float64", random_state=2).fit(X)
    part = rff.segment(3, 8)
    assert part.n_components == 5 and part.variant == variant
    Z = rff.transform(X)
    columns = {"cos_sin": np.r_[3:8, 15:20], "cos_offset": np.r_[3:8], "cos_offset_2m": np.r_[6:16]}[variant]
    # rff's columns are normalized by M = 12, the segment's by its 5 frequencies.
    np.testing.assert_allclose(part.transform(X), Z[:, columns] * np.sqrt(12 / 5), rtol=1e-12)


@pytest.mark.parametrize(
    ("sizes", "message"),
    [
        ([0, 4], r"sizes\[0\]=0 is not valid; sizes must be strictly increasing integers in 1\.\.20"),
        ([4, 21], r"sizes\[1\]=21 is not valid; .* in 1\.\.20 \(the map's n_components\)"),
        ([2, 2.5], r"sizes\[1\]=2\.5 is not valid; .* in 1\.\.20"),
        ([8, 4], r"sizes\[1\]=4 does not exceed sizes\[0\]=8; .* in 1\.\.20 .*sorted\(set\(sizes\)\)"),
        ([4, 8, 8], r"sizes\[2\]=8 does not exceed sizes\[1\]=8"),
        ([], r"sizes is empty; sizes must be strictly increasing integers in 1\.\.20"),
    ],
)
def test_bad_sizes_are_rejected(sizes, message):
    rff = GaussianRFF(n_components=20, random_state=3).fit(X)
    with pytest.raises(ValueError, match=message):
        relative_gram_errors_by_prefix(K, rff, X, sizes)


def test_suggested_fix_for_unsorted_sizes_works():
    rff = GaussianRFF(n_components=20, random_state=3).fit(X)
    sizes = [8, 4, 8, 20]
    errors = relative_gram_errors_by_prefix(K, rff, X, sorted(set(sizes)))
    assert list(errors) == [4, 8, 20]


@pytest.mark.parametrize("fmap", [AsKRFF(kernel="sinh_gaussian", n_components=8, random_state=0), IdentityMap()])
def test_maps_without_segments_are_refused(fmap):
    U = RNG.uniform(size=(10, 4))
    fmap.fit(U)
    name = type(fmap).__name__
    # The refusal names the method a map needs, where it is described, and a map that has it.
    with pytest.raises(TypeError, match=rf"{name} does not support prefixes of its frequencies: it has no "
                                        r"segment\(start, stop\) \(see FeatureMap\).* such as GaussianRFF"):
        relative_gram_errors_by_prefix(np.eye(10), fmap, U, [1])


@pytest.mark.parametrize(("start", "stop"), [(-1, 3), (3, 3), (0, 13), (0.0, 3)])
def test_segment_rejects_bad_bounds(start, stop):
    rff = GaussianRFF(n_components=12, random_state=2).fit(X)
    with pytest.raises(ValueError, match=r"need integers 0 <= start < stop <= n_components=12"):
        rff.segment(start, stop)


def test_memory_does_not_grow_with_the_number_of_sizes():
    """Five (n, n) float64 buffers (K's copy aside) and one block: about 1.6 MB + 0.8 MB for n = 200.

    Measured: 3.4 MB for segments of 1000 frequencies in blocks of 256, 1.7 MB for segments of 50; a segment
    of 1000 in one block (``block_size`` not passed on) takes 9 MB.
    """
    U = RNG.normal(size=(200, 4))
    KU = np.exp(-cdist(U, U, "sqeuclidean") / 2)
    rff = GaussianRFF(n_components=2000, random_state=4).fit(U)
    peaks = []
    for sizes in ([1000, 2000], range(50, 2001, 50)):
        tracemalloc.start()
        try:
            relative_gram_errors_by_prefix(KU, rff, U, sizes, block_size=256)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    assert peaks[0] < 5 * 2**20 and peaks[1] < 4 * 2**20, peaks
    assert peaks[1] < 1.1 * peaks[0], peaks
