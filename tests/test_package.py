"""Importing rfbench keeps matplotlib's font cache and config out of the user's home folder."""
import subprocess
import sys


def test_a_report_figure_writes_nothing_into_home(tmp_path):
    home, cache = tmp_path / "home", tmp_path / "cache"
    home.mkdir()
    draw = ("import rfbench.report.render, matplotlib.pyplot as plt; "
            f"plt.plot([0, 1]); plt.savefig({str(tmp_path / 'f.png')!r})")
    env = {"HOME": str(home), "RFBENCH_CACHE": str(cache), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-c", draw], check=True, env=env, cwd=tmp_path)
    assert (tmp_path / "f.png").is_file() and list(home.iterdir()) == []
    assert (cache / "matplotlib").is_dir()
