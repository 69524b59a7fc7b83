"""Computations that are not a feature-map trial, as jobs of the same engine.

A paper's own computation (a simulation, a curve, a learnt sequence) is a function

    compute(trial: int, seed: int, **params) -> dict[str, pandas.DataFrame]

named by a ``job`` config (``configs/job/<name>.yaml``, ``job._target_``; ``job.data: true`` passes the
composed ``dataset`` node as ``data``; ``job.reads: {arg: [overrides]}`` passes, as ``arg``, the run
directory of another job, composed from those overrides under the same results folder (on the reader's
dataset node, when both take data) and run (resumed) first if it is not complete, so a job reads
another's records instead of recomputing them; a ``compute.check_params(**params)`` attribute, if any,
rejects bad values with a ValueError before any work, as a component's ``check_params`` does). ``rfbench
job=<name>`` runs it like a runner trial: its run id hashes ``job`` and ``experiment.seed`` only (the
dataset, kernel, feature map and model groups play no part), each trial ``t`` is called with
``seed=experiment.seed`` and ``trial=t`` (a job draws trial t's randomness from :func:`trial_seed`, as
runner trials do, and what it shares across trials from ``seed``), and its frames are recorded under
``<results_dir>/<experiment.name>/runs/<run_id>/``: every ``<key>.csv`` with a ``trial`` column, then
the trial's row in ``trials.csv`` (its config, time and row counts) which marks it done. Trials are
claimed, recorded atomically and resumed exactly as the runner's are (:mod:`rfbench.engine.records`), so
campaigns launch jobs and runs alike, and reports read records only."""
from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.initialize import get_gh_backup, restore_gh_from_backup

from rfbench.engine import config as config_
from rfbench.engine import records
from rfbench.engine.config import ConfigError

log = logging.getLogger("rfbench")

#: Keys of the ``job`` node the engine reads and does not pass to the function as they are
#: (``data: true``: the function gets the composed ``dataset`` node as ``data``, and it is in the run id).
ENGINE_KEYS = ("_target_", "name", "data", "reads")
#: The trials.csv row's own columns; the frames' keys may not take these names.
TRIAL_COLUMNS = ("run_id", "trial", "seed", "time_compute")


def is_job(cfg: Mapping[str, Any]) -> bool:
    """Whether a composed config runs a job (``job=<name>``) rather than feature-map trials."""
    return bool(cfg.get("job"))


def function(cfg: Mapping[str, Any]) -> Callable[..., dict[str, pd.DataFrame]]:
    """The job's function, checked: importable, and taking the job's parameters."""
    node, target = cfg["job"], cfg["job"].get("_target_")
    owner = f"job={node.get('name')}"
    module, _, name = str(target).rpartition(".")
    try:
        fn = getattr(__import__(module, fromlist=[name]), name)
    except (ImportError, AttributeError, ValueError) as err:
        raise ConfigError(f"{owner}: _target_ {target!r} cannot be imported ({err})") from None
    accepted = set(inspect.signature(fn).parameters) - {"trial", "seed"}
    given = {k for k in node if k not in ENGINE_KEYS} | ({"data"} if node.get("data") else set()) | set(_reads(cfg))
    unknown = sorted(given - accepted)
    if unknown:
        raise ConfigError(f"{owner}: unknown parameter(s) {unknown}; {target} takes {sorted(accepted)}")
    if hasattr(fn, "check_params"):  # the function's own check of its values, before any work
        try:
            fn.check_params(**{k: v for k, v in node.items() if k not in ENGINE_KEYS})  # not params(): it runs reads
        except ValueError as err:
            raise ConfigError(f"{owner}: {err}") from None
    return fn


def trial_seed(seed: int, *key: int) -> int:
    """An independent 32-bit seed for ``key`` (e.g. a trial number) under ``seed``: the runner's
    derivation, ``SeedSequence(seed, spawn_key=key)``."""
    return int(np.random.SeedSequence(seed, spawn_key=key).generate_state(1)[0])


