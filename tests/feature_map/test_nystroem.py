"""NystroemMap: K~ = K_XL K_LL^+ K_LX with its landmarks, computed directly; landmark choices; widths."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.cluster import KMeans

from rfbench.feature_map import NystroemMap
from rfbench.kernel import GaussianKernel, LaplacianKernel

SIGMA = 1.5
X = np.random.default_rng(0).normal(size=(80, 4))


@pytest.mark.parametrize(("kernel", "landmarks"), [(GaussianKernel(4, SIGMA), "uniform"),
                                                   (LaplacianKernel(4, SIGMA), "kmeans")])
def test_gram_is_the_kernel_projected_on_the_landmarks(kernel, landmarks):
    fmap = NystroemMap.from_kernel(kernel, n_components=6, landmarks=landmarks, dtype="float64", random_state=1).fit(X)
    L = fmap.nystroem_.components_
    assert fmap.n_landmarks_ == 12 and L.shape == (12, 4)
    Y = X[:30]
    Z = fmap.transform(Y)
    assert Z.shape == (30, 12)
    K_YL = kernel(Y, L)
    expected = K_YL @ np.linalg.pinv(kernel(L, L)) @ K_YL.T
    np.testing.assert_allclose(Z @ Z.T, expected, rtol=0, atol=1e-8)
    ZL = fmap.transform(L)
    np.testing.assert_allclose(ZL @ ZL.T, kernel(L, L), rtol=0, atol=1e-8)  # exact on the landmarks


def test_uniform_landmarks_are_training_rows_and_kmeans_ones_its_centres():
    uniform = NystroemMap(n_components=5, sigma=SIGMA, random_state=2).fit(X)
    assert all(np.any(np.all(row == X, axis=1)) for row in uniform.nystroem_.components_)
    kmeans = NystroemMap(n_components=5, sigma=SIGMA, landmarks="kmeans", random_state=2).fit(X)
    centres = kmeans.nystroem_.components_
    assert not any(np.any(np.all(row == X, axis=1)) for row in centres)
    # each centre is the mean of the training rows nearest to it (a fixed point of Lloyd's iteration)
    nearest = cdist(X, centres).argmin(1)
    np.testing.assert_allclose(centres, [X[nearest == j].mean(0) for j in range(len(centres))], atol=1e-8)
    inertia = KMeans(n_clusters=10, n_init=1, random_state=0).fit(X).inertia_
    assert ((X - centres[nearest]) ** 2).sum() < 1.5 * inertia


def test_kmeans_landmarks_approximate_better_than_uniform_ones():
    rng = np.random.default_rng(3)
    data = np.vstack([rng.normal(c, 0.3, size=(100, 2)) for c in ((0, 0), (4, 0), (0, 4), (4, 4))])
    K = np.exp(-cdist(data, data, "sqeuclidean") / (2 * 0.5**2))

    def error(landmarks):
        errors = []
        for seed in range(5):
            Z = NystroemMap(n_components=4, sigma=0.5, landmarks=landmarks, dtype="float64",
                            random_state=seed).fit_transform(data)
            errors.append(np.linalg.norm(Z @ Z.T - K) / np.linalg.norm(K))
        return np.mean(errors)

    assert error("kmeans") < error("uniform")


def test_gram_blocks_are_float64_even_for_float32_features():
    fmap = NystroemMap(n_components=6, sigma=SIGMA, random_state=1).fit(X)
    (L, R), = fmap.gram_blocks(X, X[:5])
    assert L.dtype == R.dtype == np.float64 and fmap.transform(X).dtype == np.float32  # the default dtype
    np.testing.assert_allclose(L @ R.T, fmap.nystroem_.transform(X) @ fmap.nystroem_.transform(X[:5]).T, rtol=1e-14)
    np.testing.assert_allclose(L, fmap.transform(X), rtol=1e-6, atol=1e-7)


def test_each_seed_gives_its_own_landmarks():
    """random_state seeds the draw of the landmark choice's seed: 40 seeds, 40 different choices of 6 of the
    80 rows (any two of the 80!/74! ordered choices coincide with probability below 1e-11)."""
    choices = {NystroemMap(n_components=3, random_state=seed).fit(X).nystroem_.component_indices_.tobytes()
               for seed in range(40)}
    assert len(choices) == 40


def test_landmarks_are_capped_by_the_training_rows():
    fmap = NystroemMap(n_components=100, random_state=0).fit(X[:7])
    assert fmap.n_landmarks_ == 7 and fmap.transform(X).shape == (80, 7)


def test_bad_parameters():
    with pytest.raises(ValueError, match=r"landmarks='random' is not valid; choose one of \('uniform', 'kmeans'\)"):
        NystroemMap(landmarks="random").fit(X)
    with pytest.raises(ValueError, match=r"kernel='rbf' is not valid; choose one of \('gaussian', 'laplacian'\)"):
        NystroemMap(kernel="rbf").fit(X)
    with pytest.raises(ValueError, match="^n_components must be a positive integer, got 0$"):
        NystroemMap(n_components=0).fit(X)
    with pytest.raises(ValueError, match=r"^sigma must be a positive finite number, got -1\.0$"):
        NystroemMap(sigma=-1.0).fit(X)
    with pytest.raises(ValueError, match="^block_size must be a positive integer, got 0$"):
        next(NystroemMap(n_components=2, random_state=0).fit(X).gram_blocks(X, block_size=0))


def test_output_size_is_the_width_the_landmarks_and_k_ll_to_the_minus_half():
    """Before fitting: 2M columns; the 2M x d landmarks and the 2M x 2M K_LL^{-1/2} scikit-learn holds."""
    fmap = NystroemMap(n_components=6, sigma=SIGMA, random_state=1)
    size = fmap.output_size(4)
    Z = fmap.fit_transform(X)
    held = fmap.nystroem_.components_.size + fmap.nystroem_.normalization_.size
    assert size == (Z.shape[1], held) == (12, 12 * 4 + 12 * 12)
