"""The QMC feature-map paper's figures: Gram error vs s (Fig. 2), scrambled / plain ratio (Fig. 3)."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm
from matplotlib.ticker import NullFormatter

from rfbench.report import plotting

NORMS = {"spectral": r"$\|K-\tilde K\|_2/\|K\|_2$", "fro": r"$\|K-\tilde K\|_F/\|K\|_F$"}
STYLE = {"halton": ("C0", "o"), "sobol": ("C1", "s"), "lattice": ("C2", "^"), "digital_net": ("C3", "v"),
         "mc": ("k", "x")}
LABEL = {"halton": "Halton", "sobol": "Sobol'", "lattice": "Lattice", "digital_net": "Digital net", "mc": "MC"}


def errors_vs_s(summary: pd.DataFrame, path: Path, titles: Mapping[str, str]) -> Path:
    """Fig. 2: per dataset (column) and norm (row), mean +- 1 sd of each sequence's error against s."""
    fig, axes = plt.subplots(2, len(titles), figsize=(4.2 * len(titles), 7.0), squeeze=False)
    for j, (name, title) in enumerate(titles.items()):
        data = summary[summary["dataset"] == name]
        for i, norm in enumerate(NORMS):
            ax = axes[i][j]
            for sequence, curve in data.groupby("sequence"):
                curve = curve.sort_values("s")
                color, marker = STYLE[sequence]
                ax.errorbar(curve["s"], curve[f"{norm}_mean"], yerr=curve[f"{norm}_std"].fillna(0), color=color,
                            marker=marker, ms=4, capsize=2, lw=1, label=LABEL[sequence])
            ax.set(yscale="log", xlabel="s", ylabel=NORMS[norm], title=title if i == 0 else "")
            ax.grid(alpha=0.3, which="both")
    axes[0][0].legend(fontsize=8)
    counts = summary.groupby("sequence")["fro_count"].max()
    fig.suptitle("Relative Gram error, mean ± 1 sd over trials\n("
                 + ", ".join(f"{LABEL[s]}: {int(n)}" for s, n in counts.items()) + ")", fontsize=9)
    fig.tight_layout()
    return plotting.save(fig, path)


def ratios_vs_s(ratios: pd.DataFrame, path: Path, titles: Mapping[str, str]) -> Path:
    """Fig. 3: per dataset, error of the scrambled sequence / the plain one against s, both norms."""
    fig, axes = plt.subplots(1, len(titles), figsize=(4.2 * len(titles), 3.8), squeeze=False)
    for ax, (name, title) in zip(axes[0], titles.items()):
        data = ratios[ratios["dataset"] == name]
        for (sequence, norm), curve in data.groupby(["sequence", "norm"]):
            curve = curve.sort_values("s")
            color, marker = STYLE[sequence]
            ax.errorbar(curve["s"], curve["ratio_mean"], yerr=curve["ratio_std"].fillna(0), color=color,
                        marker=marker, ms=4, capsize=2, lw=1, ls="-" if norm == "fro" else "--",
                        label=f"{LABEL[sequence]} ({'F' if norm == 'fro' else '2'})")
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.set(xlabel="s", ylabel="scrambled / plain error", title=title)
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7, ncol=2)
    fig.suptitle("Relative Gram error of the scrambled sequence / the plain one\n(solid: Frobenius, dashed: "
                 "spectral; bars: sd of the scrambled error / plain error)", fontsize=9)
    fig.tight_layout()
    return plotting.save(fig, path)



#: Figures 6-7's metrics and their axis labels.
STEP_METRICS = {"discrepancy": r"normalized box $D(S)^2$", "max_sq_error": r"$\max_{ij}(K-\tilde K)_{ij}^2$",
                "mean_sq_error": r"mean$_{ij}(K-\tilde K)_{ij}^2$", "fro": r"$\|K-\tilde K\|_F/\|K\|_F$"}