def params(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of the job's function: its parameters, ``data`` if it reads the dataset,
    and the run directory of each job it reads (``job.reads``), complete."""
    data = {"data": cfg["dataset"]} if cfg["job"].get("data") else {}
    return {**{k: v for k, v in cfg["job"].items() if k not in ENGINE_KEYS}, **data, **_read_runs(cfg)}


def _reads(cfg: Mapping[str, Any]) -> dict[str, list]:
    """``job.reads``, checked: a mapping of argument names to override lists."""
    reads = cfg["job"].get("reads") or {}
    if not isinstance(reads, Mapping) or not all(isinstance(v, list) for v in reads.values()):
        raise ConfigError(f"job={cfg['job'].get('name')}: reads must map an argument name to a list of overrides "
                          f"(e.g. {{learnt: [job=qmc_learnt, job.s=100]}}), got {reads!r}")
    return dict(reads)


def read_configs(cfg: Mapping[str, Any]) -> dict[str, dict]:
    """The composed config of each job ``job.reads`` names, below this job's results folder; a read
    job that takes data gets this job's dataset node whole (its settings, e.g. a split, included)."""
    results = Path(cfg["experiment"]["results_dir"])
    configs = {}
    for arg, overrides in _reads(cfg).items():
        read_cfg = _compose([*map(str, overrides), f"experiment.results_dir={results}"])
        if not is_job(read_cfg):
            raise ConfigError(f"job={cfg['job'].get('name')}: reads.{arg} {overrides} is not a job (no job=<name>)")
        if cfg["job"].get("data") and read_cfg["job"].get("data"):
            read_cfg["dataset"] = cfg["dataset"]
        configs[arg] = read_cfg
    return configs


def _read_runs(cfg: Mapping[str, Any]) -> dict[str, Path]:
    """``job.reads``'s runs (:func:`read_configs`), each run (resumed) first: a run already complete
    is only looked up, one being computed elsewhere is waited for (its trials' claims), so every
    trial is still computed once, whatever order a launcher starts the jobs in."""
    runs = {}
    for arg, read_cfg in read_configs(cfg).items():
        run(read_cfg)
        runs[arg] = records.run_dir(read_cfg)
    return runs


def run(cfg: Mapping[str, Any]) -> pd.DataFrame:
    """Run (or resume) every trial of a job config; return its trials table."""
    exp, started = cfg["experiment"], time.time()
    fn = function(cfg)
    kwargs = params(cfg)  # before anything is written: the runs it reads are checked and complete
    out = records.run_dir(cfg)
    out.mkdir(parents=True, exist_ok=True)
    records.write_config(out, cfg)
    records.repair_run(out, started=started)
    todo = sorted(set(range(exp["trials"])) - records.recorded(out / "trials.csv"))
    log.info("job %s (%s): %d of %d trial(s) to do in %s", out.name, cfg["job"].get("name"), len(todo),
             exp["trials"], out)
    for t in todo:
        with records.claim(out, t):
            if t not in records.recorded(out / "trials.csv"):
                _record(cfg, fn, kwargs, out, t)
    return records.read_trials(out / "trials.csv")


def _record(cfg: Mapping[str, Any], fn: Callable, kwargs: dict[str, Any], out: Path, t: int) -> None:
    """Compute trial ``t``, write its frames, then its trials.csv row (which marks it done)."""
    seed = cfg["experiment"]["seed"]
    start = time.perf_counter()
    frames = fn(trial=t, seed=seed, **kwargs)
    elapsed = time.perf_counter() - start
    for key, frame in frames.items():
        if key in ("trials", "grid", "summary") or not key.isidentifier():  # the run's own records
            raise ValueError(f"{cfg['job']['_target_']} returned a frame named {key!r}: use another name")
        records.record_grid(out / f"{key}.csv", frame.assign(trial=t))
    row = {**config_.flatten(config_.identity(cfg)), "run_id": out.name, "trial": t, "seed": seed,
           "time_compute": elapsed, **{f"rows_{key}": len(frame) for key, frame in frames.items()}}
    records.record_trial(out / "trials.csv", row)
    log.info("trial %d: %s in %.1f s", t, ", ".join(f"{len(f)} {k} rows" for k, f in frames.items()), elapsed)


def read(run: Path, key: str) -> pd.DataFrame:
    """Frame ``key`` of a job's run, its recorded trials only (rows of a trial not yet in trials.csv,
    left by a killed writer, are not results)."""
    done = records.recorded(run / "trials.csv")
    if not done or not records.stored(run / f"{key}.csv").exists():
        raise FileNotFoundError(f"{run} has no recorded trial of {key!r}")
    frame = records.read_trials(run / f"{key}.csv")
    return frame[frame["trial"].isin(done)].reset_index(drop=True) if len(frame) else frame


def run_of(overrides: list[str], results: Path) -> Path:
    """The run directory of the config ``overrides`` compose to (e.g. ``["job=tutorial"]``), below
    ``results``: how a report finds the records of the campaign's job without computing anything."""
    return records.run_dir(_compose([*overrides, f"experiment.results_dir={results}"]))


def _compose(overrides: list[str]) -> dict[str, Any]:
    """The resolved config ``overrides`` compose to, inside a Hydra app too (a job run by ``rfbench`` or
    a launcher's worker): Hydra refuses a second initialisation, so the app's global state is set
    aside for the compose and put back after it."""
    app = get_gh_backup()
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_.CONFIG_DIR, version_base="1.3"):
            return config_.to_dict(compose("config", overrides=overrides))
    finally:
        restore_gh_from_backup(app)
