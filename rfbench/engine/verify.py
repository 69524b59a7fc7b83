"""Recompute recorded trials with the current code and compare them with their records.

``python -m rfbench.engine.verify results/askrff`` picks, below a results tree, one run per experiment,
dataset, feature map, spectral part and model (the smallest M of each), recomputes trial 0 of each
from its ``config.yaml`` and compares: test accuracy, selected hyperparameters and estimated
masses must be equal bit for bit, the Gram error equal to ``--rtol``.  A config recorded before a
key was added gets the key's current default, and its run id must come out unchanged (else
the code no longer computes that run).  Exit status 1 if any value moved.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from rfbench.engine import config, jobs, records, runner

#: Columns compared bit for bit (when recorded); the Gram errors are compared to a relative tolerance.
EXACT = ("test_accuracy", "test_relative_error", "C", "lambda", "gamma")
CLOSE = ("gram_error", "gram_error_spectral")
#: What tells the runs of one target apart: one run of each such group is recomputed.
GROUP = ("experiment.name", "dataset.name", "feature_map.name", "feature_map.part", "classifier.name", "job.name")


def current_config(recorded: dict[str, Any]) -> dict[str, Any]:
    """A recorded config with the keys added since filled in from the current config files."""
    choices = [f"{g}={recorded[g]['name']}" for g in ("dataset", "kernel", "feature_map", "classifier", "job")
               if recorded.get(g)]
    with initialize_config_dir(config.CONFIG_DIR, version_base="1.3"):
        composed = compose("config", overrides=choices)
    composed = OmegaConf.masked_copy(composed, [k for k in composed if k != "hydra"])
    return config.to_dict(OmegaConf.merge(composed, _without_targets(recorded)))


def _without_targets(recorded: dict[str, Any]) -> dict[str, Any]:
    """``recorded`` less its components' ``_target_``: a dotted path names code, which may move
    (rfbench.model.liblinear -> rfbench.model.liblinear), not a value of the run (nor of its run id)."""
    return {k: _without_targets(v) if isinstance(v, dict) else v for k, v in recorded.items() if k != "_target_"}


def pick_runs(root: Path) -> list[Path]:
    """One run per GROUP below ``root``: the one of smallest M (then run id)."""
    trials = records.collect(root)
    runner_columns = {"M", "kernel.name", "dataset.name", "feature_map.name"}
    if missing := ({"run_id"} | (set() if "job.name" in trials else runner_columns)) - set(trials):
        raise records.RecordError(f"the trials below {root} lack the columns {sorted(missing)} rfbench records")
    trials = trials[trials["trial"] == 0].assign(**{c: None for c in (*GROUP, "M") if c not in trials})
    if trials.empty:
        raise records.RecordError(f"no run below {root} records trial 0, the trial verify recomputes")
    first = trials.sort_values(["M", "run_id"]).groupby(list(GROUP), dropna=False, sort=True).head(1)
    return [next(root.rglob(f"runs/{run_id}")) for run_id in first["run_id"]]


def compare(run: Path, rtol: float) -> list[dict[str, Any]]:
    """Recompute trial 0 of ``run``; one comparison row per recorded metric."""
    cfg = current_config(_recorded_config(run))
    if config.run_id(cfg) != run.name:
        raise SystemExit(f"{run}: the current code gives this config run id {config.run_id(cfg)}, "
                         f"not {run.name}; its records are orphaned")
    recorded = records.read_trials(run / "trials.csv").set_index("trial").loc[0]
    if jobs.is_job(cfg):
        return _compare_job(run, cfg, recorded, rtol)
    measured, _ = runner.compute_trial(cfg, 0)
    rows = []
    for key in [*EXACT, *CLOSE, *sorted(k for k in measured if k.startswith("mass_"))]:
        if key in measured and key in recorded and not pd.isna(recorded[key]):
            old, new = float(recorded[key]), float(measured[key])
            same = new == old if key not in CLOSE else bool(np.isclose(new, old, rtol=rtol, atol=0))
            rows.append({"run": run.name, "target": recorded["experiment.name"], "dataset": recorded["dataset.name"],
                         "method": _method(recorded), "metric": key, "recorded": old, "recomputed": new,
                         "relative_difference": abs(new - old) / abs(old) if old else abs(new), "equal": same})
    return rows


def _compare_job(run: Path, cfg: dict[str, Any], recorded: pd.Series, rtol: float) -> list[dict[str, Any]]:
    """Recompute trial 0 of a job; one row per recorded frame: its numbers equal to ``rtol`` (NaN to NaN)."""
    frames = jobs.function(cfg)(trial=0, seed=int(recorded["seed"]), **jobs.params(cfg))
    rows = []
    for key, frame in frames.items():
        old = jobs.read(run, key).query("trial == 0").drop(columns="trial").reset_index(drop=True)
        same, worst = _frames_equal(old, frame.reset_index(drop=True), rtol)
        rows.append({"run": run.name, "target": cfg["experiment"]["name"], "dataset": "", "method": cfg["job"]["name"],
                     "metric": f"{key}.csv ({len(old)} rows)", "recorded": np.nan, "recomputed": np.nan,
                     "relative_difference": worst, "equal": same})
    return rows


def _frames_equal(old: pd.DataFrame, new: pd.DataFrame, rtol: float) -> tuple[bool, float]:
    """Same columns and rows, text equal, numbers equal to ``rtol`` (but timings: a ``time`` or ``time_*``
    column is how long the machine took, not a result); and the largest relative difference."""
    if list(old.columns) != list(new.columns) or len(old) != len(new):
        return False, np.nan
    timings = [c for c in old.columns if c == "time" or c.startswith("time_")]
    old, new = old.drop(columns=timings), new.drop(columns=timings)
    numeric = old.select_dtypes("number").columns
    a, b = old[numeric].to_numpy(float), new[numeric].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        worst = float(np.nanmax(np.abs(b - a) / np.abs(a), initial=0.0))
    close = bool(np.allclose(b, a, rtol=rtol, atol=0, equal_nan=True))
    return close and old.drop(columns=numeric).equals(new.drop(columns=numeric)), worst


def _recorded_config(run: Path) -> dict[str, Any]:
    """The config recorded in ``run``, or a RecordError if it is missing or not the mapping rfbench writes."""
    path = records.inside(run, run / "config.yaml")
    try:
        recorded = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as err:
        raise records.RecordError(f"{path} cannot be read as a run's config ({err})") from None
    if not (isinstance(recorded, dict) and all(isinstance(recorded.get(g), dict) and "name" in recorded[g]
                                               for g in ("dataset", "kernel", "feature_map", "classifier"))):
        raise records.RecordError(f"{path} is not a run's config (a mapping with a named dataset, kernel, "
                                  "feature_map and classifier)")
    return recorded


def _method(row: pd.Series) -> str:
    part = row.get("feature_map.part")
    return f"{row['kernel.name']}/{row['feature_map.name']}" + (f"/{part}" if isinstance(part, str) else "") + \
        f" M/d={row['m_over_d']:g}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m rfbench.engine.verify", description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="a results tree, e.g. results/askrff")
    parser.add_argument("--rtol", type=float, default=1e-12, help="relative tolerance of the Gram errors")
    parser.add_argument("--out", type=Path, help="also write the comparison to this CSV")
    args = parser.parse_args(argv)
    try:
        table = pd.DataFrame([row for run in pick_runs(args.root) for row in compare(run, args.rtol)])
    except ValueError as err:  # RecordError, ConfigError, DatasetError
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    with pd.option_context("display.width", 200, "display.max_rows", None, "display.max_colwidth", 40):
        print(table.to_string(index=False))
    if args.out:
        records.write_csv(args.out, table)
    moved = table[~table["equal"]]
    print(f"{len(table) - len(moved)} of {len(table)} values equal ({table['run'].nunique()} runs)")
    sys.exit(1 if len(moved) else 0)


if __name__ == "__main__":
    main()
