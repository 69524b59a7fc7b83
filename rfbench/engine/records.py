"""Tidy result files: one row per trial, written atomically, resumable.

Layout under ``<results_dir>/<experiment.name>/runs/<run_id>/``:

- ``trials.csv``  one row per trial: every config value flattened into columns
  (``dataset.name``, ``feature_map.m_over_d``, ...), ``run_id``, ``trial``, ``seed``,
  derived sizes, metrics and timings;
- ``summary.csv`` mean, std and count of every numeric metric over all recorded trials;
- ``config.yaml`` the resolved config; ``run.log`` the run's log.

Every file is written to a temporary name in the same directory and renamed into
place, so an interrupted run never leaves a half-written file, and a rerun reads
``trials.csv`` to skip the trials it already holds.  Processes sharing a run
directory add rows under an ``flock`` on ``.trials.csv.lock`` (read, merge by
trial, write), and each trial is computed under its own lock in ``.claims/``, so
concurrent runs of one config neither lose nor duplicate rows nor redo each
other's trials.  The kernel releases both locks when a process dies.

A ``trials.csv`` whose last line was cut short (by a tool or a full disk: rfbench itself
only renames whole files into place) is read without that line, and
:func:`repair_trials` rewrites it so; the trial is then computed again.

A frame (a job's ``<key>.csv``, the runner's ``grid.csv``) is stored plain or gzipped as its
size asks (:mod:`rfbench.engine.frames`); this module reads and writes it by its ``.csv`` name.
"""
from __future__ import annotations

import contextlib
import csv
import fcntl
import io
import logging
import shutil
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from rfbench.engine import frames
from rfbench.engine.atomic import write_atomic
from rfbench.engine.config import IMPLIED_VALUES, identifies_run, run_id
from rfbench.engine.frames import RecordError  # the error of every record, plain or gzipped

log = logging.getLogger("rfbench")

#: Per-trial measurements (everything else in a row describes the run).
METRICS = (
    "gram_error", "gram_error_spectral", "test_accuracy", "test_error", "test_relative_error", "test_rmse",
    "cv_accuracy", "cv_relative_error", "cv_mse", "C", "lambda", "gamma",
    "time_fit", "time_transform", "time_train", "time_predict", "time_gram",
)


def write_csv(path: Path, frame: pd.DataFrame) -> None:
    write_atomic(path, frame.to_csv(index=False))


def run_dir(cfg: Mapping[str, Any]) -> Path:
    """Where the run of a resolved config keeps its files."""
    exp = cfg["experiment"]
    return Path(exp["results_dir"]) / exp["name"] / "runs" / run_id(cfg)


def read_trials(path: Path) -> pd.DataFrame:
    """Trials already recorded at ``path`` (empty frame when there are none).

    An incomplete last line (no newline: the file was cut mid-row) is left out, so a
    cut row never counts as a recorded trial with missing values; a reader that is not the
    run itself (which repairs the file) is warned which trial that drops.  A file that is no
    table of trials (no integer ``trial`` column, ragged rows) is a RecordError, and a row with
    an empty metric that the file's other rows have is warned about, naming the trial and metric.
    """
    complete, cut = _split_cut_line(path)
    if not complete:
        return pd.DataFrame()
    try:
        widths = sorted({len(row) for row in csv.reader(io.StringIO(complete)) if row})
        if len(widths) > 1:  # pandas would take a longer row's first fields for an index
            raise ValueError(f"rows of {widths} fields")
        # a run id is text: 3425406e1568 or 012345678901 would otherwise come back as a number
        trials = pd.read_csv(io.StringIO(complete), dtype={"run_id": str})
    except (csv.Error, pd.errors.ParserError, ValueError) as err:
        raise RecordError(f"{frames.stored(path)} is not a table rfbench wrote ({str(err).strip()}); move it away, "
                          "and its trials are computed again") from None
    trial = trials.get("trial")
    if trial is not None and trials.empty:  # a header alone: a table with no rows (a job's empty frame)
        return trials.astype({"trial": "int64"})
    if trial is None or not pd.api.types.is_integer_dtype(trial) or (trial < 0).any():
        raise RecordError(f"{path} is not a table of trials (its 'trial' column is missing or holds other than "
                          "integers >= 0); move it away, and its trials are computed again")
    if cut:
        log.warning("%s: its last line is cut mid-row and is left out, so the trial recorded after the row of "
                    "trial=%s is not counted (rerun the run's command to compute it again)", path,
                    trial.iloc[-1] if len(trial) else "none")
    _warn_missing_metrics(path, trials)
    return trials


def _warn_missing_metrics(path: Path, trials: pd.DataFrame) -> None:
    """Warn of each metric that some rows of ``path`` lack while others have it (damage: one run, one config)."""
    for metric in (m for m in METRICS if m in trials.columns):
        missing = trials[metric].isna()
        if missing.any() and not missing.all():
            log.warning("%s: %s is empty or NaN in trial(s) %s, which the summaries leave out of its mean and "
                        "count", path, metric, trials.loc[missing, "trial"].tolist())


