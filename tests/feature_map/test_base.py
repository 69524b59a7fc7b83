"""FeatureMap defaults: gram_blocks from transform, and the opt-in to sparse input."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from rfbench.feature_map import GCWS, NRFF, AsKRFF, GaussianRFF, IdentityMap, NystroemMap
from rfbench.feature_map import RandomBinning as SparseBinning
from tests.feature_map.toy_maps import RandomBinning

RNG = np.random.default_rng(0)
X = RNG.uniform(size=(12, 3))
Y = RNG.uniform(size=(5, 3))


def test_default_gram_blocks_is_one_float64_block_from_transform():
    fmap = RandomBinning(n_bins=7, random_state=0).fit(X)
    (L, R), = list(fmap.gram_blocks(X, Y, block_size=1))
    assert sparse.issparse(L) and L.format == "csr" and L.dtype == R.dtype == np.float64
    np.testing.assert_array_equal(L.toarray(), fmap.transform(X).toarray())
    np.testing.assert_array_equal(R.toarray(), fmap.transform(Y).toarray())
    (L, R), = list(fmap.gram_blocks(X))
    assert R is L  # Y=None: one transform serves both factors


def test_toy_map_kernel_counts_shared_cells():
    fmap = RandomBinning(n_bins=7, random_state=0).fit(X)
    cells_x, cells_y = fmap.cells(X), fmap.cells(Y)
    shared = (cells_x[:, None, :] == cells_y[None, :, :]).sum(axis=2)
    (L, R), = list(fmap.gram_blocks(X, Y))
    np.testing.assert_array_equal((L @ R.T).toarray(), shared)
    assert 0 < shared.mean() < 3  # some pairs share cells, some do not


class DenseFloat32(IdentityMap):
    """IdentityMap with the default gram_blocks, whose transform is float32."""

    gram_blocks = RandomBinning.gram_blocks


def test_default_gram_blocks_of_dense_features_is_float64():
    fmap = DenseFloat32().fit(X)
    (L, R), = list(fmap.gram_blocks(X, Y))
    assert isinstance(L, np.ndarray) and L.dtype == R.dtype == np.float64
    np.testing.assert_array_equal(L, X.astype(np.float32))
    with pytest.raises(ValueError, match="block_size must be a positive integer, got 0"):
        next(fmap.gram_blocks(X, block_size=0))


def test_sparse_input_only_where_the_map_accepts_it():
    fmap = RandomBinning(n_bins=7, random_state=0).fit(sparse.csr_array(X))
    np.testing.assert_array_equal(fmap.transform(sparse.csc_array(X)).toarray(), fmap.transform(X).toarray())
    for existing in (GaussianRFF(), AsKRFF(), IdentityMap()):
        assert existing.accept_sparse is False and existing.__sklearn_tags__().input_tags.sparse is False
        with pytest.raises(TypeError, match="Sparse data was passed, but dense data is required"):
            existing.fit(sparse.csr_array(X))
    assert fmap.__sklearn_tags__().input_tags.sparse is True


@pytest.mark.parametrize("fmap", [GaussianRFF(n_components=4, random_state=0), NRFF(n_components=4, random_state=0),
                                  IdentityMap(), SparseBinning(n_components=4, random_state=0),
                                  RandomBinning(n_bins=7, random_state=0)], ids=lambda fmap: type(fmap).__name__)
def test_default_output_width_is_a_dense_maps_columns_and_unknown_for_a_sparse_one(fmap):
    """Known before fitting for a dense map (its output_size's first number); a sparse map's occupied bins are not."""
    width = fmap.output_width(3)
    Z = fmap.fit(X).transform(X)
    assert width == (None if sparse.issparse(Z) else Z.shape[1])


@pytest.mark.parametrize("fmap", [GaussianRFF(n_components=4, random_state=0),
                                  NystroemMap(n_components=2, random_state=0),
                                  SparseBinning(n_components=4, random_state=0), GCWS(n_components=8, random_state=0)],
                         ids=lambda fmap: type(fmap).__name__)
@pytest.mark.parametrize("dtype", [np.float16, np.int64])
def test_other_numeric_data_are_read_as_float64(fmap, dtype):
    """_validate_X hands every map float32 or float64: float16 or integer data give the features of the same
    values in float64 (GCWS's numba sampler has no float16 version)."""
    data = (3 * X).astype(dtype)
    expected = fmap.fit(data.astype(np.float64)).transform(data.astype(np.float64))
    Z = fmap.fit(data).transform(data)
    if sparse.issparse(Z):
        Z, expected = Z.toarray(), expected.toarray()
    np.testing.assert_array_equal(Z, expected)
