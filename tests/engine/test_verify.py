"""verify recomputes a recorded job from its config.yaml and finds a tampered number."""
import pandas as pd
from hydra import compose, initialize_config_dir

from rfbench.engine import config, jobs, records, verify


def test_a_recorded_job_recomputes_equal_and_a_tampered_value_is_found(tmp_path):
    with initialize_config_dir(config.CONFIG_DIR, version_base="1.3"):
        cfg = config.to_dict(compose("config", overrides=["job=tutorial", "job.reps=4", "job.k_max=60",
                                                           f"experiment.results_dir={tmp_path}"]))
    jobs.run(cfg)
    run = records.run_dir(cfg)
    (row_errors, row_curves) = verify.compare(run, rtol=1e-12)
    assert row_errors["equal"] and row_curves["equal"] and row_errors["metric"] == "errors.csv (60 rows)"
    errors = pd.read_csv(run / "errors.csv")
    errors.loc[7, "mean_estimate"] *= 1 + 1e-9
    errors.to_csv(run / "errors.csv", index=False)
    row_errors, _ = verify.compare(run, rtol=1e-12)
    assert not row_errors["equal"] and 0.5e-9 < row_errors["relative_difference"] < 2e-9
    assert verify.pick_runs(tmp_path) == [run]


def test_frames_are_equal_whatever_their_timings_but_not_their_results():
    old = pd.DataFrame({"method": ["a", "b"], "value": [1.0, 2.0], "time": [3.0, 4.0], "time_fit": [1.0, 1.0]})
    new = old.assign(time=[30.0, 0.4], time_fit=[2.0, 2.0])
    assert verify._frames_equal(old, new, 1e-12) == (True, 0.0)
    assert not verify._frames_equal(old, new.assign(value=[1.0, 2.5]), 1e-12)[0]
    assert not verify._frames_equal(old, new.drop(columns="time"), 1e-12)[0]
