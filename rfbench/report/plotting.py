"""Generic figures: a metric against log2(M/d) with mean +- 1 sd error bars, as the papers plot
(:func:`metric_vs_m`), or in a panel per dataset, kernel and feature map as ``rfbench-aggregate`` draws
any results tree (:func:`panels_vs_m`), and the pieces a paper's own figures are made of
(:func:`error_bars`, :func:`caption`, :func:`m_axis`, :func:`dataset_colors`, :func:`save`).

Every figure says what its bars are and how many trials each point has (in a caption, and
at the points themselves when that number differs between points).  A metric that cannot be
negative (times, the Gram error, masses) has its lower whisker stopped at 0.
"""
from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import MaxNLocator, NullLocator  # noqa: E402
from PIL import Image  # noqa: E402

from rfbench.engine.records import config_columns  # noqa: E402
from rfbench.storage.atomic import atomic_write  # noqa: E402

#: Columns that tell one curve from another.
SERIES = ["kernel.name", "feature_map.name", "feature_map.part"]
#: What places a trial on a curve: its panel and its x.
POINT = ["dataset.name", "m_over_d"]

LABELS = {"test_accuracy": "test accuracy", "gram_error": r"$\|K-\tilde K\|_F / \|K\|_F$",
          "time_fit": "feature sampling time (s)"}


def metric_vs_m(trials: pd.DataFrame, metric: str, path: Path) -> Path:
    """One panel per dataset: ``metric`` mean +- 1 sd over trials against log2(M/d), one curve per config.

    A curve keeps its colour in every panel; the legend is shared, below the panels.
    """
    datasets = sorted(trials["dataset.name"].unique())
    series = series_columns(trials)
    labels = sorted({_label(series, key) for key, _ in trials.groupby(series, dropna=False)})
    colors = {label: f"C{i}" for i, label in enumerate(labels)}
    fig, axes = plt.subplots(1, len(datasets), figsize=(4.2 * len(datasets), 4.2), squeeze=False)
    points = []
    for ax, name in zip(axes[0], datasets):
        sub = trials[trials["dataset.name"] == name]
        for key, curve in sub.groupby(series, dropna=False):
            points.append((ax, error_bars(ax, curve, metric, color=colors[_label(series, key)])))
        ax.set(title=name, xlabel=r"$\log_2(M/d)$", ylabel=LABELS.get(metric, metric))
        m_axis(ax)
    handles = [plt.Line2D([], [], color=colors[label], marker="o", ms=3) for label in labels]
    fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0.05), ncol=min(len(labels), 4),
               fontsize=8)
    caption(fig, points)
    fig.tight_layout(rect=(0, 0.16, 1, 1))
    return save(fig, path)


#: What gives a trial a panel of its own in :func:`panels_vs_m`: unlike runs never share an axis.
PANEL = ["dataset.name", "kernel.name", "feature_map.name"]
#: A metric whose means span more than this factor is drawn on a logarithmic y axis.
DECADE = 10.0


def panels_vs_m(trials: pd.DataFrame, metric: str, path: Path) -> Path:
    """:func:`metric_panels` written to ``path``."""
    return save(metric_panels(trials, metric), path)


def metric_panels(trials: pd.DataFrame, metric: str):
    """One panel per (dataset, kernel, feature map) found: ``metric`` mean +- 1 sd against M/d.

    x is M/d on a log2 scale, ticked at the values the panel's runs have; y is logarithmic when a
    nonnegative metric's means span more than a decade (:func:`log_y`).  Within a panel a curve per
    remaining difference (AsK-RFF's part, a swept ``kernel.sigma``), keeping its colour in every panel.
    """
    trials = trials.dropna(subset=[metric])  # a run without the metric (no model: no accuracy) has no panel
    panel = [c for c in PANEL if c in trials]
    series = _telling(trials, [c for c in series_columns(trials) if c not in panel])
    panels = list(trials.groupby(panel, dropna=False))
    labels = sorted({label for _, sub in panels for label, _ in _curves(sub, series)})
    colors = {label: f"C{i}" for i, label in enumerate(labels)}
    ncols = min(len(panels), 3)
    nrows = -(-len(panels) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.4 * ncols, 3.7 * nrows + 0.5), squeeze=False)
    points = []
    for ax, (key, sub) in zip(axes.flat, panels):
        for label, curve in _curves(sub, series):
            stats = error_bars(ax, curve, metric, log2_x=False, color=colors[label], label=label or None)
            points.append((ax, stats))
        ratio_axis(ax, sorted(sub["m_over_d"].unique()))
        if log_y(metric, sub.groupby([*series, "m_over_d"], dropna=False)[metric].mean()):
            ax.set_yscale("log")
        ax.set(title=" | ".join(str(v) for v in (key if isinstance(key, tuple) else (key,))),
               ylabel=LABELS.get(metric, metric))
        if ax.get_legend_handles_labels()[1]:  # the panel has curves told apart by a label
            ax.legend(fontsize=7)
    for ax in axes.flat[len(panels):]:
        ax.set_axis_off()
    caption(fig, points)
    fig.tight_layout(rect=(0, 0.5 / (3.7 * nrows + 0.5), 1, 1))  # the caption's half inch
    return fig


