"""Li (2017) Tables 1-3 dataset configs: each loads from the mirror with the paper's sizes.

Expected shapes and class counts are the paper's (# train, # test, # dim) and the datasets'
documented class counts (../shared/datasets/*/PROVENANCE.md), written down independently of
the configs.
"""
import pytest

from rfbench.dataset import load_dataset

# name: (n_train, n_test, d, n_classes)
EXPECTED = {
    "letter_libsvm": (15000, 5000, 16, 26),
    "spambase_li": (2301, 2300, 57, 2),
    "robot_navigation_li": (2728, 2728, 24, 4),
    "magic_li": (9150, 9150, 10, 2),
    "page_blocks_li": (2737, 2726, 10, 5),
    "satimage_li": (4435, 2000, 36, 6),
    "skin10k_li": (10000, 10000, 3, 2),
    "splice_li": (1000, 2175, 60, 3),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_li_dataset_loads_with_the_papers_sizes(name, dataset_config, mirror, tmp_path):
    n_train, n_test, d, n_classes = EXPECTED[name]
    data = load_dataset(dataset_config(name), cache_dir=tmp_path, mirror=mirror)
    assert data.X_train.shape == (n_train, d) and data.X_test.shape == (n_test, d)
    assert len(data.y_train) == n_train and len(data.y_test) == n_test
    assert data.X_train.min() == 0.0 and data.X_train.max() == 1.0  # scaled on the training part
