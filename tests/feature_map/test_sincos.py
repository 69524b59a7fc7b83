"""The fused float32 sine/cosine against numpy's float64 trigonometry."""
from __future__ import annotations

import numpy as np
import pytest

from rfbench.feature_map._sincos import LIMIT, scaled_cos_sin_rows
from rfbench.feature_map._trig import cos_sin

# float32 rounds values near 1 to 6e-8; the reduction and polynomials may add as much again.
ATOL = 1.5e-7


def arguments() -> np.ndarray:
    """Random arguments of every magnitude up to LIMIT, plus the quadrant boundaries and signed zeros."""
    rng = np.random.default_rng(0)
    magnitudes = 2.0 ** rng.uniform(-30, np.log2(LIMIT), 20_000)
    boundaries = np.arange(-5216, 5216) * (np.pi / 4)  # every k pi/4 with |x| < 4097
    near = np.concatenate([boundaries, np.nextafter(boundaries.astype(np.float32), np.float32(np.inf)),
                           np.nextafter(boundaries.astype(np.float32), np.float32(-np.inf))])
    x = np.concatenate([magnitudes * rng.choice([-1, 1], magnitudes.size), near, [0.0, -0.0, LIMIT, -LIMIT]])
    x = x.astype(np.float32)
    return x[: x.size // 64 * 64].reshape(64, -1)


def fused(projection: np.ndarray, cos_scale: float = 1.0, sin_scale: float = 1.0) -> tuple[np.ndarray, bool]:
    out = np.full((projection.shape[0], 2 * projection.shape[1]), np.nan, np.float32)
    ok = scaled_cos_sin_rows(np.ascontiguousarray(projection), out, 0, projection.shape[1], cos_scale, sin_scale)
    return out, ok


def test_within_float32_rounding_of_exact_values():
    x = arguments()
    out, ok = fused(x)
    exact = x.astype(np.float64)
    m = x.shape[1]
    assert ok
    np.testing.assert_allclose(out[:, :m], np.cos(exact), rtol=0, atol=ATOL)
    np.testing.assert_allclose(out[:, m:], np.sin(exact), rtol=0, atol=ATOL)
    # Where the value itself is small, the error is relative: sin x ~ x near 0.
    tiny = np.abs(x) < 1e-3
    np.testing.assert_allclose(out[:, m:][tiny], np.sin(exact[tiny]), rtol=2e-7, atol=0)


def test_as_accurate_as_numpy_float32():
    x = arguments()
    out, _ = fused(x)
    exact = x.astype(np.float64)
    m = x.shape[1]
    for ours, theirs, reference in ((out[:, :m], np.cos(x), np.cos(exact)), (out[:, m:], np.sin(x), np.sin(exact))):
        assert np.abs(ours - reference).max() <= 2 * np.abs(theirs - reference).max()


@pytest.mark.parametrize(("n", "m"), [(9, 7), (1, 7), (9, 1)])
def test_scales_and_block_positions_in_a_wider_array(n, m):
    rng = np.random.default_rng(1)
    projection = rng.normal(0, 5, (n, m)).astype(np.float32)
    wide = np.full((n, 2 * m + 6), 7.0, np.float32)
    block = wide[:, 3 : 3 + 2 * m]
    assert scaled_cos_sin_rows(projection, block, m, 0, 0.5, -2.0)  # the rotated layout [-2 sin, 0.5 cos]
    np.testing.assert_allclose(block[:, m:], 0.5 * np.cos(projection.astype(np.float64)), atol=ATOL)
    np.testing.assert_allclose(block[:, :m], -2.0 * np.sin(projection.astype(np.float64)), atol=2 * ATOL)
    assert np.all(wide[:, :3] == 7.0) and np.all(wide[:, 3 + 2 * m :] == 7.0)


def test_an_empty_block_is_in_range_and_writes_nothing():
    wide = np.full((4, 20), 7.0, np.float32)
    assert scaled_cos_sin_rows(np.zeros((0, 4), np.float32), wide[:0, 3:11], 0, 4, 1.0, 1.0)  # no rows
    assert scaled_cos_sin_rows(np.zeros((4, 0), np.float32), wide[:, 3:3], 0, 0, 1.0, 1.0)  # no columns
    assert np.all(wide == 7.0)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # numpy on inf/NaN
@pytest.mark.parametrize("bad", [np.nextafter(LIMIT, np.float32(np.inf)), -1e6, np.inf, -np.inf, np.nan])
def test_out_of_range_is_reported_and_cos_sin_falls_back_to_numpy(bad):
    projection = np.linspace(-3, 3, 40, dtype=np.float32).reshape(4, 10)
    projection[2, 5] = bad
    assert not fused(projection)[1]
    # Through the engine, in chunks of 2 rows: a chunk with a bad projection is numpy's.
    X = np.eye(4, dtype=np.float32)
    out = cos_sin(X, projection, scale=0.5, chunk_rows=2)
    with np.errstate(invalid="ignore"):
        product = X @ projection  # inf or NaN spreads over its column: 0 * inf = NaN
        expected = 0.5 * np.hstack([np.cos(product), np.sin(product)])
    for rows in (slice(0, 2), slice(2, 4)):
        if np.all(np.abs(product[rows]) <= LIMIT):
            np.testing.assert_allclose(out[rows], expected[rows], rtol=0, atol=ATOL)
        else:
            np.testing.assert_array_equal(out[rows], expected[rows])


def test_rejects_what_it_cannot_vectorize():
    projection = np.zeros((3, 4), np.float32)
    for bad_projection, bad_out in ((projection.astype(np.float64), np.zeros((3, 8), np.float32)),
                                    (projection, np.zeros((3, 8))),  # a float64 out
                                    (np.zeros((4, 3), np.float32).T, np.zeros((3, 8), np.float32))):  # Fortran order
        with pytest.raises(ValueError, match="projection must be C-contiguous float32 and out float32"):
            scaled_cos_sin_rows(bad_projection, bad_out, 0, 4, 1.0, 1.0)
    with pytest.raises(ValueError, match=r"out of shape \(2, 8\) .* cannot hold two \(3, 4\) blocks"):
        scaled_cos_sin_rows(projection, np.zeros((5, 8), np.float32)[:2], 0, 4, 1.0, 1.0)  # a row too few
    with pytest.raises(ValueError, match=r"cannot hold two \(3, 4\) blocks"):
        scaled_cos_sin_rows(projection, np.zeros((3, 8), np.float32)[:, ::2], 0, 2, 1.0, 1.0)
    with pytest.raises(ValueError, match=r"cannot hold two \(3, 4\) blocks"):
        scaled_cos_sin_rows(projection, np.zeros((3, 7), np.float32), 0, 4, 1.0, 1.0)
