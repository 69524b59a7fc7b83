"""The Bochner random-features tutorial's demo, and a check of the kernel it claims to estimate.

The tutorial (``../shared/papers/bochner-rff-tutorial.txt``) draws w_1..w_K ~ p = N(0, 1),
maps a point x to psi(x) = K^-1/2 [cos(w_k x), sin(w_k x)]_k, and estimates the kernel at
x = 1, y = 2 by psi(x)^T psi(y) = (1/K) sum_k cos(w_k (x - y)), plotting the error against K
for the "true kernel" it states, (2 pi)^-1/2 exp(-(x - y)^2 / 2).  By the law of large numbers
the estimate tends to E[cos(w D)] = int cos(w D) p(w) dw = exp(-D^2 / 2) (the characteristic
function of N(0, 1)): that limit is computed here both in closed form and by quadrature and
set against the stated target.

    python -m rfbench.reports.tutorial [--results results] [--seed 0]

writes ``<results>/tutorial/``: ``tutorial.png`` (error against K; the estimated kernel
curve), ``tutorial.csv`` (the errors for every K) and ``tutorial.md`` (the finding, with
numbers).  Everything is seeded, so reruns give the same files.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy import integrate, stats  # noqa: E402

from rfbench import results  # noqa: E402
from rfbench.atomic import atomic_write  # noqa: E402

#: The tutorial's two inputs.
X, Y = 1.0, 2.0
#: Largest K, independent repetitions of the whole K sweep, and the K shown in the table.
K_MAX, REPS = 1000, 200
TABLE_K = (1, 10, 50, 100, 1000)
#: Differences D at which the right panel draws the estimated kernel, for these K.
CURVE_D = np.linspace(-5.0, 5.0, 401)
CURVE_K = (10, 100, 1000)


def stated_target(D: np.ndarray | float) -> np.ndarray:
    """The tutorial's "true kernel" (2 pi)^-1/2 exp(-D^2 / 2), i.e. the N(0, 1) density at D."""
    return stats.norm.pdf(D)


def exact_limit(D: np.ndarray | float) -> np.ndarray:
    """E_{w ~ N(0,1)}[cos(w D)] = exp(-D^2 / 2), the characteristic function of N(0, 1)."""
    return np.exp(-0.5 * np.square(D))


def quadrature_limit(D: float) -> tuple[float, float]:
    """int e^{-i w D} p(w) dw by numerical integration: (real part, imaginary part)."""
    re = integrate.quad(lambda w: np.cos(w * D) * stats.norm.pdf(w), -np.inf, np.inf, epsabs=1e-13)[0]
    im = -integrate.quad(lambda w: np.sin(w * D) * stats.norm.pdf(w), -np.inf, np.inf, epsabs=1e-13)[0]
    return re, im


def running_estimates(w: np.ndarray, x: float, y: float) -> np.ndarray:
    """psi(x)^T psi(y) with the first K frequencies of each row of ``w``, for K = 1..w.shape[-1].

    Computed as the tutorial writes it, cos(w x) cos(w y) + sin(w x) sin(w y).
    """
    terms = np.cos(w * x) * np.cos(w * y) + np.sin(w * x) * np.sin(w * y)
    return np.cumsum(terms, axis=-1) / np.arange(1, w.shape[-1] + 1)


def error_table(estimates: np.ndarray) -> pd.DataFrame:
    """RMS error over repetitions against both targets, with its theoretical value, for every K.

    One term cos(w D) has variance v = (1 + e^{-2 D^2}) / 2 - e^{-D^2}, so the estimate has
    RMS error sqrt(v / K) about the limit and sqrt(v / K + bias^2) about the stated target.
    """
    D = X - Y
    limit, stated = exact_limit(D), stated_target(D)
    var = 0.5 * (1.0 + exact_limit(2 * D)) - limit**2
    K = np.arange(1, estimates.shape[1] + 1)
    return pd.DataFrame({
        "K": K,
        "mean_estimate": estimates.mean(axis=0),
        "single_run_estimate": estimates[0],
        "rms_error_vs_stated": np.sqrt(np.mean((estimates - stated) ** 2, axis=0)),
        "theory_vs_stated": np.sqrt(var / K + (limit - stated) ** 2),
        "rms_error_vs_limit": np.sqrt(np.mean((estimates - limit) ** 2, axis=0)),
        "theory_vs_limit": np.sqrt(var / K),
    })