def complete(path: Path) -> bool:
    """Whether ``path`` holds a whole table (a driver's record of one result, done once it exists).

    A missing file is not; nor is one cut short or damaged (no final newline, rows of unequal width,
    no data row, a cut or corrupt .gz), which is warned about: the caller computes it again and replaces it.
    """
    if not frames.stored(path).exists():
        return False
    if damage := table_damage(path):
        log.warning("%s is %s: computing it again", path, damage)
    return not damage


def table_damage(path: Path) -> str | None:
    """What makes the CSV record ``path`` (either form) no whole table (cut short, ragged rows, no data row,
    a cut or corrupt .gz); None if it is one."""
    text, damage = frames.load(frames.stored(path))
    if damage:
        return damage
    widths = [len(row) for row in csv.reader(io.StringIO(text)) if row]
    if not text.endswith("\n"):
        return "cut short (its last line has no end)"
    if len(set(widths)) > 1:
        return f"damaged (rows of {sorted(set(widths))} fields)"
    return "empty (no data row)" if len(widths) < 2 else None


def inside(root: Path, path: Path) -> Path:
    """``path``, or a RecordError if it leads out of ``root`` once symlinks are followed."""
    real, top = path.resolve(), root.resolve()
    if real != top and not real.is_relative_to(top):
        raise RecordError(f"{path} leads to {real}, outside {root} (a symlink?); rfbench neither reads nor "
                          "writes records outside their tree: remove the link")
    return path


def _split_cut_line(path: Path) -> tuple[str, str]:
    """``path``'s text as (complete lines, incomplete last line); ("", "") if it does not exist."""
    try:
        return _split_last_line(frames.read_text(path))
    except FileNotFoundError:
        return "", ""


def _split_last_line(text: str) -> tuple[str, str]:
    """``text`` as (its whole lines, the incomplete last line after them)."""
    end = text.rfind("\n") + 1
    return text[:end], text[end:]


def repair_trials(path: Path) -> None:
    """Rewrite ``path`` without an incomplete last line, logging what was dropped."""
    with locked(_lock_of(path)):
        complete, cut = _split_cut_line(path)
        if cut:
            log.warning("%s: dropped an incomplete last line (the file was cut mid-row), its trial "
                        "will be computed again: %.80r", path, cut)
            write_atomic(path, complete)


def recorded(path: Path) -> set[int]:
    """Indices of the trials recorded at ``path``."""
    trials = read_trials(path)
    return set(trials["trial"]) if len(trials) else set()


@contextlib.contextmanager
def locked(lock_file: Path, *, wait: bool = True) -> Iterator[bool]:
    """Hold an exclusive ``flock`` on ``lock_file``; yield False if busy and not ``wait``."""
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_file, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def claim(run_dir: Path, trial: int, *, wait: bool = True) -> contextlib.AbstractContextManager[bool]:
    """Lock trial ``trial`` of ``run_dir`` for computing it (see :func:`locked`)."""
    return locked(run_dir / ".claims" / f"trial-{trial}.lock", wait=wait)


def _lock_of(path: Path) -> Path:
    """The lock file a writer of the record ``path`` holds."""
    return path.with_name(f".{path.name}.lock")


def record_trial(path: Path, row: Mapping[str, Any]) -> pd.DataFrame:
    """Add one trial's row to ``path``; the first row recorded for a trial wins.

    The read-merge-write runs under a lock, so concurrent writers keep each
    other's rows.  Returns the merged table, sorted by trial.
    """
    with locked(_lock_of(path)):
        trials = pd.concat([read_trials(path), pd.DataFrame([row])], ignore_index=True)
        trials = trials.drop_duplicates("trial", keep="first").sort_values("trial", kind="stable")
        write_csv(path, trials)
    return trials


def record_grid(path: Path, grid: pd.DataFrame) -> None:
    """Put one trial's grid scores (rows with a ``trial`` column) in ``path``, replacing earlier rows
    of that trial (left by a run killed before it recorded the trial)."""
    with locked(_lock_of(path)):
        _finish_switch(path)
        old = read_trials(path)
        if len(old):
            old = old[~old["trial"].isin(grid["trial"].unique())]
        merged = pd.concat([old, grid], ignore_index=True).sort_values("trial", kind="stable")
        frames.write_frame(path, merged.to_csv(index=False))


def clear_trials(path: Path) -> None:
    """Forget every trial recorded at ``path``, in either form (for ``experiment.force``)."""
    with locked(_lock_of(path)):
        path.unlink(missing_ok=True)
        frames.gzipped(path).unlink(missing_ok=True)


def repair_run(run: Path) -> None:
    """Make the records of ``run`` whole before it resumes, each repair warned.

    A ``trials.csv`` row cut short is dropped (:func:`repair_trials`).  A frame in both forms (a switch
    to gzip interrupted) keeps its .gz, written first and whole, and loses its .csv.  A frame cut short
    or damaged (a .csv's last line without its end, a .gz cut or corrupt) keeps the rows of the trials
    before the last one it still shows whole lines of (its rows are sorted by trial), and the trials
    from that one on leave ``trials.csv``: they are computed again, as a trial whose row was cut is.
    """
    repair_trials(run / frames.INDEX)
    for path in frames.frame_paths(run):
        with locked(_lock_of(path)):
            _finish_switch(path)
            _repair_frame(path, run / frames.INDEX)  # takes the table's lock: always after a frame's, no deadlock


