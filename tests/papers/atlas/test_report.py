"""The atlas's report on a tiny generated records tree whose budget table is known."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rfbench.engine import records
from rfbench.papers.atlas import report

D, SIGMA = 10, 0.75
#: (map option, variant, M/d, Frobenius errors of 3 trials, transform seconds, test accuracies)
POINTS = [
    ("rff", "cos_sin", 1, [0.100, 0.101, 0.099], 0.005, [0.80, 0.81, 0.79]),
    ("orf", "cos_sin", 1, [0.050, 0.051, 0.049], 0.5, [0.85, 0.85, 0.85]),
    ("rff", "cos_sin", 2, [0.020, 0.030, 0.010], 0.008, [0.90, 0.915, 0.90]),
    ("orf", "cos_sin", 2, [0.025, 0.035, 0.015], 0.9, [0.90, 0.90, 0.90]),
    ("rff", "cos_offset_2m", 2, [0.200, 0.200, 0.200], 0.05, [0.70, 0.70, 0.70]),
]


def write_tree(results: Path, sigma: float = SIGMA) -> Path:
    """results/atlas with one bandwidth record (toy, gaussian -> SIGMA) and a run per point."""
    atlas = results / "atlas"
    job = atlas / "bandwidth" / "runs" / "bw0"
    job.mkdir(parents=True)
    records.write_csv(job / "bandwidth.csv", pd.DataFrame({
        "dataset": "toy", "kernel": "gaussian", "median_distance": 1.5, "log2_factor": [-1, 0],
        "sigma": [SIGMA, 1.5], "score_name": "accuracy", "cv_score": [0.9, 0.8], "lambda": 1.0,
        "chosen": [True, False], "trial": 0}))
    records.write_csv(job / "trials.csv", pd.DataFrame({"run_id": ["bw0"], "trial": [0], "seed": [0]}))
    for i, (name, variant, m, errors, seconds, accuracy) in enumerate(POINTS):
        run = atlas / "runs" / f"run{i}"
        run.mkdir(parents=True)
        records.write_csv(run / "trials.csv", pd.DataFrame({
            "dataset.name": "toy", "kernel.name": "gaussian", "kernel.sigma": sigma, "feature_map.name": name,
            "feature_map.variant": variant, "feature_map.m_over_d": m, "run_id": f"run{i}", "trial": [0, 1, 2],
            "d": D, "n_features": 2 * m * D, "gram_error": errors, "gram_error_spectral": np.array(errors) / 2,
            "time_transform": seconds, "time_fit": 0.001, "memory_transform": 1.0, "test_accuracy": accuracy}))
    return atlas


@pytest.fixture
def atlas(tmp_path):
    write_tree(tmp_path)
    return report.render_atlas(tmp_path)


def choice(budget: pd.DataFrame, metric: str, label: str) -> str:
    return budget[(budget["metric"] == metric) & (budget["budget"] == label)]["choice"].item()


def test_the_budget_table_names_the_winner_beyond_the_spread_and_a_tie_within_it(atlas):
    budget = pd.read_csv(atlas / "budget.csv")
    # at 2 d columns ORF's 0.050 +- 0.001 beats RFF's 0.100 +- 0.001 by far more than their spreads
    assert choice(budget, "gram_error", "<= 2 d columns") == "orf"
    # at 4 d: RFF 0.020 +- 0.010 and ORF 0.025 +- 0.010 are within one another's spread; rff cos+b is not
    assert choice(budget, "gram_error", "<= 4 d columns") == "tie: rff, orf"
    # within 0.01 s only RFF transforms; within 1 s every map does (as at 4 d columns)
    assert choice(budget, "gram_error", "<= 0.01 s transform") == "rff"
    assert choice(budget, "gram_error", "<= 1 s transform") == "tie: rff, orf"
    # accuracy, higher is better: ORF's 0.85 +- 0 at 2 d, then RFF's 0.905 +- 0.009 ties ORF's 0.90 +- 0
    assert choice(budget, "test_accuracy", "<= 2 d columns") == "orf"
    assert choice(budget, "test_accuracy", "<= 4 d columns") == "tie: rff, orf"
    assert choice(budget, "gram_error", "<= 64 d columns") == "tie: rff, orf"


def test_points_figures_and_markdown_are_written_from_the_records(atlas):
    points = pd.read_csv(atlas / "points.csv")
    assert len(points) == len(POINTS) and set(points["map"]) == {"rff", "orf", "rff cos+b"}
    rff = points[(points["map"] == "rff") & (points["width"] == 4)].iloc[0]
    assert rff["gram_error_mean"] == pytest.approx(0.02) and rff["gram_error_std"] == pytest.approx(0.01)
    assert rff["trials"] == 3 and rff["time_transform"] == pytest.approx(0.008)
    for name in ("error_vs_width_gaussian", "pareto_gaussian", "score_vs_width_gaussian"):
        assert (atlas / f"{name}.png").stat().st_size > 1000
    text = (atlas / "atlas.md").read_text()
    assert "tie: rff, orf" in text and "![pareto_gaussian](pareto_gaussian.png)" in text and "0.75" in text


def test_a_run_at_another_bandwidth_is_refused(tmp_path):
    write_tree(tmp_path, sigma=1.5)
    with pytest.raises(ValueError, match=r"run0 \(toy, gaussian: sigma 1.5, recorded 0.75\)"):
        report.render_atlas(tmp_path)


def test_pareto_front_keeps_the_points_nothing_beats_in_both_time_and_error():
    points = pd.DataFrame({"t": [1.0, 2.0, 3.0, 0.5, 2.5], "e": [0.5, 0.2, 0.3, 0.9, 0.1]})
    front = report.pareto_front(points, "t", "e")
    assert front[["t", "e"]].values.tolist() == [[0.5, 0.9], [1.0, 0.5], [2.0, 0.2], [2.5, 0.1]]


def test_the_report_says_how_many_of_the_campaigns_runs_it_shows(atlas):
    """The toy tree has a handful of the campaign's runs: the Markdown says it is partial, with the counts."""
    text = (atlas / "atlas.md").read_text()
    assert f"**Partial: {len(POINTS)} of the campaign's {report.planned_runs()} runs are recorded**" in text
    assert report._coverage(5, 5) == " All 5 runs of the campaign are recorded."
