"""A user's own feature map on the atlas: its runs beside the committed maps', the atlas's records read only."""
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import matplotlib.figure
import pandas as pd
import pytest

from rfbench.engine import campaign, records
from rfbench.papers.atlas import report
from tests.conftest import REPO
from tests.papers.atlas.test_report import SIGMA, D, write_tree

TOY_CONFIGS = REPO / "tests" / "toy_components" / "configs"


def write_own_run(results: Path, name: str = "mine", errors=(0.001, 0.002, 0.003)) -> None:
    """One run of a user's map ``name`` at 2 d columns below results/atlas_own (the tree of write_tree)."""
    run = results / "atlas_own" / "runs" / "own0"
    run.mkdir(parents=True)
    records.write_csv(run / "trials.csv", pd.DataFrame({
        "dataset.name": "toy", "kernel.name": "gaussian", "kernel.sigma": SIGMA, "feature_map.name": name,
        "feature_map.m_over_d": 1, "run_id": "own0", "trial": [0, 1, 2], "d": D, "n_features": 2 * D,
        "gram_error": list(errors), "gram_error_spectral": 0.001, "time_transform": 0.02, "time_fit": 0.001,
        "memory_transform": 1.0, "test_accuracy": [0.95, 0.95, 0.95]}))


def test_the_own_targets_run_only_the_users_map_at_the_atlas_bandwidths_into_their_own_folder():
    atlas = {tuple(job) for job in campaign.plan("atlas", "atlas").jobs}
    for target in ("own_gaussian", "own_laplacian"):
        kernel = target.removeprefix("own_")
        jobs = [dict(o.split("=", 1) for o in job) for job in campaign.plan("atlas", target, ["feature_map=mine"]).jobs]
        assert all(j["feature_map"] == "mine" and j["experiment.name"] == "atlas_own" and j["kernel"] == kernel
                   for j in jobs)
        # every dataset at the widths and bandwidth the atlas's maps of that kernel ran at
        built_in = {(o["dataset"], o["kernel.sigma"], o.get("feature_map.m_over_d"), o["classifier"])
                    for o in (dict(x.split("=", 1) for x in job) for job in atlas) if o.get("kernel") == kernel
                    and o.get("feature_map") == ("rff" if kernel == "gaussian" else "cauchy_rff")}
        assert {(j["dataset"], j["kernel.sigma"], j["feature_map.m_over_d"], j["classifier"]) for j in jobs} == built_in


def test_the_users_map_joins_every_figure_and_budget_table_beside_the_reference_maps(tmp_path, monkeypatch):
    reference, mine = tmp_path / "reference", tmp_path / "mine"
    write_tree(reference)
    write_own_run(mine)
    before = {p: p.stat().st_mtime_ns for p in reference.rglob("*")}
    legends = []
    original = matplotlib.figure.Figure.legend
    monkeypatch.setattr(matplotlib.figure.Figure, "legend",
                        lambda fig, handles, labels, **kw: legends.append(list(labels)) or original(fig, handles,
                                                                                                   labels, **kw))
    out = report.render_atlas(mine, own="atlas_own", reference=reference)
    assert out == mine / "atlas_own" and {p: p.stat().st_mtime_ns for p in reference.rglob("*")} == before
    assert len(legends) == 3 and all(labels == ["mine", "orf", "rff", "rff cos+b"] for labels in legends)
    budget = pd.read_csv(out / "budget.csv")
    width = budget[(budget["metric"] == "gram_error") & (budget["budget_kind"] == "width")].set_index("budget")
    # 0.002 +- 0.001 at 2 d columns beats ORF's 0.050 +- 0.001 (and every map within 4 d)
    assert width.loc["<= 2 d columns", "choice"] == "mine"
    assert width.loc["<= 2 d columns", "mine"] == "1 of 3 (0.002 ± 0.001)"
    points = pd.read_csv(out / "points.csv")
    assert set(points["map"]) == {"mine", "rff", "orf", "rff cos+b"} and len(points) == 6
    text = (out / "atlas.md").read_text()
    assert "**Your maps: mine**" in text and "where mine stands" in text


def test_a_users_map_named_as_an_atlas_map_is_refused(tmp_path):
    write_tree(tmp_path / "reference")
    write_own_run(tmp_path / "mine", name="orf")
    with pytest.raises(ValueError, match=r"your map's name \['orf'\] is an atlas map's"):
        report.render_atlas(tmp_path / "mine", own="atlas_own", reference=tmp_path / "reference")


def _snapshot(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_the_toy_map_runs_through_the_atlas_campaign_with_one_command(tmp_path):
    """The README's command on the preset target: only the toy map's runs are computed, beside the committed atlas."""
    committed = _snapshot(REPO / "results" / "atlas")
    cmd = [sys.executable, "-m", "rfbench.engine.launch", "atlas", "own_preset", "--results", str(tmp_path),
           "--launcher", "basic", "--", "feature_map=toy_rff", "--config-dir", str(TOY_CONFIGS)]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert _snapshot(REPO / "results" / "atlas") == committed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["atlas", "atlas_own"]  # atlas/: the sweep's hydra/ only
    assert [p.name for p in (tmp_path / "atlas").iterdir()] == ["hydra"]
    computed = records.collect(tmp_path / "atlas_own")
    assert sorted(computed["feature_map.m_over_d"]) == [1, 2] and set(computed["feature_map.name"]) == {"toy_rff"}
    points = pd.read_csv(tmp_path / "atlas_own" / "points.csv")
    reference = pd.read_csv(REPO / "results" / "atlas" / "points.csv")
    spambase = points[(points["kernel"] == "gaussian") & (points["dataset"] == "spambase")]
    assert set(spambase["map"]) == set(reference.query("kernel == 'gaussian' and dataset == 'spambase'")["map"]) | {
        "toy_rff"}
    theirs = points[points["map"] != "toy_rff"].reset_index(drop=True)
    pd.testing.assert_frame_equal(theirs, reference, check_exact=False, rtol=1e-12)  # the committed records, reused
    mine = points[points["map"] == "toy_rff"]
    assert len(mine) == 2 and mine["gram_error_mean"].between(0, 1).all()
    budget = pd.read_csv(tmp_path / "atlas_own" / "budget.csv")
    standing = budget.query("kernel == 'gaussian' and dataset == 'spambase' and budget_kind == 'width'")["toy_rff"]
    assert standing.str.fullmatch(r"\d+ of 1\d \(.*\)").all()  # ranked among the 10 or more maps at every width
