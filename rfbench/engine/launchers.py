"""Hydra's launchers as a user selects them: which are installed, and the extra that installs the others.

The joblib launcher comes with rfbench; the cluster ones are extras (``pip install 'rfbench[slurm]'``,
``'rfbench[ray]'``), whose configs (``configs/hydra/launcher/slurm.yaml``, ``ray_cluster.yaml``) Hydra
lists even when their plugin is missing, and would then fail on with a traceback.
"""
from __future__ import annotations

import importlib.util
from collections.abc import Sequence

from rfbench.engine.config import ConfigError

_RAY, _SUBMITIT = "hydra_plugins.hydra_ray_launcher", "hydra_plugins.hydra_submitit_launcher"
#: Each launcher option an extra provides: (its plugin package, the extra).
EXTRAS = {"ray": (_RAY, "ray"), "ray_aws": (_RAY, "ray"), "ray_cluster": (_RAY, "ray"),
          "slurm": (_SUBMITIT, "slurm"), "submitit_slurm": (_SUBMITIT, "slurm"),
          "submitit_local": (_SUBMITIT, "slurm")}


def installed(option: str) -> bool:
    """Whether launcher ``option``'s plugin is importable (True for those rfbench itself brings)."""
    return option not in EXTRAS or importlib.util.find_spec(EXTRAS[option][0]) is not None


def check_installed(argv: Sequence[str]) -> None:
    """Raise ConfigError naming the ``pip install`` to run if ``argv`` selects a launcher not installed."""
    for arg in argv:
        key, _, value = arg.partition("=")
        if key.lstrip("+~") != "hydra/launcher":
            continue
        for option in value.split(","):
            if not installed(option):
                extra = EXTRAS[option][1]
                raise ConfigError(f"hydra/launcher={option} is not installed: it comes with the {extra} extra, "
                                  f"pip install 'rfbench[{extra}]'")


def options(available: Sequence[str]) -> list[str]:
    """The launcher options among ``available`` (Hydra's) a user can select here, installed ones only."""
    return sorted(o for o in available if installed(o))
