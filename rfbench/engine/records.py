"""Tidy result files: one row per trial, written atomically, resumable.

Layout under ``<results_dir>/<experiment.name>/runs/<run_id>/``:

- ``trials.csv``  one row per trial: every config value flattened into columns
  (``dataset.name``, ``feature_map.m_over_d``, ...), ``run_id``, ``trial``, ``seed``,
  derived sizes, metrics and timings;
- ``summary.csv`` mean, std and count of every numeric metric over all recorded trials;
- ``config.yaml`` the resolved config; ``run.log`` the run's log.

Every file is written to a temporary name in the same directory and renamed into
place, so an interrupted run never leaves a half-written file, and a rerun reads
``trials.csv`` to skip the trials it already holds.  ``trials.csv`` and the frames are stored plain or
gzipped (``trials.csv.gz``) as their size asks (:mod:`rfbench.engine.frames`); every reader names them by
their ``.csv`` path and finds either form through this module (:func:`record_paths`, :func:`read_trials`).
Processes sharing a run directory add rows under an ``flock`` on ``.trials.csv.lock`` (read, merge by
trial, write), and each trial is computed under its own lock in ``.claims/``, so
concurrent runs of one config neither lose nor duplicate rows nor redo each
other's trials.  The kernel releases both locks when a process dies.

A run folder proves its identity to every reader, which reads through :func:`read_trials`:
its ``config.yaml`` hashes to the folder's name (the run id), every row carries that id, and
``(run_id, trial)`` is a key (:func:`check_rows`); a mismatch is refused, naming both and the repair.

A ``trials.csv`` whose last line was cut short (by a tool or a full disk: rfbench itself
only renames whole files into place) is read without that line, and
:func:`repair_trials` rewrites it so; the trial is then computed again.

A frame (a job's ``<key>.csv``, the runner's ``grid.csv``) is stored plain or gzipped as its
size asks, a gzipped one as gzip members appended trial by trial (:mod:`rfbench.engine.frames`, which
lays out the bytes); this module reads and writes it by its ``.csv`` name.  It is the one way in and
out of a run's records (``trials.csv``, ``config.yaml``, the frames): the rest of rfbench reads and
writes them through it, and it writes through :mod:`rfbench.storage.atomic`.
"""
from __future__ import annotations

import contextlib
import csv
import errno
import fcntl
import io
import logging
import os
import shutil
import socket
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml
from omegaconf import OmegaConf

from rfbench.engine import frames
from rfbench.engine.config import IMPLIED_VALUES, flatten, identifies_run, identity, run_id

# the error of every record, plain or gzipped, and how a record is named in either form: callers take them from here
from rfbench.engine.frames import INDEX, RecordError, gzipped, stored, stored_gzipped
from rfbench.engine.frames import record_paths as record_paths
from rfbench.storage import atomic
from rfbench.storage.atomic import write_atomic

log = logging.getLogger("rfbench")

#: Per-trial measurements (everything else in a row describes the run).
METRICS = (
    "gram_error", "gram_error_spectral", "test_accuracy", "test_error", "test_relative_error", "test_rmse",
    "cv_accuracy", "cv_relative_error", "cv_mse", "C", "lambda", "gamma",
    "time_fit", "time_transform", "time_train", "time_predict", "time_gram",
)


#: The operating system's refusals that are faults of the machine, not of rfbench: errno -> (what, the fix).
_FAULTS = {
    errno.EROFS: ("the file system is read-only", "give it write permission, or choose another experiment.results_dir"),
    errno.ENOSPC: ("the file system is full", "free space (df -h shows where)"),
    errno.EDQUOT: ("the disk quota is exhausted", "free space within the quota"),
    errno.ENOTDIR: ("a file stands where a folder belongs", "move that file away"),
    errno.EEXIST: ("a file stands where a folder belongs", "move that file away"),
    errno.EISDIR: ("a folder stands where a file belongs", "move that folder away"),
    errno.EACCES: ("permission denied", "give it write permission, or choose another experiment.results_dir"),
    errno.EPERM: ("operation not permitted", "give it write permission, or choose another experiment.results_dir"),
    errno.ENXIO: ("a FIFO stands where a file belongs", "move it away"),
}


class MachineFault(RecordError):
    """A record the machine refused to read or write (read-only, full, a file where a folder belongs)."""


