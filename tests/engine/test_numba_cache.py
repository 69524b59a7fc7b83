"""numba's compiled-kernel cache lives in the user's cache folder, never beside the sources."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMPILE = ("import numpy as np; from rfbench.feature_map import _sincos; import numba; print(numba.config.CACHE_DIR); "
           "out = np.zeros((2, 6), np.float32); "
           "_sincos.scaled_cos_sin_rows(np.ones((2, 3), np.float32), out, 0, 3, 1.0, 1.0)")


def _indexes_in_checkout() -> set[Path]:
    return set((ROOT / "rfbench").rglob("*.nbi"))


def test_numba_caches_its_kernels_in_the_user_cache_not_the_checkout(tmp_path):
    before = _indexes_in_checkout()
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "RFBENCH_CACHE")}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", COMPILE], env=env, cwd=ROOT, capture_output=True, text=True,
                         check=True)
    assert Path(out.stdout.split()[0]) == tmp_path / "rfbench" / "numba"
    assert list((tmp_path / "rfbench" / "numba").rglob("*.nbi")), "the kernels' index is cached there"
    assert _indexes_in_checkout() == before  # nothing new beside the sources


def test_a_numba_cache_dir_the_user_set_is_kept(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "mine")}
    out = subprocess.run([sys.executable, "-c", "import rfbench, numba; print(numba.config.CACHE_DIR)"], env=env,
                         cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(tmp_path / "mine")


def test_numba_follows_rfbench_cache_when_it_is_moved(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["RFBENCH_CACHE"] = str(tmp_path / "cache")
    out = subprocess.run([sys.executable, "-c", "import rfbench, numba; print(numba.config.CACHE_DIR)"], env=env,
                         cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(tmp_path / "cache" / "numba")