def metrics_vs_step(table: pd.DataFrame, x: str, path: Path, titles: Mapping[str, str], title: str) -> Path:
    """Figs. 6-7: each metric (row) of each panel (column) against the iteration or number of points."""
    fig, axes = plt.subplots(len(STEP_METRICS), len(titles), figsize=(4.0 * len(titles), 2.3 * len(STEP_METRICS)),
                             squeeze=False, sharex="col")
    for j, (key, panel_title) in enumerate(titles.items()):
        curve = table[table["panel"] == key].sort_values(x)
        for i, (metric, label) in enumerate(STEP_METRICS.items()):
            ax = axes[i][j]
            ax.plot(curve[x], curve[metric], color=f"C{i}", lw=1.2, marker="." if len(curve) < 60 else None)
            ax.set(yscale="log", ylabel=label if j == 0 else "", title=panel_title if i == 0 else "")
            ax.grid(alpha=0.3, which="both")
        axes[-1][j].set_xlabel(x)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return plotting.save(fig, path)


def discrepancy_panels(summary: pd.DataFrame, path: Path, titles: Mapping[str, str]) -> Path:
    """Fig. 4: per dataset, D^{b/2} against s (top) and the Frobenius Gram error against D^{b/2} (bottom)."""
    fig, axes = plt.subplots(2, len(titles), figsize=(5.4 * len(titles), 7.6), squeeze=False)
    for j, (name, title) in enumerate(titles.items()):
        data = summary[summary["dataset"] == name]
        for sequence, curve in data.groupby("sequence"):
            curve = curve.sort_values("s")
            color, marker = STYLE[sequence]
            axes[0][j].errorbar(curve["s"], curve["disc_mean"], yerr=curve["disc_std"].fillna(0), color=color,
                                marker=marker, ms=4, capsize=2, lw=1, label=LABEL[sequence])
            axes[1][j].plot(curve["disc_mean"], curve["fro_mean"], color=color, marker=marker, ms=4, lw=1,
                            label=LABEL[sequence])
        mc = data[data["sequence"] == "mc"].sort_values("s")
        axes[0][j].plot(mc["s"], mc["expected_mc"], color="grey", ls=":", lw=1.2, label="MC expectation (13)")
        axes[0][j].set(xscale="log", yscale="log", xlabel="s", ylabel=r"normalized $D(S)^2$ on box b/2",
                       title=f"{title}:\ndiscrepancy vs s")
        axes[1][j].set(xscale="log", yscale="log", xlabel=r"normalized $D(S)^2$ on box b/2",
                       ylabel=r"$\|K-\tilde K\|_F/\|K\|_F$", title=f"{title}:\nGram error vs discrepancy")
        axes[1][j].xaxis.set_minor_formatter(NullFormatter())
        for ax in axes[:, j]:
            ax.grid(alpha=0.3, which="both")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Box discrepancy on the central half of the bounding box (mean ± 1 sd over trials)", fontsize=10)
    fig.tight_layout()
    return plotting.save(fig, path)


def error_maps(grids: Mapping[str, np.ndarray], axis: np.ndarray, path: Path, titles: Mapping[str, str],
               title: str) -> Path:
    """Fig. 5: one heat map of |integration error| per sequence, on a shared logarithmic color scale."""
    fig, axes = plt.subplots(1, len(titles), figsize=(3.6 * len(titles), 3.6), squeeze=False, layout="constrained")
    low = max(min(float(g[g > 0].min()) for g in grids.values()), 1e-6)
    norm = LogNorm(vmin=low, vmax=max(float(g.max()) for g in grids.values()))
    extent = (axis[0], axis[-1], axis[0], axis[-1])
    for ax, (name, label) in zip(axes[0], titles.items()):
        image = ax.imshow(grids[name], origin="lower", extent=extent, norm=norm, cmap="viridis")
        half = axis[-1] / 2
        ax.add_patch(plt.Rectangle((-half, -half), 2 * half, 2 * half, fill=False, ec="w", lw=0.8, ls="--"))
        ax.set(title=label, xlabel="$u_1$", ylabel="$u_2$" if ax is axes[0][0] else "")
    fig.colorbar(image, ax=axes[0].tolist(), shrink=0.85, label="|error| (dashed: box b/2)")
    fig.suptitle(title, fontsize=10)
    return plotting.save(fig, path)
