"""The command line checked before Hydra acts on it.

Hydra creates a sweep's folder and starts its jobs before rfbench sees a config,
and it answers a mistyped key (``feature_map.m_over=2``) with advice that is
wrong here (append it with ``+``).  ``check_command_line`` composes every job of
the command line as Hydra will, with Hydra's compose API, and raises ConfigError
for what it can name: an unknown key (with the closest valid one), a config group
given no option, several or one it does not have (with the closest option), a key added with
``+``/``++`` that no config declares, a value of another type for a boolean key,
``n_components`` and ``m_over_d`` set together, an interpolation that does not resolve, and any
value ``check_config`` rejects.  Anything else it leaves to Hydra, which then fails on the same
input with its own message.
"""
from __future__ import annotations

import difflib
import os
from collections.abc import Sequence

from hydra import compose, initialize_config_dir
from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra._internal.utils import get_args_parser
from hydra.core.global_hydra import GlobalHydra
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import Override
from hydra.errors import ConfigCompositionException, HydraException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from rfbench.engine import components, config, jobs


def check_command_line(argv: Sequence[str], config_dir: str, config_name: str = "config") -> None:
    """Raise ConfigError if a job of ``rfbench <argv>`` has a config rfbench would reject.

    Parameters
    ----------
    argv : sequence of str
        The arguments after the program name, Hydra's flags included.
    config_dir : str
        Absolute path of the primary config directory (``--config-path`` replaces it).
    config_name : str, default="config"
        Name of the primary config (``--config-name`` replaces it).
    """
    args = get_args_parser().parse_args(list(argv))
    if args.help or args.hydra_help or args.info or args.shell_completion or args.experimental_rerun:
        return
    if args.config_path is not None:  # as Hydra reads it: relative to the package of the app
        config_dir = os.path.join(os.path.dirname(os.path.dirname(__file__)), args.config_path)  # rfbench/
    overrides = [o for o in args.overrides if not o.startswith(("hydra.", "hydra/"))]
    if args.config_dir is not None:
        if not os.path.isdir(args.config_dir):
            raise config.ConfigError(f"--config-dir {args.config_dir!r} is invalid: not a folder (it adds config "
                                     "groups' options, e.g. tests/toy_components/configs)")
        overrides.append(f"hydra.searchpath=[file://{os.path.abspath(args.config_dir)}]")
    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
        jobs = BasicSweeper.split_arguments(parsed, None)[0] if args.multirun else [overrides]
    except HydraException:
        return  # a syntax error: Hydra says where
    if not args.multirun and any(o.is_sweep_override() for o in parsed) or not os.path.isdir(config_dir):
        return  # a sweep without --multirun, or no such config folder: Hydra says so
    for given in (o for o in args.overrides if args.multirun and o.startswith("hydra.launcher.n_jobs=")):
        _check_n_jobs(given.split("=", 1)[1], len(jobs))
    with initialize_config_dir(os.path.abspath(config_dir), version_base="1.3"):
        _check_hydra_choices(args.config_name or config_name, [o for o in args.overrides if o.startswith("hydra/")])
        for job in jobs:
            cfg = _compose(args.config_name or config_name, job)
            if cfg is not None and args.cfg is None:  # --cfg only prints the config
                check_config(config.to_dict(cfg))


def check_config(cfg: dict) -> None:
    """Every check a composed config passes before its data is loaded.

    The components check their own parameters for the dimension and training size the dataset
    config states (the runner checks again with the data's own).
    """
    config.validate(cfg)
    if jobs.is_job(cfg):
        jobs.function(cfg)
        return
    data = cfg["dataset"]
    n_train = (data.get("split") or {}).get("n_train", 0)  # a split of the publisher's files states none
    if isinstance(data.get("n_features"), int) and isinstance(n_train, int):
        components.check(cfg, data["n_features"], n_train)
    else:
        components.check_compatible(cfg)


def _check_n_jobs(value: str, jobs: int) -> None:
    """joblib's ``n_jobs`` for a sweep of ``jobs`` jobs: from 1 to the jobs (its pool starts every worker at once,
    so ``10**6`` would start a million processes; more than the cores is allowed, as asked), or -k for all
    cores but k - 1."""
    cores = os.cpu_count() or 1
    n_jobs = int(value) if value.lstrip("-").isdigit() else 0
    if not (1 <= n_jobs <= max(jobs, 1) or -cores <= n_jobs <= -1):
        raise config.ConfigError(f"hydra.launcher.n_jobs={value} is invalid: an integer from 1 to the sweep's {jobs} "
                                 f"job(s), or -k for all {cores} cores but k - 1 (-1: all, -{cores}: one)")


def _compose(config_name: str, job: list[str]) -> DictConfig | None:
    """The config of one job, or None if it does not compose for a reason Hydra will report."""
    parsed = OverridesParser.create().parse_overrides(job)
    hydra = [o for o in parsed if o.key_or_group.startswith("hydra.")]  # --config-dir's search path
    groups = _groups(config_name, parsed, [o.input_line for o in hydra])
    parsed = [o for o in parsed if o not in hydra]
    _check_group_choices(parsed, groups)
    _check_size_conflict(parsed)
    base = _compose_groups(config_name, job, groups)
    if base is not None:
        _check_keys(base, parsed, groups)
    try:
        cfg = compose(config_name, overrides=job)
    except ConfigCompositionException:
        return None
    _check_resolves(cfg)
    if base is not None:
        _check_booleans(base, cfg, parsed, groups)
    return cfg


def _check_resolves(cfg: DictConfig) -> None:
    """Every interpolation resolves (``${oc.env:UNSET}`` would end in OmegaConf's traceback)."""
    try:
        OmegaConf.to_container(cfg, resolve=True)
    except OmegaConfBaseException as err:
        raise config.ConfigError(f"{err.full_key} does not resolve: {err.msg.splitlines()[0]}") from None


