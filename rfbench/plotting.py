"""Figures: a metric against log2(M/d) with mean +- std error bars, as the papers plot."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from rfbench.atomic import atomic_write  # noqa: E402
from rfbench.results import config_columns  # noqa: E402

#: Columns that tell one curve from another.
SERIES = ["kernel.name", "feature_map.name", "feature_map.part"]
#: What places a trial on a curve: its panel and its x.
POINT = ["dataset.name", "m_over_d"]

LABELS = {"test_accuracy": "test accuracy", "gram_error": r"$\|K-\tilde K\|_F / \|K\|_F$",
          "time_fit": "feature sampling time (s)"}


def metric_vs_m(trials: pd.DataFrame, metric: str, path: Path) -> Path:
    """One panel per dataset: ``metric`` mean +- std over trials against log2(M/d).

    A curve keeps its colour in every panel; the legend is shared, below the panels.
    """
    datasets = sorted(trials["dataset.name"].unique())
    series = series_columns(trials)
    labels = sorted({_label(series, key) for key, _ in trials.groupby(series, dropna=False)})
    colors = {label: f"C{i}" for i, label in enumerate(labels)}
    fig, axes = plt.subplots(1, len(datasets), figsize=(4.2 * len(datasets), 3.8), squeeze=False)
    for ax, name in zip(axes[0], datasets):
        sub = trials[trials["dataset.name"] == name]
        for key, curve in sub.groupby(series, dropna=False):
            stats = curve.groupby("m_over_d")[metric].agg(["mean", "std"]).reset_index()
            ax.errorbar(np.log2(stats["m_over_d"]), stats["mean"], yerr=stats["std"].fillna(0),
                        color=colors[_label(series, key)], marker="o", ms=3, capsize=3)
        ax.set(title=name, xlabel=r"$\log_2(M/d)$", ylabel=LABELS.get(metric, metric))
        _m_axis(ax)
    handles = [plt.Line2D([], [], color=colors[label], marker="o", ms=3) for label in labels]
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 4), fontsize=8)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return _save(fig, path)


def _m_axis(ax) -> None:
    """log2(M/d) takes integer values: tick only those."""
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3)


def series_columns(trials: pd.DataFrame) -> list[str]:
    """SERIES, plus every config column that varies at a point (say, a swept ``kernel.sigma``).

    Trials of different configs at one point are separate curves, never averaged.
    """
    base = [c for c in SERIES if c in trials]
    point = base + POINT
    axis = {"feature_map.m_over_d", "feature_map.n_components", *point}
    config = [c for c in config_columns(trials) if c not in axis]
    varying = trials.groupby(point, dropna=False)[config].nunique(dropna=False).gt(1).any()
    return base + [c for c in config if varying[c]]


def _label(series: list[str], key) -> str:
    """The series' names (kernel, map, part), then ``column=value`` for swept config columns."""
    parts = key if isinstance(key, tuple) else (key,)
    names = [str(v) for c, v in zip(series, parts) if c in SERIES and isinstance(v, str)]
    swept = [f"{c}={v}" for c, v in zip(series, parts) if c not in SERIES]
    return " ".join(names + swept)


PART_LABELS = {"real_pos": "real pos", "real_neg": "real neg", "imag_pos": "imaginary"}


def masses_vs_m(masses: pd.DataFrame, exact: pd.DataFrame, path: Path) -> Path:
    """AsK-RFF Fig. 1: estimated total masses (mean +- std bars) against log2(M/d), exact as lines.

    ``masses`` has columns kernel, m_over_d and mass_<part>; ``exact`` has kernel and mass_<part>.
    """
    kernels = list(dict.fromkeys(masses["kernel"]))
    fig, axes = plt.subplots(1, len(kernels), figsize=(4.5 * len(kernels), 3.6), squeeze=False)
    for ax, kernel in zip(axes[0], kernels):
        sub = masses[masses["kernel"] == kernel]
        truth = exact[exact["kernel"] == kernel].iloc[0]
        for i, (part, label) in enumerate(PART_LABELS.items()):
            stats = sub.groupby("m_over_d")[f"mass_{part}"].agg(["mean", "std"]).reset_index()
            x = np.log2(stats["m_over_d"]) + (i - 1) * 0.22
            ax.bar(x, stats["mean"], width=0.22, yerr=stats["std"], capsize=2, color=f"C{i}",
                   alpha=0.75, label=label)
            ax.axhline(truth[f"mass_{part}"], color=f"C{i}", ls="--", lw=1, label=f"true {label}")
        ax.set(title=kernel, xlabel=r"$\log_2(M/d)$", ylabel="total mass")
        _m_axis(ax)
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="lower center", ncol=6, fontsize=8)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return _save(fig, path)


def accuracy_and_time_vs_m(trials: pd.DataFrame, linear: pd.DataFrame, path: Path,
                           kernels: Sequence[str] = (), datasets: Sequence[str] = ()) -> Path:
    """AsK-RFF Fig. 3: test accuracy (top) and sampling time (bottom) against log2(M/d).

    One column per kernel (in ``kernels`` order, then any others as they come), one curve per
    dataset; the linear classifier's mean accuracy on each dataset (``linear``: columns
    dataset.name, test_accuracy) is a dashed line of the same colour.  A dataset's colour is
    its position in ``datasets`` (then the others, sorted), so it does not change with the
    datasets present.
    """
    present = list(dict.fromkeys(trials["kernel.name"]))
    kernels = [k for k in kernels if k in present] + [k for k in present if k not in kernels]
    colors = dataset_colors(trials["dataset.name"], datasets)
    fig, axes = plt.subplots(2, len(kernels), figsize=(4.5 * len(kernels), 6.4), squeeze=False)
    for col, kernel in enumerate(kernels):
        curves = trials[trials["kernel.name"] == kernel].groupby("dataset.name")
        for name, curve in sorted(curves, key=lambda item: list(colors).index(item[0])):  # legend order
            for row, metric in enumerate(("test_accuracy", "time_fit")):
                stats = curve.groupby("m_over_d")[metric].agg(["mean", "std"]).reset_index()
                axes[row][col].errorbar(np.log2(stats["m_over_d"]), stats["mean"],
                                        yerr=stats["std"].fillna(0), color=colors[name], marker="o",
                                        ms=3, capsize=3, label=name)
            base = linear.loc[linear["dataset.name"] == name, "test_accuracy"]
            if len(base):
                axes[0][col].axhline(base.mean(), color=colors[name], ls="--", lw=1)
        axes[0][col].set(title=kernel, ylabel="test accuracy (dashed: linear)")
        axes[1][col].set(xlabel=r"$\log_2(M/d)$", ylabel="feature sampling time (s)", yscale="log")
        for ax in axes[:, col]:
            _m_axis(ax)
    axes[0][0].legend(fontsize=7)
    return _save(fig, path)


def dataset_colors(present: Iterable[str], order: Sequence[str] = ()) -> dict[str, str]:
    """Matplotlib colour cycle entry per dataset: ``order`` first, then the others sorted."""
    names = list(order) + sorted(set(present) - set(order))
    return {name: f"C{i}" for i, name in enumerate(names)}


def _save(fig, path: Path) -> Path:
    if not fig.get_layout_engine():
        fig.tight_layout()
    with atomic_write(path) as handle:
        fig.savefig(handle, dpi=120, format=path.suffix.lstrip(".") or "png")
    plt.close(fig)
    return path
