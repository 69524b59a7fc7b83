"""AsK-RFF Fig. 1's job: estimated masses satisfy Corollary 5 and approach the exact masses; one trial's
draw is its own seed's."""
import numpy as np
import pandas as pd
import pytest

from rfbench.kernel import make_kernel
from rfbench.papers.askrff import masses

KERNELS = ("shift_gaussian", "sinh_gaussian", "cosh_gaussian")


@pytest.fixture(scope="module")
def frames():
    return [masses.compute(trial=t, seed=0, kernels=KERNELS, n_points=300, n_subset=10, log2_max=9) for t in (0, 1)]


def test_estimates_satisfy_corollary_5_and_approach_exact_masses(frames):
    estimates = pd.concat([f["masses"] for f in frames], ignore_index=True)
    for kernel, rows in estimates.groupby("kernel"):
        k0 = make_kernel(kernel, 1).k0
        np.testing.assert_allclose(rows["mass_real_pos"] - rows["mass_real_neg"], k0, rtol=1e-9)
        assert (rows[["mass_real_pos", "mass_real_neg", "mass_imag_pos"]] >= 0).all().all()
    exact = frames[0]["exact"].set_index("kernel")
    shift = estimates[(estimates["kernel"] == "shift_gaussian") & (estimates["M"] == 512)]
    assert shift["mass_real_pos"].mean() == pytest.approx(exact.loc["shift_gaussian", "mass_real_pos"], rel=0.1)
    assert len(estimates) == 2 * 3 * 9 and list(exact.index) == list(KERNELS)


def test_exact_masses_are_the_kernels_closed_forms_and_trials_draw_apart(frames):
    sinh = frames[0]["exact"].set_index("kernel").loc["sinh_gaussian"]
    assert (sinh["mass_real_pos"], sinh["mass_real_neg"]) == (1.0, 0.0)  # k0 = 1, no negative real part
    pd.testing.assert_frame_equal(frames[0]["exact"], frames[1]["exact"])
    assert not frames[0]["masses"]["mass_imag_pos"].equals(frames[1]["masses"]["mass_imag_pos"])
    again = masses.compute(trial=1, seed=0, kernels=KERNELS, n_points=300, n_subset=10, log2_max=9)
    pd.testing.assert_frame_equal(again["masses"], frames[1]["masses"])
