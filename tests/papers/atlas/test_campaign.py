"""The atlas's campaign: its jobs, and a dry run that lists them and writes nothing."""
import subprocess
import sys

from rfbench.engine import campaign
from tests.conftest import REPO

DATASETS = ("spambase", "letter", "ijcnn1", "cpu_act", "a9a", "mnist10k")


def test_make_atlas_is_the_bandwidth_jobs_then_every_map_at_every_width():
    jobs = campaign.plan("atlas", "atlas").jobs
    bandwidth = [job for job in jobs if job[0] == "job=atlas_bandwidth"]
    runs = [dict(o.split("=", 1) for o in job) for job in jobs if job[0] != "job=atlas_bandwidth"]
    assert len(bandwidth) == 12 and jobs[:12] == bandwidth  # 6 datasets x 2 kernels, first
    # per dataset: Gaussian 9 maps x 6 widths; Laplacian Cauchy RFF and Nystroem x 6 widths, binning x 6 P;
    # less MNIST's Nystroem beyond its 8,000 training rows (uniform: 3 widths per kernel; k-means: 4)
    # and a9a's Nystroem at 64 d (k-means, uniform, the Laplacian's uniform: their cost)
    assert len(runs) == 6 * (9 * 6 + 2 * 6 + 6) - 3 - 4 - 3 - 3
    for dataset in DATASETS:
        mine = [r for r in runs if r["dataset"] == dataset]
        assert len({r["kernel.sigma"] for r in mine if r["kernel"] == "gaussian"}) == 1
        assert len({r["kernel.sigma"] for r in mine if r["kernel"] == "laplacian"}) == 1
        widths = {r.get("feature_map.m_over_d", r.get("feature_map.n_components")) for r in mine}
        assert widths >= {"1", "2", "4", "8", "16", "32"}
    assert all(r["experiment.trials"] == "5" and r["experiment.name"] == "atlas" for r in runs)
    # the model where its cost fits, the transform timed without it elsewhere
    assert all(r["classifier"] == "ridge" or r["experiment.time_transform"].lower() == "true" for r in runs)


def test_a_dry_run_of_the_preset_lists_its_four_runs_and_writes_nothing(tmp_path):
    out = subprocess.run([sys.executable, "-m", "rfbench.engine.launch", "atlas", "preset", "--dry-run",
                          "--results", str(tmp_path)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "5 job(s), 0 complete, 5 to run" in out.stdout + out.stderr
    listed = [line for line in out.stdout.splitlines() if "feature_map=" in line]
    assert len(listed) == 4 and all("dataset=spambase" in line for line in listed)
    assert sum("job=atlas_bandwidth dataset=spambase" in line for line in out.stdout.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []
