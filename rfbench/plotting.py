"""Figures: a metric against log2(M/d) with mean +- std error bars, as the papers plot."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

#: Columns that tell one curve from another.
SERIES = ["kernel.name", "feature_map.name", "feature_map.part"]

LABELS = {"test_accuracy": "test accuracy", "gram_error": r"$\|K-\tilde K\|_F / \|K\|_F$",
          "time_fit": "feature sampling time (s)"}


def metric_vs_m(trials: pd.DataFrame, metric: str, path: Path) -> Path:
    """One panel per dataset: ``metric`` mean +- std over trials against log2(M/d)."""
    datasets = sorted(trials["dataset.name"].unique())
    fig, axes = plt.subplots(1, len(datasets), figsize=(4.2 * len(datasets), 3.4), squeeze=False)
    for ax, name in zip(axes[0], datasets):
        sub = trials[trials["dataset.name"] == name]
        for label, curve in sub.groupby([c for c in SERIES if c in sub], dropna=False):
            stats = curve.groupby("m_over_d")[metric].agg(["mean", "std"]).reset_index()
            ax.errorbar(np.log2(stats["m_over_d"]), stats["mean"], yerr=stats["std"].fillna(0),
                        marker="o", ms=3, capsize=3, label=_label(label))
        ax.set(title=name, xlabel=r"$\log_2(M/d)$", ylabel=LABELS.get(metric, metric))
        ax.grid(alpha=0.3)
    axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _label(key) -> str:
    parts = key if isinstance(key, tuple) else (key,)
    return " ".join(str(p) for p in parts if isinstance(p, str))
