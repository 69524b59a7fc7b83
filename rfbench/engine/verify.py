"""Recompute recorded trials with the current code and compare them with their records.

``python -m rfbench.engine.verify results`` picks, below a results tree (every paper, or one:
``results/askrff``), one runner run per experiment, dataset, feature map, spectral part and model
(the smallest M of each) and one run of each job per dataset, recomputes trial 0 of each from its
``config.yaml`` and compares: accuracies and selected hyperparameters must be equal bit for bit,
every other value (Gram errors, masses, relative errors, a job's frames) equal to ``--rtol``.  A
config recorded before a key was added gets the key's current default, and its run id must come
out unchanged (else the code no longer computes that run).  ``--max-seconds`` leaves out the runs
whose trial 0 took longer than that when it was recorded (listed as not recomputed), ``--kind`` one
kind of run.  On a CPU without the records' numpy SIMD loops (:func:`blas_pin.cpu_runs_records_loops`)
the values other than accuracies and hyperparameters are compared to ``--rtol-other-cpu``
(:data:`OTHER_CPU_RTOL`) instead, and a job that needs those loops (``blas_pin.needs_records_loops``:
the adaptive sequences' CG) is listed as not recomputed; every row names the tolerance it was held
to.  A recomputation that fails is a row that moved, and the others go on.  Exit status 1 if any
value moved.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from rfbench.engine import blas_pin, config, jobs, records, runner
from rfbench.engine.config import ConfigError

#: Columns compared bit for bit (when recorded): the test accuracy (a count over n_test) and the
#: selected hyperparameters.
EXACT = ("test_accuracy", "C", "lambda", "gamma")
#: Columns compared to a relative tolerance, with the estimated masses (``mass_*``).  The CV accuracy
#: is a mean of fold accuracies, whose last bit follows numpy's summation order (askrff run
#: 1ab836180247: 1 ulp, its selected C equal).
CLOSE = ("gram_error", "gram_error_spectral", "cv_accuracy", "test_relative_error", "cv_relative_error",
         "test_rmse")
#: The relative tolerance of the CLOSE values and a job's frames on a CPU whose numpy SIMD loops are not
#: the records' (AVX-512's): its exp and sin/cos differ in the last bits, which a computation may
#: magnify (a Nystrom pseudo-inverse: the atlas's Nystrom Gram errors in ``results/verify.csv``, made on
#: an AMD EPYC without AVX-512).  The bound is what a report can show, not that measurement: the reports'
#: tables print the values it covers to at most 4 significant digits (``render`` formats ``.4g``; only
#: accuracies get 5 or 6), whose half unit is at least 5e-5 relative, so 1e-6 is 50 times below any
#: printed change.  Accuracies and selected hyperparameters, which every verdict reads, stay bit for
#: bit on any CPU.
OTHER_CPU_RTOL = 1e-6
#: The kinds of run: feature-map trials of the runner, and jobs (:mod:`rfbench.engine.jobs`).
KINDS = ("runner", "job")
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
    return [run for run, _ in pick_timed_runs(root)]


def pick_timed_runs(root: Path) -> list[tuple[Path, float]]:
    """:func:`pick_runs`, each with the seconds its trial 0 took when recorded (its ``time_*`` columns)."""
    trials = records.collect(root)
    runner_columns = {"M", "kernel.name", "dataset.name", "feature_map.name"}
    if missing := ({"run_id"} | (set() if "job.name" in trials else runner_columns)) - set(trials):
        raise records.RecordError(f"the trials below {root} lack the columns {sorted(missing)} rfbench records")
    trials = trials[trials["trial"] == 0].assign(**{c: None for c in (*GROUP, "M") if c not in trials})
    if trials.empty:
        raise records.RecordError(f"no run below {root} records trial 0, the trial verify recomputes")
    first = trials.sort_values(["M", "run_id"]).groupby(list(GROUP), dropna=False, sort=True).head(1)
    seconds = first.filter(like="time_").sum(axis=1)
    return [(_run_folder(root, str(run_id)), float(t)) for run_id, t in zip(first["run_id"], seconds)]


def _run_folder(root: Path, run_id: str) -> Path:
    """The folder ``runs/<run_id>`` below ``root``, or a RecordError: a trials.csv names a run that is not there."""
    found = next(root.rglob(f"runs/{run_id}"), None) if run_id and "/" not in run_id else None
    if found is None:
        raise records.RecordError(f"a trials.csv below {root} names run {run_id!r}, which has no folder "
                                  "runs/<run_id> there: the record is damaged or was moved")
    return found


def compare(run: Path, rtol: float, cfg: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Recompute trial 0 of ``run``; one comparison row per recorded metric.

    ``cfg``: the run's :func:`current_config`, if the caller has composed it already.  The run is
    recomputed within its own tree: a job it reads (``job.reads``) is looked up, or computed and
    recorded, beside it, never under the working folder's results.
    """
    cfg = cfg or current_config(_recorded_config(run))
    cfg["experiment"]["results_dir"] = str(_tree_of(run, cfg))  # an execution key: the run id stays
    if config.run_id(cfg) != run.name:  # orphaned: a rerun would compute it again under another id
        return [{**_where(run, cfg), "dataset": _dataset(cfg), "method": "",
                 "metric": f"run id: the current code gives {config.run_id(cfg)}", "recorded": np.nan,
                 "recomputed": np.nan, "relative_difference": np.nan, "equal": False}]
    recorded = records.read_trials(run / "trials.csv").set_index("trial").loc[0]
    if jobs.is_job(cfg):
        return _compare_job(run, cfg, recorded, rtol)
    measured, _ = runner.compute_trial(cfg, 0)
    rows = []
    for key in [*EXACT, *CLOSE, *sorted(k for k in measured if k.startswith("mass_"))]:
        if key in measured and key in recorded and not pd.isna(recorded[key]):
            old, new = float(recorded[key]), float(measured[key])
            same = new == old if key in EXACT else bool(np.isclose(new, old, rtol=rtol, atol=0))
            rows.append({**_where(run, cfg), "dataset": recorded["dataset.name"], "method": _method(recorded),
                         "metric": key, "recorded": old, "recomputed": new,
                         "relative_difference": abs(new - old) / abs(old) if old else abs(new), "equal": same})
    return rows


