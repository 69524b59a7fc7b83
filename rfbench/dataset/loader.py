"""Turn a ``dataset`` config node into a ready-to-use, scaled train/test Dataset."""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from omegaconf import DictConfig, OmegaConf

from . import own_file
from .cache import resolve_cache_dir
from .errors import DatasetError
from .parsed_cache import load_parsed
from .parsers import check_companion, check_format
from .preprocessing import SCALINGS, encode_labels
from .sources import FetchedFile, candidate_sources, fetch, resolve_mirror
from .splits import apply_split, check_split, required_files

_REQUIRED_KEYS = ("name", "n_features", "files", "split")
_OPTIONAL_KEYS = ("task", "scale", "deviations", "fallback", "mirror", "allow_unverified")
#: What a dataset's targets are: class labels (encoded as indices) or real numbers (kept as they are).
TASKS = ("classification", "regression")


@dataclass(frozen=True, eq=False)
class Dataset:
    """A train/test split, its features scaled as ``dataset.scale`` says.

    ``scale: minmax`` (the default) maps each feature to [0, 1] on the training part
    (``minmax_pooled``: on the training and test rows together; ``minmax_each``: each part on
    its own rows); ``unit_rows`` divides each row by its l2 norm; ``minmax_unit_rows`` applies minmax, then
    unit_rows; ``none`` keeps the parsed values.

    Attributes
    ----------
    name : str
    X_train, X_test : ndarray of float64, shape (n, d)
    y_train, y_test : ndarray
        Classification: int64 class indices into ``classes``. Regression: the float64 targets.
    classes : ndarray
        The original labels, sorted (empty for regression).
    deviations : tuple of str
        How this dataset departs from the paper's setup; empty if it does not.
    """

    name: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    classes: np.ndarray
    deviations: tuple[str, ...] = ()
    task: str = "classification"

    @property
    def d(self) -> int:
        return self.X_train.shape[1]

    @property
    def n_classes(self) -> int:
        return len(self.classes)


def load_dataset(cfg: Mapping | DictConfig, *, cache_dir: str | os.PathLike | None = None,
                 mirror: str | None = None) -> Dataset:
    """Fetch, parse, split, label-encode and scale the dataset a config describes.

    Parameters
    ----------
    cfg : Mapping or DictConfig
        A ``dataset`` config node as in ``configs/dataset/*.yaml``.
    cache_dir : path-like, optional
        Raw and parsed file cache; default ``$RFBENCH_CACHE`` or ``<repo>/datasets``.
    mirror : str, optional
        Mirror base URL (or directory); default ``$RFBENCH_DATA_MIRROR``, then
        ``cfg.mirror``.

    Raises
    ------
    DatasetError
        On an invalid config, an unobtainable or malformed file, or a bad split.
    """
    cfg = OmegaConf.to_container(cfg, resolve=True) if isinstance(cfg, DictConfig) else dict(cfg)
    if own_file.is_own_file(cfg):
        cfg = own_file.describe(cfg, cache_dir)
        _check_choices(cfg)
        (X_train, y_train), (X_test, y_test) = own_file.read(cfg, cache_dir)
    else:
        (X_train, y_train), (X_test, y_test) = _pinned_files(cfg, cache_dir, mirror)
    task = cfg.get("task", "classification")
    if task == "classification":
        classes, y_train, y_test = encode_labels(y_train, y_test)
    else:
        classes, y_train, y_test = np.empty(0), _targets(y_train, cfg), _targets(y_test, cfg)
    X_train, X_test = SCALINGS[cfg.get("scale", "minmax")](X_train, X_test)
    return Dataset(cfg["name"], X_train, y_train, X_test, y_test, classes,
                   tuple(cfg.get("deviations") or ()), task)


def _pinned_files(cfg: Mapping, cache_dir: str | os.PathLike | None, mirror: str | None
                  ) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """The train and test parts of a dataset whose config pins its files (``configs/dataset/*.yaml``)."""
    _check_config(cfg)
    cache_dir = resolve_cache_dir(cache_dir)
    mirror = resolve_mirror(mirror, cfg.get("mirror"))
    data = {key: _load_file(cfg, key, cache_dir, mirror) for key in required_files(cfg["split"])}
    return apply_split(cfg["split"], data)


