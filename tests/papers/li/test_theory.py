"""Li Figs 1-4: the simulated points agree with the theorems, recorded by jobs, drawn from the records."""
import numpy as np
import pandas as pd
from hydra import compose, initialize_config_dir

from rfbench.engine import config, jobs
from rfbench.papers.li import theory as li_theory
from rfbench.papers.li import theory_figures


def test_simulated_points_are_checked_against_the_theorems():
    points = li_theory.simulate([0.3, 0.9], [1.0], k=50, repetitions=4000, seed=0)
    assert set(points["estimator"]) == {"RFF", "NRFF", "GCWS"} and len(points) == 6
    assert points["within"].all()
    # the check flags a wrong theory: double the variance and no point of RFF passes
    rff = points[points["estimator"] == "RFF"]
    assert np.all(np.abs(rff["k_mse"] - 2 * rff["theory"]) > rff["tolerance"])


def test_the_grid_job_is_the_simulation_and_its_figures_are_drawn_from_its_records(tmp_path):
    small = ["job.rhos=[0.5]", "job.gammas=[1.0]", "job.repetitions=2000", "job.recheck_repetitions=500"]
    with initialize_config_dir(config.CONFIG_DIR, version_base="1.3"):
        cfg = config.to_dict(compose("config", overrides=["job=li_variance_grid", *small,
                                                           f"experiment.results_dir={tmp_path}"]))
    jobs.run(cfg)
    run = jobs.run_of(["job=li_variance_grid", *small], tmp_path)
    recorded = jobs.read(run, "points").drop(columns="trial")
    pd.testing.assert_frame_equal(recorded, li_theory.simulate([0.5], [1.0], 100, 2000, seed=0))
    out = tmp_path / "fig1"
    theory_figures.FIGURES["fig1"](out, tmp_path, job_overrides=small)
    assert {p.name for p in out.iterdir()} == {"fig1.csv", "fig1.md", "fig1.png", "claims.csv"}
    assert pd.read_csv(out / "claims.csv")["verdict"].tolist() == ["holds"]
    assert "Theorem check: 2 of 2" in (out / "fig1.md").read_text()
    assert len(pd.read_csv(out / "fig1.csv")) == 2  # RFF and NRFF at one (rho, gamma), no recheck
