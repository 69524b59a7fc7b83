"""scikit-learn's estimator checks over every feature map, all of them expected to pass.

scikit-learn itself skips ``check_array_api_input`` unless SCIPY_ARRAY_API=1 is set; the maps are
numpy-only and do not claim array-API support.
"""
from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from rfbench.feature_map import (
    GCWS,
    NRFF,
    AsKRFF,
    CauchyRFF,
    Fastfood,
    GaussianRFF,
    IdentityMap,
    NystroemMap,
    OrthogonalRFF,
    QMCFourierFeatures,
    RandomBinning,
    StructuredOrthogonalRFF,
)
from tests.feature_map import toy_maps

MAPS = [
    GaussianRFF(),
    GaussianRFF(variant="cos_offset", dtype="float64"),
    GaussianRFF(variant="cos_offset_2m"),
    AsKRFF(),
    AsKRFF(kernel="sinh_gaussian", part="symmetric", imaginary="drop"),
    IdentityMap(),
    QMCFourierFeatures(),
    QMCFourierFeatures(sequence="lattice", n_components=16),
    NRFF(),
    GCWS(n_components=16, empty_rows="zero"),  # the default refuses all-zero rows, which some checks send
    RandomBinning(n_components=8),
    toy_maps.RandomBinning(n_bins=50),  # sparse input and output, the FeatureMap defaults
    OrthogonalRFF(n_components=10),
    CauchyRFF(n_components=10),
    StructuredOrthogonalRFF(n_components=10),
    Fastfood(n_components=10, dtype="float64"),
    NystroemMap(n_components=5),
    NystroemMap(n_components=5, kernel="laplacian", landmarks="kmeans"),
]


@parametrize_with_checks(MAPS)
def test_feature_map_passes_sklearn_checks(estimator, check):
    check(estimator)
