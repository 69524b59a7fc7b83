"""gram_blocks(X, Y) of two different sets is K~(X, Y), computed another way: z(X) z(Y)^T from ``transform`` for the
structured maps, the fraction of colliding grids from the bins' hashes for random binning (the Y = X path alone
let a map that reuses X's features for Y pass)."""
import numpy as np
import pytest

from rfbench.feature_map import Fastfood, StructuredOrthogonalRFF
from rfbench.feature_map.binning import RandomBinning
from tests.feature_map.test_binning import collision_fraction

RNG = np.random.default_rng(48)
X, Y = RNG.normal(size=(30, 5)), RNG.normal(size=(20, 5))


@pytest.mark.parametrize("cls", [StructuredOrthogonalRFF, Fastfood])
def test_structured_blocks_of_two_sets_sum_to_their_features_product(cls):
    fmap = cls(n_components=24, dtype="float64", random_state=3).fit(X)
    blocks = list(fmap.gram_blocks(X, Y, block_size=8))
    assert len(blocks) == 3
    total = sum(L @ R.T for L, R in blocks)
    np.testing.assert_allclose(total, fmap.transform(X) @ fmap.transform(Y).T, rtol=0, atol=1e-12)


def test_binning_blocks_of_two_sets_are_the_fraction_of_grids_where_they_collide():
    fmap = RandomBinning(n_components=40, sigma=2.0, random_state=4).fit(X)
    (L, R), = fmap.gram_blocks(X, Y)
    expected = collision_fraction(fmap, X, Y)
    assert 0 < expected.mean() < 1  # some pairs collide in some grids, not all in all
    np.testing.assert_allclose((L @ R.T).toarray(), expected, rtol=1e-12)
