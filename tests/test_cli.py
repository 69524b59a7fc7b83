"""End-to-end runs of the ``rfbench`` command on real (mirrored) spambase."""
import subprocess
import sys

import pandas as pd
import pytest

from rfbench.engine import records
from rfbench.engine.records import METRICS
from tests.conftest import REPO

pytestmark = pytest.mark.slow


def rfbench(tmp_path, *overrides):
    flags = [o for o in overrides if o.startswith("-")]
    cmd = [sys.executable, "-m", "rfbench", *flags, f"experiment.results_dir={tmp_path}",
           "experiment.trials=2", "experiment.n_gram=300",
           *(o for o in overrides if not o.startswith("-"))]
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)


def run_dir(tmp_path, name="default"):
    (path,) = (tmp_path / name / "runs").iterdir()
    return path


@pytest.fixture(scope="module")
def rff_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rff")
    proc = rfbench(tmp, "dataset=spambase", "kernel=gaussian", "feature_map=rff",
                   "feature_map.m_over_d=2")
    assert proc.returncode == 0, proc.stderr
    return tmp, proc


def test_run_writes_trials_summary_config_and_log(rff_run):
    tmp, proc = rff_run
    out = run_dir(tmp)
    names = {p.name.removesuffix(".gz") for p in out.iterdir()}  # trials.csv is gzipped over the threshold
    assert names >= {"trials.csv", "summary.csv", "config.yaml", "run.log"}
    trials = records.read_trials(out / "trials.csv")
    assert list(trials["trial"]) == [0, 1]
    config_columns = {"dataset.name", "kernel.name", "kernel.sigma", "feature_map.name",
                      "feature_map.m_over_d", "classifier.log2_C", "experiment.seed"}
    assert config_columns <= set(trials.columns)
    classification = {"gram_error", "test_accuracy", "test_error", "cv_accuracy", "C", "time_fit",
                      "time_transform", "time_train", "time_predict", "time_gram"}
    assert classification <= set(trials.columns) <= set(trials.columns) | set(METRICS)
    grid = records.read_trials(out / "grid.csv")  # the whole C grid of each trial
    assert list(grid.columns) == ["C", "cv_score", "test_score", "run_id", "trial"]
    assert len(grid) == 2 * 11 and grid.groupby("trial")["cv_score"].max().tolist() == trials["cv_accuracy"].tolist()
    assert (trials["M"] == 114).all() and (trials["n_features"] == 228).all()
    assert (trials["n_train"] == 2760).all() and (trials["n_test"] == 1841).all()
    assert trials["gram_error"].between(0, 1).all()
    summary = pd.read_csv(out / "summary.csv")
    assert summary.loc[0, "test_accuracy_mean"] == pytest.approx(trials["test_accuracy"].mean())
    assert "test_accuracy = " in proc.stderr + proc.stdout


def test_rff_beats_the_linear_baseline(rff_run, tmp_path):
    tmp, _ = rff_run
    rff = records.read_trials(run_dir(tmp) / "trials.csv")["test_accuracy"].mean()
    proc = rfbench(tmp_path, "dataset=spambase", "kernel=linear", "feature_map=identity")
    assert proc.returncode == 0, proc.stderr
    linear = records.read_trials(run_dir(tmp_path) / "trials.csv")
    assert (linear["gram_error"] < 1e-12).all()  # no approximation at all
    assert rff > linear["test_accuracy"].mean()


def test_rerun_resumes_and_same_seed_gives_same_numbers(rff_run):
    tmp, _ = rff_run
    before = records.read_trials(run_dir(tmp) / "trials.csv")
    proc = rfbench(tmp, "dataset=spambase", "kernel=gaussian", "feature_map=rff",
                   "feature_map.m_over_d=2", "experiment.trials=3")
    assert proc.returncode == 0, proc.stderr
    assert "2 of 3 trials already recorded; computing 1" in proc.stderr + proc.stdout
    after = records.read_trials(run_dir(tmp) / "trials.csv")
    assert list(after["trial"]) == [0, 1, 2]
    pd.testing.assert_frame_equal(after.iloc[:2], before, check_dtype=False)
    forced = rfbench(tmp, "dataset=spambase", "kernel=gaussian", "feature_map=rff",
                     "feature_map.m_over_d=2", "experiment.force=true")
    assert forced.returncode == 0, forced.stderr
    again = records.read_trials(run_dir(tmp) / "trials.csv")
    for column in ("test_accuracy", "gram_error", "C"):
        assert list(again[column]) == list(before[column])


