"""The chunked trigonometric engine against a naive dense numpy reference."""
from __future__ import annotations

import threading

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from rfbench.feature_map import _trig
from rfbench.feature_map._sincos import scaled_cos_sin_rows
from rfbench.feature_map._trig import cos_offset, cos_sin, feature_dtype, map_row_chunks, trig_threads

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


@pytest.mark.parametrize("m", [1, M])
def test_float32_rounds_data_frequencies_and_offsets_once_then_computes_in_float32(data, m):
    """dtype is the precision of the GEMM and the trigonometry: float64 inputs give the features of their
    float32 roundings, bit for bit (not a float64 product or sum rounded afterwards)."""
    X, W, b = data[0], data[1][:, :m], data[2][:m]
    X32, W32, b32 = (a.astype(np.float32) for a in (X, W, b))
    assert not np.array_equal(X32 @ W32, (X @ W).astype(np.float32))  # the two roundings differ here
    np.testing.assert_array_equal(cos_sin(X, W, scale=0.5), cos_sin(X32, W32, scale=0.5))
    np.testing.assert_array_equal(cos_offset(X, W, b), cos_offset(X32, W32, b32))


@pytest.mark.parametrize("rotated", [False, True])
def test_float32_blocks_come_from_the_fused_kernel(rotated):
    """In float32 the engine's [cos, sin] are the fused kernel's (module docstring), bit for bit, not numpy's
    float32 ufuncs (which differ in the last bit here and there). X = I makes the projection W exactly."""
    W = np.random.default_rng(2).normal(0, 20, (6, 50)).astype(np.float32)
    fused = np.empty((6, 100), np.float32)
    cos_at, sin_at, sin_scale = (50, 0, -0.5) if rotated else (0, 50, 0.5)
    assert scaled_cos_sin_rows(W, fused, cos_at, sin_at, 0.5, sin_scale)
    numpy = 0.5 * np.hstack([-np.sin(W), np.cos(W)] if rotated else [np.cos(W), np.sin(W)])
    assert not np.array_equal(fused, numpy)  # the two differ somewhere: the test can tell them apart
    np.testing.assert_array_equal(cos_sin(np.eye(6), W, scale=0.5, rotated=rotated, chunk_rows=4), fused)


@pytest.mark.parametrize("offset", [False, True], ids=["cos_sin", "cos_offset"])
def test_writes_into_column_slice_only(data, offset):
    X, W, b = data
    width = M if offset else 2 * M
    wide = np.full((N, width + 5), 7.0)
    if offset:
        result = cos_offset(X, W, b, out=wide[:, 3 : 3 + width], dtype="float64", chunk_rows=4)
    else:
        result = cos_sin(X, W, out=wide[:, 3 : 3 + width], dtype="float64", chunk_rows=4)
    assert np.shares_memory(result, wide)
    np.testing.assert_allclose(wide[:, 3 : 3 + width], reference(X, W, 1.0, offset=b if offset else None), atol=1e-12)
    assert np.all(wide[:, :3] == 7.0) and np.all(wide[:, 3 + width :] == 7.0)


def test_bad_out_and_shapes_are_rejected(data):
    X, W, b = data
    message = r"out has shape \(31, 26\) and dtype float32, expected \(31, 26\) and float64"
    with pytest.raises(ValueError, match=message):
        cos_sin(X, W, out=np.empty((N, 2 * M), np.float32), dtype="float64")
    with pytest.raises(ValueError, match=r"out has shape \(31, 27\) and dtype float32, expected \(31, 26\)"):
        cos_sin(X, W, out=np.empty((N, 2 * M + 1), np.float32))  # the right dtype, one column too many
    for x, w in ((X, W.T), (X[0], W), (X, W[:, 0])):  # a width mismatch, a single row, a single frequency
        with pytest.raises(ValueError, match=r"not \(n, d\) and \(d, m\)"):
            cos_sin(x, w)
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


def test_chunks_run_in_as_many_threads_as_the_blas_limit_with_blas_held_to_one():
    """Two chunks under a limit of 2 run at once (each waits for the other at a barrier: a serial run would break
    it), and BLAS is held to one thread inside each (module docstring)."""
    barrier, limits = threading.Barrier(2, timeout=20), []

    def task(rows, buffer):
        limits.append(trig_threads())  # the BLAS limit in force inside the chunk
        barrier.wait()

    with threadpool_limits(2):
        map_row_chunks(task, 2, 3, np.float32, chunk_rows=1)
    assert limits == [1, 1]


def test_a_thread_reuses_one_buffer_for_its_chunks():
    """map_row_chunks hands each thread one (chunk_rows, m) buffer for all its chunks, the last one a slice of it."""
    buffers = []
    with threadpool_limits(1):
        map_row_chunks(lambda rows, buffer: buffers.append(buffer), 10, 3, np.float64, chunk_rows=4)
    assert [b.shape for b in buffers] == [(4, 3), (4, 3), (2, 3)] and all(b.dtype == np.float64 for b in buffers)
    assert all(np.shares_memory(b, buffers[0]) for b in buffers[1:])


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