def _telling(trials: pd.DataFrame, series: list[str]) -> list[str]:
    """The columns of ``series`` that tell its curves apart, names first: each that varies and is not determined
    by those kept before it (a classifier's solver and grid go with its name).  Grouping by them splits the
    trials as ``series`` does, with short labels."""
    kept: list[str] = []
    for column in sorted(series, key=lambda c: not c.endswith(".name")):
        within = trials.groupby(kept, dropna=False)[column].nunique(dropna=False).max() if kept else \
            trials[column].nunique(dropna=False)
        if within > 1:
            kept.append(column)
    return kept


def _curves(trials: pd.DataFrame, series: list[str]) -> list[tuple[str, pd.DataFrame]]:
    """(label, trials) of each curve: one per value of ``series`` (the whole frame if there is none)."""
    if not series:
        return [("", trials)]
    return [(_label(series, key), curve) for key, curve in trials.groupby(series, dropna=False)]


def ratio_axis(ax, ratios: Sequence[float]) -> None:
    """x is M/d on a log2 scale, ticked at ``ratios`` as they are (``0.5, 1, 2, ...``); a single value is centred."""
    ax.set_xscale("log", base=2)
    ax.set_xticks(ratios, [f"{r:.3g}" for r in ratios])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlim(min(ratios) / 1.5, max(ratios) * 1.5)
    ax.set_xlabel("M/d")
    ax.grid(alpha=0.3)


def log_y(metric: str, means: pd.Series) -> bool:
    """Whether a metric's means go on a log axis: an error, time or other nonnegative metric, all means positive,
    spanning more than a decade."""
    means = means.dropna()
    return ((_nonnegative(metric) or "error" in metric) and len(means) > 1 and bool((means > 0).all())
            and means.max() / means.min() > DECADE)


def _nonnegative(metric: str) -> bool:
    return metric.startswith(("time_", "mass_")) or metric == "gram_error"


