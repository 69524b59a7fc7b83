"""Where rfbench finds its configs and keeps its data cache, in a checkout or an installed wheel.

In a checkout (and an editable install) the package sits beside the repository's ``configs/`` and
``datasets/`` folders.  A wheel carries ``configs/`` inside the package as ``rfbench/configs`` (see
``setup.py``: the top-level folder stays the one source) and has no repository around it, so its data
cache defaults to the user's cache folder, ``$XDG_CACHE_HOME/rfbench`` (``~/.cache/rfbench``).
Results go to ``experiment.results_dir`` (``results`` below the current folder) either way.
"""
from __future__ import annotations

import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # rfbench/
#: The repository around the package, None for an installed wheel (no ``configs/`` beside it).
CHECKOUT = _PACKAGE.parent if (_PACKAGE.parent / "configs" / "config.yaml").is_file() else None

#: The Hydra config folder: the checkout's ``configs/``, else the copy installed in the package.
CONFIG_DIR = str(CHECKOUT / "configs" if CHECKOUT else _PACKAGE / "configs")


def user_cache_dir() -> Path:
    """The user's cache folder for rfbench: ``$XDG_CACHE_HOME/rfbench`` (``~/.cache/rfbench``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rfbench"


def default_cache_dir() -> Path:
    """The data cache when ``RFBENCH_CACHE`` is unset: ``<checkout>/datasets``, else the user's cache folder."""
    if CHECKOUT is not None:
        return CHECKOUT / "datasets"
    return user_cache_dir()
