"""The column count every map shares for a given n_components, and the structured maps' memory estimate."""
from __future__ import annotations

import numpy as np
import pytest

from rfbench.feature_map import Fastfood, GaussianRFF, NystroemMap, OrthogonalRFF, StructuredOrthogonalRFF

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