@pytest.mark.parametrize("override, message", [
    ("feature_map.m_over_d=0", "feature_map.m_over_d=0 is invalid"),
    ("kernel.sigma=-1", "kernel.sigma=-1 is invalid"),
    ("experiment.n_gram=999999", "experiment.n_gram=999999 is invalid"),
    ("feature_map=identity", "feature_map=identity cannot approximate kernel=gaussian"),
    # checked by the components themselves once d is known
    ("kernel=shift_gaussian feature_map=askrff kernel.r=[1,2]",
     "kernel.r must be a scalar or a vector of length d=57, got shape (2,)"),
    ("kernel=sinh_gaussian feature_map=askrff feature_map.part=both",
     "feature_map.part='both' is not valid; choose one of ('asymmetric', 'symmetric')"),
    ("classifier.solver=11", "classifier.solver=11 is not a LibLinear classification solver; valid:"),
])
def test_bad_values_exit_with_a_clear_message(tmp_path, override, message):
    proc = rfbench(tmp_path, "dataset=spambase", *override.split())
    assert proc.returncode == 2
    assert message in proc.stderr
    assert not list(tmp_path.iterdir()), "a rejected config wrote under results/"


@pytest.mark.parametrize("override", ["dataset=nope", "kernel=nope", "feature_map=nope", "classifier=nope",
                                      "job=nope", "experiment=nope", "experiment.force=maybe", "+foo=1"])
def test_an_unknown_option_or_key_is_one_error_line_exit_2(tmp_path, override):
    proc = rfbench(tmp_path, override)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"rfbench: error: {override} is invalid: ") and "Traceback" not in proc.stderr
    assert not list(tmp_path.iterdir()), "a rejected command wrote under results/"


def test_unknown_dataset_lists_the_valid_ones(tmp_path):
    proc = rfbench(tmp_path, "dataset=spambse")
    assert "did you mean dataset=spambase?" in proc.stderr and "letter" in proc.stderr


def test_multirun_sweep_and_aggregate(tmp_path):
    proc = rfbench(tmp_path, "-m", "experiment.name=sweep", "feature_map.m_over_d=1,2", "kernel.sigma=1,2",
                   "experiment.trials=1", "classifier=none")
    assert proc.returncode == 0, proc.stderr
    agg = subprocess.run([sys.executable, "-c", "from rfbench.cli import aggregate; aggregate()",
                          str(tmp_path / "sweep"), "--metrics", "gram_error"],
                         cwd=REPO, capture_output=True, text=True)
    assert agg.returncode == 0, agg.stderr
    trials = pd.read_csv(tmp_path / "sweep" / "all_trials.csv")
    assert sorted(trials["m_over_d"]) == [1.0, 1.0, 2.0, 2.0]
    summary = pd.read_csv(tmp_path / "sweep" / "all_summary.csv")  # one row per (sigma, M): none pooled
    assert sorted(zip(summary["kernel.sigma"], summary["m_over_d"])) == [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert (summary["gram_error_count"] == 1).all()
    assert (tmp_path / "sweep" / "gram_error.png").stat().st_size > 0


def test_each_kernel_runs_its_natural_feature_map_and_an_explicit_one_wins(tmp_path):
    quick = ("experiment.trials=1", "classifier=none")
    proc = rfbench(tmp_path, "-m", "kernel=gaussian,sinh_gaussian", *quick)
    assert proc.returncode == 0, proc.stderr
    runs = {records.read_trials(run / "trials.csv").loc[0, "kernel.name"]: run
            for run in (tmp_path / "default" / "runs").iterdir()}
    assert {k: records.read_trials(run / "trials.csv").loc[0, "feature_map.name"] for k, run in runs.items()} == {
        "gaussian": "rff", "sinh_gaussian": "askrff"}
    jobs = list((tmp_path / "default" / "hydra").glob("*/[0-9]*"))
    assert [sorted(p.name for p in job.iterdir()) for job in jobs] == [["rfbench_job.json"]] * 2, \
        "a sweep's job folder holds only its record for the closing table"
    # the card's usage line, spelled out, is the same run: nothing left to do
    explicit = rfbench(tmp_path, "kernel=sinh_gaussian", "feature_map=askrff", *quick)
    assert explicit.returncode == 0, explicit.stderr
    assert f"run {runs['sinh_gaussian'].name}" in explicit.stdout + explicit.stderr
    assert "1 of 1 trials already recorded; computing 0" in explicit.stdout + explicit.stderr
    refused = rfbench(tmp_path, "-m", "kernel=sinh_gaussian", "feature_map=rff", *quick)
    assert refused.returncode == 2
    assert "feature_map=rff cannot approximate kernel=sinh_gaussian" in refused.stderr


def test_a_single_run_leaves_only_its_run_folder(rff_run):
    tmp, _ = rff_run
    assert [p.relative_to(tmp).as_posix() for p in tmp.glob("*/*")] == ["default/runs"]


def test_a_map_refusing_a_row_of_the_gram_sample_is_one_error_line(tmp_path):
    """Spambase has an all-zero row, which GCWS cannot sample: met first in the Gram error's sample."""
    proc = rfbench(tmp_path, "kernel=gmm", "feature_map=gcws", "classifier=none", "experiment.n_gram=2760")
    assert proc.returncode == 2, proc.stderr
    assert "rfbench: error: feature_map=gcws: 1 row(s) of X are all zero" in proc.stderr
    assert "Traceback" not in proc.stderr and not list(tmp_path.rglob("*.csv*"))
