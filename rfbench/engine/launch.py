"""Run a campaign target through Hydra's launcher: ``rfbench-campaign <paper> <target>``.

The target's jobs (:func:`rfbench.engine.campaign.plan`) go to :class:`CampaignSweeper`, a Hydra
sweeper (``hydra/sweeper=campaign``) that composes and checks every job before any work, skips
the runs already complete, and hands the rest to the configured launcher in **one** batch,
longest first by their recorded times: on joblib every core stays busy until the last long job
(longest-processing-time-first list scheduling), and ``--launcher slurm`` or ``ray_cluster``
sends the same batch to a cluster.  Then the target's steps run (its report, from the records).

    rfbench-campaign li fig7                      # resume: only what is missing is computed
    rfbench-campaign li fig7 --dry-run            # the plan: jobs, complete, to do, estimated CPU time
    rfbench-campaign li fig7 --workers 4          # 4 joblib workers even on 2 cores (n_jobs is capped at them)
    rfbench-campaign rr table1 --results /tmp/r -- experiment.trials=2
"""
from __future__ import annotations

import argparse
import importlib
import json
import logging
import math
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pandas as pd
from hydra.core.plugins import Plugins
from hydra.errors import HydraException
from hydra.plugins.launcher import Launcher
from hydra.plugins.sweeper import Sweeper
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig, OmegaConf

from rfbench.engine import campaign, interrupt, records
from rfbench.engine import config as config_
from rfbench.engine import schedule as schedule_
from rfbench.engine.config import ConfigError
from rfbench.engine.preflight import check_config
from rfbench.storage.atomic import write_atomic
from rfbench.validation import is_int

log = logging.getLogger(__name__)

#: The campaign's plan in its sweep folder (jobs and their estimated seconds), for the progress lines.
PLAN = "campaign.json"
#: Launchers ``--launcher`` accepts (``configs/hydra/launcher/`` adds slurm and ray_cluster).
LAUNCHERS = ("joblib", "basic", "ray", "ray_cluster", "slurm")


