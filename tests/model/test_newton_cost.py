"""The Newton path's cost estimate and its refusal of features too wide to solve in time."""
import numpy as np
import pytest
import scipy.sparse as sp

from rfbench.model import newton_cost
from rfbench.model.liblinear import LibLinearClassifier
from rfbench.model.newton_cost import MAX_CPU_SECONDS, STEPS_PER_C, widest_affordable
from rfbench.model.newton_cost import newton_cost as cost_of


def test_cost_counts_one_factorization_per_step_and_grows_as_the_cube_of_the_width():
    cost = cost_of(n_rows=1000, width=300, n_columns=26, n_solves=56)
    assert cost.steps == round(STEPS_PER_C * 26 * 56)
    flops = cost.steps * (300**3 / 3 + 6 * 1000 * 300)
    overhead = cost.steps * newton_cost.STEP_OVERHEAD_SECONDS
    assert cost.cpu_seconds == pytest.approx(flops / newton_cost.FLOPS_PER_CPU_SECOND + overhead)
    wide = cost_of(n_rows=1000, width=3000, n_columns=26, n_solves=56)
    assert wide.cpu_seconds > 100 * cost.cpu_seconds  # cubic in r beyond r ~ 130


def test_widest_affordable_is_the_boundary_of_the_limit():
    widest = widest_affordable(n_rows=15000, n_columns=26, n_solves=56)
    below, above = cost_of(15000, widest, 26, 56), cost_of(15000, widest + 1, 26, 56)
    assert below.cpu_seconds <= MAX_CPU_SECONDS < above.cpu_seconds


def test_newton_refuses_before_densifying_with_the_cost_and_the_cheaper_options(monkeypatch):
    monkeypatch.setattr(newton_cost, "MAX_CPU_SECONDS", 1e-6)
    rng = np.random.default_rng(0)
    X = sp.random(60, 40, density=0.1, format="csr", random_state=1)
    y = rng.integers(3, size=60)
    monkeypatch.setattr(sp.csr_matrix, "toarray", lambda self: pytest.fail("densified before the cost check"))
    with pytest.raises(ValueError, match=r"solver='newton' on 60 rows x 40 columns \(sparse.*3 one-vs-rest "
                                         r"column\(s\) x 56 solve\(s\).*CPU-hours.*choose solver=1 \(LibLinear -s 1"
                                         r".*at most 1 columns"):
        LibLinearClassifier(solver="newton", bias=-1.0).fit(X, y)


def test_newton_logs_its_path_and_cost(caplog):
    X, y = np.random.default_rng(0).standard_normal((40, 5)), np.arange(40) % 2
    with caplog.at_level("INFO", logger="rfbench"):
        LibLinearClassifier(solver="newton", cv=2, C_grid=[1.0, 2.0], random_state=0).fit(X, y)
    assert "model: solver=newton, exact, on 40 rows x 6 columns, 1 one-vs-rest column(s) x 5 solve(s)" in caplog.text