def _targets(y: np.ndarray, cfg: Mapping) -> np.ndarray:
    """Regression targets as float64, or a DatasetError naming a value that is not a number."""
    try:
        return np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise DatasetError(f"dataset {cfg['name']!r} is a regression task, but its target column holds "
                           f"non-numbers (e.g. {np.asarray(y).ravel()[0]!r}); set task: classification") from None


def _load_file(cfg: Mapping, key: str, cache_dir: Path, mirror: str | None) -> tuple[np.ndarray, np.ndarray]:
    spec = cfg["files"][key]
    labels = _fetch(cfg, _labels_spec(spec), cache_dir, mirror) if "labels" in spec else None
    return load_parsed(_fetch(cfg, spec, cache_dir, mirror), cfg["n_features"], cache_dir, labels)


def _fetch(cfg: Mapping, spec: Mapping, cache_dir: Path, mirror: str | None) -> FetchedFile:
    try:
        return fetch(spec, cache_dir, mirror, allow_unverified=bool(cfg.get("allow_unverified")))
    except DatasetError as exc:
        if not cfg.get("fallback"):
            raise
        raise DatasetError(f"dataset {cfg['name']!r}: {exc}\nThe documented fallback without this file is "
                           f"dataset={cfg['fallback']} (its deviations say how it departs from the paper)."
                           ) from exc


def _labels_spec(spec: Mapping) -> Mapping:
    """The file spec of a data file's companion label file (its ``labels``: path, sha256, urls)."""
    labels = spec["labels"]
    if not isinstance(labels, Mapping):
        raise DatasetError(f"labels of {spec.get('path')!r} must be a file spec with path, sha256 and urls; "
                           f"got {labels!r}")
    return {**labels, "format": spec["format"]}


def _check_choices(cfg: Mapping) -> None:
    """``task`` and ``scale`` are among their choices."""
    if cfg.get("task", "classification") not in TASKS:
        raise DatasetError(f"dataset.task={cfg['task']!r} is invalid; choose one of {list(TASKS)}")
    if cfg.get("scale", "minmax") not in SCALINGS:
        raise DatasetError(f"dataset.scale={cfg['scale']!r} is invalid; choose one of {list(SCALINGS)}")


def _check_config(cfg: Mapping) -> None:
    """Validate everything that can be checked before any download."""
    missing = [key for key in _REQUIRED_KEYS if key not in cfg]
    unknown = sorted(set(cfg) - set(_REQUIRED_KEYS) - set(_OPTIONAL_KEYS))
    if missing or unknown:
        raise DatasetError(f"dataset config {cfg.get('name')!r}: missing keys {missing}, unknown keys {unknown}; "
                           f"valid keys: {list(_REQUIRED_KEYS + _OPTIONAL_KEYS)}")
    _check_choices(cfg)
    if cfg.get("task") == "regression" and cfg["split"].get("kind") == "stratified":
        raise DatasetError("split kind 'stratified' needs class labels, and this dataset is a regression "
                           "task; use kind: random or kind: files")
    n_features = cfg["n_features"]
    if not isinstance(n_features, int) or isinstance(n_features, bool) or n_features < 1:
        raise DatasetError(f"n_features must be a positive integer, got {n_features!r}")
    files = cfg["files"]
    if not isinstance(files, Mapping) or not files:
        raise DatasetError(f"files must be a non-empty mapping of file key -> file spec, got {files!r}")
    for spec in files.values():
        for source in candidate_sources(spec):
            check_format(source.format, source.options)
            check_companion(source.format, "labels" in spec)
            if source.options.get("categorical") and len(files) > 1:
                raise DatasetError("option categorical takes its categories from one file, so it needs a "
                                   f"single-file dataset (split kind random or stratified); this one has "
                                   f"files {list(files)}")
        if "labels" in spec:
            candidate_sources(_labels_spec(spec))
    check_split(cfg["split"], list(files))