class CampaignSweeper(Sweeper):
    """Hydra sweeper over one campaign target's jobs (``configs/hydra/sweeper/campaign.yaml``)."""

    def __init__(self, paper: str, target: str, dry_run: bool = False, times_from: str = "results",
                 workers: int = 0) -> None:
        self.paper, self.target, self.dry_run, self.times_from = paper, target, dry_run, Path(times_from)
        self.workers = workers  # > 0: the dry run also prints the jobs' list schedule on this many workers
        self.config: DictConfig | None = None
        self.hydra_context: HydraContext | None = None
        self.launcher: Launcher | None = None

    def setup(self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig) -> None:
        self.config, self.hydra_context = config, hydra_context
        self.launcher = Plugins.instance().instantiate_launcher(
            hydra_context=hydra_context, task_function=task_function, config=config)

    def sweep(self, arguments: list[str]) -> Any:
        try:  # every job composed and checked, the launcher's settings too, before any work
            jobs = campaign.plan(self.paper, self.target, extra=arguments).jobs
            status = pd.DataFrame([self._checked_status(job) for job in jobs],
                                  columns=["job", "run_dir", "complete", "seconds"])
            todo = status[~status["complete"]].sort_values("seconds", ascending=False, kind="stable")
            self._cap_workers(len(todo))
        except (ConfigError, records.RecordError) as err:  # one line and exit 2, as rfbench-campaign's own refusals
            print(f"rfbench-campaign: error: {err}", file=sys.stderr)
            sys.exit(2)
        known = todo["seconds"][todo["seconds"] < math.inf]
        if todo.empty:
            log.info("campaign %s %s: all %d job(s) complete, nothing to run", self.paper, self.target, len(status))
        else:
            log.info("campaign %s %s: %d job(s), %d complete, %d to run (%d with recorded trial times, %s in all)",
                     self.paper, self.target, len(status), int(status["complete"].sum()), len(todo), len(known),
                     _duration(known.sum()))
        if self.dry_run:
            for row in todo.itertuples():
                print(f"{_duration(row.seconds):>10}  {' '.join(row.job)}")
            if self.workers:
                print(schedule_.summary(list(todo["seconds"]), self.workers))
            return []
        if todo.empty:
            return []
        sweep_dir = Path(self.config.hydra.sweep.dir)
        sweep_dir.mkdir(parents=True, exist_ok=True)
        OmegaConf.save(self.config, sweep_dir / "multirun.yaml")
        plan = {"campaign": f"{self.paper} {self.target}", "start": time.time(),
                "jobs": [{"overrides": row.job, "seconds": None if row.seconds == math.inf else row.seconds}
                         for row in todo.itertuples()]}
        write_atomic(sweep_dir / PLAN, json.dumps(plan))
        try:
            results = self.launcher.launch(list(todo["job"]), initial_job_idx=0)
        except BrokenProcessPool as err:  # joblib's TerminatedWorkerError: a worker killed (the OOM killer)
            killed = interrupt.WorkerKilled(_signal_of(err), "a campaign job's worker")
            interrupt.note_trials(killed, sum(self._status(job)["complete"] for job in todo["job"]), len(todo), "jobs")
            raise killed from None
        for result in results:
            _ = result.return_value  # re-raises a job's exception
        return [results]

    def _checked_status(self, job: list[str]) -> dict[str, Any]:
        """:meth:`_status`, its refusal naming the campaign file, the target and the job's overrides."""
        try:
            return self._status(job)
        except (ConfigError, records.RecordError) as err:
            raise type(err)(f"configs/campaign/{self.paper}.yaml, target {self.target}, job {' '.join(job)}: "
                            f"{err}") from None
        except HydraException as err:  # an override Hydra cannot compose (a key of no group)
            raise ConfigError(f"configs/campaign/{self.paper}.yaml, target {self.target}, job {' '.join(job)}: "
                              f"{str(err).splitlines()[0]}") from None

    def _cap_workers(self, jobs: int) -> None:
        """Refuse joblib's ``n_jobs`` that gives no worker (0, or below -cores); cap it at the cores and the
        jobs to run: a worker beyond either only adds a process and its memory.  Workers asked for by name
        (``rfbench-campaign --workers N``, the sweeper's ``workers`` outside a dry run) are not capped at the
        cores, only at the jobs, and the log says they share the cores."""
        settings = getattr(self.launcher, "joblib", None)
        n_jobs = settings.get("n_jobs") if settings is not None else None
        asked = self.workers if not self.dry_run else 0
        if n_jobs is None:
            if asked:
                raise ConfigError(f"--workers {asked} sets the joblib launcher's workers: give it with "
                                  "--launcher joblib, or --dry-run for the estimate on that many")
            return
        cores = os.cpu_count() or 1
        if asked:
            settings["n_jobs"] = max(1, min(asked, jobs))
            if settings["n_jobs"] > cores:
                log.warning("campaign: %d joblib workers on %d core(s), as --workers %d asks: they share the cores, "
                            "and each holds its job's memory at once", settings["n_jobs"], cores, asked)
            return
        workers = 0 if not is_int(n_jobs) or n_jobs == 0 else n_jobs if n_jobs > 0 else cores + 1 + n_jobs  # -1: all
        if workers <= 0:
            raise ConfigError(f"hydra.launcher.n_jobs={n_jobs!r} is invalid: an integer >= 1 (workers), or -k "
                              f"for all cores but k - 1 (-1: all {cores}), at least one worker")
        capped = max(1, min(workers, cores, jobs))
        if capped != workers:
            log.info("campaign: %d joblib worker(s), not %d: %d core(s), %d job(s) to run (rfbench-campaign "
                     "--workers %d runs that many whatever the cores)", capped, workers, cores, jobs, workers)
        settings["n_jobs"] = capped

    def _status(self, job: list[str]) -> dict[str, Any]:
        """A job's run directory, whether every trial is recorded, and its estimated seconds to do."""
        composed = self.hydra_context.config_loader.load_sweep_config(self.config, job)
        cfg = config_.to_dict(OmegaConf.masked_copy(composed, [k for k in composed if k != "hydra"]))
        check_config(cfg)
        run, trials = records.run_dir(cfg), cfg["experiment"]["trials"]
        done = records.recorded(run / "trials.csv") & set(range(trials))
        complete = len(done) == trials and not cfg["experiment"]["force"]
        per_trial = _seconds_per_trial(run) or _seconds_per_trial(self._reference(run, cfg))
        seconds = math.inf if per_trial is None else per_trial * (trials - len(done))
        return {"job": job, "run_dir": run, "complete": complete, "seconds": seconds}

    def _reference(self, run: Path, cfg: dict[str, Any]) -> Path:
        """The same run in the reference tree (the committed results), whose times estimate this one's."""
        return self.times_from / run.relative_to(Path(cfg["experiment"]["results_dir"]))


