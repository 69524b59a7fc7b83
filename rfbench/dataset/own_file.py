"""Your own data in one override: ``rfbench dataset=file dataset.path=my.csv``.

``configs/dataset/file.yaml`` names one file (and, optionally, a second one as the test set) instead of
the pinned, mirrored ``files`` of the papers' datasets.  Its keys:

``path``, ``test_path``
    The file, relative to the folder rfbench is run from (Hydra's ``runtime.cwd``: a launcher's
    worker may run elsewhere); ``test_path`` null splits ``path`` by ``split``.
``format``
    ``csv``, ``tsv``, ``libsvm`` or ``npz``; ``auto`` reads it from the suffix (:data:`SUFFIXES`,
    after ``.gz`` or ``.bz2``).
``label_column``, ``header``, ``delimiter``
    csv and tsv only: the label's column by position (the last by default) or, with a header, by name;
    whether line 1 names the columns (``auto``: :func:`has_header`); the field separator (null: ``,``
    for csv, a tab for tsv).
``task``
    ``classification``, ``regression``, or ``auto`` (:func:`infer_task`).
``split``
    ``{test_fraction, seed}``: one partition for all trials, stratified by class for a classification.
``scale``, ``name``
    As every dataset's; ``name`` null takes the file's name without its suffixes.
``sha256``, ``test_sha256``
    Null: computed from the file.  Given: checked against it.

:func:`describe` fills in what the file says (name, format, header, delimiter, sha256, task), and
``rfbench.engine.config.to_dict`` applies it to every composed config: the checks before a run, its run
id (over the sha256, not the path: the same bytes elsewhere are the same run, changed bytes a new one)
and every row of ``trials.csv`` see the same values, the sha256 recording which bytes a run read.

The file is read where it is, not copied into the cache: it is already on this machine, a copy would
double its disk use and could silently go stale beside an edited original, and the recorded sha256
already says which bytes were read (a file changed since is refused by its pinned hash).  Its parsed
arrays are cached like any dataset's, under ``parsed/``, bound to that sha256.
"""
from __future__ import annotations

import csv
import functools
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from hydra.utils import to_absolute_path

from rfbench.validation import is_real

from .cache import resolve_cache_dir
from .errors import DatasetError
from .parsed_cache import load_parsed
from .parsers import open_text
from .sources import FetchedFile, Source, sha256_file
from .splits import apply_split, check_split

logger = logging.getLogger(__name__)

#: The keys of ``configs/dataset/file.yaml``.
KEYS = ("name", "path", "test_path", "format", "label_column", "header", "delimiter", "task", "split", "scale",
        "sha256", "test_sha256")
AUTO = "auto"
#: File name suffix -> format (after a compression suffix, .gz or .bz2).
SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".libsvm": "libsvm", ".svm": "libsvm", ".txt": "libsvm", ".npz": "npz"}
#: Formats whose column options (label_column, header, delimiter) apply.
DELIMITED = {"csv": ",", "tsv": "\t"}
#: At most this many distinct integer labels make ``task: auto`` a classification (more: a regression).
MAX_CLASSES = 50
_FIX_PATH = "pass dataset.path=<your file> (csv, tsv, libsvm/svm/txt, npz; relative to the folder you run rfbench from)"

Arrays = tuple[np.ndarray, np.ndarray]


def is_own_file(cfg: Mapping) -> bool:
    """Whether a dataset config names a file of the user's own (``path``) rather than pinned ``files``."""
    return "path" in cfg and "files" not in cfg


