"""Command-line entry points: ``rfbench`` (a Hydra app) and ``rfbench-aggregate``."""
from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

import hydra
from hydra.core.global_hydra import GlobalHydra
from omegaconf import DictConfig, OmegaConf

from rfbench.dataset import DatasetError
from rfbench.engine import interrupt, launchers, runner
from rfbench.engine.config import CONFIG_DIR, ConfigError
from rfbench.engine.preflight import check_command_line
from rfbench.engine.records import RecordError


def main() -> None:
    """``rfbench``: check every job of the command line, then let Hydra run them."""
    with interrupt.interruptible("rfbench"):
        with _reported():
            launchers.check_installed(sys.argv[1:])
            check_command_line(sys.argv[1:], CONFIG_DIR)
        _run()


#: Config folders that are not options of an experiment: the campaigns (read by rfbench-campaign) and Hydra's own.
NOT_SELECTABLE = ("campaign", "hydra")


def selectable_groups() -> str:
    """``rfbench --help``'s list (``${rfbench_groups:}`` in ``configs/config.yaml``): each config group a
    command line selects with its options, ``--config-dir``'s included, and the launchers installed."""
    if not GlobalHydra.instance().is_initialized():  # resolved outside Hydra's help: nothing to list
        return ""
    loader = GlobalHydra.instance().config_loader()
    lines = [f"{group}: {', '.join(sorted(loader.get_group_options(group)))}"
             for group in sorted(loader.list_groups("")) if group not in NOT_SELECTABLE]
    installed = launchers.options(loader.get_group_options("hydra/launcher"))
    lines.append(f"hydra/launcher (a sweep's, with -m): {', '.join(installed)}")
    return "\n".join(lines)


OmegaConf.register_new_resolver("rfbench_groups", selectable_groups)


@hydra.main(version_base="1.3", config_path=CONFIG_DIR, config_name="config")
def _run(cfg: DictConfig) -> None:
    """Run one composed experiment (Hydra runs this once per job of a multirun)."""
    with _reported():
        runner.run(cfg)


@contextlib.contextmanager
def _reported(prog: str = "rfbench") -> Iterator[None]:
    """A user's mistake ends the program with ``<prog>: error: <message>`` and status 2."""
    try:
        yield
    except (ConfigError, DatasetError, RecordError) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        sys.exit(2)
    except MemoryError as err:  # what the estimates before the run did not foresee
        print(f"{prog}: error: out of memory ({err}); choose a smaller size (feature_map.n_components or m_over_d) "
              "or dataset", file=sys.stderr)
        sys.exit(2)
    except Exception as err:  # raised while a signal was being handled: that signal, not Hydra's traceback
        if (interrupted := interrupt.as_interruption(err)) is err:
            raise
        raise interrupted from err


def aggregate(argv: list[str] | None = None) -> None:
    """Gather every run below a results directory into one CSV and one figure per metric."""
    from rfbench.engine import records
    from rfbench.report import plotting

    parser = argparse.ArgumentParser(prog="rfbench-aggregate", description=aggregate.__doc__)
    parser.add_argument("root", type=Path, help="e.g. results/default")
    parser.add_argument("--metrics", nargs="+", default=["test_accuracy", "gram_error", "time_fit"])
    args = parser.parse_args(argv)
    with _reported(parser.prog):
        trials = records.collect(args.root)
        if missing := {"run_id", "M", "m_over_d", "dataset.name"} - set(trials):  # what the summary and plots read
            raise RecordError(f"the trials below {args.root} lack the columns {sorted(missing)} that rfbench "
                              "records (empty or foreign trials.csv files)")
    records.write_csv(args.root / "all_trials.csv", trials)
    summary = records.summarize(trials, by=plotting.series_columns(trials) + plotting.POINT)
    records.write_csv(args.root / "all_summary.csv", summary)
    for metric in args.metrics:
        if metric in trials and trials[metric].notna().any():  # classifier=none runs have no test scores
            path = plotting.panels_vs_m(trials, metric, args.root / f"{metric}.png")
            print(f"wrote {path}")
    print(f"wrote {args.root / 'all_trials.csv'} ({len(trials)} trials) and {args.root / 'all_summary.csv'}")
