"""Campaigns as data: which jobs make each target of a paper, and how its report is drawn.

A paper's campaign is ``configs/campaign/<paper>.yaml``::

    vars:                      # override lists shared by sweeps (a list inside a sweep is spliced in)
      svm: [experiment=li_kernel_svm, kernel=linear, feature_map=identity]
    targets:
      tables:
        doc: exact kernel SVMs of Tables 1-3      # one line, shown by ``make help``
        needs: [fig1]          # targets whose jobs join this launch and whose steps run first
        sweeps:                # Hydra overrides; a comma list sweeps (Hydra's basic sweeper syntax)
          - [${vars.svm}, "dataset=letter_li,magic_li", classifier.kernel=gmm]
        steps:                 # then: python -m rfbench.papers.<paper>.<module> <args> --results <dir>
          - [report, tables]

:func:`plan` expands a target (with its ``needs``) into its jobs, one list of overrides each,
in the order the sweeps list them, without duplicates (two targets may share a run); the
launcher (:mod:`rfbench.engine.launch`) composes them, skips complete runs and runs the rest
longest-first.  A step is a paper module's command line: a report that reads records, or (QMC,
the tutorial, the theory figures) a computation that is not yet a runner job.
"""
from __future__ import annotations

import difflib
import importlib
import importlib.util
import pkgutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException
from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException

from rfbench.engine.config import CONFIG_DIR, ConfigError

#: Where the campaigns are, one YAML per paper.
CAMPAIGN_DIR = Path(CONFIG_DIR) / "campaign"
TARGET_KEYS = {"doc", "needs", "sweeps", "steps"}


@dataclass
class Plan:
    """What a target runs: its jobs (override lists) and its steps, in order."""

    paper: str
    target: str
    jobs: list[list[str]] = field(default_factory=list)
    steps: list[list[str]] = field(default_factory=list)


def papers() -> list[str]:
    """The papers that have a campaign."""
    return sorted(p.stem for p in CAMPAIGN_DIR.glob("*.yaml"))