def describe(cfg: Mapping[str, Any], cache_dir: str | os.PathLike | None = None) -> dict[str, Any]:
    """``cfg`` with what its files say filled in: name, format, header, delimiter, sha256s and task.

    Idempotent: a described config is checked again (its sha256 against the file's bytes).
    """
    cfg = dict(cfg)
    if unknown := sorted(set(cfg) - set(KEYS)):
        raise DatasetError(f"dataset=file has no key(s) {unknown}; its keys: {', '.join(KEYS)}")
    if missing := [key for key in KEYS if key not in cfg]:
        raise DatasetError(f"dataset {cfg.get('name')!r} names a path but lacks the keys {missing} of dataset=file: "
                           "start its YAML with 'defaults: [file, _self_]' to take file.yaml's")
    if not cfg.get("path"):
        raise DatasetError(f"dataset=file reads a file of your own: {_FIX_PATH}")
    train = _located(cfg["path"], "dataset.path")
    fmt = cfg["format"] if cfg["format"] != AUTO else _format_of(train)
    if fmt not in SUFFIXES.values():
        raise DatasetError(f"dataset.format={fmt!r} is invalid; choose one of {sorted(set(SUFFIXES.values()))} or auto")
    out = {**cfg, "format": fmt, "name": cfg.get("name") or _stem(train),
           "sha256": _checked_sha256(train, cfg.get("sha256"), "dataset.sha256")}
    if cfg.get("test_path"):
        out["test_sha256"] = _checked_sha256(_located(cfg["test_path"], "dataset.test_path"),
                                             cfg.get("test_sha256"), "dataset.test_sha256")
    if cfg["header"] not in (AUTO, True, False):
        raise DatasetError(f"dataset.header={cfg['header']!r} is invalid: true, false or auto")
    if fmt in DELIMITED:
        out["delimiter"] = cfg.get("delimiter") or DELIMITED[fmt]
        out["header"] = has_header(train, out["delimiter"]) if cfg["header"] == AUTO else cfg["header"]
    if out["task"] == AUTO:
        out["task"] = infer_task(_arrays(out, "path", cache_dir)[1], train)
    return out


def read(cfg: Mapping[str, Any], cache_dir: str | os.PathLike | None = None) -> tuple[Arrays, Arrays]:
    """``((X_train, y_train), (X_test, y_test))`` of a described config: its test file, or its split."""
    if cfg.get("test_path"):
        (X, y), (X_test, y_test) = _arrays(cfg, "path", cache_dir), _arrays(cfg, "test_path", cache_dir)
        return _same_width((X, y), (X_test, y_test), cfg)
    return _split(cfg, *_arrays(cfg, "path", cache_dir))


def infer_task(y: np.ndarray, path: Path) -> str:
    """``classification`` for text labels or at most :data:`MAX_CLASSES` distinct integers, else ``regression``."""
    values = np.unique(y)
    numeric = y.dtype.kind in "biuf"
    classes = not numeric or (len(values) <= MAX_CLASSES and bool(np.all(values == np.round(values))))
    task = "classification" if classes else "regression"
    why = ("text labels" if not numeric else f"{len(values)} distinct {'integer ' if classes else ''}label values"
           + ("" if classes else f" (more than {MAX_CLASSES}, or not all integers)"))
    logger.info("%s: dataset.task=auto reads %s as a %s; pass dataset.task=%s for the other", path, why, task,
                "regression" if classes else "classification")
    return task


def has_header(path: Path, delimiter: str) -> bool:
    """Whether line 1 names the columns: one of its fields is text where line 2 has a number."""
    with open_text(path) as f:
        lines = [fields for _, fields in zip(range(2), csv.reader(f, delimiter=delimiter))]
    if len(lines) < 2:
        return False
    return any(not _is_number(a) and _is_number(b) for a, b in zip(*lines))


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def _located(path: str, key: str) -> Path:
    """The file a config's path names (a relative one in the folder rfbench was run from), which must exist."""
    located = Path(to_absolute_path(str(Path(path).expanduser())))
    if not located.is_file():
        raise DatasetError(f"{key}={path!r}: no such file ({located}); {_FIX_PATH}")
    return located


