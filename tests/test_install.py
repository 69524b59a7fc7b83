"""``pip install .`` (a wheel, not editable) and ``pip install -e .``, each run from another folder; the
launchers a plain install brings, and the extra it names for the others.

The package is built from a copy of the sources into a fresh venv that sees this interpreter's packages as
its dependencies (``deps.pth``), offline and without build isolation, so the test proves the wheel's own
contents: the configs must travel inside it, and the build must leave nothing beside the sources.
"""
import email
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pandas as pd
import pytest

from rfbench import cli
from rfbench.engine import records
from tests.conftest import REPO

SOURCES = ("pyproject.toml", "setup.py", "README.md", "rfbench", "configs", "hydra_plugins")


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


@pytest.mark.parametrize("launcher, extra", [("slurm", "slurm"), ("ray_cluster", "ray"), ("ray", "ray")])
def test_a_launcher_not_installed_names_the_pip_install_to_run(monkeypatch, tmp_path, capsys, launcher, extra):
    missing = {"hydra_plugins.hydra_submitit_launcher", "hydra_plugins.hydra_ray_launcher"}
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in missing else find_spec(name, *a))
    monkeypatch.setattr(sys, "argv", ["rfbench", "-m", f"hydra/launcher={launcher}", "feature_map.m_over_d=1,2",
                                      f"experiment.results_dir={tmp_path}"])
    with pytest.raises(SystemExit) as exited:
        cli.main()
    assert exited.value.code == 2 and not list(tmp_path.iterdir())
    assert capsys.readouterr().err == (f"rfbench: error: hydra/launcher={launcher} is not installed: it comes with "
                                       f"the {extra} extra, pip install 'rfbench[{extra}]'\n")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """One wheel install (a venv's bin folder) for the tests of this module that only run it."""
    return install(tmp_path_factory.mktemp("wheel"), editable=False)


@pytest.mark.slow
def test_wheel_runs_from_any_folder_with_results_here_and_data_in_the_user_cache(wheel, tmp_path):
    bin_dir, away, src = wheel, tmp_path / "away", wheel.parents[1] / "src"
    away.mkdir()
    assert sorted(p.name for p in src.iterdir()) == sorted([*SOURCES, "rfbench.egg-info"]), \
        "the build left files beside the sources (setuptools' build/)"
    (site,) = bin_dir.parent.glob("lib/python*/site-packages")
    assert (site / "rfbench" / "configs" / "config.yaml").is_file() and not (site / "configs").exists()
    (metadata,) = site.glob("rfbench-*.dist-info/METADATA")
    requires = email.message_from_string(metadata.read_text()).get_all("Requires-Dist")
    plain = {re.split(r"[<>=; ]", r)[0] for r in requires if "extra ==" not in r}
    assert {"hydra-core", "hydra-joblib-launcher", "joblib"} <= plain  # a plain pip install runs -m on every core
    assert not plain & {"hydra-ray-launcher", "hydra-submitit-launcher", "ray", "submitit"}
    extras = {re.search(r'extra == "(\w+)"', r)[1]: re.split(r"[<>=; ]", r)[0] for r in requires if "extra ==" in r}
    assert extras["slurm"] == "hydra-submitit-launcher" and extras["ray"] == "hydra-ray-launcher"
    helped = run(bin_dir, away, "--help")
    assert helped.returncode == 0 and "rfbench: random-Fourier-feature experiments" in helped.stdout, helped.stderr
    groups = helped.stdout.split("== Config groups (group=option) ==")[1].split("== Config ==")[0]
    assert [line.split(":")[0] for line in groups.strip().splitlines()] == [
        "classifier", "dataset", "experiment", "feature_map", "job", "kernel", "hydra/launcher (a sweep's, with -m)"]
    assert "joblib" in groups.strip().splitlines()[-1]
    swept = run(bin_dir, away, "-m", "hydra/launcher=joblib", "feature_map.m_over_d=1,2", "experiment.name=sweep",
                "experiment.trials=1", "experiment.n_gram=100", "classifier=none")
    assert swept.returncode == 0, swept.stderr[-2000:]
    assert len(records.record_paths(away, "results/sweep/runs/*/trials.csv")) == 2
    for command in (["experiment.trials=1"], ["kernel=sinh_gaussian", "dataset=letter", "experiment.trials=1"]):
        proc = run(bin_dir, away, *command, "experiment.n_gram=200", "classifier.log2_C=[0,5]")
        assert proc.returncode == 0, proc.stderr[-2000:]
    trials = pd.concat(records.read_trials(p) for p in records.record_paths(away, "results/default/runs/*/trials.csv"))
    assert sorted(trials["dataset.name"]) == ["letter", "spambase"]
    assert {p.name for p in (away / "xdg" / "rfbench").iterdir()} >= {"letter", "spambase", "parsed"}
    assert not (src / "datasets").exists()


#: README example lines: `rfbench ...` in a code block, its comment cut off.
EXAMPLE = re.compile(r"^ {4}(rfbench .*?)(?:\s+#.*)?$", re.MULTILINE)
#: Placeholders a reader fills in (a user's files, a cluster's address): not runnable as written.
PLACEHOLDERS = ("...", "<", "my_", "my.", "/path/to")
#: Run by the wheel's interpreter with one README command line per argument: each one's checks, in turn.
CHECK = """import shlex, sys
from rfbench.engine import launchers
from rfbench.engine.config import CONFIG_DIR
from rfbench.engine.preflight import check_command_line
for example in sys.argv[1:]:
    print(example, flush=True)
    argv = shlex.split(example)[1:]
    launchers.check_installed(argv)
    check_command_line(argv, CONFIG_DIR)
"""


def readme_examples() -> list[str]:
    return [line for line in EXAMPLE.findall((REPO / "README.md").read_text())
            if not any(p in line for p in PLACEHOLDERS)]


@pytest.mark.slow
def test_every_readme_example_passes_the_checks_of_a_wheel_install(wheel, tmp_path):
    """Every `rfbench` command of the README composes and passes every check a run makes before any work, from
    the wheel (its configs, its launchers); the README's runs themselves are the CLI tests' (test_cli, above)."""
    examples = readme_examples()
    assert any("hydra/launcher=joblib" in e for e in examples) and len(examples) >= 5
    proc = subprocess.run([wheel / "python", "-c", CHECK, *examples], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    checked = proc.stdout.splitlines()
    assert proc.returncode == 0, f"{checked[-1] if checked else examples[0]}: {proc.stderr[-2000:]}"
    assert checked == examples


@pytest.mark.slow
def test_editable_install_reads_the_checkout_configs(tmp_path):
    bin_dir, away = install(tmp_path, editable=True), tmp_path / "away"
    away.mkdir()
    (tmp_path / "src" / "configs" / "experiment" / "default.yaml").write_text(
        (REPO / "configs" / "experiment" / "default.yaml").read_text().replace("trials: 10", "trials: 7"))
    proc = run(bin_dir, away, "--cfg", "job")
    assert proc.returncode == 0 and "trials: 7" in proc.stdout, proc.stderr
