"""Kernel parameters outside the range where the kernel's numbers stay finite are refused."""
import numpy as np
import pytest

from rfbench.kernel import make_kernel
from rfbench.kernel.modulated import MAX_SPREAD


@pytest.mark.parametrize("name", ["gaussian", "shift_gaussian", "sinh_gaussian", "cosh_gaussian"])
@pytest.mark.parametrize("sigma", [0, -1.0, np.inf, np.nan, 1e300, 1e-300, "abc", True, [1.0, 2.0]])
def test_sigma_outside_its_range_is_refused(name, sigma):
    with pytest.raises(ValueError, match=r"sigma=.* is invalid: a bandwidth with 1e-30 <= sigma <= 1e\+30"):
        make_kernel(name, 3, sigma=sigma)


def test_spread_bound_is_where_the_amplitude_reaches_1e30():
    assert np.exp(MAX_SPREAD**2 / 2) == pytest.approx(1e30)


#: what breaks beyond the spread bound, as the refusal says
_REASON = {
    "beta": "the spectral measure's amplitude exp(sigma^2 ||beta||^2 / 2) exceeds 1e30",
    "r": "k(0) = exp(-||r||^2 / (2 sigma^2)) is below 1e-30",
}


@pytest.mark.parametrize("name, param, spread", [
    ("sinh_gaussian", "beta", lambda sigma, v: sigma * np.linalg.norm(v)),
    ("cosh_gaussian", "beta", lambda sigma, v: sigma * np.linalg.norm(v)),
    ("shift_gaussian", "r", lambda sigma, v: np.linalg.norm(v) / sigma),
])
def test_direction_is_accepted_up_to_the_spread_bound_and_refused_beyond(name, param, spread):
    d, sigma = 4, 2.0
    at_bound = MAX_SPREAD / spread(sigma, np.ones(d))  # a constant direction of spread MAX_SPREAD
    kernel = make_kernel(name, d, sigma=sigma, **{param: 0.999 * at_bound})
    assert all(np.isfinite(m) for m in kernel.exact_total_masses().values())
    with pytest.raises(ValueError) as err:
        make_kernel(name, d, sigma=sigma, **{param: 1.01 * at_bound})
    message = str(err.value)
    assert f"{param}={1.01 * at_bound!r} with sigma=2" in message and "is too large" in message
    assert f"|{param}| <= {at_bound:.4g} for a constant {param} at d={d}" in message
    assert f"is too large: {_REASON[param]}; choose ||{param}|| <= " in message


def test_the_spread_bound_itself_is_accepted():
    # spread <= MAX_SPREAD is closed: at the bound k(0) of shift_gaussian is 1e-30 and cosh's amplitude 1e30
    assert make_kernel("shift_gaussian", 1, sigma=1.0, r=MAX_SPREAD).k0 == pytest.approx(1e-30)
    assert make_kernel("cosh_gaussian", 1, sigma=1.0, beta=MAX_SPREAD).amplitude == pytest.approx(1e30)


def test_paper_beta_5_on_spambase_names_beta_and_its_bound():
    # kernel.beta=5 used to end in ZeroDivisionError inside the sampler (amplitude exp(2850) = inf)
    with pytest.raises(ValueError, match=r"beta=5 with sigma=2: sigma \|\|beta\|\| = 75.5 is too large: .*"
                                         r"\|beta\| <= 0.7784 for a constant beta at d=57"):
        make_kernel("sinh_gaussian", 57, beta=5)


def test_a_tiny_sigma_with_the_default_shift_is_refused_not_integrated_forever():
    with pytest.raises(ValueError, match=r"r=null \(the paper's default\) with sigma=1e-30: \|\|r\|\| / sigma"):
        make_kernel("shift_gaussian", 57, sigma=1e-30)


def test_an_overflowing_direction_is_refused_without_a_warning():
    with np.errstate(all="raise"), pytest.raises(ValueError, match="= inf is too large"):
        make_kernel("shift_gaussian", 3, r=[1e200, 1e200, 1e200])
