"""QMC Tables 2-3 under other sigmas, scrambles, scalings and CG iterations (qmc_sigma_sweep, qmc_spread,
qmc_table2_scaling): variant 0 is the committed computation, the others change only what they name."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtr

from rfbench.papers.qmc import learnt, ridge, table3, variants
from rfbench.qmc.adaptive import halton_frequencies
from tests.papers.qmc.conftest import SIGMA, TOY

SCHEMES, BOXES = list(learnt.SCHEMES), [1.0, 0.25]
VARIANTS = [{}, {"sigma_scale": 1.5}, {"scramble_seed": 1}, {"scramble_seed": 2}]


def _trial(data, t: int, ridge: bool = True) -> dict[str, pd.DataFrame]:
    return variants.learn(trial=t, seed=0, data=data, s=8, variants=VARIANTS, boxes=BOXES, schemes=SCHEMES,
                          maxiter=3, ridge=ridge)


def test_variant_0_is_table2s_learnt_run_and_table3s_cells_bit_for_bit(toy_learnt):
    frames = _trial(toy_learnt, 0)
    base = learnt.learn(trial=0, seed=0, data=toy_learnt, s=8, boxes=BOXES, schemes=SCHEMES, maxiter=3)
    columns = list(base["discrepancy"].columns.drop("time"))
    pd.testing.assert_frame_equal(frames["discrepancy"][columns], base["discrepancy"][columns])
    expected = table3.ridge_cells(learnt.sequences_of(base["points"]), base["discrepancy"], TOY)
    pd.testing.assert_frame_equal(frames["cells"][list(expected.columns)], expected)
    assert set(frames["discrepancy"]["scramble_seed"]) == {variants.FIXED}
    assert "scaling" not in frames["discrepancy"] and "history" not in frames  # the sweep's and spread's frames
    assert set(frames["cells"]["sigma_scale"]) == {1.0}


def test_a_sigma_variant_learns_at_that_multiple_of_the_cvs_sigma(toy_learnt):
    frames = _trial(toy_learnt, 1, ridge=False)
    start = halton_frequencies(8, 2, 1.5 * SIGMA)
    expected = learnt.learn_sequences(TOY.X_train, 1.5 * SIGMA, start, BOXES, SCHEMES, 3)["discrepancy"]
    columns = list(expected.columns.drop("time"))
    pd.testing.assert_frame_equal(frames["discrepancy"][columns], expected[columns])
    assert "cells" not in frames and frames["setting"]["sigma"].iloc[0] == SIGMA  # the CV's choice, recorded


def test_a_scaling_variant_learns_on_its_scaled_rows_at_their_sigma_and_its_own_cg_iterations(toy_file):
    arms = [{"scaling": "minmax"}, {"scaling": "none", "maxiter": 5}]
    frames = variants.learn(trial=1, seed=0, data=toy_file, s=8, variants=arms, boxes=BOXES, schemes=SCHEMES,
                            maxiter=3, ridge=True)
    data, choice = ridge.scaled_rows(toy_file, "random", "none", 0)
    assert data.X_train.max() > 1 and choice["sigma"] == 2.0 + abs(data.X_train[0, 0])  # raw rows, their sigma
    start = halton_frequencies(8, 2, choice["sigma"])
    expected = learnt.learn_sequences(data.X_train, choice["sigma"], start, BOXES, SCHEMES, 5)
    columns = list(expected["discrepancy"].columns.drop("time"))
    pd.testing.assert_frame_equal(frames["discrepancy"][columns], expected["discrepancy"][columns])
    pd.testing.assert_frame_equal(frames["history"][list(expected["history"].columns)], expected["history"])
    cells = table3.ridge_cells(learnt.sequences_of(expected["points"]), expected["discrepancy"], data)
    pd.testing.assert_frame_equal(frames["cells"][list(cells.columns)], cells)
    for frame in frames.values():  # every frame names the arm, with the job's iterations where it sets none
        assert set(frame["scaling"]) == {"none"} and set(frame["maxiter"]) == {5}
    ours = variants.learn(trial=0, seed=0, data=toy_file, s=8, variants=arms, boxes=BOXES, schemes=SCHEMES,
                          maxiter=3, ridge=False)
    assert set(ours["discrepancy"]["scaling"]) == {"minmax"} and set(ours["history"]["maxiter"]) == {3}


def test_another_scramble_is_another_start_with_halton_stratification():
    """Any digit scramble keeps base 2's strata: the first 8 points of dimension 0 fall one in each
    eighth of (0, 1), and base 3's first 9 of dimension 1 one in each ninth."""
    starts = [variants.start_frequencies(9, 2, SIGMA, seed) for seed in (None, 1, 2)]
    assert not np.array_equal(starts[1], starts[2]) and not np.array_equal(starts[0], starts[1])
    np.testing.assert_array_equal(starts[0], halton_frequencies(9, 2, SIGMA))
    for start in starts:
        u = ndtr(SIGMA * start)
        assert sorted(np.floor(u[:8, 0] * 8).astype(int)) == list(range(8))
        assert sorted(np.floor(u[:9, 1] * 9).astype(int)) == list(range(9))


def test_a_trial_beyond_the_variants_and_bad_variants_are_refused(toy_learnt):
    with pytest.raises(ValueError, match=r"trial 4: the job has 4 variants; set experiment.trials=4"):
        _trial(toy_learnt, 4)
    check = variants.learn.check_params
    valid = r"\['sigma_scale', 'scramble_seed', 'scaling', 'maxiter'\]"
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['sigma'\]; valid: " + valid):
        check(s=8, variants=[{"sigma": 2}], boxes=BOXES, schemes=SCHEMES, maxiter=3, ridge=False)
    with pytest.raises(ValueError, match=r"sigma_scale=0; give a number > 0"):
        check(s=8, variants=[{"sigma_scale": 0}], boxes=BOXES, schemes=SCHEMES, maxiter=3, ridge=False)
    with pytest.raises(ValueError, match=r"scramble_seed=-1; give null or an integer >= 0"):
        check(s=8, variants=[{"scramble_seed": -1}], boxes=BOXES, schemes=SCHEMES, maxiter=3, ridge=False)
    with pytest.raises(ValueError, match=r"scaling='unit'; give null or one of \['minmax', 'standard', 'none'\]"):
        check(s=8, variants=[{"scaling": "unit"}], boxes=BOXES, schemes=SCHEMES, maxiter=3, ridge=False)
    with pytest.raises(ValueError, match=r"maxiter=0; give null or an integer >= 1"):
        check(s=8, variants=[{"maxiter": 0}], boxes=BOXES, schemes=SCHEMES, maxiter=3, ridge=False)
    with pytest.raises(ValueError, match=r"job.ridge=true needs Table 3's sequences"):
        check(s=8, variants=[{}], boxes=[1.0], schemes=SCHEMES, maxiter=3, ridge=True)
