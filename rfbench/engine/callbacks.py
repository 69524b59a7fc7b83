"""Hydra callback: a sweep's summary table, and no Hydra output left by a sweep that failed.

A single run has no Hydra output at all (``configs/config.yaml``: ``hydra.run.dir`` is
the working directory and ``output_subdir`` is null), so only sweeps concern this
module.  Hydra creates a sweep's directory (``<results_dir>/<name>/hydra/<time>/``, one
subdirectory per job) before rfbench runs a job.  Each job that completes leaves a
record there (:data:`JOB_RECORD`: its overrides and run directory); when the process
ends without the sweep completing (a crash, Ctrl-C), the job directories without a
record are removed, with the folders Hydra created above them if they are left empty.
A completed sweep prints one table of its jobs, read from those records.
"""
from __future__ import annotations

import atexit
import contextlib
import json
import logging
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
from hydra.core.utils import JobReturn, JobStatus
from hydra.experimental.callback import Callback
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf

from rfbench.engine import config as config_
from rfbench.engine import records
from rfbench.engine.launch import progress_line
from rfbench.storage.atomic import write_atomic

log = logging.getLogger("rfbench")

#: File in a Hydra job directory recording the job's overrides and run directory.
JOB_RECORD = "rfbench_job.json"
#: The metrics a sweep's table shows, when its runs have them.
TABLE_METRICS = ("test_accuracy", "gram_error")


class RfbenchCallback(Callback):
    """Registered in ``configs/config.yaml`` under ``hydra.callbacks``."""

    def __init__(self) -> None:
        self._output: Path | None = None
        self._created: list[Path] = []
        self._completed = False

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        self._watch(Path(config.hydra.sweep.dir))

    def on_job_end(self, config: DictConfig, job_return: JobReturn, **kwargs: Any) -> None:
        # In the process that ran the job; a single run's output directory is the working directory.
        if job_return.status == JobStatus.COMPLETED and config.hydra.mode == RunMode.MULTIRUN:
            record = {"num": OmegaConf.select(config, "hydra.job.num", default=0),
                      "overrides": list(job_return.overrides),
                      "run_dir": str(records.run_dir(config_.to_dict(job_return.cfg)))}
            write_atomic(Path(config.hydra.runtime.output_dir) / JOB_RECORD, json.dumps(record))
            self._campaign_progress(Path(config.hydra.sweep.dir))

    @staticmethod
    def _campaign_progress(sweep_dir: Path) -> None:
        """Within a campaign (rfbench-campaign), one line per finished job: done/total, elapsed, ETA."""
        done = [json.loads(p.read_text())["overrides"] for p in sweep_dir.glob(f"*/{JOB_RECORD}")]
        line = progress_line(sweep_dir, done)
        if line:
            log.info(line)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        self._completed = True
        sweep_dir = Path(config.hydra.sweep.dir)
        if sweep_dir.is_dir():  # a campaign with nothing to run launched nothing: its own line says so
            print(sweep_table(sweep_dir))

    def _watch(self, output: Path) -> None:
        """Note the folders Hydra is about to create; clean them at exit unless completed.

        A sweep folder that exists already (``hydra.sweep.dir`` set to a user's folder, or
        another sweep's) is not this sweep's to remove: nothing is cleaned then.
        """
        output = output.absolute()
        if output.exists():
            return
        self._output = output
        self._created = [p for p in [output, *output.parents] if not p.exists()]
        atexit.register(self._clean_up)

    def _clean_up(self) -> None:
        if self._completed or self._output is None or not self._output.is_dir():
            return
        for job in self._output.iterdir():  # a sweep's jobs, or a run's .hydra/
            if job.is_dir() and not (job / JOB_RECORD).exists():
                shutil.rmtree(job, ignore_errors=True)
        if not any(self._output.glob(f"*/{JOB_RECORD}")):  # no job of the sweep completed
            shutil.rmtree(self._output, ignore_errors=True)
        for folder in self._created[1:]:  # innermost first
            with contextlib.suppress(OSError):  # not empty: something else was written there
                folder.rmdir()


def sweep_table(sweep_dir: Path) -> str:
    """One line per completed job of the sweep in ``sweep_dir``: overrides, mean +- sd, run."""
    records = sorted((json.loads(p.read_text()) for p in sweep_dir.glob(f"*/{JOB_RECORD}")),
                     key=lambda r: r["num"])
    if not records:
        return f"sweep {sweep_dir}: no completed job"
    common = set.intersection(*(set(r["overrides"]) for r in records))
    rows = [_table_row(r, common) for r in records]
    shown = [c for c in ("job", "overrides", *TABLE_METRICS, "trials", "run") if any(c in r for r in rows)]
    header = f"sweep of {len(records)} job(s)" + (f", all with {' '.join(sorted(common))}" if common else "")
    table = pd.DataFrame(rows, columns=shown).fillna("")
    return header + "\n" + table.to_markdown(index=False, tablefmt="simple", disable_numparse=True)


def _table_row(record: dict[str, Any], common: set[str]) -> dict[str, Any]:
    run = Path(record["run_dir"])
    row = {"job": record["num"], "overrides": " ".join(o for o in record["overrides"] if o not in common),
           "run": str(run)}
    with contextlib.suppress(FileNotFoundError):
        summary = pd.read_csv(run / "summary.csv").iloc[0]
        for metric in TABLE_METRICS:
            if summary.get(f"{metric}_count", 0) > 0:
                row[metric] = records.format_mean_sd(summary, metric)
                row["trials"] = int(summary[f"{metric}_count"])
    return row
