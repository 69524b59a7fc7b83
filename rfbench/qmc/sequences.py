r"""Point sets on the unit cube for quasi-Monte Carlo feature maps (Avron et al., Section 6.1).

``unit_points(name, n, d)`` gives the first n points t_1..t_n in (0, 1)^d of one of

=============  ==========================================  ===============================
name           generator                                   randomization (``scramble``)
=============  ==========================================  ===============================
mc             ``numpy.random.Generator.random``           i.i.d. uniform (always random)
halton         ``scipy.stats.qmc.Halton``                  digit permutations, fixed seed:
                                                           deterministic, as the paper's
sobol          ``scipy.stats.qmc.Sobol`` (Joe-Kuo          linear matrix scramble + digital
               direction numbers)                          shift (Matousek's affine scramble)
lattice        ``qmcpy.Lattice`` (rank-1, radical-inverse  random shift modulo 1
               order, Kuo's generating vector)
digital_net    ``qmcpy.DigitalNetB2`` (base-2 digital      random digital shift
               sequence, Joe-Kuo generating matrices)
=============  ==========================================  ===============================

Deviations from the paper's generators (none of which is available offline):

* Halton: MATLAB's ``haltonset`` scrambles only by the RR2 permutation (Kocis & Whiten),
  a fixed, deterministic digit permutation; here the permutations are scipy's random ones
  drawn once from the fixed seed :data:`HALTON_SCRAMBLE_SEED`, so the scramble is likewise
  deterministic (no variance across trials) but is not RR2.
* Sobol': MATLAB's ``sobolset`` (at most 1111 dimensions) is replaced by scipy's (Joe-Kuo
  2008 direction numbers, at most 21201); both scramble by Matousek's affine-Owen
  (linear matrix scramble and digital shift).
* Lattice: the paper's generating vector, from Nuyens' QMC generators (at most 250
  dimensions, Section 6.1; its name is not given), is not shipped by qmcpy; qmcpy's offline
  default, Kuo's ``lattice-33002-1024-1048576.9125`` (at most 9125 dimensions, 2^20 points),
  is used. qmcpy fetches any other named vector over the network at run time, which this
  module never asks for.
* Digital net: the paper's generating matrices, also from Nuyens' generators (not named),
  are replaced by qmcpy's offline Joe-Kuo matrices (``joe_kuo.6.21201``), randomized by a
  digital shift only; so this "digital net" shares its matrices with ``sobol`` and differs
  by the randomization (digital shift vs. linear scramble and shift) and the library.

The point 0.  Every unrandomized sequence here starts at the origin, whose inverse
Gaussian CDF is -inf. With ``scramble=False`` the origin is dropped: the n points are
those of indices 1..n. (For ``sobol``, ``lattice`` and ``digital_net`` the first 2^m
points then no longer form a net or a lattice exactly; the paper does not say what it
did.) Randomized points hit a face of the cube only through the generators' finite
precision (e.g. Sobol' values are multiples of 2^-30), with probability about 2^-30 per
coordinate; every coordinate is therefore clipped into [2^-53, 1 - 2^-53], where the
inverse Gaussian CDF is within ``+-8.3``.

Extensibility.  Every sequence is extensible: with the same ``seed``, the first s rows of
``unit_points(name, n, d)`` are ``unit_points(name, s, d)`` for every s <= n, so a sweep
over s can take prefixes of one point set. The library generators are asked for the next
power of two points and cut, because Sobol' points, lattices and digital nets in
radical-inverse order have their balance properties at n = 2^m (scipy warns and qmcpy's
lattice refuses otherwise); a prefix of any other length is a prefix of the same sequence.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import qmc

from rfbench.validation import is_int

SEQUENCES = ("mc", "halton", "sobol", "lattice", "digital_net")

#: Seed of the Halton digit permutations: fixed, so that the scrambled Halton sequence is
#: deterministic like the paper's (MATLAB's RR2 scramble).
HALTON_SCRAMBLE_SEED = 20140621

#: Largest dimension and number of points of each generator (``None``: no limit).
MAX_DIMENSION: dict[str, int | None] = {
    "mc": None,
    "halton": None,
    "sobol": 21201,  # scipy's Joe-Kuo direction numbers
    "lattice": 9125,  # qmcpy's offline generating vector (Kuo)
    "digital_net": 21201,  # qmcpy's offline generating matrices (Joe-Kuo)
}
MAX_POINTS: dict[str, int | None] = {
    "mc": None,
    "halton": None,
    "sobol": 2**30,  # scipy's default 30 bits
    "lattice": 2**20,
    "digital_net": 2**32,
}

#: Points are clipped into [EDGE, 1 - EDGE]: the inverse Gaussian CDF stays finite (``|.| < 8.3``).
EDGE = 2.0**-53


def unit_points(
    name: str,
    n: int,
    d: int,
    *,
    scramble: bool = True,
    seed: int | np.random.Generator | None = None,
) -> np.ndarray:
    """The first n points of sequence ``name`` in dimension d, shape (n, d), in (0, 1).

    Parameters
    ----------
    name : {"mc", "halton", "sobol", "lattice", "digital_net"}
    n : int
        Number of points, >= 1.
    d : int
        Dimension, >= 1 and at most ``MAX_DIMENSION[name]``.
    scramble : bool, default=True
        Apply the sequence's randomization (see the module docstring); False gives the
        unrandomized sequence without its first point, the origin. Ignored by "mc".
    seed : int, numpy.random.Generator or None
        Seed of the randomization (of the draws for "mc"); ignored by the deterministic
        scrambled Halton and by unrandomized sequences.

    Returns
    -------
    ndarray of shape (n, d), float64, in [2^-53, 1 - 2^-53]
    """
    check_sequence(name, n, d)
    if not isinstance(scramble, bool):
        raise ValueError(f"scramble must be true or false, got {scramble!r}")
    rng = np.random.default_rng(seed)
    if name == "mc":
        points = rng.random((n, d))
    else:
        skip = 0 if scramble else 1
        total = 1 << int(np.ceil(np.log2(n + skip)))
        points = _GENERATORS[name](total, d, scramble, int(rng.integers(2**63)))[skip : skip + n]
    return np.clip(points, EDGE, 1.0 - EDGE)


def check_sequence(name: str, n: int, d: int) -> None:
    """Raise ValueError unless sequence ``name`` can give n points in dimension d."""
    if not isinstance(name, str) or name not in SEQUENCES:
        raise ValueError(f"unknown sequence {name!r}; choose one of {SEQUENCES}")
    for what, value in (("n", n), ("d", d)):
        if not is_int(value) or value < 1:
            raise ValueError(f"{what} must be a positive integer, got {value!r}")
    max_d, max_n = MAX_DIMENSION[name], MAX_POINTS[name]
    if max_d is not None and d > max_d:
        raise ValueError(
            f"sequence {name!r} supports at most {max_d} dimensions, got d={d}; "
            f"reduce the dimension (e.g. by PCA) or use one of "
            f"{tuple(s for s in SEQUENCES if (MAX_DIMENSION[s] or np.inf) >= d)}"
        )
    if max_n is not None and n + 1 > max_n:
        raise ValueError(f"sequence {name!r} supports at most {max_n - 1} points, got n={n}")


def _halton(n: int, d: int, scramble: bool, seed: int) -> np.ndarray:
    return qmc.Halton(d, scramble=scramble, rng=HALTON_SCRAMBLE_SEED).random(n)


def _sobol(n: int, d: int, scramble: bool, seed: int) -> np.ndarray:
    return qmc.Sobol(d, scramble=scramble, rng=seed).random(n)


def _lattice(n: int, d: int, scramble: bool, seed: int) -> np.ndarray:
    import qmcpy  # imported on use: ~1 s, and only these two sequences need it

    lattice = qmcpy.Lattice(d, randomize="SHIFT" if scramble else "FALSE", seed=seed, order="RADICAL INVERSE")
    return lattice.gen_samples(n, warn=False)


def _digital_net(n: int, d: int, scramble: bool, seed: int) -> np.ndarray:
    import qmcpy

    net = qmcpy.DigitalNetB2(d, randomize="DS" if scramble else "FALSE", seed=seed, order="RADICAL INVERSE")
    return net.gen_samples(n, warn=False)


_GENERATORS = {"halton": _halton, "sobol": _sobol, "lattice": _lattice, "digital_net": _digital_net}
