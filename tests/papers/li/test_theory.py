"""Li Figs 1-4: the simulated points agree with the theorems, and the figures are written."""
import numpy as np
import pandas as pd

from rfbench.papers.li import theory as li_theory


def test_simulated_points_are_checked_against_the_theorems():
    points = li_theory.simulate([0.3, 0.9], [1.0], k=50, repetitions=4000, seed=0)
    assert set(points["estimator"]) == {"RFF", "NRFF", "GCWS"} and len(points) == 6
    assert points["within"].all()
    # the check flags a wrong theory: double the variance and no point of RFF passes
    rff = points[points["estimator"] == "RFF"]
    assert np.all(np.abs(rff["k_mse"] - 2 * rff["theory"]) > rff["tolerance"])


def test_fig1_writes_its_files(tmp_path, monkeypatch):
    monkeypatch.setattr(li_theory, "RHOS", (0.5,))
    monkeypatch.setattr(li_theory, "GAMMAS", (1.0,))
    monkeypatch.setattr(li_theory, "REPETITIONS", 2000)
    points = li_theory.fig1(tmp_path)
    assert {p.name for p in tmp_path.iterdir()} == {"fig1.csv", "fig1.md", "fig1.png", "claims.csv"}
    assert pd.read_csv(tmp_path / "claims.csv")["verdict"].tolist() == ["holds"]
    assert "Theorem check: 2 of 2" in (tmp_path / "fig1.md").read_text() and len(points) == 2
