"""Figures 4-5 of the QMC report: box discrepancy per sequence, 2-D integration error."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtri

from rfbench.engine.jobs import trial_seed
from rfbench.papers.qmc import fig4 as qmc_fig4
from rfbench.papers.qmc import fig5 as qmc_fig5
from rfbench.papers.qmc import protocol
from rfbench.papers.qmc import report as qmc
from rfbench.papers.qmc import table3 as qmc_table3
from rfbench.qmc.discrepancy import BoxDiscrepancy
from rfbench.qmc.sequences import unit_points
from tests.papers.qmc.conftest import SIGMA, X


def test_discrepancies_measure_the_figure2_frequencies_on_half_the_box(toy):
    first = qmc_fig4.discrepancies(trial=0, seed=5, data=toy, sizes=protocol.GRAM_SIZES, box=0.5)["discrepancy"]
    later = qmc_fig4.discrepancies(trial=1, seed=5, data=toy, sizes=protocol.GRAM_SIZES, box=0.5)["discrepancy"]
    assert list(first["sequence"].unique()) == list(protocol.SEQUENCES)
    assert "halton" not in set(later["sequence"]) and set(later["seed"]) == {trial_seed(5, 1)}
    table = later[later["sequence"] == "sobol"].set_index("s")
    assert list(table.index) == list(protocol.GRAM_SIZES) and set(table["sigma"]) == {SIGMA}
    # the frequencies of the qmc_gram trial of the same seed: the scrambled Sobol' points / sigma
    W = ndtri(unit_points("sobol", max(protocol.GRAM_SIZES), 3, scramble=True, seed=trial_seed(5, 1))) / SIGMA
    box = BoxDiscrepancy(0.5 * (X.max(axis=0) - X.min(axis=0)), SIGMA, normalized=True)
    for s in (100, 1000):
        assert table.loc[s, "discrepancy"] == pytest.approx(box.squared(W[:s]), rel=1e-12)
        assert table.loc[s, "expected_mc"] == pytest.approx(box.expected_squared_mc(s), rel=1e-12)


def _summary(disc, fro):
    return pd.DataFrame([{"dataset": "cpu", "sequence": q, "s": s, "disc_mean": d, "fro_mean": f}
                         for q, (ds, fs) in {"mc": (disc[0], fro[0]), "halton": (disc[1], fro[1])}.items()
                         for s, d, f in zip((100, 200, 300), ds, fs)])


def test_fig4_checks():
    summary = _summary(([3.0, 2.0, 1.0], [2.0, 2.5, 0.5]), ([0.3, 0.2, 0.1], [0.25, 0.22, 0.05]))
    falls = qmc_fig4._falls(summary)
    assert not falls.holds and "cpu halton (1/2 steps down)" in falls.evidence
    assert qmc_fig4._correlated(summary).holds  # the errors rank as the discrepancies do
    anti = _summary(([3.0, 2.0, 1.0], [2.5, 1.5, 0.5]), ([0.1, 0.2, 0.3], [0.15, 0.25, 0.35]))
    assert not qmc_fig4._correlated(anti).holds
    assert qmc_fig4._correlated(anti.assign(fro_mean=np.nan)).holds is None


def test_fig5_mean_squared_grid_error_is_the_normalized_discrepancy():
    W = qmc_fig5.frequencies(0)["halton"]
    axis = np.linspace(-1, 1, 401)
    u = np.stack(np.meshgrid(axis, axis), axis=-1).reshape(-1, 2)
    errors = qmc_fig5.error_grid(W, u)
    assert errors[len(u) // 2] == pytest.approx(0.0, abs=1e-12)  # u = 0: both sides are 1
    closed_form = BoxDiscrepancy(qmc_fig5.B, qmc_fig5.SIGMA, normalized=True).squared(W)
    assert np.mean(errors**2) == pytest.approx(closed_form, rel=0.02)


def test_figures_draw_their_panels(tmp_path):
    from rfbench.papers.qmc import figures as qmc_figures
    summary = _summary(([3.0, 2.0, 1.0], [2.0, 1.5, 0.5]), ([0.3, 0.2, 0.1], [0.25, 0.22, 0.05])).assign(
        disc_std=0.1, expected_mc=1.0)
    assert qmc_figures.discrepancy_panels(summary, tmp_path / "f4.png", {"cpu": "cpu"}).stat().st_size > 0
    grids = {name: np.random.default_rng(0).random((5, 5)) for name in qmc_fig5.SEQUENCES}
    path = qmc_figures.error_maps(grids, np.linspace(-1, 1, 5), tmp_path / "f5.png", qmc_fig5.SEQUENCES, "t")
    assert path.stat().st_size > 0
    metrics = {m: [3.0, 2.0, 1.0] for m in qmc_figures.STEP_METRICS}
    steps = pd.DataFrame({"panel": "a", "iteration": [0, 1, 2], **metrics})
    assert qmc_figures.metrics_vs_step(steps, "iteration", tmp_path / "f6.png", {"a": "(a)"}, "t").stat().st_size > 0


@pytest.mark.parametrize(("main", "argv", "message"), [
    (qmc.main, ["fig6"], "invalid choice: 'fig6'"),
    (qmc.main, ["fig4"], "run `make qmc-fig4` first"),
    (qmc.main, ["fig5"], "run `make qmc-fig5` first"),
    (qmc_table3.main, [], "no Table 3 run recorded below"),
])
def test_bad_command_lines_exit_2_naming_the_value(main, argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--results", str(tmp_path)])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())
