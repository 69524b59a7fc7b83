"""Processes loading one dataset at once into a fresh or corrupt cache all get the verified data."""
import hashlib
import multiprocessing

import pytest

from rfbench.dataset import load_dataset
from rfbench.dataset.sources import sha256_file

N_PROCESSES = 3


def _load(cfg, cache_dir, mirror, barrier, digests):
    barrier.wait()  # start the downloads together
    data = load_dataset(cfg, cache_dir=cache_dir, mirror=mirror)
    digests.put(hashlib.sha256(data.X_train.tobytes() + data.y_test.tobytes()).hexdigest())


@pytest.mark.parametrize("cache_state", ["empty", "corrupt"])
def test_concurrent_first_loads_agree_and_leave_a_verified_cache(tmp_path, mirror, dataset_config, cache_state):
    cfg, cache_dir = dataset_config("spambase"), tmp_path / "cache"
    spec = cfg["files"]["data"]
    cached = cache_dir / spec["path"]
    if cache_state == "corrupt":
        cached.parent.mkdir(parents=True)
        cached.write_text("0,1\n" * 10)
    ctx = multiprocessing.get_context("fork")
    barrier, digests = ctx.Barrier(N_PROCESSES), ctx.Queue()
    workers = [ctx.Process(target=_load, args=(cfg, cache_dir, mirror, barrier, digests))
               for _ in range(N_PROCESSES)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=300)
    assert [w.exitcode for w in workers] == [0] * N_PROCESSES
    results = {digests.get(timeout=10) for _ in workers}
    expected = load_dataset(cfg, cache_dir=tmp_path / "reference", mirror=mirror)
    assert results == {hashlib.sha256(expected.X_train.tobytes() + expected.y_test.tobytes()).hexdigest()}
    assert sha256_file(cached) == spec["sha256"]
    assert not [p.name for p in cache_dir.rglob(".*.part")]
