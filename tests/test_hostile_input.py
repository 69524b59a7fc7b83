"""Hostile input (issue 37): path values, links out of the results tree, damaged records, clean errors.

Each case reproduces a failure the issue names; every one must end in ``<prog>: error: ...`` with
status 2, no traceback and nothing written, or in a warning that names what a damaged record affects.
"""
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from rfbench import cli
from rfbench.engine import config, frames, records, verify
from tests.conftest import REPO
from tests.engine.test_config import compose_cfg

HOSTILE_NAMES = ["../escape", "/tmp/abs", "..", "", "a/../b", "a//b", "a\nb", "n" * 300, "a\\b"]


def rfbench(tmp_path: Path, *overrides: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rfbench", f"experiment.results_dir={tmp_path / 'results'}",
                           "experiment.trials=1", "experiment.n_gram=10", "classifier=none", *overrides],
                          cwd=REPO, capture_output=True, text=True, timeout=300)


def assert_refused(proc: subprocess.CompletedProcess, prog: str, *words: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"{prog}: error: ") and "Traceback" not in proc.stderr, proc.stderr
    for word in words:
        assert word in proc.stderr


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_experiment_name_must_be_a_plain_relative_name(name):
    cfg = compose_cfg()
    cfg["experiment"]["name"] = name
    with pytest.raises(config.ConfigError, match="experiment.name=.* is invalid: a plain relative name"):
        config.validate(cfg)


def test_nested_plain_names_are_accepted():
    cfg = compose_cfg("experiment.name=li/kernel_svm_minmax")
    config.validate(cfg)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["../escape", "${oc.env:HOSTILE_ABS}", "'a b/..'"])
def test_a_name_leading_out_of_results_dir_writes_nothing(tmp_path, monkeypatch, name):
    monkeypatch.setenv("HOSTILE_ABS", str(tmp_path / "abs"))
    assert_refused(rfbench(tmp_path, f"experiment.name={name}"), "rfbench", "experiment.name=")
    assert list(tmp_path.iterdir()) == []


def record_run(root: Path, run: str = "run0", rows: int = 3) -> Path:
    """A run folder as rfbench writes it, with ``rows`` trials; its trials.csv."""
    path = root / "exp" / "runs" / run / "trials.csv"
    for t in range(rows):
        records.record_trial(path, {"run_id": run, "trial": t, "dataset.name": "toy", "kernel.name": "gaussian",
                                    "feature_map.name": "rff", "M": 4, "test_accuracy": 0.5 + t / 10})
    return path


def test_aggregate_refuses_a_trials_csv_linked_out_of_the_tree(tmp_path, capsys):
    foreign = tmp_path / "foreign.csv"
    foreign.write_text("trial,secret\n0,42\n")
    link = tmp_path / "tree" / "exp" / "runs" / "evil" / "trials.csv"
    link.parent.mkdir(parents=True)
    link.symlink_to(foreign)
    with pytest.raises(SystemExit) as exit_:
        cli.aggregate([str(tmp_path / "tree")])
    assert exit_.value.code == 2
    assert "outside" in capsys.readouterr().err and not (tmp_path / "tree" / "all_trials.csv").exists()


@pytest.mark.parametrize("target", ["missing", "file", "empty"])
def test_verify_on_no_results_tree_is_a_clean_error(tmp_path, capsys, target):
    (tmp_path / "file").write_text("x")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit) as exit_:
        verify.main([str(tmp_path / target)])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith("python -m rfbench.engine.verify: error: ")


def test_verify_on_a_foreign_trials_table_is_a_clean_error(tmp_path, capsys):
    path = tmp_path / "exp" / "runs" / "r" / "trials.csv"
    path.parent.mkdir(parents=True)
    path.write_text("a,b\n1,2\n")
    with pytest.raises(SystemExit) as exit_:
        verify.main([str(tmp_path)])
    assert exit_.value.code == 2 and "is not a table of trials" in capsys.readouterr().err


@pytest.mark.slow
def test_resume_through_a_linked_run_folder_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    first = rfbench(tmp_path, "experiment.name=x")
    assert first.returncode == 0, first.stderr
    (run,) = (tmp_path / "results" / "x" / "runs").iterdir()
    run.rename(outside / run.name)
    run.symlink_to(outside / run.name)
    assert_refused(rfbench(tmp_path, "experiment.name=x", "experiment.force=true"), "rfbench", "outside")


def test_a_cut_last_row_is_warned_about_in_every_reader(tmp_path, caplog):
    path = record_run(tmp_path)
    path.write_text(path.read_text()[:-5])
    caplog.set_level(logging.WARNING)
    trials = records.collect(tmp_path)
    assert len(trials) == 2
    assert f"{path}: its last line is cut mid-row" in caplog.text
    assert "after the row of trial=1 is not counted" in caplog.text