def _tree_of(run: Path, cfg: dict[str, Any]) -> Path:
    """The results tree holding ``run`` (``<tree>/<experiment.name>/runs/<run_id>``)."""
    return run.parents[len(str(cfg["experiment"]["name"]).split("/")) + 1]


def _where(run: Path, cfg: dict[str, Any]) -> dict[str, str]:
    """A row's paper (the first part of ``experiment.name``), run and target (the experiment's name)."""
    name = str(cfg["experiment"]["name"])
    return {"paper": name.split("/")[0], "run": run.name, "target": name}


def _compare_job(run: Path, cfg: dict[str, Any], recorded: pd.Series, rtol: float) -> list[dict[str, Any]]:
    """Recompute trial 0 of a job; one row per recorded frame: its numbers equal to ``rtol`` (NaN to NaN)."""
    frames = jobs.function(cfg)(trial=0, seed=int(recorded["seed"]), **jobs.params(cfg))
    rows = []
    for key, frame in frames.items():
        old = jobs.read(run, key).query("trial == 0").drop(columns="trial").reset_index(drop=True)
        same, worst = _frames_equal(old, frame.reset_index(drop=True), rtol)
        rows.append({**_where(run, cfg), "dataset": _dataset(cfg), "method": cfg["job"]["name"],
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
    path, recorded = run / records.CONFIG, records.read_config(run)
    if not (all(isinstance(recorded.get(g), dict) and "name" in recorded[g]
                                               for g in ("dataset", "kernel", "feature_map", "classifier"))):
        raise records.RecordError(f"{path} is not a run's config (a mapping with a named dataset, kernel, "
                                  "feature_map and classifier)")
    return recorded


def _method(row: pd.Series) -> str:
    part = row.get("feature_map.part")
    return f"{row['kernel.name']}/{row['feature_map.name']}" + (f"/{part}" if isinstance(part, str) else "") + \
        f" M/d={row['m_over_d']:g}"


def verify(root: Path, rtol: float, max_seconds: float = np.inf, kinds: tuple[str, ...] = KINDS,
           other_cpu_rtol: float = OTHER_CPU_RTOL) -> pd.DataFrame:
    """The comparison table of the runs :func:`pick_timed_runs` picks below ``root`` of the ``kinds``
    asked for, each row with the ``tolerance`` it was held to: ``rtol`` with the records' numpy loops,
    ``other_cpu_rtol`` without; a run whose trial 0 took more than ``max_seconds`` is one row, not recomputed."""
    loops_here = blas_pin.cpu_runs_records_loops()
    tolerance = rtol if loops_here else other_cpu_rtol
    picked = [(run, seconds, recorded) for run, seconds in pick_timed_runs(root)
              if _kind(recorded := _recorded_config(run)) in kinds]
    rows = []
    for i, (run, seconds, recorded) in enumerate(picked, 1):
        print(f"verify: run {i}/{len(picked)} {run.relative_to(root)} (recorded {seconds:.0f} s)", file=sys.stderr,
              flush=True)
        if seconds > max_seconds:
            rows.append(_not_recomputed(run, recorded, f"trial 0 took {seconds:.0f} s > --max-seconds {max_seconds:g}"))
            continue
        start = time.perf_counter()
        try:  # composing the current config is part of the recomputation: an option since removed fails here
            cfg = current_config(recorded)
            if not loops_here and _needs_records_loops(cfg):
                rows.append(_not_recomputed(run, recorded, "this CPU lacks the AVX-512 numpy loops of the records, "
                                            "without which the adaptive CG ends on another sequence "
                                            "(rfbench/engine/blas_pin.py)"))
                continue
            found = compare(run, tolerance, cfg)
        except (records.RecordError, ConfigError):  # a damaged record or config: no verdict on the code
            raise
        except Exception as err:  # the recomputation itself failed: a verdict on the code, so a row
            found = [_row(run, recorded, f"recomputing failed: {type(err).__name__}: {err}", equal=False)]
        rows += [{**row, "tolerance": tolerance, "seconds": time.perf_counter() - start} for row in found]
    if not rows:
        raise records.RecordError(f"no run below {root} is of the kind(s) {', '.join(kinds)}")
    return pd.DataFrame(rows)


def _row(run: Path, recorded: dict[str, Any], metric: str, equal: bool | float) -> dict[str, Any]:
    """A row of ``run`` without values: its ``metric`` says what happened."""
    return {**_where(run, recorded), "dataset": _dataset(recorded),
            "method": (recorded.get("job") or {}).get("name", ""), "metric": metric, "recorded": np.nan,
            "recomputed": np.nan, "relative_difference": np.nan, "equal": equal}


def _not_recomputed(run: Path, recorded: dict[str, Any], why: str) -> dict[str, Any]:
    """The row of a run left out, saying ``why``."""
    return {**_row(run, recorded, f"not recomputed: {why}", equal=np.nan), "tolerance": np.nan}


def _needs_records_loops(cfg: dict[str, Any]) -> bool:
    """Whether the job of ``cfg`` (a current config: a recorded _target_ may name code that has moved)
    needs the records' numpy loops (:func:`blas_pin.needs_records_loops`)."""
    return bool(cfg.get("job")) and getattr(jobs.function(cfg), "needs_records_loops", False)


def _dataset(cfg: dict[str, Any]) -> str:
    """The dataset a run reads: none for a job without ``data``."""
    return cfg["dataset"]["name"] if not cfg.get("job") or cfg["job"].get("data") else ""


def _kind(recorded: dict[str, Any]) -> str:
    """A run's kind, by its recorded config: ``job`` if it names one, else ``runner``."""
    return "job" if recorded.get("job") else "runner"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m rfbench.engine.verify", description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="a results tree: results (every paper) or results/<paper>")
    parser.add_argument("--rtol", type=float, default=1e-12,
                        help="relative tolerance of the values other than accuracies and hyperparameters")
    parser.add_argument("--rtol-other-cpu", type=float, default=OTHER_CPU_RTOL,
                        help="--rtol on a CPU without the records' AVX-512 numpy loops (see OTHER_CPU_RTOL)")
    parser.add_argument("--max-seconds", type=float, default=np.inf,
                        help="recompute only the runs whose trial 0 took at most this when recorded")
    parser.add_argument("--kind", choices=KINDS, action="append",
                        help="only runs of this kind (repeatable; default: both)")
    parser.add_argument("--out", type=Path, help="also write the comparison to this CSV (e.g. results/verify.csv)")
    args = parser.parse_args(argv)
    if args.out and not args.out.parent.is_dir():
        parser.exit(2, f"{parser.prog}: error: --out {args.out}: the folder {args.out.parent} does not exist\n")
    try:
        with records.machine_faults():
            table = verify(args.root, args.rtol, args.max_seconds, tuple(args.kind or KINDS), args.rtol_other_cpu)
    except ValueError as err:  # RecordError, ConfigError, DatasetError
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    with pd.option_context("display.width", 200, "display.max_rows", None, "display.max_colwidth", 50):
        print(table.drop(columns="seconds", errors="ignore").to_string(index=False))
    if args.out:
        records.write_csv(args.out, table)
    done = table[table["equal"].notna()]
    moved = done[~done["equal"].astype(bool)]
    held_to = f" to {done['tolerance'].max():g} relative" if len(done) else ""
    print(f"{len(done) - len(moved)} of {len(done)} values equal{held_to} ({done['run'].nunique()} runs recomputed, "
          f"{table['run'].nunique() - done['run'].nunique()} not: longer than --max-seconds, or not on this CPU)")
    sys.exit(1 if len(moved) else 0)


if __name__ == "__main__":
    blas_pin.pin()
    main()
