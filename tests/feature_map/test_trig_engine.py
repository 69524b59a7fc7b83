"""The chunked trigonometric engine against a naive dense numpy reference."""
from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from rfbench.feature_map import _trig
from rfbench.feature_map._trig import cos_offset, cos_sin, feature_dtype, trig_threads

N, D, M = 31, 5, 13


@pytest.fixture
def data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.uniform(-1, 1, (N, D)), rng.normal(0, 2, (D, M)), rng.uniform(0, 2 * np.pi, M)


def reference(X, W, scale, rotated=False, offset=None):
    proj = X @ W
    if offset is not None:
        return scale * np.cos(proj + offset)
    if rotated:
        return scale * np.hstack([-np.sin(proj), np.cos(proj)])
    return scale * np.hstack([np.cos(proj), np.sin(proj)])


@pytest.mark.parametrize("chunk_rows", [None, 1, 4, 7, N, 100])
@pytest.mark.parametrize("rotated", [False, True])
def test_cos_sin_float64_matches_reference(data, chunk_rows, rotated):
    X, W, _ = data
    out = cos_sin(X, W, scale=0.37, rotated=rotated, dtype="float64", chunk_rows=chunk_rows)
    assert out.dtype == np.float64 and out.shape == (N, 2 * M)
    np.testing.assert_allclose(out, reference(X, W, 0.37, rotated), rtol=0, atol=1e-12)


@pytest.mark.parametrize("chunk_rows", [None, 7])
def test_cos_offset_float64_matches_reference(data, chunk_rows):
    X, W, b = data
    out = cos_offset(X, W, b, scale=1.3, dtype=np.float64, chunk_rows=chunk_rows)
    assert out.shape == (N, M)
    np.testing.assert_allclose(out, reference(X, W, 1.3, offset=b), rtol=0, atol=1e-12)


def test_float32_close_to_float64_reference(data):
    X, W, b = data
    out = cos_sin(X, W, scale=0.5, chunk_rows=6)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, reference(X, W, 0.5), rtol=0, atol=1e-5)
    out = cos_offset(X, W, b, dtype="float32", chunk_rows=6)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, reference(X, W, 1.0, offset=b), rtol=0, atol=1e-5)


def test_writes_into_column_slice_only(data):
    X, W, _ = data
    wide = np.full((N, 2 * M + 5), 7.0)
    result = cos_sin(X, W, out=wide[:, 3 : 3 + 2 * M], dtype="float64", chunk_rows=4)
    assert np.shares_memory(result, wide)
    np.testing.assert_allclose(wide[:, 3 : 3 + 2 * M], reference(X, W, 1.0), atol=1e-12)
    assert np.all(wide[:, :3] == 7.0) and np.all(wide[:, 3 + 2 * M :] == 7.0)


def test_bad_out_and_shapes_are_rejected(data):
    X, W, b = data
    message = r"out has shape \(31, 26\) and dtype float32, expected \(31, 26\) and float64"
    with pytest.raises(ValueError, match=message):
        cos_sin(X, W, out=np.empty((N, 2 * M), np.float32), dtype="float64")
    with pytest.raises(ValueError, match=r"not \(n, d\) and \(d, m\)"):
        cos_sin(X, W.T)
    with pytest.raises(ValueError, match=r"offset has shape \(12,\), expected \(13,\)"):
        cos_offset(X, W, b[:-1])
    with pytest.raises(ValueError, match="chunk_rows=0"):
        cos_sin(X, W, chunk_rows=0)


@pytest.mark.parametrize("bad", ["float16", "int64", "complex128", "nonsense", None])
def test_unsupported_dtype_names_choices(bad):
    message = rf"dtype={bad!r} is not supported; choose one of \('float32', 'float64'\)"
    with pytest.raises(ValueError, match=message):
        feature_dtype(bad)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_result_does_not_depend_on_the_number_of_threads(data, dtype):
    """Chunks run in threads write disjoint rows, each computed the same way: bit-identical output."""
    X, W, b = np.repeat(data[0], 40, axis=0), data[1], data[2]
    with threadpool_limits(1):
        assert trig_threads() == 1
        serial = cos_sin(X, W, scale=0.3, dtype=dtype, chunk_rows=16), cos_offset(X, W, b, dtype=dtype, chunk_rows=16)
    with threadpool_limits(2):
        assert trig_threads() == 2
        threaded = cos_sin(X, W, scale=0.3, dtype=dtype, chunk_rows=16), cos_offset(X, W, b, dtype=dtype, chunk_rows=16)
    for one, two in zip(serial, threaded):
        np.testing.assert_array_equal(one, two)
    np.testing.assert_allclose(threaded[0], reference(X, W, 0.3), atol=1e-5)


@pytest.mark.parametrize("m", [1, 3])
def test_row_does_not_depend_on_its_place(m):
    """A row's features are bit-identical wherever it sits (float32 gemv on one frequency is not)."""
    rng = np.random.default_rng(0)
    X, W, b = 3 * rng.uniform(size=(20, 3)), rng.normal(0, 2, (3, m)), rng.uniform(0, 2 * np.pi, m)
    for order in (rng.permutation(20) for _ in range(50)):
        np.testing.assert_array_equal(cos_sin(X[order], W), cos_sin(X, W)[order])
        np.testing.assert_array_equal(cos_offset(X[order], W, b), cos_offset(X, W, b)[order])


def test_blas_thread_limit_is_restored(data):
    """BLAS is held to one thread during the call only."""
    X, W, _ = data
    with threadpool_limits(2, user_api="blas"):
        cos_sin(X, W, chunk_rows=4)
        assert trig_threads() == 2


def test_read_only_out_is_rejected(data):
    X, W, _ = data
    out = np.empty((N, 2 * M), np.float32)
    out.setflags(write=False)
    with pytest.raises(ValueError, match="out is read-only"):
        cos_sin(X, W, out=out)


def test_errors_in_threads_reach_the_caller(data, monkeypatch):
    def broken(*args):
        raise RuntimeError("chunk failed")

    monkeypatch.setattr(_trig, "scaled_cos_sin_rows", broken)
    with threadpool_limits(2), pytest.raises(RuntimeError, match="chunk failed"):
        cos_sin(*data[:2], chunk_rows=4)


def test_a_forked_child_computes_in_threads_of_its_own(data):
    """The threads of the parent's pool do not exist in a forked child (the runner's trial workers): the child's
    chunks must go to a pool it starts, else they wait forever."""
    import multiprocessing

    X, W = np.repeat(data[0], 40, axis=0), data[1]
    with threadpool_limits(2):
        expected = cos_sin(X, W, scale=0.3, chunk_rows=16)  # the parent's pool exists from here on
    context = multiprocessing.get_context("fork")
    results = context.Queue()

    def child() -> None:
        with threadpool_limits(2):
            results.put(cos_sin(X, W, scale=0.3, chunk_rows=16))

    process = context.Process(target=child)
    process.start()
    try:
        threaded = results.get(timeout=60)  # before join: the child exits once its result is read
    finally:
        process.kill()
        process.join()
    np.testing.assert_array_equal(threaded, expected)
