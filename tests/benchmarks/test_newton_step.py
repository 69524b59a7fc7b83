"""The newton_step bench section: its contenders solve one problem, the p x p path is the reference."""
from __future__ import annotations

import numpy as np

from benchmarks import newton_step as bench


def test_measure_compares_every_contender_with_the_primal_path():
    rng = np.random.default_rng(4)
    Z, Z_test = rng.standard_normal((300, 150)), rng.standard_normal((100, 150))
    y = np.argmax(Z[:, :3], axis=1)  # separable: Woodbury steps at the large C
    results = bench.measure(Z, y, Z_test)
    assert list(results) == [bench.OURS, bench.PRIMAL, bench.PEER]
    assert all(cpu > 0 for cpu, _, _ in results.values())
    assert results[bench.PRIMAL][1:] == (0.0, 0)  # the reference against itself
    _, gap, moved = results[bench.OURS]
    assert gap < 1e-9 and moved == 0
    _, peer_gap, _ = results[bench.PEER]
    assert peer_gap > 1e-6  # LibLinear at its default -e 0.01 stops short of the optimum
