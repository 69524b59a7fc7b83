"""A campaign on a real one-node SLURM cluster (`.ci/slurm start`), run by docs/running.md's command.

Its records are the joblib launcher's but for the times and memory measured, and a campaign whose
jobs are cancelled with ``scancel`` resumes to the same records.
"""
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

from rfbench.engine import records
from tests.conftest import REPO
from tests.engine.test_launch import campaign, finished, trials

pytestmark = pytest.mark.slow

CLUSTER = REPO / ".ci" / "slurm"
DOC = REPO / "docs" / "running.md"
#: What the launcher and the machine decide, not the numbers: excluded from "the same records".
MEASURED = re.compile(r"^(time_|memory_)|^experiment\.results_dir$")


def doc_args() -> list[str]:
    """docs/running.md's SLURM campaign command, from its ``--launcher slurm`` on (campaign() adds the rest)."""
    line = next(line for line in DOC.read_text().replace("\\\n", " ").splitlines()  # continued lines joined
                if line.startswith("rfbench-campaign") and "--launcher slurm" in line)
    words = shlex.split(line)
    assert words[1:4] == ["example", "m_sweep", "--results"] and words[5:7] == ["--launcher", "slurm"], line
    return words[5:]


@pytest.fixture(scope="module")
def slurm() -> dict[str, str]:
    """The environment that reaches the running test cluster, or a skip saying how to start one."""
    conf = os.environ.get("SLURM_CONF") or subprocess.run([CLUSTER, "conf"], capture_output=True, text=True,
                                                          check=True).stdout.strip()
    start = "`.ci/slurm start` installs and starts a one-node cluster"
    if not Path(conf).is_file() or shutil.which("sinfo") is None:
        pytest.skip(f"no SLURM cluster here (no sinfo, or no {conf}); {start}")
    try:
        nodes = subprocess.run(["sinfo", "-h", "-N", "-o", "%t"], env={**os.environ, "SLURM_CONF": conf},
                               capture_output=True, text=True, timeout=30).stdout.split()
    except subprocess.TimeoutExpired:
        nodes = []
    if not set(nodes) & {"idle", "mix", "alloc"}:
        pytest.skip(f"no SLURM node up for {conf}; {start}")
    return {"SLURM_CONF": conf}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> pd.DataFrame:
    """The doc's campaign on the joblib launcher (without its hydra.launcher.* overrides)."""
    results = tmp_path_factory.mktemp("joblib")
    overrides = [a for a in doc_args()[2:] if not a.startswith("hydra.launcher.")]
    finished(campaign(results, "--launcher", "joblib", *overrides))
    return trials(results)


def same_records(found: pd.DataFrame, expected: pd.DataFrame) -> None:
    """Every trial once, every value equal but those MEASURED."""
    assert not found.index.duplicated().any()
    keep = [c for c in expected.columns if not MEASURED.search(c)]
    pd.testing.assert_frame_equal(found[keep], expected[keep])


def test_the_docs_slurm_campaign_gives_the_joblib_records(slurm, reference, tmp_path):
    assert len(reference) == 8  # 4 runs x 2 trials
    out = finished(campaign(tmp_path, *doc_args(), env=slurm))
    assert "Submitit 'slurm' sweep output dir" in out
    same_records(trials(tmp_path), reference)


def test_a_campaign_cancelled_with_scancel_resumes_to_the_same_records(slurm, reference, tmp_path):
    args = doc_args()
    proc = campaign(tmp_path, *args, env=slurm, start_new_session=True)
    deadline = time.time() + 300
    while not any(len(records.read_trials(p)) for p in records.record_paths(tmp_path, "**/runs/*/trials.csv")):
        assert proc.poll() is None and time.time() < deadline, proc.stdout.read()[-3000:]
        time.sleep(0.2)
    array = {p.name for p in tmp_path.glob("example/hydra/*/.submitit/*") if p.name.isdigit()}
    assert len(array) == 1, array  # one launch: one job array
    env = {**os.environ, **slurm}
    subprocess.run(["scancel", *array], env=env, check=True)
    while subprocess.run(["squeue", "-h", "-j", *array], env=env, capture_output=True, text=True).stdout.strip():
        assert time.time() < deadline, "the cancelled jobs did not leave the queue"
        time.sleep(0.2)
    # Without accounting (no slurmdbd) submitit cannot see a cancelled job end: stop the waiting command.
    os.killpg(proc.pid, signal.SIGINT)
    proc.communicate(timeout=60)
    assert len(trials(tmp_path)) < len(reference)  # cancelled midway
    finished(campaign(tmp_path, *args, env=slurm))
    same_records(trials(tmp_path), reference)
