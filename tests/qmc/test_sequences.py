"""Point sets on the unit cube: range, extensibility, randomization, the origin, low discrepancy."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtri

from rfbench.qmc.discrepancy import BoxDiscrepancy
from rfbench.qmc.sequences import EDGE, MAX_DIMENSION, SEQUENCES, unit_points

QMC = [name for name in SEQUENCES if name != "mc"]
RANDOMIZED = ["mc", "sobol", "lattice", "digital_net"]  # the scrambled Halton is deterministic


@pytest.mark.parametrize("scramble", [True, False])
@pytest.mark.parametrize("name", SEQUENCES)
def test_points_are_inside_the_open_cube_and_extensible(name, scramble):
    """The first s of n points are the s-point set, for s not a power of two too."""
    points = unit_points(name, 37, 4, scramble=scramble, seed=3)
    assert points.shape == (37, 4) and points.dtype == np.float64
    assert np.all((points >= EDGE) & (points <= 1 - EDGE))
    assert np.all(np.isfinite(ndtri(points)))
    for s in (1, 5, 16, 20):
        np.testing.assert_array_equal(unit_points(name, s, 4, scramble=scramble, seed=3), points[:s])


@pytest.mark.parametrize("name", RANDOMIZED)
def test_randomized_sequences_depend_on_the_seed_and_reproduce(name):
    a = unit_points(name, 8, 3, seed=1)
    np.testing.assert_array_equal(a, unit_points(name, 8, 3, seed=1))
    assert not np.allclose(a, unit_points(name, 8, 3, seed=2))


@pytest.mark.parametrize("name", RANDOMIZED)
def test_each_randomized_point_is_uniform_on_the_cube(name):
    """Over 400 randomizations the 3rd point has mean 1/2 and variance 1/12 per coordinate."""
    third = np.array([unit_points(name, 4, 2, seed=seed)[2] for seed in range(400)])
    se_mean = np.sqrt(1 / 12 / 400)
    np.testing.assert_array_less(np.abs(third.mean(axis=0) - 0.5), 4 * se_mean)
    # the sample variance of n uniforms has standard error sqrt((1/80 - 1/144) / n) = sqrt(1/180 / n)
    np.testing.assert_array_less(np.abs(third.var(axis=0) - 1 / 12), 4 * np.sqrt(1 / 180 / 400))


def test_scrambled_halton_is_deterministic_as_in_the_paper():
    a = unit_points("halton", 10, 3, seed=1)
    np.testing.assert_array_equal(a, unit_points("halton", 10, 3, seed=2))
    assert not np.allclose(a, unit_points("halton", 10, 3, scramble=False))


@pytest.mark.parametrize(
    ("name", "first"),
    [
        # radical inverses of 1, 2 in bases 2, 3, 5
        ("halton", [[1 / 2, 1 / 3, 1 / 5], [1 / 4, 2 / 3, 2 / 5]]),
        # Sobol' points 1, 2 (the origin is point 0)
        ("sobol", [[1 / 2, 1 / 2, 1 / 2], [3 / 4, 1 / 4, 1 / 4]]),
        # i z / n mod 1 in radical-inverse order: i = 1 with n = 2, then i = 1 with n = 4
        ("lattice", [[1 / 2, 1 / 2, 1 / 2]]),
    ],
)
def test_unscrambled_sequences_drop_the_origin(name, first):
    points = unit_points(name, 4, 3, scramble=False)
    np.testing.assert_allclose(points[: len(first)], first)
    assert not np.any(np.all(points == 0, axis=1))


@pytest.mark.parametrize("scramble", [True, False])
@pytest.mark.parametrize("name", QMC)
def test_box_discrepancy_is_below_monte_carlo_expectation(name, scramble):
    """Every QMC set (10 randomizations) has D^2 below half the expected D^2 of MC, eq. (13)."""
    s, d, sigma = 64, 3, 1.0
    discrepancy = BoxDiscrepancy(1.0, sigma)
    mc = discrepancy.expected_squared_mc(s, d)
    for seed in range(10 if scramble else 1):
        W = ndtri(unit_points(name, s, d, scramble=scramble, seed=seed)) / sigma
        assert discrepancy.squared(W) < 0.5 * mc


def test_unknown_sequence_lists_the_valid_ones():
    with pytest.raises(ValueError, match=r"unknown sequence 'sobel'; choose one of \('mc', 'halton', 'sobol', "):
        unit_points("sobel", 4, 2)


@pytest.mark.parametrize("name", ["sobol", "lattice", "digital_net"])
def test_too_many_dimensions_states_the_limit(name):
    limit = MAX_DIMENSION[name]
    with pytest.raises(ValueError, match=rf"sequence '{name}' supports at most {limit} dimensions, got d={limit + 1}"):
        unit_points(name, 4, limit + 1)


def test_too_many_points_states_the_limit():
    with pytest.raises(ValueError, match=r"sequence 'lattice' supports at most 1048575 points, got n=1048576"):
        unit_points("lattice", 2**20, 2)


@pytest.mark.parametrize(("n", "d"), [(0, 2), (3, 0), (2.5, 2)])
def test_bad_sizes_are_refused(n, d):
    with pytest.raises(ValueError, match="must be a positive integer"):
        unit_points("halton", n, d)


@pytest.mark.parametrize("name", ["lattice", "digital_net"])
def test_qmcpy_generators_need_no_network(name, monkeypatch):
    """The generating vector and matrices come from qmcpy's own files (d = 1100 reads the
    21201-dimensional matrices, past the 1024 of the smaller file)."""
    import socket

    def refuse(*args, **kwargs):
        raise AssertionError("network access")

    for attribute in ("socket", "create_connection", "getaddrinfo"):
        monkeypatch.setattr(socket, attribute, refuse)
    for scramble in (True, False):
        assert unit_points(name, 8, 1100, scramble=scramble, seed=0).shape == (8, 1100)
