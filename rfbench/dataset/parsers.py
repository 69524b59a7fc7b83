"""Parse raw files into dense float64 features and raw labels, one parser per format.

A new dataset in an existing format needs only a config file.  Compression is
taken from the file name suffix (``.gz``, ``.bz2``).  Every parser returns
``X`` of shape (n_rows, n_features) in float64 and the labels as found in the
file (numbers or strings); NaN and inf are rejected.
"""
from __future__ import annotations

import bz2
import functools
import gzip
import inspect
import os
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_svmlight_file

from .errors import DatasetError


def parse_libsvm(path: Path, n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """LIBSVM / SVMlight sparse text with 1-based feature indices.

    ``n_features`` fixes the width, so train and test files agree even when the
    highest index never occurs in one of them.
    """
    try:
        X, y = load_svmlight_file(os.fspath(path), n_features=n_features, zero_based=False,
                                  dtype=np.float64)
    except ValueError as exc:
        raise DatasetError(_locate_libsvm_error(path, n_features) or f"{path}: {exc}") from exc
    return X.toarray(), y


def parse_delimited(path: Path, n_features: int, *, label_column: int | str, delimiter: str = ",",
                    header: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Dense delimited text (CSV, TSV): one row per sample, one label column.

    Parameters
    ----------
    label_column : int or str
        Position (negative counts from the end) or, with ``header``, name.
    delimiter : str, default=","
    header : bool, default=False
        Whether the first line holds column names.
    """
    try:
        frame = pd.read_csv(path, sep=delimiter, header=0 if header else None, compression="infer")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: cannot parse as delimited text (delimiter {delimiter!r}): {exc}") from exc
    label = _label_key(frame.columns, label_column, path)
    features = frame.drop(columns=label)
    text = [c for c in features.columns if not pd.api.types.is_numeric_dtype(features[c])]
    if text:
        raise DatasetError(f"{path}: feature column {text[0]!r} is not numeric "
                           f"(e.g. {features[text[0]].iloc[0]!r}); check delimiter and label_column")
    if features.shape[1] != n_features:
        raise DatasetError(f"{path}: {features.shape[1]} feature columns, but the config says "
                           f"n_features={n_features}")
    y = frame[label].to_numpy()
    return features.to_numpy(np.float64), y.astype(str) if y.dtype == object else y


PARSERS: dict[str, Callable[..., tuple[np.ndarray, np.ndarray]]] = {
    "libsvm": parse_libsvm,
    "csv": parse_delimited,
    "tsv": functools.partial(parse_delimited, delimiter="\t"),
}


def check_format(fmt: str, options: Mapping) -> None:
    """Raise a DatasetError unless ``fmt`` is known and takes every key of ``options``."""
    if fmt not in PARSERS:
        raise DatasetError(f"unknown format {fmt!r}; valid formats: {', '.join(PARSERS)}")
    params = inspect.signature(PARSERS[fmt]).parameters
    valid = [p.name for p in params.values() if p.kind is p.KEYWORD_ONLY]
    required = [p.name for p in params.values() if p.kind is p.KEYWORD_ONLY and p.default is p.empty]
    unknown = sorted(set(options) - set(valid))
    missing = [name for name in required if name not in options]
    if unknown or missing:
        raise DatasetError(f"format {fmt!r}: unknown options {unknown}, missing options {missing}; "
                           f"valid options: {valid or 'none'}")


def parse_file(path: str | os.PathLike, fmt: str, options: Mapping, n_features: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """Parse one file with the parser of ``fmt``; reject non-finite values."""
    check_format(fmt, options)
    X, y = PARSERS[fmt](Path(path), n_features, **options)
    if not len(y):
        raise DatasetError(f"{path}: no data rows (empty file?)")
    bad = np.argwhere(~np.isfinite(X))
    if bad.size:
        row, col = bad[0]
        raise DatasetError(f"{path}: non-finite value {X[row, col]} in data row {row + 1}, feature {col + 1} "
                           f"({len(bad)} such values); NaN/inf are not supported, clean the file first")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise DatasetError(f"{path}: non-finite label in data row {np.flatnonzero(~np.isfinite(y))[0] + 1}")
    return X, y


def _label_key(columns: pd.Index, label_column: int | str, path: Path):
    """The frame column holding the labels, from a position or a header name."""
    if isinstance(label_column, str):
        if label_column not in columns:
            raise DatasetError(f"{path}: no label column {label_column!r} (needs header: true); "
                               f"columns: {list(columns)[:10]}...")
        return label_column
    if not -len(columns) <= label_column < len(columns):
        raise DatasetError(f"{path}: label_column {label_column} out of range for {len(columns)} columns")
    return columns[label_column]


def _open_text(path: Path):
    opener = {".gz": gzip.open, ".bz2": bz2.open}.get(path.suffix, open)
    return opener(path, "rt", errors="replace")


def _locate_libsvm_error(path: Path, n_features: int) -> str | None:
    """Name the first malformed line of a LIBSVM file (slow, only run after a failure)."""
    with _open_text(path) as f:
        for lineno, line in enumerate(f, start=1):
            if reason := _libsvm_line_problem(line, n_features):
                return f"{path}, line {lineno}: {reason}: {line.strip()[:80]!r}"
    return None


def _libsvm_line_problem(line: str, n_features: int) -> str | None:
    tokens = line.split("#", 1)[0].split()
    if not tokens:
        return None
    try:
        float(tokens[0])
    except ValueError:
        return f"label {tokens[0]!r} is not a number"
    previous = 0
    for token in tokens[1:]:
        index, _, value = token.partition(":")
        try:
            index = int(index)
            float(value)
        except ValueError:
            return f"token {token!r} is not <index>:<value>"
        if not previous < index <= n_features:
            return f"feature index {index} must be increasing and within 1..{n_features}"
        previous = index
    return None