@contextlib.contextmanager
def machine_faults() -> Iterator[None]:
    """Turn the operating system's refusals (:data:`_FAULTS`) in the block into one-line MachineFaults naming
    the path and the fix; the records stay as they were (every write is atomic), so a rerun resumes."""
    try:
        yield
    except OSError as err:
        what, fix = _FAULTS.get(err.errno, (None, None))
        if what is None:
            raise
        where = err.filename if err.filename2 is None else f"{err.filename} -> {err.filename2}"
        if err.errno in (errno.ENOTDIR, errno.EEXIST) and err.filename is not None:
            where = _file_in_the_way(Path(os.fsdecode(err.filename)))
        raise MachineFault(f"cannot use {where}: {what} ({err.strerror}); {fix}, then rerun the same command "
                           "to resume (the records written so far are intact)") from None


def _file_in_the_way(path: Path) -> Path:
    """The outermost of ``path`` and its folders that exists and is no folder (``runs`` a file), else ``path``."""
    return next((p for p in (*reversed(path.parents), path) if p.exists() and not p.is_dir()), path)


def write_csv(path: Path, frame: pd.DataFrame) -> None:
    write_atomic(path, frame.to_csv(index=False))


def run_dir(cfg: Mapping[str, Any]) -> Path:
    """Where the run of a resolved config keeps its files."""
    exp = cfg["experiment"]
    return Path(exp["results_dir"]) / exp["name"] / "runs" / run_id(cfg)


def read_trials(path: Path, *, migrating_to: str | None = None) -> pd.DataFrame:
    """Trials already recorded at ``path`` (empty frame when there are none): every reader's way in.

    An incomplete last line (no newline: the file was cut mid-row) is left out, so a
    cut row never counts as a recorded trial with missing values; a reader that is not the
    run itself (which repairs the file) is warned which trial that drops.  A file that is no
    table of trials (no integer ``trial`` column, ragged rows) is a RecordError, and a row with
    an empty metric that the file's other rows have is warned about, naming the trial and metric.
    A record of a run folder must be that run's (:func:`check_rows`; ``migrating_to``: the id the migration
    gives the run, which re-ids it).
    """
    trials = _read_table(path)
    check_rows(path, trials, migrating_to=migrating_to)
    _warn_missing_metrics(path, trials)
    return trials


