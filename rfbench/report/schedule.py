"""How long each paper's campaign would take on 2, 16 and 64 workers, by its committed records.

    python -m rfbench.report.schedule [--results results]      writes <results>/SCALING.md

For each paper's whole campaign (``make <paper>``, i.e. ``rfbench-campaign <paper> <paper>``) and
the atlas, every job's seconds from nothing are the dry run's own estimate
(:meth:`rfbench.engine.launch.CampaignSweeper._status` on an empty results tree, its times read
from ``--results``: the mean recorded seconds of a trial of the same run, every ``time_*`` column,
times the job's trials), and :func:`rfbench.engine.schedule.makespan` schedules them longest first,
one job per worker, as the launcher does.  ``rfbench-campaign <paper> <paper> --dry-run --workers N
--results <empty dir>`` prints the same number for one N.  An estimate from records, not a
measurement: the page says what it leaves out and checks itself against the atlas's measured run.
"""
from __future__ import annotations

import math
import tempfile
from pathlib import Path

import pandas as pd
from hydra import initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.types import HydraContext, RunMode

from rfbench.engine import campaign, records
from rfbench.engine.config import CONFIG_DIR, ConfigError
from rfbench.engine.launch import CampaignSweeper
from rfbench.engine.schedule import hours_minutes, makespan
from rfbench.report import command
from rfbench.storage.atomic import write_atomic

#: The campaigns of the page: every paper's (``make <paper>``) and the atlas's (``make atlas``).
CAMPAIGNS = ("askrff", "li", "qmc", "rr", "tutorial", "atlas")
#: ``make all``: the papers' campaigns one after another (the atlas is not in it).
MAKE_ALL = ("askrff", "li", "qmc", "rr", "tutorial")
WORKERS = (2, 16, 64)
#: The longest jobs listed per campaign: those that bound it on many workers.
LONGEST = 3
#: The one measured fact to check against: the atlas from nothing in one go on these 2 cores,
#: 1 h 37 min 57 s (results/atlas/README.md, "Cost": 2026-11-26, commit 22d5492, machine idle).
ATLAS_MEASURED = 1 * 3600 + 37 * 60 + 57
PAGE = "SCALING.md"


def estimates(paper: str, results: Path, target: str | None = None) -> pd.DataFrame:
    """Every job of ``make <paper>`` (or of its ``target``): its overrides, run id, estimated seconds
    from nothing (inf: its run has no recorded trial) and the BLAS threads its times were recorded with
    (:func:`_blas_threads`)."""
    with tempfile.TemporaryDirectory(prefix="rfbench-schedule-") as empty, \
            initialize_config_dir(CONFIG_DIR, version_base="1.3"):
        loader = GlobalHydra.instance().config_loader()
        where = f"experiment.results_dir={empty}"
        target = target or paper
        sweeper = CampaignSweeper(paper, target, dry_run=True, times_from=str(results.absolute()))
        sweeper.config = loader.load_configuration("config", [where], run_mode=RunMode.MULTIRUN)
        sweeper.hydra_context = HydraContext(config_loader=loader, callbacks=None)
        rows = []
        for job in campaign.plan(paper, target, extra=[where]).jobs:
            status = sweeper._status(job)  # the dry run's estimate itself, not a second one
            reference = results / status["run_dir"].relative_to(empty)
            rows.append({"overrides": " ".join(o for o in job if o != where), "run_id": reference.name,
                         "seconds": status["seconds"], "blas_threads": _blas_threads(reference)})
    return pd.DataFrame(rows, columns=["overrides", "run_id", "seconds", "blas_threads"])


def _blas_threads(run: Path) -> str:
    """The most BLAS threads a recorded trial of ``run`` had: a number, "all" (recorded null: the
    library's default, every core, as a job alone or outside a launcher gets) or "-" (no trial)."""
    trials = records.read_trials(run / "trials.csv")
    if trials.empty:
        return "-"
    threads = pd.to_numeric(trials.get("experiment.blas_threads", pd.Series([None] * len(trials))), errors="coerce")
    return "all" if threads.isna().any() else str(int(threads.max()))


def scaling(jobs: pd.DataFrame, workers: tuple[int, ...] = WORKERS) -> dict[str, float]:
    """A campaign's figures: its CPU seconds, longest job, and list-schedule wall time per worker count
    (jobs of no recorded time left out: they are counted in ``unknown``)."""
    timed = jobs["seconds"] < math.inf
    known = jobs["seconds"][timed]
    return {"jobs": len(jobs), "unknown": len(jobs) - len(known), "cpu": float(known.sum()),
            "floor": float(known.max()) if len(known) else 0.0,
            "shared": float(jobs["seconds"][timed & (jobs["blas_threads"] != "1")].sum()),
            **{n: makespan(list(known), n) for n in workers}}


