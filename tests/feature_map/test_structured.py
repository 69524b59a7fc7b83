"""The column count every map shares for a given n_components, the structured maps' memory estimate, and what
the structured maps share: parameters, from_kernel, gram_blocks of one set, project's dtype."""
from __future__ import annotations

import numpy as np
import pytest

from rfbench.feature_map import Fastfood, GaussianRFF, NystroemMap, OrthogonalRFF, StructuredOrthogonalRFF
from rfbench.kernel import GaussianKernel

X = np.random.default_rng(0).normal(size=(200, 10))


@pytest.mark.parametrize("fmap", [GaussianRFF(n_components=24), GaussianRFF(n_components=24, variant="cos_offset_2m"),
                                  OrthogonalRFF(n_components=24), StructuredOrthogonalRFF(n_components=24),
                                  Fastfood(n_components=24), NystroemMap(n_components=24)])
def test_every_map_gives_2m_real_columns(fmap):
    fmap.set_params(random_state=0).fit(X)
    assert fmap.transform(X).shape == (200, 48) and fmap.output_size(10)[0] == 48


@pytest.mark.parametrize(("cls", "per_row"), [(StructuredOrthogonalRFF, 3), (Fastfood, 4)])
def test_output_size_counts_the_drawn_numbers(cls, per_row):
    fmap = cls(n_components=40, random_state=0).fit(X)  # p = 16, 3 blocks
    drawn = sum(np.size(v) for k, v in vars(fmap).items() if k.endswith("s_") and k != "n_features_in_")
    assert fmap.output_size(10) == (80, 3 * 16 * per_row) == (80, drawn)


@pytest.mark.parametrize("cls", [StructuredOrthogonalRFF, Fastfood])
def test_from_kernel_takes_the_bandwidth_and_the_other_parameters(cls):
    fmap = cls.from_kernel(GaussianKernel(10, sigma=2.5), n_components=7, dtype="float64", random_state=3)
    assert (fmap.sigma, fmap.n_components, fmap.dtype, fmap.random_state) == (2.5, 7, "float64", 3)
    assert GaussianKernel in cls.approximates


@pytest.mark.parametrize("cls", [StructuredOrthogonalRFF, Fastfood])
def test_documented_defaults_and_the_refusal_of_a_bad_bandwidth(cls):
    assert cls().get_params() == {"n_components": 100, "sigma": 1.0, "dtype": "float32", "random_state": None}
    with pytest.raises(ValueError, match="sigma must be a positive finite number, got -1.0"):
        cls(sigma=-1.0).fit(X)


@pytest.mark.parametrize("cls", [StructuredOrthogonalRFF, Fastfood])
def test_gram_blocks_of_one_set_give_the_same_factor_twice_and_project_keeps_the_dtype_asked(cls):
    """FeatureMap.gram_blocks: with Y=None both factors are the same object (computed once; the Gram sum then
    takes its symmetric product). ``project`` computes W^T x in the dtype it is given."""
    fmap = cls(n_components=24, random_state=0).fit(X)
    assert all(L is R for L, R in fmap.gram_blocks(X, block_size=10))
    single, double = fmap.project(X[:40], dtype=np.float32), fmap.project(X[:40])
    assert single.dtype == np.float32 and double.dtype == np.float64
    np.testing.assert_allclose(single, double, rtol=0, atol=1e-5 * np.abs(double).max())
