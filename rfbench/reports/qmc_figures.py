"""The QMC feature-map paper's figures: Gram error vs s (Fig. 2), scrambled / plain ratio (Fig. 3)."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from rfbench import plotting

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

