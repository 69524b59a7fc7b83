"""The QMC campaign's jobs resolve to the committed records: a dry run of every job target finds 0 to run."""
import shutil
import subprocess
import sys

import pytest

from rfbench.engine import campaign
from tests.conftest import REPO

#: The targets report.py renders, and the results folders their jobs' records are in.
JOB_TARGETS = {"fig2": "gram", "fig4": "fig4", "fig5": "fig5", "table1": "table1"}
#: Every folder of QMC job records (the learnt sequences, read by Tables 2-3 and Figs 6-7, and issue 45's studies
#: included).
RECORD_FOLDERS = {*JOB_TARGETS.values(), "learnt", "table3", "fig6", "fig7", "table1_protocol", "table2_sigma",
                  "table2_spread", "table3_sigma", "table3_lambda", "table2_scaling"}


@pytest.mark.slow
def test_a_dry_run_over_the_committed_records_has_nothing_to_run(tmp_path):
    for folder in RECORD_FOLDERS:
        shutil.copytree(REPO / "results" / "qmc" / folder / "runs", tmp_path / "qmc" / folder / "runs")
    cmd = [sys.executable, "-m", "rfbench.engine.launch", "qmc", "qmc", "--dry-run", "--results", str(tmp_path)]
    out = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    jobs = len(campaign.plan("qmc", "qmc").jobs)  # every target's, each once
    assert f"campaign qmc qmc: all {jobs} job(s) complete, nothing to run" in out.stdout + out.stderr


def test_every_job_target_sweeps_jobs_and_its_report_step_reads_records():
    for target in JOB_TARGETS:
        plan = campaign.plan("qmc", target)
        assert plan.jobs and plan.steps[-1] == ["report", target]
