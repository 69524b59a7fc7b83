"""The atlas's report, from the records alone: every map's error, accuracy, time and memory.

    python -m rfbench.papers.atlas.report [--results results]
    python -m rfbench.papers.atlas.report --own atlas_own --reference results --results my_results

reads the runs below ``<results>/atlas/runs/`` (``make atlas``, ``configs/campaign/atlas.yaml``) and
the bandwidth job's records below ``<results>/atlas/bandwidth/`` and writes ``<results>/atlas/``.
With ``--own <name>`` (the campaign's ``own_*`` targets: a user's own feature map), it reads the atlas
from ``<reference>/atlas`` (the committed records, never written) and the user's runs from
``<results>/<name>/runs``, and writes the same files, the user's maps beside the atlas's, to
``<results>/<name>/``; its budget tables add where each of the user's maps stands.  The files:

- ``points.csv``: one row per kernel, dataset, map and width: columns (mean), the relative Gram
  errors (Frobenius, spectral) and the test score (mean, sd, trials), the training set's transform
  time and the peak traced memory of the transform (medians over trials: a process's first trial
  also compiles numba's kernels, slowly under ``tracemalloc``), the map's sampling time (mean);
- ``budget.csv``: which map for which budget (:func:`budget_table`), read from ``points.csv``;
- ``error_vs_width_<kernel>.png``, ``pareto_<kernel>.png`` (error against transform time, each
  dataset's Pareto front drawn), ``score_vs_width_<kernel>.png``;
- ``atlas.md``: the bandwidths, the budget tables and the figures.

Verdict-free: no paper publishes these numbers.  A run whose kernel bandwidth is not the one its
dataset's bandwidth record chose is refused (the campaign pins the sigmas; this keeps them honest).
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from rfbench.engine import campaign, jobs, records  # noqa: E402
from rfbench.report import plotting, render  # noqa: E402
from rfbench.storage.atomic import write_atomic  # noqa: E402

#: The test score of each task, and whether lower is better.
SCORES = {"test_accuracy": False, "test_relative_error": True}
#: Width budgets: at most 2^k d real columns.
WIDTH_BUDGETS = tuple(2**k for k in range(1, 7))
#: Time budgets: at most this many seconds to transform the training set.
TIME_BUDGETS = (0.01, 0.1, 1.0, 10.0)
#: What tells a point apart (config columns; absent ones are ignored).
MAP_KEYS = ["feature_map.name", "feature_map.variant", "feature_map.sequence", "feature_map.landmarks"]
POINT_KEYS = ["kernel.name", "dataset.name", "map", "feature_map.m_over_d", "feature_map.n_components"]
#: A map's name in the atlas: its option, and the option value that makes it another map.
VARIANT_NAMES = {"cos_offset_2m": "rff cos+b"}


def render_atlas(results: Path, own: str | None = None, reference: Path | None = None) -> Path:
    """Write the atlas's tables, figures and Markdown under ``<results>/atlas`` from its records.

    ``own``: the experiment name of a user's runs (``<results>/<own>/runs``), drawn beside the atlas of
    ``<reference>/atlas`` (default ``results``), which is read only; the output goes to ``<results>/<own>``.
    """
    atlas = (reference or results) / "atlas"
    out = results / own if own else atlas
    bandwidths = read_bandwidths(atlas / "bandwidth")
    trials = read_trials(atlas)
    coverage = (trials["run_id"].nunique(), planned_runs())
    mine = read_own(out, trials) if own else trials.iloc[:0]
    trials = pd.concat([trials[~trials["run_id"].isin(mine["run_id"])], mine], ignore_index=True)
    check_bandwidths(trials, bandwidths)
    points = point_table(trials)
    records.write_csv(out / "points.csv", points)
    own_maps = sorted(mine["map"].unique())
    budget = budget_table(points, own_maps)
    records.write_csv(out / "budget.csv", budget)
    figures = [fig for kernel, sub in points.groupby("kernel") for fig in _figures(sub, kernel, out, own_maps)]
    intro = _own_intro(out, mine, atlas) if own else ""
    write_atomic(out / "atlas.md", _markdown(bandwidths, budget, points, figures, coverage, intro, own_maps))
    return out


def read_own(out: Path, atlas_trials: pd.DataFrame) -> pd.DataFrame:
    """A user's runs below ``out/runs``; RecordError if there are none, ValueError if a map of theirs takes the
    name of an atlas map (one point would then mix two maps)."""
    if not records.record_paths(out, "runs/*/trials.csv"):
        raise records.RecordError(f"no run below {out / 'runs'}: run `rfbench-campaign atlas own_gaussian "
                                  "-- feature_map=<yours> --config-dir <your configs>` first")
    mine = read_trials(out)
    clash = set(mine["map"]) & set(atlas_trials.loc[~atlas_trials["run_id"].isin(mine["run_id"]), "map"])
    if clash:
        raise ValueError(f"your map's name {sorted(clash)} is an atlas map's: give yours another name (the "
                         "`name:` of its YAML)")
    return mine


def planned_runs() -> int:
    """The number of feature-map runs ``make atlas`` makes (its campaign's jobs, not the bandwidth jobs)."""
    return sum(not job[0].startswith("job=") for job in campaign.plan("atlas", "atlas").jobs)


def read_bandwidths(root: Path) -> pd.DataFrame:
    """The chosen sigma of each dataset and kernel from the bandwidth job's runs below ``root``."""
    runs = [p.parent for p in records.record_paths(root, "runs/*/trials.csv")]
    if not runs:
        raise records.RecordError(f"no bandwidth record below {root}: run `rfbench-campaign atlas bandwidth` first")
    frame = pd.concat([jobs.read(run, "bandwidth") for run in runs], ignore_index=True)
    return frame[frame["chosen"].astype(bool)].drop(columns=["chosen", "trial"]).reset_index(drop=True)


def read_trials(atlas: Path) -> pd.DataFrame:
    """Every trial of the runs in ``atlas/runs`` (not the bandwidth job's), with ``map`` (the atlas's
    name of its map) and ``width`` (columns / d)."""
    trials = records.collect(atlas)
    trials = trials[trials["run_id"].map(lambda run: (atlas / "runs" / str(run)).is_dir())].copy()
    trials["map"] = [map_name(row) for _, row in trials.iterrows()]
    trials["width"] = trials["n_features"] / trials["d"]
    return trials


def map_name(row: pd.Series) -> str:
    """``rff``, ``rff cos+b``, ``qmc halton``, ``nystroem kmeans``, ...: the map and what makes it another."""
    name = str(row["feature_map.name"])
    variant = row.get("feature_map.variant")
    if isinstance(variant, str) and variant in VARIANT_NAMES:
        return VARIANT_NAMES[variant]
    extra = [row.get(k) for k in ("feature_map.sequence", "feature_map.landmarks")]
    return " ".join([name, *(str(v) for v in extra if isinstance(v, str))])


def check_bandwidths(trials: pd.DataFrame, bandwidths: pd.DataFrame) -> None:
    """Raise ValueError naming every run whose ``kernel.sigma`` is not its dataset's recorded choice."""
    chosen = {(r.dataset, r.kernel): r.sigma for r in bandwidths.itertuples()}
    runs = trials.groupby("run_id").first()
    bad = [f"{run} ({r['dataset.name']}, {r['kernel.name']}: sigma {r['kernel.sigma']!r}, recorded "
           f"{chosen.get((r['dataset.name'], r['kernel.name']), 'none')!r})" for run, r in runs.iterrows()
           if not np.isclose(r["kernel.sigma"], chosen.get((r["dataset.name"], r["kernel.name"]), np.nan),
                             rtol=1e-12, atol=0)]
    if bad:
        raise ValueError("runs not at their dataset's recorded bandwidth (configs/campaign/atlas.yaml pins "
                         f"results/atlas/bandwidth's choice): {'; '.join(bad)}")


def point_table(trials: pd.DataFrame) -> pd.DataFrame:
    """One row per kernel, dataset, map and width: the means, spreads and counts the report shows."""
    keys = [k for k in POINT_KEYS if k in trials]
    metrics = [m for m in ("gram_error", "gram_error_spectral", *SCORES) if m in trials]
    agg = {"width": ("width", "mean"), "n_features": ("n_features", "mean"), "trials": ("trial", "count"),
           "time_transform": ("time_transform", "median"), "time_fit": ("time_fit", "mean"),
           "memory_transform": ("memory_transform", "median")}
    agg = {name: spec for name, spec in agg.items() if spec[0] in trials}
    for metric in metrics:
        agg |= {f"{metric}_{stat}": (metric, stat) for stat in ("mean", "std", "count")}
    table = trials.groupby(keys, dropna=False).agg(**agg).reset_index()
    table = table.rename(columns={"kernel.name": "kernel", "dataset.name": "dataset"})
    return table.drop(columns=[k for k in keys if k.startswith("feature_map.")]).sort_values(
        ["kernel", "dataset", "map", "width"], ignore_index=True)


def budget_table(points: pd.DataFrame, own: Sequence[str] = ()) -> pd.DataFrame:
    """Which map for which budget, per kernel and dataset; a column per map of ``own`` says where it stands.

    For each width budget (at most 2^k d columns) and time budget (transform at most T seconds),
    each map's best point within it (lowest mean Frobenius Gram error; for the test score, the best
    mean) competes: the best map wins if every other map's mean is further from it than the sum of
    their standard deviations over trials (the 1-sd bars do not overlap), else it is a tie of those
    within that reach.  A budget no point meets says "none".
    """
    rows = []
    for (kernel, dataset), sub in points.groupby(["kernel", "dataset"]):
        for metric in ("gram_error", *SCORES):
            if f"{metric}_mean" not in sub or sub[f"{metric}_mean"].isna().all():
                continue
            lower = SCORES.get(metric, True)
            budgets = [("width", f"<= {b} d columns", sub["width"] <= b * (1 + 1e-9)) for b in WIDTH_BUDGETS]
            if metric == "gram_error" and "time_transform" in sub:
                budgets += [("time", f"<= {t:g} s transform", sub["time_transform"] <= t) for t in TIME_BUDGETS]
            for kind, budget, within in budgets:
                rows.append({"kernel": kernel, "dataset": dataset, "metric": metric, "budget_kind": kind,
                             "budget": budget, **best_within(sub[within], metric, lower),
                             **{name: standing(sub[within], metric, lower, name) for name in own}})
    return pd.DataFrame(rows)


def _best_per_map(points: pd.DataFrame, metric: str, lower_is_better: bool) -> pd.DataFrame:
    """Each map's best point among ``points`` by ``metric``, best first (``_key``: the signed mean)."""
    points = points.dropna(subset=[f"{metric}_mean"])
    sign = 1.0 if lower_is_better else -1.0
    order = points.assign(_key=sign * points[f"{metric}_mean"]).sort_values(["_key", "width"], kind="stable")
    return order.drop_duplicates("map").reset_index(drop=True)


def best_within(points: pd.DataFrame, metric: str, lower_is_better: bool) -> dict[str, object]:
    """The winning map among ``points`` by ``metric`` (or a tie), its point's mean and sd, and the runner-up."""
    best_per_map = _best_per_map(points, metric, lower_is_better)
    if best_per_map.empty:
        return {"choice": "none", "mean": np.nan, "std": np.nan, "runner_up": "", "gap": np.nan}
    top, rest = best_per_map.iloc[0], best_per_map.iloc[1:]
    sd = best_per_map[f"{metric}_std"].fillna(0.0)
    reach = (best_per_map["_key"] - top["_key"]) <= sd.iloc[0] + sd
    tied = best_per_map["map"][reach].tolist()
    choice = tied[0] if len(tied) == 1 else "tie: " + ", ".join(tied)
    return {"choice": choice, "mean": top[f"{metric}_mean"], "std": top[f"{metric}_std"],
            "runner_up": rest["map"].iloc[0] if len(rest) else "",
            "gap": abs(rest[f"{metric}_mean"].iloc[0] - top[f"{metric}_mean"]) if len(rest) else np.nan}


def standing(points: pd.DataFrame, metric: str, lower_is_better: bool, name: str) -> str:
    """Where map ``name`` stands among ``points`` by ``metric``: ``'2 of 10 (0.012 ± 0.001)'``, its best point's."""
    best_per_map = _best_per_map(points, metric, lower_is_better)
    rank = best_per_map.index[best_per_map["map"] == name]
    if not len(rank):
        return "no point within"
    row = best_per_map.loc[rank[0]]
    std = row[f"{metric}_std"] if np.isfinite(row[f"{metric}_std"]) else 0.0
    return f"{rank[0] + 1} of {len(best_per_map)} ({render.mean_sd(row[f'{metric}_mean'], std, '.3g')})"


def _figures(points: pd.DataFrame, kernel: str, out: Path, own: Sequence[str] = ()) -> list[Path]:
    """Error and score against width, and error against transform time with the Pareto fronts."""
    figures = [_panels(points, "width", ["gram_error", "gram_error_spectral"], out / f"error_vs_width_{kernel}.png",
                       own=own),
               _panels(points, "time_transform", ["gram_error"], out / f"pareto_{kernel}.png", pareto=True, own=own)]
    scores = [s for s in SCORES if f"{s}_mean" in points and points[f"{s}_mean"].notna().any()]
    if scores:
        figures.append(_panels(points, "width", scores, out / f"score_vs_width_{kernel}.png", own=own))
    return figures


def _panels(points: pd.DataFrame, x: str, metrics: Sequence[str], path: Path, *, pareto: bool = False,
            own: Sequence[str] = ()) -> Path:
    """One panel per dataset (columns) and metric (rows): each map's mean +- 1 sd against ``x`` (log axes);
    the maps of ``own`` (a user's) drawn thicker."""
    datasets, maps = sorted(points["dataset"].unique()), sorted(points["map"].unique())
    colors = {m: "k" if m in own else f"C{i % 10}" for i, m in enumerate(maps)}  # a user's map stands out
    markers = dict(zip(maps, "osD^v<>ph*Xd"))
    fig, axes = plt.subplots(len(metrics), len(datasets), figsize=(max(3.6 * len(datasets), 7.5), 3.3 * len(metrics)),
                             squeeze=False)
    for row, metric in zip(axes, metrics):
        for ax, dataset in zip(row, datasets):
            sub = points[(points["dataset"] == dataset) & points[f"{metric}_mean"].notna()]
            for name, curve in sub.groupby("map"):
                curve = curve.sort_values(x)
                ax.errorbar(curve[x], curve[f"{metric}_mean"], yerr=curve[f"{metric}_std"].fillna(0),
                            color=colors[name], marker=markers[name], ms=3, capsize=2,
                            lw=2.0 if name in own else 0.8, ls=":" if pareto else "-")
            if pareto and len(sub):
                front = pareto_front(sub, x, f"{metric}_mean")
                ax.step(front[x], front[f"{metric}_mean"], where="post", color="k", lw=1.2)
            ax.set_xscale("log", base=10 if pareto else 2)  # widths are powers of 2 (times d)
            ax.set(yscale="log" if metric.startswith("gram") else "linear", title=dataset,
                   xlabel="train transform time (s)" if pareto else "columns / d",
                   ylabel=_LABELS.get(metric, metric))
            ax.grid(alpha=0.3)
    handles = [plt.Line2D([], [], color=colors[m], marker=markers[m], ms=4) for m in maps]
    height = fig.get_figheight()  # the legend's rows and the caption take fixed inches below the panels
    legend_rows = -(-len(maps) // 6)
    fig.legend(handles, maps, loc="lower center", ncol=min(len(maps), 6), fontsize=8,
               bbox_to_anchor=(0.5, 0.22 / height))
    note = ("x: the training set's transform time, median over trials (the map's fit, e.g. Nyström's k-means, is "
            "not in it: time_fit in points.csv); black: the Pareto front over all maps; ") if pareto else ""
    fig.text(0.5, 0.005, f"{note}bars: mean ± 1 sd over trials (trials per point in points.csv)", ha="center",
             fontsize=8)
    fig.tight_layout(rect=(0, (0.3 + 0.2 * legend_rows) / height, 1, 1))
    return plotting.save(fig, path)


_LABELS = {"gram_error": r"$\|K-\tilde K\|_F / \|K\|_F$", "gram_error_spectral": r"$\|K-\tilde K\|_2 / \|K\|_2$",
           "test_accuracy": "test accuracy", "test_relative_error": "test relative error"}


def pareto_front(points: pd.DataFrame, x: str, y: str) -> pd.DataFrame:
    """The points no other point beats in both ``x`` and ``y`` (lower is better in both), by ``x``."""
    ordered = points.sort_values([x, y])
    keep = ordered[y] < ordered[y].cummin().shift(fill_value=np.inf)
    return ordered[keep.to_numpy()]


def _markdown(bandwidths: pd.DataFrame, budget: pd.DataFrame, points: pd.DataFrame, figures: list[Path],
              coverage: tuple[int, int], intro: str = "", own: Sequence[str] = ()) -> str:
    shown = budget.assign(cell=[f"{c} ({render.mean_sd(m, s, '.3g')})" if np.isfinite(m) else c for c, m, s in
                                zip(budget["choice"], budget["mean"], budget["std"].fillna(0))])
    sections: list[tuple[str, pd.DataFrame | str]] = [
        ("", "Every map of the atlas, side by side at one bandwidth per dataset (no paper publishes these "
             "numbers: verdict-free). How it is run and read: README.md beside this file." + _coverage(*coverage)
             + intro),
        ("Bandwidths (results/atlas/bandwidth)", bandwidths[["dataset", "kernel", "median_distance", "log2_factor",
                                                             "sigma", "score_name", "cv_score", "lambda"]]),
    ]
    for (metric, kind), sub in shown.groupby(["metric", "budget_kind"], sort=False):
        title = f"Which map for which {kind} budget: {metric} (the best point's mean ± sd)"
        for column, heading in [("cell", title), *((name, f"{title}: where {name} stands") for name in own)]:
            table = sub.pivot_table(index=["kernel", "dataset"], columns="budget", values=column, aggfunc="first",
                                    sort=False).reset_index()
            sections.append((heading, table))
    sections.append(("Figures", "\n".join(f"![{p.stem}]({p.name})" for p in figures)))
    sections.append(("Points", f"{len(points)} points, {int(points['trials'].sum())} trials: points.csv"))
    return render.markdown("The atlas of random feature maps", sections)


def _coverage(recorded: int, planned: int) -> str:
    if recorded >= planned:
        return f" All {planned} runs of the campaign are recorded."
    return (f"\n\n**Partial: {recorded} of the campaign's {planned} runs are recorded** (`make atlas` resumes "
            "and computes the rest). The tables compare only the recorded maps: a map missing from a cell "
            "has no record there yet, so a 'best' map here may not be the best of the full atlas.")


def _own_intro(out: Path, mine: pd.DataFrame, atlas: Path) -> str:
    return (f"\n\n**Your maps: {', '.join(sorted(mine['map'].unique()))}** ({mine['run_id'].nunique()} runs in "
            f"{out / 'runs'}), drawn thicker beside the atlas's maps, whose records are read from {atlas}; the "
            "budget tables add where each of yours stands among all maps (its rank, by its best point there).")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"), help="results tree (default: results)")
    parser.add_argument("--own", help="experiment name of your own map's runs (<results>/<own>/runs), e.g. atlas_own")
    parser.add_argument("--reference", type=Path, help="with --own: the tree of the atlas's records (read only)")
    args = parser.parse_args(argv)
    print(f"wrote {render_atlas(args.results, args.own, args.reference)}")


if __name__ == "__main__":
    main()