def _groups(config_name: str, parsed: list[Override], search_path: list[str]) -> dict[str, list[str]]:
    """{key: its options} for each key of ``parsed`` that is a config group, in the search path the
    command line sets (``--config-dir`` adds options)."""
    loader = GlobalHydra.instance().config_loader()
    options = {o.key_or_group: loader.get_group_options(o.key_or_group, config_name=config_name,
                                                        overrides=search_path) for o in parsed}
    return {key: names for key, names in options.items() if names}


def _check_group_choices(parsed: list[Override], groups: dict[str, list[str]]) -> None:
    """A group takes exactly one of its options: ``dataset=null`` or ``dataset=[]`` selects none,
    ``dataset=nope`` one that does not exist (Hydra would end in its own exception, status 1)."""
    for override in parsed:
        options = groups.get(override.key_or_group)
        value = override.value()
        if options and not isinstance(value, str):  # None, a list or ~group
            raise config.ConfigError(
                f"{override.input_line} is invalid: {override.key_or_group} takes one option; "
                f"choose one of {', '.join(options)}")
        if options and value not in options:
            close = difflib.get_close_matches(value, options, n=1)
            hint = f"; did you mean {override.key_or_group}={close[0]}?" if close else "."
            raise config.ConfigError(f"{override.input_line} is invalid: {override.key_or_group} has no option "
                                     f"'{value}'{hint} Valid options: {', '.join(options)}")


def _check_hydra_choices(config_name: str, overrides: list[str]) -> None:
    """Hydra's own groups (``hydra/launcher=nope``) take one of their options too."""
    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except HydraException:
        return  # a syntax error: Hydra says where
    _check_group_choices([o for o in parsed if not o.is_sweep_override()], _groups(config_name, parsed, []))


def _check_size_conflict(parsed: list[Override]) -> None:
    """M is either ``n_components`` or ``m_over_d`` x d: both on one command line is ambiguous."""
    given = {o.key_or_group: o.input_line for o in parsed if o.value() is not None}
    both = [given.get(f"feature_map.{key}") for key in ("n_components", "m_over_d")]
    if all(both):
        raise config.ConfigError(
            f"{both[0]} and {both[1]} are both set, and M is one or the other: drop {both[1]} to use "
            f"M = n_components, or {both[0]} to use M = round(m_over_d * d)")


def _compose_groups(config_name: str, job: list[str], groups: dict[str, list[str]]) -> DictConfig | None:
    """The config of the command line's group choices (and search path) alone: the keys and defaults
    its other overrides meet."""
    parsed = OverridesParser.create().parse_overrides(job)
    try:
        return compose(config_name, overrides=[o.input_line for o in parsed
                                               if o.key_or_group in groups or o.key_or_group.startswith("hydra.")])
    except ConfigCompositionException:
        return None


def _check_keys(base: DictConfig, parsed: list[Override], groups: dict[str, list[str]]) -> None:
    """Raise ConfigError naming the first override whose key the config lacks, or that adds a key.

    ``+key=v`` and ``++key=v`` add a key no component reads, which would change the run id and
    nothing else: refused like a mistyped key.  ``+key=v`` on a key that exists is refused too
    (Hydra would fail on it); ``++key=v`` on one that exists is an ordinary override.
    """
    for override in parsed:
        if override.key_or_group in groups:
            continue
        node: object = base
        path = override.key_or_group.split(".")
        for depth, part in enumerate(path):
            if not isinstance(node, DictConfig):
                break  # a list index or a leaf: OmegaConf's own message is right
            if part not in node:
                raise config.ConfigError(_unknown_key(override, node, path, depth))
            node = node[part]
        if override.is_add():
            raise config.ConfigError(f"{override.input_line} is invalid: {override.key_or_group} is already set; "
                                     "drop the '+' to change it")


def _check_booleans(base: DictConfig, cfg: DictConfig, parsed: list[Override], groups: dict[str, list[str]]) -> None:
    """A key whose default is true or false takes true or false (``experiment.force=maybe`` is refused).

    The composed value is read, so an interpolation that resolves to a boolean passes.
    """
    for override in parsed:
        key = override.key_or_group
        default = OmegaConf.select(base, key, default=None, throw_on_resolution_failure=False)
        if key in groups or not isinstance(default, bool):
            continue
        try:
            value = OmegaConf.select(cfg, key)
        except OmegaConfBaseException:
            continue  # an interpolation that does not resolve: check_config names it
        if not isinstance(value, bool):
            raise config.ConfigError(f"{override.input_line} is invalid: {key} is true or false")


#: The papers' symbols for a config key, which no spelling distance relates to it (the number of features M, D).
PAPER_NAMES = {"M": "n_components", "D": "n_components"}


def _unknown_key(override: Override, node: DictConfig, path: list[str], depth: int) -> str:
    """'<override> is invalid: <owner> has no key <k>; did you mean <key>? Its keys: ...'."""
    keys, prefix = [str(k) for k in node.keys() if not str(k).startswith("_")], path[:depth]  # not _target_
    owner = f"{prefix[0]}={node.name}" if len(prefix) == 1 and "name" in node else ".".join(prefix) or "the config"
    message = f"{override.input_line} is invalid: {owner} has no key '{path[depth]}'"
    alias = PAPER_NAMES.get(path[depth])
    close = [alias] if alias in keys else difflib.get_close_matches(path[depth], keys, n=1)
    message += f"; did you mean {'.'.join([*prefix, close[0], *path[depth + 1:]])}?" if close else "."
    return message + f" Valid keys of {'.'.join(prefix) or 'the config'}: {', '.join(keys)}"
