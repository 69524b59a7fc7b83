"""AsK-RFF's own figures: Fig. 1 (total masses), Fig. 3 (accuracy and sampling time) and accuracy
against the number of feature columns (Table 1 at equal width).

Fig. 2 is the generic :func:`rfbench.report.plotting.metric_vs_m` of the Gram error.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import NullFormatter, ScalarFormatter

from rfbench.report import plotting

PART_LABELS = {"real_pos": "real pos", "real_neg": "real neg", "imag_pos": "imaginary"}


def masses_vs_m(masses: pd.DataFrame, exact: pd.DataFrame, path: Path) -> Path:
    """Fig. 1: estimated total masses (mean +- 1 sd bars) against log2(M/d), exact as lines.

    ``masses`` has columns kernel, m_over_d and mass_<part>; ``exact`` has kernel and mass_<part>.
    """
    kernels = list(dict.fromkeys(masses["kernel"]))
    fig, axes = plt.subplots(1, len(kernels), figsize=(4.5 * len(kernels), 4.0), squeeze=False)
    points = []
    for ax, kernel in zip(axes[0], kernels):
        sub = masses[masses["kernel"] == kernel]
        truth = exact[exact["kernel"] == kernel].iloc[0]
        for i, (part, label) in enumerate(PART_LABELS.items()):
            stats = plotting.point_stats(sub, f"mass_{part}")
            stats["x"] += (i - 1) * 0.22
            ax.bar(stats["x"], stats["mean"], width=0.22, yerr=[stats["lower"], stats["upper"]], capsize=2,
                   color=f"C{i}", alpha=0.75, label=label)
            ax.axhline(truth[f"mass_{part}"], color=f"C{i}", ls="--", lw=1, label=f"true {label}")
            points.append((ax, stats))
        ax.set(title=kernel, xlabel=r"$\log_2(M/d)$", ylabel="total mass")
        plotting.m_axis(ax)
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="lower center", bbox_to_anchor=(0.5, 0.05),
               ncol=6, fontsize=8)
    plotting.caption(fig, points)
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    return plotting.save(fig, path)


def accuracy_and_time_vs_m(trials: pd.DataFrame, linear: pd.DataFrame, path: Path,
                           kernels: Sequence[str] = (), datasets: Sequence[str] = ()) -> Path:
    """Fig. 3: test accuracy (top) and sampling time (bottom) against log2(M/d).

    One column per kernel (in ``kernels`` order, then any others as they come), one curve per
    dataset; the linear classifier's mean accuracy on each dataset (``linear``: columns
    dataset.name, test_accuracy) is a dashed line of the same colour.  A dataset's colour is
    its position in ``datasets`` (then the others, sorted), so it does not change with the
    datasets present.
    """
    present = list(dict.fromkeys(trials["kernel.name"]))
    kernels = [k for k in kernels if k in present] + [k for k in present if k not in kernels]
    colors = plotting.dataset_colors(trials["dataset.name"], datasets)
    fig, axes = plt.subplots(2, len(kernels), figsize=(4.5 * len(kernels), 6.8), squeeze=False)
    points = []
    for col, kernel in enumerate(kernels):
        curves = trials[trials["kernel.name"] == kernel].groupby("dataset.name")
        for name, curve in sorted(curves, key=lambda item: list(colors).index(item[0])):  # legend order
            for row, metric in enumerate(("test_accuracy", "time_fit")):
                ax = axes[row][col]
                points.append((ax, plotting.error_bars(ax, curve, metric, color=colors[name], label=name)))
            base = linear.loc[linear["dataset.name"] == name, "test_accuracy"]
            if len(base):
                axes[0][col].axhline(base.mean(), color=colors[name], ls="--", lw=1)
        axes[0][col].set(title=kernel, ylabel="test accuracy (dashed: linear)")
        axes[1][col].set(xlabel=r"$\log_2(M/d)$", ylabel="feature sampling time (s)", yscale="log")
        for ax in axes[:, col]:
            plotting.m_axis(ax)
    axes[0][0].legend(fontsize=7)
    plotting.caption(fig, points)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return plotting.save(fig, path)


def accuracy_vs_width(cells: pd.DataFrame, path: Path, kernels: Sequence[str] = (),
                      datasets: Sequence[str] = ()) -> Path:
    """Test accuracy against the number of real feature columns: one panel per dataset.

    ``cells`` has one row per run (dataset.name, kernel.name, approximation, columns, mean,
    sd, n; accuracy in %).  RBF is one black curve over its M; each kernel's Asy runs are a
    curve and its Sym a point, in the kernel's colour (its position in ``kernels``).
    """
    names = [d for d in datasets if d in set(cells["dataset.name"])]
    names += sorted(set(cells["dataset.name"]) - set(names))
    colors = {k: f"C{i}" for i, k in enumerate(kernels)}
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 4.0), squeeze=False)
    rank = {k: i for i, k in enumerate(kernels)}
    for ax, name in zip(axes[0], names):
        sub = cells[cells["dataset.name"] == name].sort_values("columns")
        curves = sorted(sub.groupby(["kernel.name", "approximation"]), key=lambda item: (
            item[0][1] != "RBF", rank.get(item[0][0], len(rank)), item[0][1]))  # RBF, then kernels: Asy, Sym
        for (kernel, approximation), curve in curves:
            style = ({"color": "k", "marker": "o", "label": "RBF"} if approximation == "RBF" else
                     {"color": colors.get(kernel, "0.5"), "marker": "o" if approximation == "Asy" else "s",
                      "ls": "-" if approximation == "Asy" else "none", "label": f"{kernel} {approximation}"})
            ax.errorbar(curve["columns"], curve["mean"], yerr=curve["sd"].fillna(0), ms=4, capsize=2, **style)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set(title=name, xlabel="real feature columns (log scale)", ylabel="test accuracy (%)")
        ax.grid(alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0.05), ncol=7, fontsize=7)
    counts = cells["n"].astype(int)
    n = f"{counts.min()}-{counts.max()}" if counts.nunique() > 1 else f"{counts.iloc[0]}"
    fig.text(0.5, 0.005, f"bars: mean ± 1 sd over trials; {n} trials per point", ha="center", va="bottom",
             fontsize=8)
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    return plotting.save(fig, path)