def _read_table(path: Path) -> pd.DataFrame:
    """The whole rows of the CSV record ``path`` with an integer ``trial`` column (empty if none), unchecked;
    of a frame whose trials were appended, the latest rows of each trial (:func:`_latest`)."""
    try:
        members = _members(path)
    except FileNotFoundError:
        return pd.DataFrame()
    complete, cut = _split_last_line("".join(members))
    if not complete:
        return pd.DataFrame()
    try:
        widths = sorted({len(row) for row in csv.reader(io.StringIO(complete)) if row})
        if len(widths) > 1:  # pandas would take a longer row's first fields for an index
            raise ValueError(f"rows of {widths} fields")
        # a run id is text: 3425406e1568 or 012345678901 would otherwise come back as a number
        trials = pd.read_csv(io.StringIO(complete), dtype={"run_id": str})
    except (csv.Error, pd.errors.ParserError, ValueError) as err:
        raise RecordError(f"{stored(path)} is not a table rfbench wrote ({str(err).strip()}); move it away, "
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
    return _latest(path, trials, members) if len(members) > 1 else trials


def _latest(path: Path, trials: pd.DataFrame, members: list[str]) -> pd.DataFrame:
    """The rows ``trials`` of the frame ``path`` appended as ``members``: of each trial, those of the last member
    holding it (a trial computed again, its first process killed before recording it, was appended again),
    sorted by trial as a frame written whole is."""
    counts = [sum(1 for row in csv.reader(io.StringIO(text)) if row) for text in members]
    counts[0] -= 1  # the header
    if sum(counts) != len(trials):
        raise RecordError(f"{stored(path)}: its gzip members hold {sum(counts)} rows, its table {len(trials)}: not a "
                          "frame rfbench wrote; move it away, and its trials are computed again")
    member = np.repeat(np.arange(len(members)), counts)
    latest = pd.Series(member).groupby(trials["trial"].to_numpy()).transform("max").to_numpy() == member
    return trials[latest].sort_values("trial", kind="stable").reset_index(drop=True)


def _members(path: Path) -> list[str]:
    """The texts of the record ``path`` (its gzip members', or a plain file's one); FileNotFoundError if it is in
    neither form, a RecordError if it is damaged.  A damaged .gz is looked at again once no writer holds the
    frame's lock: a reader without the lock may have met an append under way."""
    found, held = frames.read(path)
    if held.damage:
        with _reading(_lock_of(path)) as waited:
            if waited:
                found, held = frames.read(path)
    if held.damage:
        raise RecordError(f"{found} is {held.damage}: rerun the run's command (it computes the trials it held "
                          "again), or restore the file (git checkout)")
    return held.members


@contextlib.contextmanager
def _reading(lock_file: Path) -> Iterator[bool]:
    """Hold a shared ``flock`` on ``lock_file`` (waiting for its writer); yield False, holding nothing, if there is
    no such regular file (no writer ever worked here) or this thread holds it (it is the writer).  Opened
    read-only: a read-only tree can be read."""
    if _holder_key(lock_file) in _HELD:
        yield False
        return
    try:
        fd = os.open(lock_file, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        yield False
        return
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            yield False
            return
        fcntl.flock(fd, fcntl.LOCK_SH)
        yield True
    finally:
        os.close(fd)


def read_text(path: Path) -> str:
    """The CSV text of the record ``path`` (either form) as its readers see it: FileNotFoundError if there is none,
    a RecordError if it is damaged.  Of a frame whose trials were appended, the table of each trial's latest
    rows (:func:`_latest`), written anew."""
    members = _members(path)
    return "".join(members) if len(members) == 1 else _read_table(path).to_csv(index=False)


#: A run folder's resolved config, which the folder's name (its run id) hashes.
CONFIG = "config.yaml"


def check_rows(path: Path, trials: pd.DataFrame, *, migrating_to: str | None = None) -> None:
    """RecordError unless the table ``trials`` read from ``path`` belongs to the run folder it is in.

    In a run folder (``runs/<run_id>/`` holding :data:`CONFIG`, which a run writes before its first trial; a
    table kept otherwise, such as a test's, is no run's and is not checked): the config
    hashes to the folder's name, and every row with a ``run_id`` carries that name.  For the migration
    that re-ids the run to ``migrating_to``, the config is not hashed and rows may carry that id too (a
    migration cut short after rewriting the files, before renaming the folder).  In the run's index
    (``trials.csv``), ``(run_id, trial)`` is a key: a trial recorded twice is refused, naming its lines (the
    run's resume drops identical copies, :func:`repair_run`).
    """
    run = path.parent
    has_config = run.parent.name == "runs" and os.path.lexists(run / CONFIG)  # <results>/<name>/runs/<run_id>/
    if has_config and migrating_to is None:
        check_identity(run)
    if has_config and "run_id" in trials and len(trials):
        foreign = ~trials["run_id"].astype(str).isin({run.name, migrating_to or run.name})
        if foreign.any():
            raise RecordError(f"{path}: line(s) {_lines(foreign)} carry run id(s) "
                              f"{sorted(trials.loc[foreign, 'run_id'].astype(str).unique())}, not {run.name}, the "
                              "folder's: rows of another run were copied in; move them to their own run's "
                              "trials.csv or remove them (rerun the run's command to compute what is missing)")
    if has_config and path.name == INDEX and len(trials):
        _check_unique(path, trials)


def _check_unique(path: Path, trials: pd.DataFrame) -> None:
    """RecordError naming the lines of ``path`` that record one trial twice (``(run_id, trial)`` is a key)."""
    key = [c for c in ("run_id", "trial") if c in trials]
    twice = trials.duplicated(key, keep=False)
    if not twice.any():
        return
    copies = trials[twice].duplicated(keep=False).all()  # every repeated row identical to another
    fix = ("identical copies: rerun the run's command, whose resume drops them" if copies else
           "with different values: remove the wrong row(s) by hand, or move the run away to compute it again")
    raise RecordError(f"{path}: trial(s) {sorted(set(trials.loc[twice, 'trial']))} recorded more than once "
                      f"(lines {_lines(twice)}), {fix}")


def _lines(rows: pd.Series) -> str:
    """The file lines of the rows marked in ``rows`` (the header is line 1)."""
    return ", ".join(str(i + 2) for i in rows.to_numpy().nonzero()[0])


def read_config(run: Path) -> dict[str, Any]:
    """The config recorded in the run folder ``run``: a RecordError if it is not the non-empty YAML
    mapping rfbench writes (empty, a list, not YAML, not a regular file, not UTF-8)."""
    path = inside(run, run / CONFIG)
    text = frames.load(path).text
    try:
        cfg = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as err:
        raise RecordError(f"{path} is not YAML ({str(err).splitlines()[0]}): restore it (git checkout), or move "
                          "the run away") from None
    if not isinstance(cfg, dict) or not cfg:
        what = "empty" if not cfg else f"a YAML {type(cfg).__name__}"
        raise RecordError(f"{path} is {what}, not the mapping of a run's config rfbench writes: restore it "
                          "(git checkout), or move the run away")
    return cfg


#: Run ids of the configs read: (path, inode, mtime, size) -> id, so that a resume hashes its config once.
_IDS: dict[tuple, str] = {}


def check_identity(run: Path) -> None:
    """RecordError unless the run folder ``run``'s config hashes to the folder's name, its run id."""
    path = run / CONFIG
    try:
        info = path.stat()
    except FileNotFoundError:
        raise RecordError(f"{run} holds trials but no {CONFIG}: not a run folder rfbench wrote; move it "
                          "away") from None
    key = (str(path), info.st_ino, info.st_mtime_ns, info.st_size)
    if key not in _IDS:
        _IDS[key] = run_id(read_config(run))
    if _IDS[key] != run.name:
        raise RecordError(f"{path} hashes to run id {_IDS[key]}, not {run.name}, the folder's: the config was "
                          f"edited (restore it: git checkout {path}), or recorded by older code "
                          f"(python -m rfbench.engine.migrate {run.parent.parent} re-ids it); its trials are "
                          "not read")


def disagreement(cfg: Mapping[str, Any], trials: pd.DataFrame) -> str | None:
    """The first identifying config value of ``cfg`` (the run's recorded config) that the rows ``trials``
    were not computed with, as "key=config value, rows: value"; None if they agree."""
    flat = flatten(identity(cfg))
    for key in (k for k in trials.columns if k in flat and identifies_run(k)):
        cells = trials[key].dropna().unique() if flat[key] is not None else trials[key].unique()
        wrong = [c for c in cells if not _same_cell(c, flat[key])]
        if wrong:
            cell = wrong[0].item() if hasattr(wrong[0], "item") else wrong[0]  # a numpy scalar, shown as a number
            return f"{key}={flat[key]!r} in {CONFIG}, {cell!r} in its trials"
    return None


def _same_cell(cell: Any, value: Any) -> bool:
    """Whether a CSV cell read by pandas holds the flattened config ``value`` (numbers compared as numbers)."""
    if value is None:
        return pd.isna(cell)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(cell) == float(value)
        except (TypeError, ValueError):
            return False
    return str(cell) == str(value)


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
    if not stored(path).exists():
        return False
    if damage := table_damage(path):
        log.warning("%s is %s: computing it again", path, damage)
    return not damage


def table_damage(path: Path) -> str | None:
    """What makes the CSV record ``path`` (either form) no whole table (cut short, ragged rows, no data row,
    a cut or corrupt .gz); None if it is one."""
    held = frames.load(stored(path))
    text, damage = held.text, held.damage
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


def _split_last_line(text: str) -> tuple[str, str]:
    """``text`` as (its whole lines, the incomplete last line after them)."""
    end = text.rfind("\n") + 1
    return text[:end], text[end:]


def repair_trials(path: Path) -> None:
    """Rewrite the trials table ``path`` without an incomplete last line, or, if it is a damaged .gz (cut short,
    corrupt), with the whole lines it still shows; logging what was dropped (those trials are computed again)."""
    with locked(_lock_of(path)):
        found = stored(path)
        try:
            held = frames.load(found)
        except FileNotFoundError:
            return
        complete, cut = _split_last_line(held.text)
        if held.damage:
            log.warning("%s is %s: keeping the rows of its whole lines, the trials after them are computed again",
                        found, held.damage)
            write_frame(path, complete)
        elif cut:
            log.warning("%s: dropped an incomplete last line (the file was cut mid-row), its trial "
                        "will be computed again: %.80r", path, cut)
            write_frame(path, complete)


def _drop_copies(path: Path) -> None:
    """Rewrite the trials table ``path`` without the rows that repeat another row exactly (a trial
    recorded twice with the same values: a copy, not a second result), warning which; rows of one trial
    that differ stay, for every reader to refuse (:func:`check_rows`)."""
    with locked(_lock_of(path)):
        trials = _read_table(path)
        copies = trials.duplicated(keep="first") if len(trials) else pd.Series(dtype=bool)
        if copies.any():
            log.warning("%s: dropped line(s) %s, exact copies of earlier rows of trial(s) %s", path, _lines(copies),
                        sorted(set(trials.loc[copies, "trial"])))
            write_frame(path, trials[~copies].to_csv(index=False))


def recorded(path: Path) -> set[int]:
    """Indices of the trials recorded at ``path``."""
    trials = read_trials(path)
    return set(trials["trial"]) if len(trials) else set()


def locked(lock_file: Path, *, wait: bool = True) -> contextlib.AbstractContextManager[bool]:
    """Hold an exclusive ``flock`` on ``lock_file``; yield False if busy and not ``wait``."""
    return _holding(lock_file, lambda fd: _flock(fd, wait))


def _flock(fd: int, wait: bool) -> bool:
    """Take the exclusive ``flock`` of ``fd``, waiting for it if ``wait``; False if busy and not."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


@contextlib.contextmanager
def _holding(lock_file: Path, take: Callable[[int], bool], *, note: bool = False) -> Iterator[bool]:
    """Yield whether ``take(fd)`` took the lock ``lock_file``, released after the block; ``note``: the holder
    writes who it is into the file (pid, host, time) for the processes waiting for it (:func:`holder`)."""
    fd = _open_lock(lock_file)
    try:
        if not take(fd):
            yield False
            return
        if note:
            with contextlib.suppress(OSError):  # the note is for waiters: a full disk must not stop the work
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()} {socket.gethostname()} {time.time():.0f}\n".encode(), 0)
        _HELD.add(_holder_key(lock_file))
        try:
            yield True
        finally:
            _HELD.discard(_holder_key(lock_file))
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


#: The locks this process holds, by :func:`_holder_key`: a reader under its own writer's lock does not wait for it.
_HELD: set[tuple[Path, int, int]] = set()


def _holder_key(lock_file: Path) -> tuple[Path, int, int]:
    """``lock_file`` held by this process and thread (a forked child holds none of its parent's locks)."""
    return lock_file, os.getpid(), threading.get_ident()


def _open_lock(lock_file: Path) -> int:
    """A descriptor of the lock file ``lock_file`` (created), or a RecordError if it is no regular file:
    opened without blocking, as opening a FIFO would wait for its other end."""
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_file, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK, 0o666)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise RecordError(f"{lock_file} is not a regular file (a FIFO or a device where rfbench keeps a lock); "
                          "move it away and rerun the same command")
    return fd


#: Seconds between two looks at a claimed trial's lock while waiting for it (and at its holder's state).
CLAIM_POLL_SECONDS = 1.0


def claim(run_dir: Path, trial: int, *, wait: bool = True) -> contextlib.AbstractContextManager[bool]:
    """Lock trial ``trial`` of ``run_dir`` for computing it; yield False if busy and not ``wait``.

    The holder notes itself in the lock file (pid, host, time); a process waiting for the trial says
    who holds it and in what state (:func:`holder`), again whenever that changes (stopped by Ctrl-Z,
    resumed), so a wait is never silent about what to do.  The kernel frees the lock of a dead holder.
    """
    lock_file = run_dir / ".claims" / f"trial-{trial}.lock"
    return _holding(lock_file, lambda fd: _take(fd, lock_file, trial, wait), note=True)


def _take(fd: int, lock_file: Path, trial: int, wait: bool) -> bool:
    """Take the claim ``fd``; if busy, False unless ``wait``, else poll until free, logging its holder."""
    said = None
    while not _flock(fd, wait=False):
        if not wait:
            return False
        if (now := holder(lock_file)) != said:
            log.warning("trial %d of run %s is claimed by %s", trial, lock_file.parent.parent.name, now)
            said = now
        time.sleep(CLAIM_POLL_SECONDS)
    return True


def holder(lock_file: Path) -> str:
    """Who holds the claim ``lock_file`` as its note says, its state and what to do: "pid 12 on host h since
    02:41:07 UTC (stopped: ...)"."""
    try:
        pid, host, since = lock_file.read_text().split()
        who = f"pid {int(pid)} on host {host} since {time.strftime('%H:%M:%S UTC', time.gmtime(float(since)))}"
    except (OSError, ValueError):
        return "another process that left no note of itself (an older rfbench); waiting for it"
    if host != socket.gethostname():
        return f"{who} (another machine: its state cannot be seen from here); waiting for it"
    state = _process_state(int(pid))
    if state in ("T", "t"):
        return (f"{who} (stopped: suspended by Ctrl-Z or SIGSTOP; resume it with fg in its shell or "
                f"kill -CONT {pid}, or end it with kill {pid}); waiting for it")
    if state in (None, "Z", "X"):
        return (f"{who} (no longer running, but a process it started holds the lock: find it with fuser "
                f"{lock_file}); waiting for it")
    return f"{who} (running: it is computing the trial); waiting for it to record it"


def _process_state(pid: int) -> str | None:
    """The state letter of process ``pid`` on this machine (R, S, D, T stopped, Z zombie), None if there is none."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 1:].split()[0]


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
        write_frame(path, trials.to_csv(index=False))
    return trials


def record_grid(path: Path, grid: pd.DataFrame) -> None:
    """Put one trial's rows (a frame with a ``trial`` column: grid scores, a job's frame) in the frame ``path``.

    A gzipped frame whose header the rows share gets them appended as one gzip member, which costs that trial's
    bytes alone; readers take each trial's rows from the last member holding it (:func:`_latest`), so rows a
    run killed before recording the trial left are replaced.  Otherwise (a plain frame, under
    :data:`~rfbench.engine.frames.GZIP_ABOVE_BYTES` of text; other columns; no rows) the frame is written
    whole, earlier rows of that trial replaced, and switches to gzip once its text outgrows the threshold.
    """
    with locked(_lock_of(path)):
        _finish_switch(path)
        if _lock_of(path).read_bytes():  # an append whose process was killed: its member may be cut short
            _repair_frame(path, path.with_name(INDEX))
        head, _, rows = grid.to_csv(index=False).partition("\n")
        if len(grid) and gzipped(path).exists() and frames.header(gzipped(path)) == head:
            _append(path, rows)
            return
        old = read_trials(path)
        if len(old):
            old = old[~old["trial"].isin(grid["trial"].unique())]
        merged = pd.concat([old, grid], ignore_index=True).sort_values("trial", kind="stable")
        write_frame(path, merged.to_csv(index=False))


#: What a frame's lock file holds while a trial is appended to the frame (nothing otherwise): its next writer
#: that finds it there knows that the append's process was killed, and checks the frame's last member.
_APPENDING = b"appending\n"


def _append(path: Path, rows: str) -> None:
    """Append the CSV lines ``rows`` to the gzipped frame ``path`` as one gzip member, flushed to disk (the caller
    holds the frame's lock and repaired a killed append: no member ever follows a damaged one)."""
    _lock_of(path).write_bytes(_APPENDING)
    atomic.append_whole(gzipped(path), frames.pack(rows))
    _lock_of(path).write_bytes(b"")


def write_frame(path: Path, text: str) -> None:
    """Store the CSV ``text`` of the record ``path`` (``<key>.csv``) whole, in its form (plain, or one gzip member:
    :func:`~rfbench.engine.frames.stored_gzipped`), atomically.

    A switch to gzip writes ``<key>.csv.gz`` first, atomically and whole, then removes ``<key>.csv``:
    a writer killed between the two leaves both files, the .gz holding every row (:func:`stored`).
    """
    if not stored_gzipped(path, text):
        write_atomic(path, text)
        return
    with atomic.atomic_write(gzipped(path), "wb") as handle:
        handle.write(frames.pack(text))
    path.unlink(missing_ok=True)


def write_config(run: Path, cfg: Mapping[str, Any]) -> None:
    """Write the resolved config ``cfg`` as the run folder's :data:`CONFIG` once, when the run starts (a resume
    keeps the record: execution keys such as ``blas_threads`` change with the launcher, and prose such as
    ``dataset.deviations`` with the docs, not the results)."""
    if not (run / CONFIG).exists():
        write_atomic(run / CONFIG, OmegaConf.to_yaml(OmegaConf.create(dict(cfg))))


def clear_trials(path: Path) -> None:
    """Forget every trial recorded at ``path``, in either form (for ``experiment.force``)."""
    with locked(_lock_of(path)):
        path.unlink(missing_ok=True)
        gzipped(path).unlink(missing_ok=True)
        _lock_of(path).write_bytes(b"")


def repair_run(run: Path, *, started: float) -> None:
    """Make the records of ``run`` whole before it resumes, each repair warned.

    The temporaries of writers killed before ``started`` (a ``time.time()``) go.  A ``trials.csv`` row cut
    short is dropped (:func:`repair_trials`).  A frame in both forms (a switch to gzip interrupted) keeps its
    .gz, written first and whole, and loses its .csv.  A gzipped frame whose first member is whole and a later
    one cut short or damaged (an append killed midway) keeps its whole members; the trials recorded that they
    hold no row of leave ``trials.csv``.  A frame otherwise cut short or damaged (a .csv's last line without
    its end, a .gz cut or corrupt in its first member) keeps the rows of the trials before the last one it
    still shows whole lines of (its rows are sorted by trial), and the trials from that one on leave
    ``trials.csv``.  Either way they are computed again, as a trial whose row was cut is.
    """
    for tmp in atomic.remove_stale_temporaries(run, before=started):
        log.info("removed %s, left by a killed write", tmp)
    repair_trials(run / INDEX)
    _drop_copies(run / INDEX)
    for path in frames.frame_paths(run):
        with locked(_lock_of(path)):
            _finish_switch(path)
            _repair_frame(path, run / INDEX)  # takes the table's lock: always after a frame's, no deadlock
            if _lock_of(path).read_bytes():  # an append killed after its member was whole: nothing to cut
                _lock_of(path).write_bytes(b"")


def _finish_switch(path: Path) -> None:
    """Remove the .csv of the frame ``path`` if its .gz exists too (the caller holds the frame's lock)."""
    packed = gzipped(path)
    if packed.exists() and path.exists():
        log.warning("%s: removed, as %s holds every row (a switch to gzip was interrupted)", path, packed.name)
        path.unlink()


def _repair_frame(path: Path, index: Path) -> None:
    """Rewrite the damaged frame ``path`` with the rows of its whole trials, and drop the later trials
    from the trials table ``index``; nothing if the frame is whole (or absent).

    The table forgets first: a stop between the two leaves the frame damaged, so the next resume repairs
    it again, while the other order would leave trials recorded whose rows the frame no longer holds.
    """
    found = stored(path)
    if not found.exists():
        return
    held = frames.load(found)
    text, damage = held.text, held.damage
    if damage is None and text.endswith("\n"):
        return
    if damage and held.end:
        _cut_to_whole_members(found, held, index)
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
    _forget(index, lambda trial: trial >= first_lost)
    if rows is None:
        found.unlink()
    else:
        write_frame(path, rows[rows["trial"] < first_lost].to_csv(index=False))


def _cut_to_whole_members(found: Path, held: frames.Stored, index: Path) -> None:
    """Cut the gzipped frame ``found`` back to its whole members (``held``), after dropping from the trials table
    ``index`` the trials they hold no row of (the damaged member's; with them any trial of no rows)."""
    try:
        kept = set(pd.read_csv(io.StringIO("".join(held.members)), usecols=["trial"])["trial"])
    except (pd.errors.ParserError, ValueError) as err:
        raise RecordError(f"{found} is {held.damage} and its whole members are no table of trials ({err}): move it "
                          "away, and its run's trials are computed again") from None
    log.warning("%s is %s: keeping its whole gzip members (the first %d bytes), the trials they hold no row of are "
                "computed again", found, held.damage, held.end)
    _forget(index, lambda trial: ~trial.isin(kept))
    os.truncate(found, held.end)


def _forget(path: Path, lost: Callable[[pd.Series], pd.Series]) -> None:
    """Drop the rows of the trials ``lost(trial column)`` marks from the trials table ``path``: they are computed
    again."""
    with locked(_lock_of(path)):
        trials = read_trials(path)
        if len(trials) and lost(trials["trial"]).any():
            write_frame(path, trials[~lost(trials["trial"])].to_csv(index=False))


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
    files = record_paths(root, f"**/runs/*/{INDEX}")  # plain or gzipped
    for f in files:
        inside(root, stored(f))
    if not files:
        raise RecordError(f"no runs/*/trials.csv below {root}: no run has recorded a trial there")
    return pd.concat([read_trials(f) for f in files], ignore_index=True)
