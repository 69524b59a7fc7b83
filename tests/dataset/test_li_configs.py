"""Li (2017) Tables 1-3 dataset configs: each loads from the mirror with the paper's sizes.

Expected shapes and class counts are the paper's (# train, # test, # dim) and the datasets'
documented class counts (../shared/datasets/*/PROVENANCE.md), written down independently of
the configs.
"""
import numpy as np
import pytest

from rfbench.dataset import load_dataset

# name: (n_train, n_test, d, n_classes)
EXPECTED = {
    "letter_li": (15000, 5000, 16, 26),
    "spambase_li": (2301, 2300, 57, 2),
    "robot_navigation_li": (2728, 2728, 24, 4),
    "magic_li": (9150, 9150, 10, 2),
    "page_blocks_li": (2737, 2726, 10, 5),
    "satimage_li": (4435, 2000, 36, 6),
    "skin10k_li": (10000, 10000, 3, 2),
    "splice_li": (1000, 2175, 60, 3),
    "imageseg_li": (210, 2100, 19, 7),
    "vowel_li": (264, 264, 10, 11),
    "car_li": (864, 864, 21, 4),          # 6 attributes one-hot: 4 + 4 + 4 + 3 + 3 + 3 columns
    "ctg_li": (1063, 1063, 25, 10),       # Li's 35 less the 10 indicators of the label
    "car_li_ordinal": (864, 864, 6, 4),   # Table 1's 6: one ordinal column per attribute
    "ctg_li35": (1063, 1063, 35, 10),     # Table 1's 35: the 10 indicators of the label included
    "thyroid_li": (2000, 5200, 21, 3),    # UCI's two files pooled, Li's 2,000 / 5,200
    "musk_li": (3299, 3299, 166, 2),
    "shuttle500_li": (500, 14500, 9, 6),  # class 6 (10 of 58,000 rows) falls in neither part
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_li_dataset_loads_with_the_papers_sizes(name, dataset_config, mirror, tmp_path):
    n_train, n_test, d, n_classes = EXPECTED[name]
    data = load_dataset(dataset_config(name), cache_dir=tmp_path, mirror=mirror)
    assert data.X_train.shape == (n_train, d) and data.X_test.shape == (n_test, d)
    assert len(data.y_train) == n_train and len(data.y_test) == n_test
    assert data.n_classes == n_classes
    for X in (data.X_train, data.X_test):  # Li's unit rows; an all-zero row (black pixels of SkinSeg) stays 0
        norms = np.linalg.norm(X, axis=1)
        np.testing.assert_allclose(norms[norms > 0], 1.0, rtol=1e-12)
        assert (norms > 0).mean() > 0.99