def _signal_of(err: BaseException) -> int:
    """The signal that killed a pool's worker, from joblib's message ("exit codes ... {SIGKILL(-9)}"); SIGKILL
    if it names none."""
    codes = [int(code) for code in re.findall(r"\(-(\d+)\)", str(err))]
    return codes[0] if codes else int(signal.SIGKILL)


def progress_line(sweep_dir: Path, done: list[list[str]]) -> str | None:
    """'campaign li fig7: 12/45 jobs, 40:00 elapsed, ETA 1:10:00' for a campaign's sweep folder
    (None for another sweep); the ETA weighs the jobs by their recorded times where known."""
    try:
        plan = json.loads((sweep_dir / PLAN).read_text())
    except FileNotFoundError:
        return None
    finished = {tuple(job) for job in done}
    known = [job["seconds"] for job in plan["jobs"] if job["seconds"] is not None]
    fill = sum(known) / len(known) if known else 1.0  # a job of unknown cost counts as an average one
    weight = {tuple(job["overrides"]): job["seconds"] or fill for job in plan["jobs"]}
    done_weight = sum(w for job, w in weight.items() if job in finished)
    elapsed = time.time() - plan["start"]
    left = elapsed * (sum(weight.values()) - done_weight) / done_weight if done_weight else math.inf
    eta = "unknown" if left == math.inf else _clock(left)
    return (f"campaign {plan['campaign']}: {len(finished)}/{len(plan['jobs'])} jobs, {_clock(elapsed)} elapsed, "
            f"ETA {eta}")


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{secs:02d}"


def _seconds_per_trial(run: Path) -> float | None:
    """Mean recorded seconds of a trial of ``run`` (the sum of its ``time_*`` columns), None if none."""
    trials = records.read_trials(run / "trials.csv")
    times = trials.filter(like="time_")
    return float(times.sum(axis=1).mean()) if len(trials) and times.shape[1] else None


def _duration(seconds: float) -> str:
    if seconds == math.inf:
        return "unknown"
    minutes = seconds / 60
    return f"{minutes / 60:.1f} h" if minutes >= 90 else f"{minutes:.1f} min"


def run_steps(paper: str, steps: Sequence[Sequence[str]], results: Path) -> None:
    """Each step: ``python -m rfbench.papers.<paper>.<module> <args> --results <results>``, in process."""
    for module, *args in steps:
        log.info("step: rfbench.papers.%s.%s %s", paper, module, " ".join(args))
        importlib.import_module(f"rfbench.papers.{paper}.{module}").main([*args, "--results", str(results)])


def main(argv: list[str] | None = None) -> None:
    """``rfbench-campaign``: run (or resume) a paper's target, then draw its report."""
    argv = sys.argv[1:] if argv is None else argv
    cut = argv.index("--") if "--" in argv else len(argv)  # overrides after --, for every job
    args = _parser().parse_args(argv[:cut])
    args.overrides = argv[cut + 1:]
    try:
        if args.list:
            for paper in campaign.papers():
                for target, doc in campaign.describe(paper):
                    name = paper if target == paper else f"{paper}-{target.replace('_', '-')}"  # make's name
                    print(f"{name:<24} {doc}")
            return
        given = [o for o in args.overrides if o.lstrip("+~").startswith("hydra.launcher.n_jobs=")]
        if args.workers and given:
            raise ConfigError(f"--workers {args.workers} and {given[0]} both set the workers: give one")
        if not (args.paper and args.target):
            raise ConfigError("name a paper and one of its targets (rfbench-campaign --list shows them)")
        plan = campaign.plan(args.paper, args.target)
        campaign.check_steps(args.paper, plan.steps)
        if placed := [o for o in args.overrides if o.lstrip("+~").startswith(("hydra.sweep.", "hydra.run."))]:
            raise ConfigError(f"{placed[0]} is invalid: a campaign keeps its sweep folder under --results "
                              f"({args.results}/{args.paper}/hydra/...); choose the folder with --results")
    except ConfigError as err:
        _parser().exit(2, f"rfbench-campaign: error: {err}\n")
    if plan.jobs:
        _launch(args)
    if not args.dry_run:
        run_steps(args.paper, plan.steps, args.results)