def run(out: Path, seed: int = 0) -> pd.DataFrame:
    """Compute the demo and write ``tutorial.{png,csv,md}`` under ``out``; return the error table."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((REPS, K_MAX))
    table = error_table(running_estimates(w, X, Y)).round(8)
    curves = {K: running_estimates(w[0, :K], CURVE_D[:, None], 0.0)[:, -1] for K in CURVE_K}
    out.mkdir(parents=True, exist_ok=True)
    _figure(table, curves, out / "tutorial.png")
    results.write_csv(out / "tutorial.csv", table)
    results.write_atomic(out / "tutorial.md", _markdown(table, seed))
    return table


def _figure(table: pd.DataFrame, curves: dict[int, np.ndarray], path: Path) -> None:
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4))
    K = table["K"]
    left.loglog(K, table["rms_error_vs_stated"], color="C3", label="vs the stated target $e^{-D^2/2}/\\sqrt{2\\pi}$")
    left.loglog(K, table["theory_vs_stated"], color="C3", ls=":", label="theory $\\sqrt{v/K + bias^2}$")
    left.loglog(K, table["rms_error_vs_limit"], color="C0", label="vs the actual limit $e^{-D^2/2}$")
    left.loglog(K, table["theory_vs_limit"], color="C0", ls=":", label="theory $\\sqrt{v/K}$")
    left.set(xlabel="K (random features)", ylabel=f"RMS error over {REPS} repetitions",
             title=f"estimate of k(x - y) at x = {X:g}, y = {Y:g}")
    left.legend(fontsize=8)
    for color, (k, curve) in zip(("C1", "C2", "C4"), curves.items()):
        right.plot(CURVE_D, curve, color=color, lw=0.9, label=f"estimate, K = {k}")
    right.plot(CURVE_D, exact_limit(CURVE_D), color="k", label="actual limit $e^{-D^2/2}$")
    right.plot(CURVE_D, stated_target(CURVE_D), color="C3", ls="--", label="stated target")
    right.plot([X - Y] * 2, [stated_target(X - Y), exact_limit(X - Y)], "o", color="C0", ms=4,
               label=f"D = {X - Y:g}, the tutorial's point")
    right.set(xlabel="D = x - y", ylabel="k(D)", title="estimated kernel (one draw of w)")
    right.legend(fontsize=8)
    fig.text(0.5, 0.01, "Random features w ~ N(0, 1) as in the tutorial; dotted lines: exact RMS error "
             "(v = Var cos(wD)).", ha="center", fontsize=8)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    with atomic_write(path) as handle:
        fig.savefig(handle, dpi=120, format="png")
    plt.close(fig)


def _markdown(table: pd.DataFrame, seed: int) -> str:
    D = X - Y
    limit, stated = float(exact_limit(D)), float(stated_target(D))
    quad_re, quad_im = quadrature_limit(D)
    rows = table[table["K"].isin(TABLE_K)]
    k50 = table.set_index("K").loc[50]
    return "\n".join([
        "# The Bochner tutorial's demo: which kernel do its random features estimate?",
        "",
        f"Setup as in the tutorial: p(w) = N(0, 1), x = {X:g}, y = {Y:g} (D = x - y = {D:g}), "
        "estimate psi(x)^T psi(y) = (1/K) sum_k cos(w_k x) cos(w_k y) + sin(w_k x) sin(w_k y); "
        f"{REPS} independent repetitions of the sweep K = 1..{K_MAX} (seed {seed}).",
        "",
        "## Finding: the stated target is not the estimator's limit",
        "",
        "| quantity | value |",
        "| --- | --- |",
        f"| tutorial's stated kernel (2 pi)^-1/2 exp(-D^2/2) at D = {D:g} | {stated:.6f} |",
        f"| actual limit E[cos(w D)] = exp(-D^2/2), closed form | {limit:.6f} |",
        f"| actual limit by numerical integration of e^(-iwD) p(w): real part (imaginary part) | "
        f"{quad_re:.6f} ({abs(quad_im):.0e} in magnitude) |",
        f"| limit / stated = sqrt(2 pi) | {limit / stated:.4f} |",
        f"| mean estimate at K = {K_MAX} over {REPS} repetitions | {table['mean_estimate'].iloc[-1]:.6f} |",
        "",
        "The features estimate exp(-D^2/2), the Fourier transform of N(0, 1), not the N(0, 1) "
        "density (2 pi)^-1/2 exp(-D^2/2) that the tutorial states: the stated kernel has "
        f"k(0) = {float(stated_target(0.0)):.4f}, whereas any kernel whose spectral measure is a "
        "probability density p has k(0) = int p = 1.  Measured against the stated target, the "
        f"error never vanishes: it tends to |{limit:.4f} - {stated:.4f}| = {limit - stated:.4f} for "
        "every K, contradicting the tutorial's \"when K >= 50, the error is nearly nonexistent\". "
        f"Against the actual limit the RMS error at K = 50 is {k50['rms_error_vs_limit']:.4f} "
        f"(theory {k50['theory_vs_limit']:.4f}) and falls like K^-1/2.  The tutorial's own animation "
        "code averages cos(w D) and so converges to exp(-D^2/2), peaking at 1, not at 0.399.",
        "",
        "## RMS error against K",
        "",
        rows.astype({"K": str}).to_markdown(index=False, floatfmt=".4f"),
        "",
        "Theory columns: one term has variance v = (1 + e^(-2 D^2))/2 - e^(-D^2) = "
        f"{0.5 * (1 + float(exact_limit(2 * D))) - limit**2:.4f}; RMS error sqrt(v/K) about the "
        "limit and sqrt(v/K + bias^2) about the stated target.  Every K is in `tutorial.csv`; "
        "the figure is `tutorial.png`.",
        "",
        "## Smaller slips in the tutorial's derivation (they do not change the estimator)",
        "",
        "- The inner product is written phi(x) phi(x)^*; it should be phi(x)^T phi(y)^*.",
        "- \"sin(-x) = sin(x)\" should read sin(-x) = -sin(x).",
        "- E_p[sin(f(w))] = 0 is claimed \"for any function f\"; it needs p even and f odd, which "
        "holds for f(w) = w (x - y).",
        "",
    ])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m rfbench.reports.tutorial", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=Path, default=Path("results"),
                        help="results tree; writes <results>/tutorial/tutorial.{png,csv,md}")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random features (>= 0)")
    args = parser.parse_args(argv)
    out = args.results / "tutorial"
    try:
        run(out, seed=args.seed)
    except (OSError, ValueError) as err:  # OSError: --results naming a file
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    print(f"wrote {out}/tutorial.{{png,csv,md}}")


if __name__ == "__main__":
    main()
