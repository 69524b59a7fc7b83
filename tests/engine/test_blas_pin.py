"""The pinned OpenBLAS kernels: pin() re-executes a command with them, and the records need them."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from numpy._core._multiarray_umath import __cpu_features__ as CPU

from rfbench.engine import blas_pin
from tests.conftest import REPO

# Haswell's kernels need AVX2 and FMA; SkylakeX's (the other set compared here) AVX-512.
needs_haswell = pytest.mark.skipif(not (CPU.get("AVX2") and CPU.get("FMA3")), reason="CPU lacks AVX2/FMA")
needs_avx512 = pytest.mark.skipif(not blas_pin.cpu_runs_records_loops(),
                                  reason="CPU lacks AVX-512 (the records' numpy loops)")

# scipy.linalg loads scipy's own OpenBLAS after the re-execution: it reads the variable too.
PROBE = "from rfbench.engine import blas_pin; blas_pin.pin(); import scipy.linalg; print(blas_pin.openblas_kernels())"
# D^2 of QMC Fig. 5's global sequence learnt on box b, on box b (the first cell that moved).
GLOBAL_B = ("from rfbench.papers.qmc import fig5 as f; from rfbench.qmc.discrepancy import BoxDiscrepancy; "
            "print(repr(BoxDiscrepancy(f.B, f.SIGMA, normalized=True).squared(f.frequencies(0)['global_b'])))")


def python(*args: str, coretype: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != blas_pin.VARIABLE}
    if coretype is not None:
        env[blas_pin.VARIABLE] = coretype
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300, check=True)


@needs_haswell
def test_pin_reexecutes_the_command_with_the_records_kernels():
    proc = python("-c", PROBE)
    assert proc.stdout.strip() == str([blas_pin.CORETYPE] * 2)  # numpy's and scipy's OpenBLAS
    assert proc.stderr == ""


@needs_haswell
def test_pin_keeps_a_coretype_the_user_set_and_warns():
    proc = python("-c", PROBE, coretype="Sandybridge")
    assert "Haswell" not in proc.stdout
    assert "numbers may differ" in proc.stderr


@needs_haswell
@needs_avx512
def test_other_kernels_move_the_adaptive_sequences():
    """The cause of issue 34's Fig. 5 change: the same code, SkylakeX's kernels vs Haswell's."""
    ours = float(python("-c", GLOBAL_B, coretype=blas_pin.CORETYPE).stdout)
    other = float(python("-c", GLOBAL_B, coretype="SkylakeX").stdout)
    assert ours == 1.056320575149039e-06  # results/qmc/fig5/fig5.csv
    assert abs(other / ours - 1) > 1e-3  # far beyond rounding (1.095e-06, OpenBLAS 0.3.31)


@needs_haswell
@needs_avx512
def test_qmc_fig5_records_are_what_its_command_computes(tmp_path):
    # the job runs through the CLI, which does not pin: the kernels as `make` sets them
    python("-m", "rfbench", "job=qmc_fig5", f"experiment.results_dir={tmp_path}", coretype=blas_pin.CORETYPE)
    python("-m", "rfbench.papers.qmc.report", "fig5", "--results", str(tmp_path))
    written = (tmp_path / "qmc" / "fig5" / "fig5.csv").read_bytes()
    assert written == (REPO / "results" / "qmc" / "fig5" / "fig5.csv").read_bytes()
