"""QMC Figs 2-3's job: every sequence's prefix errors per trial, deterministic sequences at trial 0 only."""
import numpy as np
import pandas as pd

from rfbench.engine.jobs import trial_seed
from rfbench.feature_map import QMCFourierFeatures
from rfbench.kernel import make_kernel
from rfbench.papers.qmc import gram, protocol
from tests.papers.qmc.conftest import X


def test_trial_0_has_every_sequence_and_later_trials_the_randomized_ones(toy):
    first = gram.curves(trial=0, seed=5, data=toy, sizes=[4, 9])["errors"]
    later = gram.curves(trial=1, seed=5, data=toy, sizes=[4, 9])["errors"]
    assert len(first.groupby(["sequence", "scramble"])) == 9 and len(first) == 18
    assert set(map(tuple, later[["sequence", "scramble"]].drop_duplicates().to_numpy())) == {
        ("sobol", True), ("lattice", True), ("digital_net", True), ("mc", True)}
    assert set(later["seed"]) == {trial_seed(5, 1)} and set(first["seed"]) == {trial_seed(5, 0)}


def test_the_recorded_errors_are_the_prefix_errors_of_the_trials_map(toy):
    frames = gram.curves(trial=2, seed=5, data=toy, sizes=[4, 9])
    mc = frames["errors"].query("sequence == 'mc'")
    K = make_kernel("gaussian", 3, sigma=0.8)(X)
    fmap = QMCFourierFeatures(n_components=9, sigma=0.8, sequence="mc", dtype="float64",
                              random_state=trial_seed(5, 2)).fit(X)
    expected = pd.DataFrame(protocol.prefix_errors(K, fmap, X, [4, 9]))
    np.testing.assert_array_equal(mc[["s", "fro", "spectral"]].to_numpy(), expected.to_numpy())
    assert frames["setting"].iloc[0].to_dict() == {"sigma": 0.8, "lambda": 0.1, "cv_score": 0.5, "median_distance": 0.4,
                                                   "n": 50, "d": 3, "seed": 5, "cv_features": protocol.CV_FEATURES,
                                                   "dataset": "toy"}
