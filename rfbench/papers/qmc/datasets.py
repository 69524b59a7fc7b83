"""The QMC paper's datasets as rfbench's dataset configs with the paper's settings.

Each dataset has one config (``configs/dataset/<config>.yaml``); where Avron et al. take it
otherwise than the config does, the paper's settings are overrides of it, under the name the QMC
results are recorded by:

- ``cpu_act_qmc``: ``cpu_act`` at the paper's "cpu (6554 examples, 21 dimensions)", 80 % of the
  8,192 rows, the other 1,638 the test part (cpu_act.yaml has Rahimi & Recht's 6,500 / 1,500; same
  file, scaling, target and split seed, so the same seeded draw of rows at these sizes);
- ``house_16h``: ``census_house`` as it is (Delve house-price-16H, a declared substitute for the
  paper's 119-dimensional census, compared only qualitatively).

Every other name is its config as it is.  A job runs on ``overrides(name)``
(``dataset=cpu_act dataset.split.n_train=6554 dataset.split.n_test=1638``).

:func:`provenance` sets the datasets of the paper's compared cells (Tables 1-3) beside what the paper
says of them: the record (``results/qmc/datasets.csv``) by which the verdicts call a cell run on
another dataset not comparable, with that difference as its cause.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from omegaconf import OmegaConf

from rfbench.engine import config

#: The paper's name of a dataset -> (its config, the paper's settings on it, nested as the config).
SETTINGS: dict[str, tuple[str, dict[str, Any]]] = {
    "cpu_act_qmc": ("cpu_act", {"split": {"n_train": 6554, "n_test": 1638}}),
    "house_16h": ("census_house", {}),
}

#: The datasets of the paper's compared cells, by the name our records use: (the paper's name, the number of
#: features the paper gives it, its words, Sec. 6.1).
PAPER_DATA: dict[str, tuple[str, int, str]] = {
    "cpu_act_qmc": ("cpu", 21, "cpu (6554 examples, 21 dimensions)"),
    "house_16h": ("census", 119, "census dataset with size 18,000 by 119"),
}


def overrides(name: str) -> list[str]:
    """The ``rfbench`` overrides that compose dataset ``name`` (a config, or a key of SETTINGS)."""
    base, settings = SETTINGS.get(name, (name, {}))
    flat = config.flatten({"dataset": settings})
    return [f"dataset={base}", *(f"{key}={value}" for key, value in flat.items())]


def config_name(name: str) -> str:
    """The dataset config ``name`` composes (its runs' ``dataset.name``): a key of SETTINGS or a config."""
    return SETTINGS.get(name, (name, {}))[0]


def node(name: str) -> dict[str, Any]:
    """The dataset node of ``name``, resolved: its config with the paper's settings, named ``name``
    (the name QMC's own records are keyed by)."""
    base, settings = SETTINGS.get(name, (name, {}))
    cfg = OmegaConf.merge(OmegaConf.load(Path(config.CONFIG_DIR, "dataset", f"{base}.yaml")),
                          {**settings, "name": name})
    return OmegaConf.to_container(cfg, resolve=True)


def name_of(data: Mapping[str, Any]) -> str:
    """The paper's name of a composed dataset node: the key of SETTINGS whose config and settings it
    has, else its config's name."""
    for name, (base, settings) in SETTINGS.items():
        if data["name"] == base and all(_holds(data.get(k), v) for k, v in settings.items()):
            return name
    return str(data["name"])


def recorded_name(run: Path) -> str:
    """The paper's name of the dataset a job run was recorded on (its ``config.yaml``'s node)."""
    return name_of(OmegaConf.to_container(OmegaConf.load(run / "config.yaml"))["dataset"])


def _holds(value: Any, setting: Any) -> bool:
    """Whether ``value`` has ``setting`` (a nested mapping: every key of it, recursively)."""
    if isinstance(setting, Mapping):
        return isinstance(value, Mapping) and all(_holds(value.get(k), v) for k, v in setting.items())
    return value == setting


def provenance() -> pd.DataFrame:
    """Per dataset of the paper's compared cells: the paper's name, features and words, and ours as its config
    composes it (name, config, file, sha256, features, training and test rows). ``same_data`` is False where our
    file has other features than the paper gives: another dataset, whose cells measure it, not the paper's."""
    rows = []
    for name, (paper, features, words) in PAPER_DATA.items():
        data = node(name)
        rows.append({"paper_dataset": paper, "paper_features": features, "paper_says": words, "ours": name,
                     "config": f"configs/dataset/{config_name(name)}.yaml", "file": data["files"]["data"]["path"],
                     "sha256": data["files"]["data"]["sha256"], "features": int(data["n_features"]),
                     "n_train": int(data["split"]["n_train"]), "n_test": int(data["split"]["n_test"]),
                     "same_data": int(data["n_features"]) == features})
    return pd.DataFrame(rows)
