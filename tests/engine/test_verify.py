"""verify recomputes a recorded job from its config.yaml and finds a tampered number."""
import functools

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from rfbench.engine import blas_pin, config, jobs, records, verify
from rfbench.papers.tutorial import demo


def test_a_recorded_job_recomputes_equal_and_a_tampered_value_is_found(tmp_path):
    run = _tutorial_run(tmp_path)
    (row_errors, row_curves) = verify.compare(run, rtol=1e-12)
    assert row_errors["equal"] and row_curves["equal"] and row_errors["metric"] == "errors.csv (60 rows)"
    errors = records.read_trials(run / "errors.csv")
    errors.loc[7, "mean_estimate"] *= 1 + 1e-9
    records.write_frame(run / "errors.csv", errors.to_csv(index=False))  # in its stored form, plain or gzipped
    row_errors, _ = verify.compare(run, rtol=1e-12)
    assert not row_errors["equal"] and 0.5e-9 < row_errors["relative_difference"] < 2e-9
    assert verify.pick_runs(tmp_path) == [run]


def test_verify_of_a_tree_writes_one_table_and_bounds_its_time(tmp_path, capsys):
    """--max-seconds lists a run as not recomputed (exit 0), --kind picks runs or jobs, --out the table."""
    _tutorial_run(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        verify.main([str(tmp_path), "--out", str(tmp_path / "verify.csv")])
    assert exit_.value.code == 0
    table = pd.read_csv(tmp_path / "verify.csv")
    assert set(table["paper"]) == {"tutorial"} and table["equal"].all() and (table["seconds"] > 0).all()
    with pytest.raises(SystemExit) as exit_:
        verify.main([str(tmp_path), "--max-seconds", "0"])
    assert exit_.value.code == 0
    assert "not recomputed: trial 0 took 0 s > --max-seconds 0" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        verify.main([str(tmp_path), "--kind", "runner"])
    assert exit_.value.code == 2 and "is of the kind(s) runner" in capsys.readouterr().err


def _tutorial_run(tmp_path):
    with initialize_config_dir(config.CONFIG_DIR, version_base="1.3"):
        cfg = config.to_dict(compose("config", overrides=["job=tutorial", "job.reps=4", "job.k_max=60",
                                                           f"experiment.results_dir={tmp_path}"]))
    jobs.run(cfg)
    return records.run_dir(cfg)


def test_a_trials_table_naming_a_run_without_its_folder_is_a_clean_error(tmp_path, capsys):
    """A trials.csv whose run_id was cut or edited is not its folder's: exit 2 naming both, no traceback."""
    run = _tutorial_run(tmp_path)
    trials = records.read_trials(run / "trials.csv")
    trials.assign(run_id=trials["run_id"].str[:5]).to_csv(run / "trials.csv", index=False)
    with pytest.raises(SystemExit) as exit_:
        verify.main([str(tmp_path)])
    assert exit_.value.code == 2 and f"carry run id(s) ['{run.name[:5]}'], not {run.name}" in capsys.readouterr().err


def test_out_into_a_missing_folder_is_refused_before_any_work(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        verify.main([str(tmp_path), "--out", str(tmp_path / "nowhere" / "verify.csv")])
    assert exit_.value.code == 2 and "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()


def test_frames_are_equal_whatever_their_timings_but_not_their_results():
    old = pd.DataFrame({"method": ["a", "b"], "value": [1.0, 2.0], "time": [3.0, 4.0], "time_fit": [1.0, 1.0]})
    new = old.assign(time=[30.0, 0.4], time_fit=[2.0, 2.0])
    assert verify._frames_equal(old, new, 1e-12) == (True, 0.0)
    assert not verify._frames_equal(old, new.assign(value=[1.0, 2.5]), 1e-12)[0]
    assert not verify._frames_equal(old, new.drop(columns="time"), 1e-12)[0]


def test_verify_of_a_copied_tree_recomputes_inside_that_tree(tmp_path, monkeypatch):
    """A job's reads are composed below the tree being verified, not ./results of the working folder (the
    recorded results_dir), so verify writes only inside that tree and reads only its records (issue 48)."""
    import shutil

    _tutorial_run(tmp_path / "recorded")
    shutil.copytree(tmp_path / "recorded", tmp_path / "copy")
    (run,) = verify.pick_runs(tmp_path / "copy")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    seen, real = [], jobs.read_configs
    monkeypatch.setattr(jobs, "read_configs", lambda cfg: seen.append(cfg["experiment"]["results_dir"]) or real(cfg))
    assert all(row["equal"] for row in verify.compare(run, rtol=1e-12))
    assert seen == [str(tmp_path / "copy")] and list(work.iterdir()) == []


def _tutorial_job(monkeypatch, replacement):
    """The tutorial job's function replaced by ``replacement`` with its signature (jobs.function imports
    it from its module by name and checks its parameters)."""
    monkeypatch.setattr(demo, "compute", functools.wraps(demo.compute)(replacement))


def test_a_recomputation_that_fails_is_a_row_that_moved_and_verify_goes_on(tmp_path, monkeypatch, capsys):
    _tutorial_run(tmp_path)

    def broken(**params):
        raise ValueError("the code no longer learns that sequence")

    _tutorial_job(monkeypatch, broken)
    with pytest.raises(SystemExit) as exit_:
        verify.main([str(tmp_path), "--out", str(tmp_path / "verify.csv")])
    assert exit_.value.code == 1
    table = pd.read_csv(tmp_path / "verify.csv")
    assert table["metric"].tolist() == ["recomputing failed: ValueError: the code no longer learns that sequence"]
    assert not table["equal"].any()


def test_a_recorded_option_the_configs_no_longer_have_is_a_row_that_moved(tmp_path, monkeypatch):
    """Composing the current config is part of the recomputation: a feature map or job since removed fails there."""
    from hydra.errors import MissingConfigException

    _tutorial_run(tmp_path)

    def removed(recorded):
        raise MissingConfigException("Could not find 'job/tutorial'", "job/tutorial")

    monkeypatch.setattr(verify, "current_config", removed)
    with pytest.raises(SystemExit) as exit_:
        verify.main([str(tmp_path), "--out", str(tmp_path / "verify.csv")])
    assert exit_.value.code == 1
    table = pd.read_csv(tmp_path / "verify.csv")
    assert table["metric"].tolist() == ["recomputing failed: MissingConfigException: Could not find 'job/tutorial'"]


@pytest.mark.parametrize("cpu_has_loops", [True, False])
def test_a_job_needing_the_records_loops_is_left_out_only_on_a_cpu_without_them(
        tmp_path, monkeypatch, capsys, cpu_has_loops):
    _tutorial_run(tmp_path)
    compute = demo.compute
    _tutorial_job(monkeypatch, lambda **params: compute(**params))
    blas_pin.needs_records_loops(demo.compute)
    monkeypatch.setattr(blas_pin, "cpu_runs_records_loops", lambda: cpu_has_loops)
    with pytest.raises(SystemExit) as exit_:
        verify.main([str(tmp_path), "--out", str(tmp_path / "verify.csv")])
    assert exit_.value.code == 0
    table = pd.read_csv(tmp_path / "verify.csv")
    if cpu_has_loops:
        assert table["equal"].all() and len(table) == 2
    else:
        assert len(table) == 1 and table["equal"].isna().all()
        assert table["metric"].iloc[0].startswith("not recomputed: this CPU lacks the AVX-512 numpy loops")


@pytest.mark.parametrize("cpu_has_loops", [True, False])
def test_a_cpu_without_the_records_loops_holds_values_to_the_stated_tolerance(
        tmp_path, monkeypatch, capsys, cpu_has_loops):
    """1e-9 relative moves a value on the records' CPU (1e-12) and not on another (OTHER_CPU_RTOL, 1e-6);
    1e-5 moves it on both: the looser check still fails."""
    run = _tutorial_run(tmp_path)
    monkeypatch.setattr(blas_pin, "cpu_runs_records_loops", lambda: cpu_has_loops)
    errors = records.read_trials(run / "errors.csv")
    for factor, moved in ((1 + 1e-9, cpu_has_loops), (1 + 1e-5, True)):
        records.write_frame(run / "errors.csv", errors.assign(
            mean_estimate=errors["mean_estimate"] * factor).to_csv(index=False))
        with pytest.raises(SystemExit) as exit_:
            verify.main([str(tmp_path), "--out", str(tmp_path / "verify.csv")])
        assert exit_.value.code == (1 if moved else 0)
        table = pd.read_csv(tmp_path / "verify.csv").set_index("metric")
        assert (table["tolerance"] == (1e-12 if cpu_has_loops else verify.OTHER_CPU_RTOL)).all()
        assert table.loc["errors.csv (60 rows)", "equal"] == (not moved)
        assert f"equal to {1e-12 if cpu_has_loops else 1e-6:g} relative" in capsys.readouterr().out


def test_the_adaptive_cg_jobs_are_marked_and_the_others_are_not():
    from rfbench.papers.qmc import fig5, fig67, learnt, table3, variants
    marked = [fig5.integration, fig67.global_metrics, learnt.learn, variants.learn]
    assert all(getattr(job, "needs_records_loops", False) for job in marked)
    assert not any(getattr(job, "needs_records_loops", False) for job in (fig67.greedy_metrics, table3.cells))
