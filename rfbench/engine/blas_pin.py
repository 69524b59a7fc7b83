"""The OpenBLAS kernels the recorded numbers are computed with, pinned: Haswell's.

numpy and scipy ship OpenBLAS built for many CPUs (DYNAMIC_ARCH) and it picks its kernels for
the CPU when it loads. Kernels for different CPUs sum dot products and matrix products in
different orders, so their results differ in the last bits. Usually that is all it changes
(AsK-RFF Fig. 1: 182 of the estimated masses in their last bits, relative differences of order
1e-15). The nonlinear conjugate gradient that learns the QMC adaptive sequences
(``rfbench.qmc.adaptive``) is different: its line search and its Polak-Ribiere coefficient turn
those last bits into different steps, and after 100-200 iterations it ends somewhere else. QMC
Fig. 5, global_b on box b gives
1.056e-06<!-- rec: results/qmc/fig5/fig5.csv | sequence=global_b; box=b | mean_sq_error -->
with Haswell's kernels and global_b2 on b/4
6.099e-08<!-- rec: results/qmc/fig5/fig5.csv | sequence=global_b2; box=b/4 | mean_sq_error -->
(the records); SkylakeX's kernels move the first by a few percent and the second by a third
(measured outside the records, with ``OPENBLAS_CORETYPE=SkylakeX``).
The committed records were computed with Haswell's kernels. This machine's OpenBLAS (numpy 2.4.6's
0.3.31) now picks SkylakeX's. With ``OPENBLAS_CORETYPE=Haswell`` the records come back bit for
bit: QMC Figs 5-7 and Tables 2-3's cpu rows, AsK-RFF Fig. 1's masses, Li's Figs 1-4 (timings aside).

OpenBLAS reads the variable when it loads, which is when numpy is first imported. So a
process that has already imported numpy can only check the variable. ``pin`` re-executes the
command with the variable set, and the Makefile exports it for every target. Haswell's kernels
need AVX2 and FMA (x86-64-v3). Elsewhere (ARM, older x86) the values agree only to rounding, and
the adaptive sequences do not agree at all. The same holds where numpy's own SIMD level differs
(its exp and sin/cos): the records used numpy's AVX-512 loops.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import threadpoolctl

#: The environment variable OpenBLAS reads at load time, and the kernels of every record.
VARIABLE, CORETYPE = "OPENBLAS_CORETYPE", "Haswell"


def cpu_runs_haswell_kernels() -> bool:
    """Whether this CPU has AVX2 and FMA (x86-64-v3), which Haswell's kernels need: elsewhere
    ``OPENBLAS_CORETYPE=Haswell`` would stop a process on an illegal instruction, so nothing is pinned."""
    try:
        flags = next((line.split(":", 1)[1].split() for line in open("/proc/cpuinfo") if line.startswith("flags")),
                     [])
    except OSError:
        return False
    return {"avx2", "fma"} <= set(flags)


def cpu_runs_records_loops() -> bool:
    """Whether numpy runs, on this CPU, the SIMD loops the records were computed with: AVX-512's
    (Skylake-X's set; its exp and sin/cos round differently from AVX2's in the last bits)."""
    from numpy._core._multiarray_umath import __cpu_features__

    return bool(__cpu_features__.get("AVX512_SKX"))


def needs_records_loops(job: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a job whose records come back only with the records' numpy loops (:func:`cpu_runs_records_loops`)
    as well as their OpenBLAS kernels: it runs the adaptive sequences' nonlinear CG, which turns
    last-bit differences into other steps and another sequence.  ``python -m rfbench.engine.verify``
    leaves such a job out on a CPU without those loops, and says why."""
    job.needs_records_loops = True  # type: ignore[attr-defined]
    return job


def openblas_kernels() -> list[str]:
    """The kernel set (``architecture``) of every OpenBLAS loaded in this process (numpy's, scipy's)."""
    return [str(info.get("architecture")) for info in threadpoolctl.threadpool_info()
            if info.get("internal_api") == "openblas"]


def is_pinned() -> bool:
    """Whether every loaded OpenBLAS runs ``CORETYPE``'s kernels (False when none is loaded)."""
    kernels = openblas_kernels()
    return bool(kernels) and all(kernel == CORETYPE for kernel in kernels)


def pin() -> None:
    """Make this command compute with ``CORETYPE``'s kernels: re-execute it with ``VARIABLE`` set.

    For a command's entry point only (``if __name__ == "__main__"``): the process is replaced.
    If the variable is set already (by the user, or by this re-execution) and the kernels still
    differ (another CORETYPE, no OpenBLAS, another CPU family), it says so on stderr and goes on:
    the numbers may then differ from the records.
    """
    import numpy  # noqa: F401  (loads numpy's OpenBLAS, whose kernels are checked)

    if is_pinned() or not cpu_runs_haswell_kernels():
        return
    if VARIABLE in os.environ:
        print(f"warning: OpenBLAS runs {openblas_kernels() or 'no'} kernels, not {CORETYPE}'s as the records: "
              "numbers may differ from them (see rfbench.blas_pin)", file=sys.stderr)
        return
    os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], {**os.environ, VARIABLE: CORETYPE})