def _format_of(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    suffix = suffixes[-2] if len(suffixes) > 1 and suffixes[-1] in (".gz", ".bz2") else (suffixes or [""])[-1]
    if suffix not in SUFFIXES:
        raise DatasetError(f"dataset.path={path.name!r}: its suffix {suffix!r} names no format; rename it or pass "
                           f"dataset.format=<one of {sorted(set(SUFFIXES.values()))}> (suffixes: "
                           f"{', '.join(SUFFIXES)}, each optionally .gz or .bz2)")
    return SUFFIXES[suffix]


def _stem(path: Path) -> str:
    return path.name.split(".")[0] or path.name


@functools.lru_cache(maxsize=32)
def _sha256(path: Path, size: int, mtime_ns: int) -> str:
    """sha256 of a file, computed once per process for its size and modification time."""
    return sha256_file(path)


def _checked_sha256(path: Path, pinned: str | None, key: str) -> str:
    """The file's sha256, which must be ``pinned`` (the config key ``key``) if that is given."""
    stat = path.stat()
    digest = _sha256(path, stat.st_size, stat.st_mtime_ns)
    if pinned and pinned != digest:
        raise DatasetError(f"{path} has sha256 {digest}, but {key} pins {pinned}: the file changed since (a run's "
                           f"rows record the sha256 it read); pass {key}={digest} or null to use it as it is")
    return digest


def _arrays(cfg: Mapping[str, Any], key: str, cache_dir: str | os.PathLike | None) -> Arrays:
    """The parsed ``X, y`` of the file under ``key`` (cached under ``parsed/``, bound to its sha256)."""
    path = _located(cfg[key], f"dataset.{key}")
    hash_key = "sha256" if key == "path" else "test_sha256"
    digest = _checked_sha256(path, cfg.get(hash_key), f"dataset.{hash_key}")
    options = ({"label_column": cfg["label_column"], "delimiter": cfg["delimiter"], "header": bool(cfg["header"])}
               if cfg["format"] in DELIMITED else {})
    source = Source(None, "own", path.name, digest, cfg["format"], options)
    return load_parsed(FetchedFile(path, source, digest), None, resolve_cache_dir(cache_dir))


def _same_width(train: Arrays, test: Arrays, cfg: Mapping[str, Any]) -> tuple[Arrays, Arrays]:
    """A libsvm test file's features padded with zeros (absent indices) to the training file's width, or the
    other way round; a dense format's widths must agree."""
    (X, y), (X_test, y_test) = train, test
    if X.shape[1] == X_test.shape[1]:
        return train, test
    if cfg["format"] != "libsvm":
        raise DatasetError(f"dataset.test_path={cfg['test_path']!r} has {X_test.shape[1]} features, dataset.path="
                           f"{cfg['path']!r} {X.shape[1]}: the two files need the same columns")
    width = max(X.shape[1], X_test.shape[1])
    return (_padded(X, width), y), (_padded(X_test, width), y_test)


def _padded(X: np.ndarray, width: int) -> np.ndarray:
    return np.pad(X, ((0, 0), (0, width - X.shape[1])))


def _split(cfg: Mapping[str, Any], X: np.ndarray, y: np.ndarray) -> tuple[Arrays, Arrays]:
    """One file split by ``split.test_fraction`` and ``split.seed``: stratified by class for a classification."""
    split = cfg["split"]
    if set(split) != {"test_fraction", "seed"}:
        raise DatasetError(f"dataset.split={split!r} is invalid: dataset=file takes split.test_fraction (in (0, 1)) "
                           "and split.seed, or a test file as dataset.test_path")
    fraction, n = split["test_fraction"], len(y)
    if n < 2:
        raise DatasetError(f"dataset.path={cfg['path']!r} has {n} row(s): a train and a test part need at least 2")
    if not (is_real(fraction) and 0 < fraction < 1):
        raise DatasetError(f"dataset.split.test_fraction={fraction!r} is invalid: the test part's share of the "
                           "rows, a number in (0, 1)")
    if cfg["task"] == "classification":
        spec = {"kind": "stratified", "file": "data", "test_fraction": fraction, "seed": split["seed"]}
    else:
        n_test = max(1, round(fraction * n))
        spec = {"kind": "random", "file": "data", "n_train": n - n_test, "n_test": n_test, "seed": split["seed"]}
    check_split(spec, ["data"])
    try:
        return apply_split(spec, {"data": (X, y)})
    except DatasetError:
        raise
    except ValueError as exc:  # sklearn's stratified split: a class of one row, fewer test rows than classes
        raise DatasetError(f"dataset.path={cfg['path']!r}: cannot split its {n} rows with test_fraction={fraction} "
                           f"stratified by class ({str(exc).split('. ')[0]}); remove the rare classes' rows, change "
                           "dataset.split.test_fraction, give the test set as a file (dataset.test_path=<file>), or "
                           "if the labels are numbers to predict, pass dataset.task=regression") from exc
