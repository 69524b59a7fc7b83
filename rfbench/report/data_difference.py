"""A cell on other data: explained by the data difference it names, citing the run that shows which data ran.

The rule (issue 45, one for every paper): a cell is "not comparable" for its data when another dataset
stands in for the paper's (a substitute, a subset, another split or test set) and the paper's own
text fixes the data that cannot be had. Such a cell is *explained* by that named difference, and the
explanation cites a record a reader can open that shows which data ran: the ``config.yaml`` of a run
behind the cell (``record: <paper>/<tree>/runs/<id>/config.yaml``). The cell measures nothing about
the paper: neither its agreement nor its gap says anything about the paper's methods.

Each paper's verdict module calls :func:`cause` from its ``Rules.cause`` for the cells whose named
difference is of data (never for a difference of protocol, which a study measures).
"""
from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path

import yaml

from rfbench.report.verdicts import EXPLAINED, UNEXPLAINED, Cause

#: The keys of a run's config quoted beside the cause, with the ones it matched on: which data ran.
SHOWN = ("dataset.name", "dataset.n_features", "dataset.split.n_train", "dataset.split.n_test")
#: What every such cause says the cell is worth.
MEASURES_NOTHING = "a cell on other data measures nothing about the paper"


@functools.lru_cache(maxsize=4096)
def _config(path: Path) -> dict:
    return yaml.safe_load(path.read_text()) or {}


#: What :func:`_value` gives for a key the config lacks: equal to nothing a caller can want.
_ABSENT = object()


def _value(config: Mapping, dotted: str):
    """The value at a dotted key (``dataset.name``) of a run's config, or :data:`_ABSENT`."""
    node = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return _ABSENT
        node = node[part]
    return node


def shown_by(folder: Path, tree: str, match: Mapping[str, object]) -> Path | None:
    """The first run config (by path) below ``folder/tree/runs`` whose values at the dotted keys of
    ``match`` equal them (e.g. ``{"dataset.name": "census_house", "feature_map.name": "rff"}``), or None."""
    for path in sorted((folder / tree / "runs").glob("*/config.yaml")):
        if all(_value(_config(path), key) == wanted for key, wanted in match.items()):
            return path
    return None


def cause(folder: Path, tree: str, match: Mapping[str, object]) -> str | Cause:
    """The cause of a cell on other data: ``explained: ...`` citing the config of the run below
    ``folder/tree`` (``folder`` is ``<results>/<paper>``) that ``match`` finds, as
    ``record: <paper>/<tree>/runs/<id>/config.yaml``, with its evidence: that config's values of the
    ``match`` keys and of :data:`SHOWN` (what data ran); ``unexplained`` when no committed run shows it."""
    found = shown_by(folder, tree, match)
    if found is None:
        return UNEXPLAINED
    record = found.relative_to(folder.parent).as_posix()
    config = _config(found)
    shown = [key for key in (*match, *SHOWN) if _value(config, key) is not _ABSENT]
    said = f"{record}: " + "; ".join(f"{key} = {_value(config, key)}" for key in dict.fromkeys(shown))
    return Cause(f"{EXPLAINED}by the data difference named (the paper's data are not obtainable): the config of run "
                 f"{found.parent.name} shows which data ran (record: {record}); {MEASURES_NOTHING}", said)