def _finish_switch(path: Path) -> None:
    """Remove the .csv of the frame ``path`` if its .gz exists too (the caller holds the frame's lock)."""
    packed = frames.gzipped(path)
    if packed.exists() and path.exists():
        log.warning("%s: removed, as %s holds every row (a switch to gzip was interrupted)", path, packed.name)
        path.unlink()


def _repair_frame(path: Path, index: Path) -> None:
    """Rewrite the damaged frame ``path`` with the rows of its whole trials, and drop the later trials
    from the trials table ``index``; nothing if the frame is whole (or absent).

    The table forgets first: a stop between the two leaves the frame damaged, so the next resume repairs
    it again, while the other order would leave trials recorded whose rows the frame no longer holds.
    """
    found = frames.stored(path)
    if not found.exists():
        return
    text, damage = frames.load(found)
    if damage is None and text.endswith("\n"):
        return
    complete, _ = _split_last_line(text)
    try:
        rows = pd.read_csv(io.StringIO(complete), dtype={"run_id": str}) if complete else None
        first_lost = int(rows["trial"].iloc[-1]) if rows is not None and len(rows) else 0
    except (pd.errors.ParserError, KeyError, ValueError) as err:
        raise RecordError(f"{found} is {damage or 'cut short'} and its whole lines are no table of trials ({err}): "
                          "move it away, and its run's trials are computed again") from None
    log.warning("%s is %s: keeping the rows of trials before %d, the later ones are computed again", found,
                damage or "cut short (its last line has no end)", first_lost)
    _forget_from(index, first_lost)
    if rows is None:
        found.unlink()
    else:
        frames.write_frame(path, rows[rows["trial"] < first_lost].to_csv(index=False))


def _forget_from(path: Path, first: int) -> None:
    """Drop the rows of trials ``first`` and later from the trials table ``path``: they are computed again."""
    with locked(_lock_of(path)):
        trials = read_trials(path)
        if len(trials) and (trials["trial"] >= first).any():
            write_csv(path, trials[trials["trial"] < first])


def remove_if_no_trials(run: Path) -> bool:
    """Delete the run directory ``run`` if it records no trial and no process works in it.

    For a run that failed before its first trial: its directory would hold only
    ``config.yaml`` and ``run.log``.  Returns whether it was removed.
    """
    with locked(_lock_of(run / "trials.csv")):
        if recorded(run / "trials.csv") or _claimed(run):
            return False
        shutil.rmtree(run)
    return True


def _claimed(run: Path) -> bool:
    """Whether another process is computing a trial of ``run``."""
    for lock_file in (run / ".claims").glob("trial-*.lock"):
        with locked(lock_file, wait=False) as free:
            if not free:
                return True
    return False


def summarize(trials: pd.DataFrame, by: Iterable[str] = ("run_id",)) -> pd.DataFrame:
    """Mean, std (ddof=1) and count of every metric present, per group."""
    by = [c for c in by if c in trials.columns]
    metrics = [m for m in trials.columns if m in METRICS or m.startswith(("mass_", "acceptance_"))]
    grouped = trials.groupby(by, sort=False, dropna=False)[metrics]
    stats = grouped.agg(["mean", "std", "count"])
    stats.columns = [f"{metric}_{stat}" for metric, stat in stats.columns]
    return stats.reset_index()


def format_mean_sd(summary: Mapping[str, Any], metric: str) -> str:
    """``metric``'s "mean +- sd" from a :func:`summarize` row; the mean alone for one trial."""
    mean, sd, count = (summary[f"{metric}_{stat}"] for stat in ("mean", "std", "count"))
    return f"{mean:.4f}" if count == 1 else f"{mean:.4f} +- {sd:.4f}"


def config_columns(trials: pd.DataFrame) -> list[str]:
    """The flattened config columns that determine a run's numbers (as in the run id; a key added
    later counts only where some row has a value other than the one earlier rows implied)."""
    return [c for c in trials.columns if "." in c and identifies_run(c)
            and (c not in IMPLIED_VALUES or (trials[c].notna() & (trials[c] != IMPLIED_VALUES[c])).any())]


def collect(root: Path) -> pd.DataFrame:
    """All trials of all runs below ``root`` (e.g. one experiment's sweep) in one frame.

    Raises a RecordError if ``root`` holds no run, or a run's file leads out of ``root`` (a symlink).
    """
    if not root.is_dir():
        raise RecordError(f"{root} is not a folder of runs (a results tree such as results/default)")
    files = sorted(inside(root, f) for f in root.rglob("runs/*/trials.csv"))
    if not files:
        raise RecordError(f"no runs/*/trials.csv below {root}: no run has recorded a trial there")
    return pd.concat([read_trials(f) for f in files], ignore_index=True)
