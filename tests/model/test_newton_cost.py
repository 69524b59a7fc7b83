"""The Newton paths' cost estimates, the choice between them, and the refusal where neither fits."""
import numpy as np
import pytest
import scipy.sparse as sp

from rfbench.model import newton_cost
from rfbench.model.liblinear import LibLinearClassifier
from rfbench.model.newton_cost import (
    DENSE,
    ITERATIVE,
    ITERATIVE_SECONDS_PER_VALUE,
    MAX_CPU_SECONDS,
    STEPS_PER_C,
    choose_path,
    widest_affordable,
)
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


def test_the_dense_path_where_it_fits_the_iterative_one_beyond():
    """Letter's sizes: the AsK-RFF features (192 columns) go dense; Laplacian binning's 7,541 sparse
    columns (30 values a row) and GCWS's 4,096 (128) go iterative, whose estimate fits the hour."""
    solves, classes = 56, 26
    assert choose_path(12000, 192, classes, solves, False, None, 8192).kind == DENSE
    binning = choose_path(12000, 7541, classes, solves, True, 12000 * 30, 8192)
    gcws = choose_path(12000, 4096, classes, solves, True, 12000 * 128, 8192)
    assert binning.kind == gcws.kind == ITERATIVE
    assert gcws.newton_cg and not binning.newton_cg  # the faster on each (make bench, sparse_path)
    assert gcws.describe(1e-8).startswith("newton iterative: rfbench's Newton-CG on the active rows")
    assert binning.describe(1e-8).startswith("newton iterative: LibLinear -s 2 -e 1e-06")
    assert gcws.cpu_seconds == pytest.approx(ITERATIVE_SECONDS_PER_VALUE * 12000 * 128 * classes * solves)
    assert cost_of(12000, 4096, classes, solves).cpu_seconds > MAX_CPU_SECONDS  # why: the dense path does not fit
    assert choose_path(12000, 300, classes, solves, True, 12000 * 30, 200).kind == ITERATIVE  # beyond max_width
    assert choose_path(12000, 7541, classes, solves, True, None, 8192).kind == ITERATIVE  # codes not known yet


def test_newton_refuses_only_when_no_path_fits_naming_a_command_that_runs(monkeypatch):
    """Both estimates above the limit: refused before densifying, with both costs; the named solver=1 runs."""
    rng = np.random.default_rng(0)
    X = sp.random(60, 40, density=0.1, format="csr", random_state=1)
    y = rng.integers(3, size=60)
    LibLinearClassifier(solver="newton", bias=-1.0).fit(X, y)  # under the real limit: runs
    monkeypatch.setattr(newton_cost, "MAX_CPU_SECONDS", 1e-6)
    monkeypatch.setattr(sp.csr_matrix, "toarray", lambda self: pytest.fail("densified before the cost check"))
    with pytest.raises(ValueError, match=r"solver='newton' on 60 rows x 40 columns \(sparse\), 3 one-vs-rest "
                                         r"column\(s\) x 56 solve\(s\).*CPU-hours on its dense path.*CPU-hours on "
                                         r"its iterative one \(LibLinear -s 2 -e 1e-06 over 240 stored values\).*"
                                         r"choose classifier.solver=1 \(LibLinear -s 1"):
        LibLinearClassifier(solver="newton", bias=-1.0).fit(X, y)
    model = LibLinearClassifier(solver=1, bias=-1.0).fit(X, y)  # the command named
    assert model.model_path_ == "LibLinear -s 1 -e default" and model.predict(X).shape == (60,)


def test_newton_logs_its_path_and_cost_once(caplog, monkeypatch):
    monkeypatch.setattr(newton_cost, "_LOGGED", set())
    X, y = np.random.default_rng(0).standard_normal((40, 5)), np.arange(40) % 2
    with caplog.at_level("INFO", logger="rfbench"):
        for _ in range(2):
            LibLinearClassifier(solver="newton", cv=2, C_grid=[1.0, 2.0], random_state=0).fit(X, y)
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("model: newton dense")]
    assert len(lines) == 1
    assert "on 40 rows x 6 columns, 1 one-vs-rest column(s) x 5 solve(s)" in lines[0]