def test_a_nan_metric_is_warned_about_naming_trial_and_column(tmp_path, caplog):
    path = record_run(tmp_path)
    path.write_text(path.read_text().replace(",0.6\n", ",nan\n"))
    caplog.set_level(logging.WARNING)
    records.collect(tmp_path)
    assert "test_accuracy is empty or NaN in trial(s) [1]" in caplog.text


@pytest.mark.parametrize("text", ["a,b\n1,2\n", "trial,x\nzero,1\n", "trial,x\n0,1,2,3\n"])
def test_a_table_that_is_no_trials_record_is_a_record_error(tmp_path, text):
    path = tmp_path / "trials.csv"
    path.write_text(text)
    with pytest.raises(records.RecordError, match="trials.csv is not a table"):
        records.read_trials(path)


COMMITTED_TABLE = REPO / "results" / "rr" / "table1" / "table1.csv"


def damaged_results(tmp_path: Path, damage) -> Path:
    """A results tree holding RR's committed comparison table, damaged by ``damage(text) -> text``."""
    path = tmp_path / "rr" / "table1" / "table1.csv"
    path.parent.mkdir(parents=True)
    path.write_text(damage(COMMITTED_TABLE.read_text()))
    return path


@pytest.mark.parametrize("damage, says", [
    (lambda text: text[:len(text) // 2], "is cut short"),
    (lambda text: "\n".join(",".join(f for i, f in enumerate(line.split(",")) if i != 9)
                            for line in text.splitlines()) + "\n", "lacks the columns ['published']"),
    (lambda text: text.replace(text.splitlines()[1].split(",")[6], "nan", 1), "line(s) [2]"),
])
def test_project_report_names_a_damaged_table_and_writes_nothing(tmp_path, capsys, damage, says):
    from rfbench.report import project

    damaged_results(tmp_path, damage)
    with pytest.raises(SystemExit) as exit_:
        project.main(["--results", str(tmp_path)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m rfbench.report.project: error: ") and says in err, err
    assert not (tmp_path / "REPORT.md").exists()


def test_a_cut_driver_record_is_computed_again(tmp_path, caplog):
    path = tmp_path / "trial0.csv"
    records.write_csv(path, pd.DataFrame({"s": [1, 2, 4], "relative_error": [0.5, 0.25, 0.125]}))
    assert records.complete(path)
    path.write_text(path.read_text()[:len(path.read_text()) // 2])
    caplog.set_level(logging.WARNING)
    assert not records.complete(path) and "is cut short" in caplog.text and "computing it again" in caplog.text


@pytest.mark.parametrize("overrides", [
    ["feature_map=qmc"], ["kernel=cosine_rbf"], ["kernel=gmm"], ["kernel=laplacian", "feature_map=binning"],
    ["feature_map=rff"],
])
def test_every_feature_map_is_refused_before_work_when_too_large(monkeypatch, overrides):
    from rfbench.engine import components

    monkeypatch.setattr(config, "available_memory", lambda: 4 * 2**30)  # fixed: other processes change it
    cfg = compose_cfg(*overrides)
    cfg["feature_map"].pop("m_over_d", None)
    cfg["feature_map"]["n_components"] = 1000000000
    with pytest.raises(config.ConfigError, match=r"feature_map.n_components=1000000000 is invalid .* GiB of memory "
                                                 r"available; choose n_components <= (\d+)") as err:
        components.check(cfg, d=57, n_train=2760)
    largest = int(str(err.value).rsplit("<= ", 1)[1])
    cfg["feature_map"]["n_components"] = largest  # the largest size said to fit is accepted
    components.check(cfg, d=57, n_train=2760)


@pytest.mark.parametrize("override, says", [
    ("kernel._target_=builtins.print", "'builtins.print' is not a kernel"),
    ("feature_map._target_=os.getcwd", "'os.getcwd' is not a feature map"),
    ("classifier._target_=builtins.print", "'builtins.print' is not a model"),
    ("classifier.log2_C=[]", "a list of exponents e, -1000 <= e <= 1000, not empty (negative ones too"),
    ("feature_map.M=64", "did you mean feature_map.n_components?"),
])
def test_bad_values_end_in_one_true_error_line(override, says):
    from rfbench.engine.preflight import check_command_line

    with pytest.raises(config.ConfigError, match=re.escape(says)):
        check_command_line([override], config.CONFIG_DIR)


def test_a_gamma_at_the_printed_bound_is_accepted():
    from rfbench.kernel.cosine_rbf import check_gamma

    with pytest.raises(ValueError) as err:
        check_gamma(1.0000001e60)
    assert check_gamma(float(str(err.value).split("<= gamma <= ")[1].split(" ")[0])) == 1e60


@pytest.mark.slow
@pytest.mark.parametrize("overrides, says", [
    (["dataset=cod_rna_stratified", "dataset.split.test_fraction=abc"], "test_fraction must be in (0, 1), got 'abc'"),
    (["dataset.mirror=file:///nonexistent/mirror"], "names the folder /nonexistent/mirror, which does not exist"),
])
def test_cli_refusals_are_clean_and_write_nothing(tmp_path, monkeypatch, overrides, says):
    monkeypatch.delenv("RFBENCH_DATA_MIRROR")
    monkeypatch.setenv("RFBENCH_CACHE", str(tmp_path / "cache"))
    assert_refused(rfbench(tmp_path, *overrides), "rfbench", says)
    assert [p.name for p in tmp_path.iterdir()] in ([], ["cache"])


def test_a_gz_name_on_plain_bytes_is_a_dataset_error(tmp_path):
    from rfbench.dataset import DatasetError
    from tests.test_bad_input import GOOD_ROWS, load, toy_config

    cfg = toy_config(tmp_path, "\n".join(GOOD_ROWS), name="toy.csv.gz")
    cfg["files"]["data"]["sha256"], cfg["allow_unverified"] = None, True
    with pytest.raises(DatasetError, match=r"toy\.csv\.gz: cannot parse as delimited text"):
        load(tmp_path, cfg)


# Issue 48: records that defend themselves, faults of the machine in one line, bounded work.

@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory) -> Path:
    """One recorded run (a trial of the default config), copied by each test that damages it."""
    tmp = tmp_path_factory.mktemp("recorded")
    proc = rfbench(tmp)
    assert proc.returncode == 0, proc.stderr
    return tmp


def damaged_copy(recorded: Path, tmp_path: Path, damage) -> Path:
    """A copy of ``recorded``'s results below ``tmp_path``, its run folder damaged by ``damage(run)``."""
    shutil.copytree(recorded / "results", tmp_path / "results")
    (run,) = (tmp_path / "results" / "default" / "runs").iterdir()
    index = run / "trials.csv"
    if frames.gzipped(index).exists():  # over the threshold (a trial's row is near it): damaged as plain text
        index.write_text(records.read_text(index))
        frames.gzipped(index).unlink()
    damage(run)
    return run


def edit_sigma(run: Path) -> None:
    config_file = run / "config.yaml"
    config_file.write_text(re.sub(r"sigma: \S+", "sigma: 7.5", config_file.read_text()))


def record_twice(run: Path) -> None:
    lines = (run / "trials.csv").read_text().splitlines()
    (run / "trials.csv").write_text("\n".join([*lines, lines[1]]) + "\n")


def make_fifo(run: Path) -> None:
    (run / "trials.csv").unlink()
    os.mkfifo(run / "trials.csv")


@pytest.mark.slow
@pytest.mark.parametrize(("damage", "says"), [
    (edit_sigma, "config.yaml hashes to run id "),
    (make_fifo, "trials.csv is a FIFO, not a regular file"),
    (lambda run: (run / "trials.csv").write_bytes(b"trial,x\n0,\xff\n"), "trials.csv is not UTF-8 text"),
])
def test_a_damaged_run_folder_is_refused_by_the_run_and_aggregate_without_blocking(recorded_run, tmp_path, damage,
                                                                                     says):
    run = damaged_copy(recorded_run, tmp_path, damage)
    before = sorted(p.name for p in run.iterdir())
    assert_refused(rfbench(tmp_path), "rfbench", says)
    aggregate = subprocess.run([sys.executable, "-c", "from rfbench import cli; cli.aggregate()",
                                str(tmp_path / "results" / "default")], capture_output=True, text=True, timeout=60)
    assert_refused(aggregate, "rfbench-aggregate", says)
    assert sorted(p.name for p in run.iterdir()) == before


@pytest.mark.slow
def test_a_trial_recorded_twice_is_refused_by_aggregate_and_its_copy_dropped_by_the_resume(recorded_run, tmp_path):
    run = damaged_copy(recorded_run, tmp_path, record_twice)
    with pytest.raises(SystemExit) as exit_:
        cli.aggregate([str(tmp_path / "results" / "default")])
    assert exit_.value.code == 2
    proc = rfbench(tmp_path)
    assert proc.returncode == 0 and "dropped line(s) 3, exact copies of earlier rows of trial(s) [0]" in proc.stdout
    assert "summary over 1 trial(s)" in proc.stdout and len(records.read_trials(run / "trials.csv")) == 1


@pytest.mark.slow
@pytest.mark.parametrize("in_the_way", ["runs", "runs/<id>"])
def test_a_file_where_a_run_folder_belongs_is_one_line_naming_it(recorded_run, tmp_path, in_the_way):
    (run_id,) = (p.name for p in (recorded_run / "results" / "default" / "runs").iterdir())
    blocker = tmp_path / "results" / "default" / in_the_way.replace("<id>", run_id)
    blocker.parent.mkdir(parents=True)
    blocker.write_text("")
    assert_refused(rfbench(tmp_path), "rfbench", f"cannot use {blocker}: a file stands where a folder belongs")


def test_a_billion_trials_are_refused_naming_experiment_trials(tmp_path):
    assert_refused(rfbench(tmp_path, "experiment.trials=1000000000"), "rfbench",
                   "experiment.trials=1000000000 is invalid: an integer >= 1 and <= 100000")
    assert not (tmp_path / "results").exists()