def targets(paper: str) -> dict[str, dict[str, Any]]:
    """The targets of ``paper``'s campaign, resolved and checked, in file order."""
    path = CAMPAIGN_DIR / f"{_checked(paper, papers(), 'paper')}.yaml"
    try:
        tree = OmegaConf.to_container(OmegaConf.load(path), resolve=True)
        # every scalar as the text written (BaseLoader resolves no type): what a refusal quotes
        written = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    except (OmegaConfBaseException, OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        raise ConfigError(f"campaign {path.name} cannot be read: {err}") from None
    return _checked_tree(path, tree, written)


def _checked_tree(path: Path, tree: Any, written: Any) -> dict[str, dict[str, Any]]:
    """The targets of the campaign file ``path`` holding ``tree`` (``written``: the same file's scalars as
    text), checked against the schema before any job runs; a ConfigError naming the file, the target and
    the key otherwise."""
    where = f"campaign {path.name}"
    _typed(tree, dict, where, "a mapping with targets (and vars)")
    if unknown := set(tree) - {"vars", "targets"}:
        raise ConfigError(f"{where}: unknown key(s) {sorted(unknown)}; a campaign has ['targets', 'vars']")
    found = tree.get("targets")
    _typed(found, dict, f"{where}: targets", "a mapping of target names to targets")
    if not found:
        raise ConfigError(f"{where}: targets is empty; give at least one target")
    for name, node in found.items():
        at = f"{where}, target {name}"
        _typed(node, dict, at, f"a mapping with {sorted(TARGET_KEYS)} (an empty body does nothing)")
        if unknown := set(node) - TARGET_KEYS:
            raise ConfigError(f"{at}: unknown key(s) {sorted(unknown)}; a target has {sorted(TARGET_KEYS)}")
        if not {"needs", "sweeps", "steps"} & set(node):
            raise ConfigError(f"{at}: no needs, sweeps or steps: the target does nothing")
        _typed(node.get("doc", ""), str, f"{at}: doc", "one line of text")
        for key in ("needs", "sweeps", "steps"):
            _typed(node.get(key, []), list, f"{at}: {key}", "a list")
        for index, need in enumerate(node.get("needs", [])):
            _checked_need(need, _written_need(written, name, index), list(found), f"{at}: needs")
        for key in ("sweeps", "steps"):
            for entry in node.get(key, []):
                if not _flat(entry) or any(isinstance(leaf, dict) for leaf in _flat(entry)):
                    raise ConfigError(f"{at}: {key} entry {entry!r} is invalid: a non-empty list of overrides"
                                      if key == "sweeps" else f"{at}: steps entry {entry!r} is invalid: a list "
                                      "[module, args...] of a module of rfbench/papers/<paper>/")
    return found


def _written_need(written: Any, target: Any, index: int) -> Any:
    """``targets.<target>.needs[index]`` as written in the file (None where the text does not hold it)."""
    try:
        return written["targets"][str(target)]["needs"][index]
    except (KeyError, IndexError, TypeError):
        return None


def _checked_need(need: Any, written: Any, valid: list[str], where: str) -> None:
    """A ConfigError unless ``need`` names a target; it quotes the entry as ``written`` in the file and, where
    YAML or an interpolation made another value of it (``1e3``, ``yes``, ``${vars.x}``), what it was read as."""
    if isinstance(need, str) and need in valid:
        return
    shown = repr(need if written is None else written)
    if written is not None and written != need:
        shown += f" (read as {type(need).__name__} {need!r})"
    close = difflib.get_close_matches(str(need), valid, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    if not isinstance(need, str) and isinstance(written, str):
        hint = f" (a target's name is text: quote it, '{written}')"
    raise ConfigError(f"{where} {shown} is unknown{hint}; valid: {', '.join(valid)}")


def _typed(value: Any, kind: type, where: str, allowed: str) -> None:
    """A ConfigError naming ``where`` unless ``value`` is a ``kind``."""
    if not isinstance(value, kind):
        raise ConfigError(f"{where} is {type(value).__name__} {value!r}, not {allowed}")


def check_steps(paper: str, steps: Iterable[list[str]]) -> None:
    """A ConfigError naming the first step whose module ``rfbench.papers.<paper>.<module>`` does not exist
    (checked before the jobs run: a step runs after them)."""
    for module, *_ in steps:
        name = f"rfbench.papers.{paper}.{module}"
        try:
            found = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            found = None
        if found is None:
            raise ConfigError(f"campaign {paper}.yaml: step {module!r} names no module {name}; valid: "
                              f"{', '.join(_step_modules(paper)) or 'none'}")


def _step_modules(paper: str) -> list[str]:
    """The modules of ``rfbench.papers.<paper>`` (what a step may name)."""
    try:
        package = importlib.import_module(f"rfbench.papers.{paper}")
    except ImportError:
        return []
    return sorted(info.name for info in pkgutil.iter_modules(package.__path__) if not info.name.startswith("_"))


def plan(paper: str, target: str, extra: Iterable[str] = ()) -> Plan:
    """Every job and step of ``target`` and of the targets it needs (depth first, each once).

    ``extra`` overrides are appended to every job (e.g. ``experiment.results_dir=...``); a job
    repeated by two sweeps or two targets is kept once, where it first appears.
    """
    found = targets(paper)
    spelled = target.removeprefix(f"{paper}-").removeprefix(f"{paper}_").replace("-", "_")
    if target not in found and spelled in found:  # make's name (li-fig7-more) for the YAML's (fig7_more)
        raise ConfigError(f"{paper} target {target!r} is spelled {spelled!r} in configs/campaign/{paper}.yaml: "
                          f"rfbench-campaign {paper} {spelled}")
    _checked(target, list(found), f"{paper} target")
    result, seen_jobs, done = Plan(paper, target), set(), set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            raise ConfigError(f"campaign {paper}: targets need each other: {' -> '.join((*path, name))}")
        if name in done:
            return
        node = found[name]
        for need in node.get("needs", []):
            visit(need, (*path, name))
        done.add(name)
        for sweep in node.get("sweeps", []):
            for job in expand([*_flat(sweep), *extra]):
                if tuple(job) not in seen_jobs:
                    seen_jobs.add(tuple(job))
                    result.jobs.append(job)
        result.steps += [[str(a) for a in _flat(step)] for step in node.get("steps", [])]

    visit(target, ())
    return result


def expand(overrides: list[str]) -> list[list[str]]:
    """The jobs of one sweep: the cartesian product of its comma lists (Hydra's basic sweeper).

    A key given twice keeps its last value (so ``extra`` overrides win over a sweep's own).
    """
    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except HydraException as err:
        raise ConfigError(f"campaign sweep {overrides}: {err}") from None
    axes: dict[str, list[str]] = {}
    for override in parsed:
        key = override.get_key_element()
        if override.is_sweep_override():
            axes[key] = [f"{key}={value}" for value in override.sweep_string_iterator()]
        else:
            axes[key] = [f"{key}={override.get_value_element_as_str()}"]
    jobs: list[list[str]] = [[]]
    for values in axes.values():
        jobs = [[*job, value] for job in jobs for value in values]
    return jobs


def _flat(items: Any) -> list[Any]:
    """A sweep or step with the lists spliced in by ``${vars.x}`` flattened."""
    if isinstance(items, (list, tuple)):
        return [leaf for item in items for leaf in _flat(item)]
    return [items]


def _checked(value: str, valid: list[str], what: str) -> str:
    if value not in valid:
        close = difflib.get_close_matches(value, valid, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ConfigError(f"{what} {value!r} is unknown{hint}; valid: {', '.join(valid)}")
    return value


def describe(paper: str) -> list[tuple[str, str]]:
    """(target, doc) of ``paper``'s campaign, for ``make help``."""
    return [(name, str(node.get("doc", ""))) for name, node in targets(paper).items()]
