"""``pip install .`` (a wheel, not editable) and ``pip install -e .``, each run from another folder.

The package is built from a copy of the sources (the build writes ``build/`` beside them) into a fresh
venv that sees this interpreter's packages as its dependencies (``deps.pth``), offline and without
build isolation, so the test proves the wheel's own contents: the configs must travel inside it.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow

SOURCES = ("pyproject.toml", "setup.py", "README.md", "rfbench", "configs")


def install(tmp_path: Path, *, editable: bool) -> Path:
    """A venv at ``tmp_path/venv`` with rfbench installed from a copy of the sources; its bin folder."""
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(REPO / name, src / name)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    (purelib,) = venv.glob("lib/python*/site-packages")
    (purelib / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "--quiet",
                    "--no-deps", "--no-build-isolation", "--no-index", *(["-e"] if editable else []), src],
                   check=True, capture_output=True, timeout=120)
    return venv / "bin"


def run(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(cwd / "xdg")}
    env.pop("RFBENCH_CACHE", None)
    return subprocess.run([bin_dir / "rfbench", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def test_wheel_runs_from_any_folder_with_results_here_and_data_in_the_user_cache(tmp_path):
    bin_dir, away = install(tmp_path, editable=False), tmp_path / "away"
    away.mkdir()
    (site,) = bin_dir.parent.glob("lib/python*/site-packages")
    assert (site / "rfbench" / "configs" / "config.yaml").is_file() and not (site / "configs").exists()
    helped = run(bin_dir, away, "--help")
    assert helped.returncode == 0 and "rfbench: random-Fourier-feature experiments" in helped.stdout, helped.stderr
    for command in (["experiment.trials=1"], ["kernel=sinh_gaussian", "dataset=letter", "experiment.trials=1"]):
        proc = run(bin_dir, away, *command, "experiment.n_gram=200", "classifier.log2_C=[0,5]")
        assert proc.returncode == 0, proc.stderr[-2000:]
    trials = pd.concat(pd.read_csv(p) for p in sorted(away.glob("results/default/runs/*/trials.csv")))
    assert sorted(trials["dataset.name"]) == ["letter", "spambase"]
    assert {p.name for p in (away / "xdg" / "rfbench").iterdir()} >= {"letter", "spambase", "parsed"}
    assert not (tmp_path / "src" / "datasets").exists()


def test_editable_install_reads_the_checkout_configs(tmp_path):
    bin_dir, away = install(tmp_path, editable=True), tmp_path / "away"
    away.mkdir()
    (tmp_path / "src" / "configs" / "experiment" / "default.yaml").write_text(
        (REPO / "configs" / "experiment" / "default.yaml").read_text().replace("trials: 10", "trials: 7"))
    proc = run(bin_dir, away, "--cfg", "job")
    assert proc.returncode == 0 and "trials: 7" in proc.stdout, proc.stderr