def _launch(args: argparse.Namespace) -> None:
    """The jobs through ``rfbench -m hydra/sweeper=campaign`` (a subprocess: Hydra owns its process)."""
    sweep_dir = f"{args.results}/{args.paper}/hydra/${{now:%Y-%m-%d_%H-%M-%S-%f}}"
    cmd = [sys.executable, "-m", "rfbench", "-m", "hydra/sweeper=campaign", f"hydra/launcher={args.launcher}",
           f"hydra.sweeper.paper={args.paper}", f"hydra.sweeper.target={args.target}",
           f"hydra.sweeper.workers={args.workers}",
           f"hydra.sweeper.dry_run={str(args.dry_run).lower()}", f"hydra.sweep.dir={sweep_dir}",
           f"experiment.results_dir={_quoted(str(args.results))}", *args.overrides]
    code = _run_passing_on_signals(cmd)
    if code:
        sys.exit(code if code > 0 else 128 - code)  # ended by signal N: 128 + N, as a shell says


#: Seconds the campaign's subprocess has to end on a SIGINT or SIGTERM that reached it too (a terminal's
#: Ctrl-C, a kill of the process group, scancel) before this process passes the signal on to it.
PASS_ON_AFTER = 5.0


def _run_passing_on_signals(cmd: list[str]) -> int:
    """Run ``cmd`` and wait for it; a SIGINT or SIGTERM to this process alone reaches it too.

    Without this, ``kill -INT`` of ``rfbench-campaign`` ended this process and left its subprocess and
    that one's workers computing, orphaned. The signal is passed on only if the subprocess has not
    ended ``PASS_ON_AFTER`` seconds later: a signal to the whole process group already reached it, and a
    second one would land in its cleanup. The subprocess ends as ``rfbench`` does
    (:mod:`rfbench.engine.interrupt`): its workers stopped, one line, status 130 or 143.
    """
    child = subprocess.Popen(cmd)

    def pass_on(signum: int, _frame: object) -> None:
        timer = threading.Timer(PASS_ON_AFTER, child.send_signal, (signum,))  # a no-op once the child has ended
        timer.daemon = True
        timer.start()

    previous = {sig: signal.signal(sig, pass_on) for sig in interrupt.SIGNALS}
    try:
        return child.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _quoted(value: str) -> str:
    """``value`` as a quoted Hydra override value: a string, never a number (``--results nan``, ``1e3``)."""
    # Hydra reads a backslash literally but before a quote (or the closing one), where it escapes
    escaped = re.sub(r"(\\*)('|$)", lambda m: m.group(1) * 2 + ("\\'" if m.group(2) else ""), value)
    return f"'{escaped}'"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rfbench-campaign", description=__doc__,
                                     usage="%(prog)s [options] paper target [-- override ...]",
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paper", nargs="?", help="a paper with configs/campaign/<paper>.yaml")
    parser.add_argument("target", nargs="?", help="one of its targets (--list shows them)")
    parser.add_argument("--results", type=Path, default=Path("results"), help="results tree (default: results)")
    parser.add_argument("--launcher", choices=LAUNCHERS, default="joblib", help="Hydra launcher (default: joblib)")
    parser.add_argument("--dry-run", action="store_true", help="print the jobs to run, longest first; run nothing")
    parser.add_argument("--workers", type=schedule_.parse_workers, default=0, metavar="N",
                        help="run the jobs on N joblib workers, even more than the cores (hydra.launcher.n_jobs is "
                             "capped at them); with --dry-run: the jobs' wall time on N workers, by their records")
    parser.add_argument("--list", action="store_true", help="list every paper's targets with what each makes")
    return parser


if __name__ == "__main__":
    main()
