"""The Hydra callback: a sweep's summary table; nothing left under results/ by a rejected run."""
import json
import subprocess
import sys

import pandas as pd
import pytest

from rfbench.engine import callbacks, records
from tests.conftest import REPO

FAST = ["experiment.n_gram=200", "classifier.log2_C=[0]"]


def rfbench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rfbench", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=600)


def files_below(path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


def _job(sweep, num, overrides, run, accuracies):
    (sweep / str(num)).mkdir(parents=True)
    record = {"num": num, "overrides": overrides, "run_dir": str(run)}
    (sweep / str(num) / callbacks.JOB_RECORD).write_text(json.dumps(record))
    trials = pd.DataFrame({"run_id": run.name, "test_accuracy": accuracies})
    records.write_csv(run / "summary.csv", records.summarize(trials))


def test_sweep_table_has_one_line_per_job_and_no_nan_sd(tmp_path):
    sweep = tmp_path / "hydra" / "t"
    _job(sweep, 1, ["experiment.trials=2", "kernel.sigma=2"], tmp_path / "runs" / "b", [0.8, 0.9])
    _job(sweep, 0, ["experiment.trials=2", "kernel.sigma=1"], tmp_path / "runs" / "a", [0.9])
    lines = callbacks.sweep_table(sweep).splitlines()
    assert lines[0] == "sweep of 2 job(s), all with experiment.trials=2"
    assert lines[1].split() == ["job", "overrides", "test_accuracy", "trials", "run"]
    assert lines[3].split() == ["0", "kernel.sigma=1", "0.9000", "1", str(tmp_path / "runs" / "a")]
    assert lines[4].split() == ["1", "kernel.sigma=2", "0.8500", "+-", "0.0707", "2", str(tmp_path / "runs" / "b")]
    assert "nan" not in "".join(lines)


@pytest.mark.slow
def test_sweep_ends_with_its_table(tmp_path):
    proc = rfbench("-m", f"experiment.results_dir={tmp_path}", "experiment.trials=1", *FAST,
                   "feature_map.m_over_d=1,2")
    assert proc.returncode == 0, proc.stderr
    table = proc.stdout[proc.stdout.index("sweep of 2 job(s)"):].splitlines()
    runs = sorted(str(p) for p in (tmp_path / "default" / "runs").iterdir())
    assert [line.split()[1] for line in table[3:]] == ["feature_map.m_over_d=1", "feature_map.m_over_d=2"]
    assert sorted(line.split()[-1] for line in table[3:]) == runs
    assert "+-" not in "".join(table[3:])  # one trial each: the mean alone


@pytest.mark.slow
def test_rejected_config_writes_nothing(tmp_path):
    proc = rfbench(f"experiment.results_dir={tmp_path / 'new'}", "kernel.sigma=-1")
    assert proc.returncode == 2 and "kernel.sigma=-1 is invalid" in proc.stderr
    assert not (tmp_path / "new").exists()
    proc = rfbench(f"experiment.results_dir={tmp_path}", "classifier.solver=11")  # rejected once d is known
    assert proc.returncode == 2 and "solver=11" in proc.stderr
    assert files_below(tmp_path) == []


@pytest.mark.slow
def test_a_sweep_stopped_by_a_rejected_job_keeps_only_the_completed_jobs(tmp_path):
    # A value config.validate rejects stops the whole sweep before Hydra starts: nothing is written.
    proc = rfbench("-m", f"experiment.results_dir={tmp_path}", "experiment.trials=1", *FAST, "kernel.sigma=1,-1")
    assert proc.returncode == 2 and "kernel.sigma=-1 is invalid" in proc.stderr
    assert files_below(tmp_path) == []
    # One rejected only once the data is loaded (more Gram points than training rows) stops the sweep at that job.
    proc = rfbench("-m", f"experiment.results_dir={tmp_path}", "experiment.trials=1", *FAST,
                   "experiment.n_gram=10,999999")
    assert proc.returncode == 2 and "experiment.n_gram=999999 is invalid" in proc.stderr
    (sweep,) = (tmp_path / "default" / "hydra").iterdir()
    assert sorted(p.name for p in sweep.iterdir()) == ["0", "multirun.yaml"]
    assert (sweep / "0" / callbacks.JOB_RECORD).exists()
    assert len(list((tmp_path / "default" / "runs").iterdir())) == 1


def test_a_failed_sweep_leaves_an_existing_sweep_folder_alone(tmp_path):
    """hydra.sweep.dir set to a folder that exists (a user's, or another sweep's): nothing is removed."""
    mine = tmp_path / "mine"
    (mine / "sub").mkdir(parents=True)
    (mine / "sub" / "notes.txt").write_text("keep")
    callback = callbacks.RfbenchCallback()
    callback._watch(mine)
    callback._clean_up()  # as at exit after a failed sweep
    assert (mine / "sub" / "notes.txt").read_text() == "keep"
    fresh = tmp_path / "new" / "sweep"
    callback = callbacks.RfbenchCallback()
    callback._watch(fresh)
    (fresh / "0").mkdir(parents=True)  # Hydra makes it after on_multirun_start
    callback._clean_up()
    assert list(tmp_path.iterdir()) == [mine]
