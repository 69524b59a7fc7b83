"""QMC's learnt adaptive sequences (the qmc_learnt job), recorded once and read back by Tables 2-3 and Figs 6-7."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rfbench.engine import campaign, jobs, records
from rfbench.papers.qmc import learnt
from rfbench.qmc.adaptive import global_adaptive, halton_frequencies
from rfbench.qmc.discrepancy import BoxDiscrepancy
from tests.papers.qmc.conftest import SIGMA, TOY, record


def test_the_sequences_their_discrepancies_and_globals_loss_history(toy_learnt):
    frames = learnt.learn(trial=0, seed=3, data=toy_learnt,
                           s=8, boxes=[1.0, 0.25], schemes=list(learnt.SCHEMES), maxiter=5)
    table = frames["discrepancy"].set_index(["box", "method"])
    assert list(table.index) == [(b, m) for b in ("b", "b/4") for m in ("halton", "global", "greedy", "weighted")]
    start = halton_frequencies(8, 2, SIGMA)
    b = TOY.X_train.max(axis=0) - TOY.X_train.min(axis=0)
    for box, fraction in (("b", 1.0), ("b/4", 0.25)):
        normalized = BoxDiscrepancy(fraction * b, SIGMA, normalized=True)
        assert table.loc[(box, "halton"), "normalized"] == normalized.squared(start)
        assert table.loc[(box, "halton"), "normalized"] / table.loc[(box, "halton"), "raw"] == pytest.approx(
            np.pi**2 / np.prod(fraction * b), rel=1e-10)
        for method in ("global", "weighted"):  # both start from the Halton points
            assert table.loc[(box, method), "normalized"] <= table.loc[(box, "halton"), "normalized"]
        history = frames["history"].query("box == @box")["normalized"].to_numpy()
        assert history[0] == normalized.squared(start) and history[-1] == table.loc[(box, "global"), "normalized"]
        assert 2 <= len(history) <= 6
    assert table["expected_mc"].nunique() == 2 and (table["sigma"] == SIGMA).all() and (table["d"] == 2).all()
    assert frames["setting"].iloc[0]["sigma"] == SIGMA and frames["setting"].iloc[0]["seed"] == 3


def test_the_recorded_points_read_back_bit_for_bit_by_table3s_names(toy_learnt, tmp_path):
    frames = learnt.learn(trial=0, seed=0, data=toy_learnt,
                           s=8, boxes=[1.0, 0.5], schemes=["global", "weighted"], maxiter=4)
    read = learnt.sequences(record(tmp_path / "run", frames))
    assert list(read) == ["halton", "global_b", "weighted_b", "global_b2", "weighted_b2"]
    start = halton_frequencies(8, 2, SIGMA)
    np.testing.assert_array_equal(read["halton"][0], start)
    b = TOY.X_train.max(axis=0) - TOY.X_train.min(axis=0)
    expected = global_adaptive(start, BoxDiscrepancy(0.5 * b, SIGMA), maxiter=4)
    np.testing.assert_array_equal(read["global_b2"][0], expected)
    assert read["halton"][1] is None and read["weighted_b"][1].min() >= 0 and len(read["weighted_b"][1]) == 8


def test_an_unknown_scheme_is_refused_naming_it(toy_learnt):
    with pytest.raises(ValueError, match=r"unknown scheme\(s\) \['gready'\]; valid: \['global', 'greedy', "):
        learnt.learn.check_params(s=4, boxes=[1.0], schemes=["gready"], maxiter=2)


def test_an_unknown_trig_is_refused_naming_the_choices(toy_learnt):
    with pytest.raises(ValueError, match=r"job.trig='sines' is not one of \['direct', 'tables'\]"):
        learnt.learn.check_params(s=4, boxes=[1.0], schemes=["global"], maxiter=2, trig="sines")


def test_the_tables_trig_reaches_every_discrepancy_and_lands_near_the_direct_sequences(toy_learnt):
    """trig="tables" is the same objective to rounding: Halton's discrepancies agree to 1e-13, and a few CG
    iterations end near the direct path's points (not on them: CG turns last bits into other steps)."""
    kwargs = {"trial": 0, "seed": 3, "data": toy_learnt, "s": 8, "boxes": [1.0, 0.25], "schemes": ["global"],
              "maxiter": 3}
    direct, tables = learnt.learn(**kwargs), learnt.learn(**kwargs, trig="tables")
    columns = ["normalized", "raw"]
    np.testing.assert_allclose(tables["discrepancy"][columns], direct["discrepancy"][columns], rtol=1e-9)
    halton = direct["discrepancy"]["method"] == "halton"
    np.testing.assert_allclose(tables["discrepancy"].loc[halton, columns], direct["discrepancy"].loc[halton, columns],
                               rtol=1e-13)
    points = [c for c in direct["points"] if c.startswith("w")]
    np.testing.assert_allclose(tables["points"][points], direct["points"][points], rtol=1e-6, atol=1e-9)


def test_box_and_method_names():
    assert [learnt.box_name(f) for f in (1.0, 0.5, 0.25)] == ["b", "b/2", "b/4"]
    assert learnt.method_name("greedy", "b/4") == "greedy_b4" and learnt.method_name("halton", "b/4") == "halton"


def test_discrepancies_gathers_one_datasets_runs_by_s(tmp_path):
    runs = tmp_path / "learnt" / "runs"
    for run_id, name, s in (("r1", "cpu", 300), ("r2", "cpu", 100), ("r3", "other", 100)):
        record(runs / run_id, {"discrepancy": pd.DataFrame({"s": [s], "box": "b", "method": "halton",
                                                            "normalized": [s / 1000]})}, **{"dataset.name": name})
    assert learnt.discrepancies(tmp_path, "cpu")["s"].tolist() == [100, 300]
    assert learnt.discrepancies(tmp_path, "none").empty


def test_the_campaigns_readers_read_the_sequences_table2s_target_learns(tmp_path):
    """Table 3's cells and the cpu panels of Figs. 6-7 name runs of target table2's jobs (learnt once);
    the housing panels name the two housing runs."""
    def composed(job):
        return jobs._compose([*job, f"experiment.results_dir={tmp_path}"])

    learnt_runs = {records.run_dir(composed(job)) for job in campaign.plan("qmc", "table2").jobs}
    assert len(learnt_runs) == 5
    for target, readers in (("table3", 5), ("fig6", 3), ("fig7", 3)):
        jobs_ = [job for job in campaign.plan("qmc", target).jobs if job[0] == f"job=qmc_{target}"]
        assert len(jobs_) == readers
        read = [records.run_dir(jobs.read_configs(composed(job))["learnt"]) for job in jobs_]
        on_cpu = [run for job, run in zip(jobs_, read) if "dataset=housing" not in job]
        assert set(on_cpu) <= learnt_runs
        assert len(set(read) - learnt_runs) == (0 if target == "table3" else 1)
