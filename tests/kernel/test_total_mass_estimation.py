"""Subset least-squares total-mass estimation, problem (12) with the corrected sign."""
import numpy as np
import pytest

from rfbench.kernel import PARTS, estimate_total_masses, make_kernel, unit_mass_grams


def random_bases(ns: int, rng) -> dict:
    A, B, C = (rng.normal(size=(ns, ns)) for _ in range(3))
    return {"real_pos": A + A.T, "real_neg": B + B.T, "imag_pos": C - C.T}


def model(xi, bases):
    return xi[0] * bases["real_pos"] - xi[1] * bases["real_neg"] - 2 * xi[2] * bases["imag_pos"]


def kkt_gradient(xi, target, bases):
    """Gradient of the objective in the free unknowns (xi2, xi3), xi1 = k0 + xi2 substituted."""
    resid = target - model(xi, bases)
    return np.array([
        -2 * np.sum(resid * (bases["real_pos"] - bases["real_neg"])),
        -2 * np.sum(resid * (-2 * bases["imag_pos"])),
    ])


@pytest.mark.parametrize("k0", [1.0, 0.3, -0.4])
def test_recovers_interior_solution_exactly(k0):
    bases = random_bases(7, np.random.default_rng(0))
    xi = np.array([k0 + 1.7, 1.7, 0.9])
    est = estimate_total_masses(model(xi, bases), bases, k0)
    np.testing.assert_allclose([est[p] for p in PARTS], xi, rtol=1e-8)


@pytest.mark.parametrize("k0,xi_unconstrained,active", [(1.0, [1.6, 0.6, -0.8], 2), (1.0, [0.7, -0.3, 0.5], 1)])
def test_active_bound_satisfies_kkt(k0, xi_unconstrained, active):
    """Target whose unconstrained optimum is infeasible: xi hits a bound, KKT certifies optimality."""
    rng = np.random.default_rng(1)
    bases = random_bases(6, rng)
    target = model(np.array(xi_unconstrained), bases) + 1e-3 * rng.normal(size=(6, 6))
    est = estimate_total_masses(target, bases, k0)
    xi = np.array([est[p] for p in PARTS])
    assert xi[active] == 0.0 and np.all(xi >= 0) and xi[0] - xi[1] == pytest.approx(k0, abs=1e-12)
    grad = kkt_gradient(xi, target, bases)
    free = 2 if active == 1 else 1  # index among (xi2, xi3)
    assert abs(grad[free - 1]) < 1e-8 * np.abs(target).sum()
    assert grad[active - 1] > 0  # moving off the bound increases the objective


def test_missing_parts_are_fixed_to_zero():
    bases = random_bases(6, np.random.default_rng(2))
    sinh_like = {"real_pos": bases["real_pos"], "imag_pos": bases["imag_pos"]}
    est = estimate_total_masses(model([1.0, 0.0, 2.5], bases), sinh_like, 1.0)
    assert est == pytest.approx({"real_pos": 1.0, "real_neg": 0.0, "imag_pos": 2.5}, rel=1e-10)
    est = estimate_total_masses(bases["real_pos"], {"real_pos": bases["real_pos"]}, 0.7)
    assert est == {"real_pos": 0.7, "real_neg": 0.0, "imag_pos": 0.0}
    # only k0 < 0 needs a real_neg basis: k0 = 0 with real_pos alone is xi = 0
    est = estimate_total_masses(np.zeros((6, 6)), {"real_pos": bases["real_pos"]}, 0.0)
    assert est == {"real_pos": 0.0, "real_neg": 0.0, "imag_pos": 0.0}


def test_symmetric_variant_gives_same_real_masses():
    """C_w, C_z symmetric and S_v antisymmetric: the objective splits, xi1, xi2 are unchanged."""
    rng = np.random.default_rng(3)
    bases = random_bases(8, rng)
    K = rng.normal(size=(8, 8))
    full = estimate_total_masses(K, bases, 0.5)
    sym = estimate_total_masses((K + K.T) / 2, {p: bases[p] for p in ("real_pos", "real_neg")}, 0.5)
    assert sym["real_pos"] == pytest.approx(full["real_pos"], rel=1e-10)
    assert sym["real_neg"] == pytest.approx(full["real_neg"], rel=1e-10)


def test_unit_mass_grams_match_brute_force():
    rng = np.random.default_rng(4)
    Xs, freqs = rng.normal(size=(5, 3)), {p: rng.normal(size=(9, 3)) for p in PARTS}
    grams = unit_mass_grams(Xs, freqs)
    diff = Xs[:, None, :] - Xs[None, :, :]
    for part, W in freqs.items():
        trig = np.sin if part == "imag_pos" else np.cos
        brute = np.array([[np.mean([trig(w @ diff[i, j]) for w in W]) for j in range(5)] for i in range(5)])
        np.testing.assert_allclose(grams[part], brute, atol=1e-14)


@pytest.mark.parametrize("name,rel", [("shift_gaussian", 0.02), ("sinh_gaussian", 0.1), ("cosh_gaussian", 0.1)])
def test_estimates_exact_masses_on_paper_toy_problem(name, rel):
    """Section 5.1: d = 1, Ns = 10 Gaussian points, many features -> the exact masses."""
    kernel = make_kernel(name, 1)
    rng = np.random.default_rng(5)
    Xs = rng.normal(size=(10, 1))
    freqs = {p: kernel.sample(p, 2**15, rng)[0] for p in kernel.parts}
    est = estimate_total_masses(kernel(Xs), unit_mass_grams(Xs, freqs), kernel.k0)
    assert est == pytest.approx(kernel.exact_total_masses(), rel=rel)


@pytest.mark.parametrize(
    "target,bases,k0,match",
    [
        (np.zeros((3, 4)), {"real_pos": np.zeros((3, 4))}, 1.0, "target must be a square matrix"),
        (np.zeros((3, 3)), {"real_pos": np.zeros((2, 2))}, 1.0, r"bases\['real_pos'\] has shape \(2, 2\)"),
        (np.zeros((3, 3)), {"real_pos": np.eye(3), "imag": np.eye(3)}, 1.0, r"unknown part 'imag'; valid parts"),
        (np.zeros((3, 3)), {"imag_pos": np.eye(3)}, 1.0, "bases must contain 'real_pos'"),
        (np.zeros((3, 3)), {"real_pos": np.eye(3)}, -1.0, "requires a 'real_neg' basis"),
    ],
)
def test_bad_inputs_rejected(target, bases, k0, match):
    with pytest.raises(ValueError, match=match):
        estimate_total_masses(target, bases, k0)


@pytest.mark.parametrize("W", [np.zeros((0, 3)), np.ones((4, 2)), np.ones(3), np.ones((2, 3, 1))])
def test_unit_mass_grams_refuses_frequencies_of_the_wrong_shape(W):
    with pytest.raises(ValueError, match=r"freqs\['imag_pos'\] must have shape \(M >= 1, d=3\), got \("):
        unit_mass_grams(np.ones((5, 3)), {"real_pos": np.ones((2, 3)), "imag_pos": W})