def point_stats(curve: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Per M/d: x = log2(M/d), mean, count and the whiskers (lower, upper) of mean +- 1 sd."""
    stats = curve.groupby("m_over_d")[metric].agg(["mean", "std", "count"]).reset_index()
    stats["x"] = np.log2(stats["m_over_d"])
    stats["upper"] = stats["std"].fillna(0)  # one trial: no spread to show
    bottom = stats["mean"].clip(lower=0) if _nonnegative(metric) else np.inf
    stats["lower"] = np.minimum(stats["upper"], bottom)
    return stats


def error_bars(ax, curve: pd.DataFrame, metric: str, *, log2_x: bool = True, **style) -> pd.DataFrame:
    """Plot one curve's ``metric``, mean +- 1 sd per M/d; return its :func:`point_stats`, whose ``x`` is
    where the points are: log2(M/d), or M/d itself for a log-scaled axis (``log2_x=False``)."""
    stats = point_stats(curve, metric)
    if not log2_x:
        stats["x"] = stats["m_over_d"]
    ax.errorbar(stats["x"], stats["mean"], yerr=[stats["lower"], stats["upper"]], marker="o", ms=3,
                capsize=3, **style)
    return stats


def caption(fig, points: list[tuple[object, pd.DataFrame]]) -> None:
    """Say what the bars are and how many trials a point has; if that varies, write n at each point.

    ``points`` pairs each axes with a curve's statistics from :func:`error_bars`.
    """
    counts = pd.concat([stats["count"] for _, stats in points])
    if counts.nunique() == 1:
        n = f"{counts.iloc[0]} trial(s) per point"
    else:
        n = f"{counts.min()}-{counts.max()} trials per point (n at each point)"
        index: dict[object, int] = {}  # of a curve in its axes: stacks the labels where curves meet
        for ax, stats in points:
            index[ax] = index.get(ax, -1) + 1
            for x, y, count in zip(stats["x"], stats["mean"], stats["count"]):
                ax.annotate(f"n={count}", (x, y), xytext=(3, 3 + 7 * index[ax]), textcoords="offset points",
                            fontsize=6)
    fig.text(0.5, 0.01, f"bars: mean ± 1 sd over trials; {n}", ha="center", va="bottom", fontsize=8)


def m_axis(ax) -> None:
    """log2(M/d) takes integer values: tick only those."""
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3)


def series_columns(trials: pd.DataFrame) -> list[str]:
    """SERIES, plus every config column that varies at a point (say, a swept ``kernel.sigma``).

    Trials of different configs are separate curves, never averaged nor joined into one
    line: a config value that varies within a panel's curve (at one point, or between
    points, as when unrelated runs share a results folder) splits it.
    """
    base = [c for c in SERIES if c in trials]
    curve = base + ["dataset.name"]
    axis = {"feature_map.m_over_d", "feature_map.n_components", *curve, *POINT}
    config = [c for c in config_columns(trials) if c not in axis]
    varying = trials.groupby(curve, dropna=False)[config].nunique(dropna=False).gt(1).any()
    return base + [c for c in config if varying[c]]


def _label(series: list[str], key) -> str:
    """The series' names (kernel, map, part), then ``column=value`` for swept config columns."""
    parts = key if isinstance(key, tuple) else (key,)
    names = [str(v) for c, v in zip(series, parts) if c in SERIES and isinstance(v, str)]
    swept = [f"{c}={v}" for c, v in zip(series, parts) if c not in SERIES]
    return " ".join(names + swept)


def dataset_colors(present: Iterable[str], order: Sequence[str] = ()) -> dict[str, str]:
    """Matplotlib colour cycle entry per dataset: ``order`` first, then the others sorted."""
    names = list(order) + sorted(set(present) - set(order))
    return {name: f"C{i}" for i, name in enumerate(names)}


def save(fig, path: Path) -> Path:
    """Write ``fig`` to ``path`` atomically (format from the suffix, 120 dpi) and close it.

    A PNG is stored with a palette of 256 colours when that changes no pixel visibly (:func:`_png`):
    the committed figures then take about a third of the bytes.
    """
    if not fig.get_layout_engine():
        fig.tight_layout()
    fmt = path.suffix.lstrip(".") or "png"
    with atomic_write(path) as handle:
        if fmt == "png":
            handle.write(_png(fig))
        else:
            fig.savefig(handle, dpi=120, format=fmt)
    plt.close(fig)
    return path


#: The largest change of a pixel's colour channel (of 255) a palette may make at the 99th percentile
#: of pixels: line plots stay under it, a heat map's continuous colours (QMC's Fig. 5) do not and
#: keep their full colours, since there the colour is the value.
PALETTE_TOLERANCE = 12


def _png(fig) -> bytes:
    """``fig`` as PNG bytes at 120 dpi: with a 256-colour palette (median cut, no dithering) if it keeps
    every pixel within :data:`PALETTE_TOLERANCE`, else in full colour (RGBA, as matplotlib writes it)."""
    rendered = io.BytesIO()
    fig.savefig(rendered, dpi=120, format="png")
    full = Image.open(rendered).convert("RGB")  # an opaque figure: alpha is 255 everywhere
    palette = full.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    change = np.abs(np.asarray(palette.convert("RGB"), dtype=np.int16) - np.asarray(full, dtype=np.int16))
    if np.percentile(change.max(axis=2), 99) > PALETTE_TOLERANCE:
        return rendered.getvalue()
    out = io.BytesIO()
    palette.save(out, format="png", optimize=True)
    return out.getvalue()