def render(campaigns: dict[str, pd.DataFrame]) -> str:
    """The page, from each campaign's jobs (:func:`estimates`)."""
    figures = {paper: scaling(jobs) for paper, jobs in campaigns.items()}
    lines = [*_preamble(), "| campaign | jobs | recorded CPU | " + " | ".join(f"{n} workers" for n in WORKERS)
             + " | floor: the longest job | no recorded time | CPU recorded with more than 1 BLAS thread |",
             "|---|---:|---:|" + "---:|" * len(WORKERS) + "---:|---:|---:|"]
    for paper, fig in figures.items():
        cells = [_wall(fig[n], fig["floor"]) for n in WORKERS]
        lines.append(f"| `make {paper}` | {fig['jobs']} | {fig['cpu'] / 3600:.2f} core-h | {' | '.join(cells)} | "
                     f"{hours_minutes(fig['floor'])} | {fig['unknown']} | {fig['shared'] / 3600:.2f} core-h |")
    in_all = [figures[p] for p in MAKE_ALL if p in figures]
    if len(in_all) == len(MAKE_ALL):
        total = " | ".join(hours_minutes(sum(f[n] for f in in_all)) for n in WORKERS)
        lines.append(f"| `make all` (the papers in turn) | {sum(f['jobs'] for f in in_all)} | "
                     f"{sum(f['cpu'] for f in in_all) / 3600:.2f} core-h | {total} | | | |")
    lines += ["", "(floor): the wall time is the longest job's; more workers cannot shorten it.", ""]
    if "atlas" in figures:
        lines += _check(figures["atlas"][2])
    lines += ["## The jobs that bound each campaign", "",
              f"The {LONGEST} longest of each campaign, from the records (every override of the job is listed).",
              "", "| campaign | estimated | run id | BLAS threads recorded | job |", "|---|---:|---|---:|---|"]
    for paper, jobs in campaigns.items():
        for row in jobs.sort_values("seconds", ascending=False, kind="stable").head(LONGEST).itertuples():
            lines.append(f"| {paper} | {hours_minutes(row.seconds)} | `{row.run_id}` | {row.blas_threads} | "
                         f"`{row.overrides}` |")
    return "\n".join(lines) + "\n"


def _wall(seconds: float, floor: float) -> str:
    return hours_minutes(seconds) + (" (floor)" if seconds == floor and floor else "")


def _preamble() -> list[str]:
    return [
        "# Scaling by the records: each campaign's wall time on 2, 16 and 64 workers", "",
        "Rendered by `python -m rfbench.report.schedule --results results` from the committed records; "
        "do not edit.", "",
        "**An estimate from records, not a measurement.** Each job costs what its run's committed records "
        "hold: the mean recorded seconds of a trial (every `time_*` column) times the job's trials, the "
        "estimate `rfbench-campaign <paper> <paper> --dry-run` orders the jobs by (with `--workers N` and an "
        "empty `--results` folder it prints the wall time below for one N). The jobs are scheduled as "
        "the launcher schedules them: longest first, each taken by the first free worker, one job per worker.",
        "",
        "- **Load.** The times were recorded at the load of their sittings (2 to 17 on these 2 cores for "
        "the atlas): they overstate the time of an idle machine; the atlas's run from nothing measures by how "
        "much (results/atlas/README.md, \"Cost\").",
        "- **Cores per job.** One worker is one core running one job with one BLAS thread (joblib on N "
        "cores with N parallel jobs gives each cores / N = 1, `experiment.blas_threads` in the records). "
        "A job whose times were recorded with more (2, or `all`: null, the library's default, every one of "
        "these 2 cores, as a lone job or a run outside a launcher has) counts its recorded time too; on one "
        "core its BLAS-bound parts could take up to twice that (last column: how much of the CPU time is such).",
        "- **Not counted.** Job start-up (a Hydra start and a data load, about 5 s a job in the atlas's "
        "notes: jobs x 5 s / N more), the report steps (they read records; no record times them) and the "
        "jobs whose run has no recorded trial (counted in their column).", ""]


def _check(estimate: float) -> list[str]:
    return ["## Checked against the one measurement", "",
            "The atlas from nothing in one go took 1 h 37 min 57 s on these 2 cores, the machine otherwise "
            "idle (measured: results/atlas/README.md, \"Cost\"); the estimate above for 2 "
            f"workers is {hours_minutes(estimate)}: measured / estimated = {ATLAS_MEASURED / estimate:.2f}. "
            "The records' load and the start-up left out pull in opposite directions.", ""]


def write(results: Path) -> Path:
    """``<results>/SCALING.md`` from the records below ``results``."""
    page = results / PAGE
    write_atomic(page, render({paper: estimates(paper, results) for paper in CAMPAIGNS}))
    return page


def main(argv: list[str] | None = None) -> None:
    command.run("python -m rfbench.report.schedule", __doc__,
                "results tree whose records time the jobs; writes <results>/SCALING.md", write,
                (ConfigError, records.RecordError), argv)


if __name__ == "__main__":
    main()
