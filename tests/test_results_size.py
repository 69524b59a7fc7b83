"""The committed results stay a few MB a paper: no tracked file under results/ reaches 1 MB.

A frame over ``frames.GZIP_ABOVE_BYTES`` of text is stored gzipped (the largest, QMC's learnt points,
2.1 MB of float64 text, is 0.97 MB gzipped); a file that creeps over the limit needs another layout, not a
larger limit.
"""
import shutil
import subprocess

import pytest

from tests.conftest import REPO

#: The largest file results/ may track, in bytes.
LIMIT = 1_000_000


def tracked_results() -> list[str]:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout: which files are tracked is unknown")
    out = subprocess.run(["git", "ls-files", "-z", "results"], cwd=REPO, capture_output=True, text=True, check=True)
    return [name for name in out.stdout.split("\0") if name]


def test_no_tracked_file_under_results_reaches_1_mb():
    files = tracked_results()
    assert files, "git tracks no file under results/"
    sizes = {name: (REPO / name).stat().st_size for name in files if (REPO / name).is_file()}
    too_large = {name: size for name, size in sizes.items() if size >= LIMIT}
    assert not too_large, f"tracked files of {LIMIT:,} bytes or more under results/: {too_large}"


def test_gzipped_records_are_tracked_and_dataset_caches_are_not():
    tracked_results()  # skips outside a git checkout
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "results/qmc/learnt/runs/0/points.csv.gz",
                              "datasets/cpu_act/data.csv.gz"], cwd=REPO, capture_output=True, text=True)
    assert ignored.stdout.split() == ["datasets/cpu_act/data.csv.gz"]
