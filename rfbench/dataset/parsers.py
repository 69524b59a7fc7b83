"""Parse raw files into dense float64 features and raw labels, one parser per format.

A new dataset in an existing format needs only a config file.  Compression is
taken from the file name suffix (``.gz``, ``.bz2``).  Every parser returns
``X`` of shape (n_rows, n_features) in float64 and the labels as found in the
file (numbers or strings); NaN and inf are rejected, in a text file with the line
they are on.  ``n_features=None`` takes the width the file has (a user's own file,
whose width no config states).
"""
from __future__ import annotations

import bz2
import csv
import functools
import gzip
import inspect
import math
import os
import zipfile
import zlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import xlrd
from sklearn.datasets import load_svmlight_file

from .errors import DatasetError


def parse_libsvm(path: Path, n_features: int | None) -> tuple[np.ndarray, np.ndarray]:
    """LIBSVM / SVMlight sparse text with 1-based feature indices.

    ``n_features`` fixes the width, so train and test files agree even when the
    highest index never occurs in one of them (None: the highest index in the file).
    """
    try:
        X, y = load_svmlight_file(os.fspath(path), n_features=n_features, zero_based=False,
                                  dtype=np.float64)
    except ValueError as exc:
        raise DatasetError(_locate_libsvm_error(path, n_features) or f"{path}: {exc}") from exc
    if not (np.isfinite(X.data).all() and np.isfinite(y).all()):
        raise DatasetError(_locate_libsvm_error(path, n_features) or f"{path}: a NaN or inf value")
    return X.toarray(), y


def parse_delimited(path: Path, n_features: int | None, *, label_column: int | str, delimiter: str = ",",
                    header: bool = False, skip_rows: int = 0, drop_columns: Sequence[int | str] = (),
                    categorical: Sequence[int | str] = (), ordinal: Mapping | None = None,
                    label_map: Mapping | None = None, label_default: str | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Dense delimited text (CSV, TSV): one row per sample, one label column.

    Columns are named by position (negative counts from the end, over the file's columns) or,
    with ``header``, by name.

    Parameters
    ----------
    label_column : int or str
    delimiter : str, default=","
    header : bool, default=False
        Whether the first line (after ``skip_rows``) holds column names.
    skip_rows : int, default=0
        Lines to skip before the header or the first data row (e.g. a line of counts).
    drop_columns : sequence of int or str, default=()
        Columns that are not features (identifiers, a second target).
    categorical : sequence of int or str, default=()
        Symbolic columns, each one-hot encoded in place into one 0/1 column per value
        present in this file, in sorted order.  The categories come from the file, so two
        files of one dataset could disagree: the loader allows this option only on
        single-file datasets.
    ordinal : mapping, optional
        Symbolic columns coded as one number each: column -> its levels in order, the first
        coded 1, the next 2, ... (values compared as text), e.g. ``{0: [low, med, high, vhigh]}``;
        a value not among its column's levels is an error.
    label_map : mapping, optional
        Relabels classes, e.g. ``{"normal.": normal}``; keys are compared as text.
    label_default : str, optional
        The label of every class ``label_map`` does not name (e.g. ``attack``); without it,
        an unnamed class is an error.
    """
    first_line = skip_rows + header + 1
    try:
        frame = pd.read_csv(path, sep=delimiter, header=0 if header else None, skiprows=skip_rows,
                            compression="infer")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, OSError, EOFError,
            zlib.error) as exc:  # OSError, EOFError, zlib.error: a .gz name on bytes that are not (all) gzip
        where = _locate_delimited_error(path, delimiter, first_line) if isinstance(exc, pd.errors.ParserError) else None
        raise DatasetError(f"{path}: cannot parse as delimited text (delimiter {delimiter!r}): "
                           f"{where or exc}") from exc
    try:
        X, y = _columns_to_arrays(frame, path, n_features, label_column=label_column, drop_columns=drop_columns,
                                  categorical=categorical, ordinal=ordinal, label_map=label_map,
                                  label_default=label_default)
        check_finite(path, X, y)
    except DatasetError as exc:  # a bad value, not a bad option: name the line it is on
        try:
            label, *not_features = [frame.columns.get_loc(_column_key(frame.columns, c, "", path))
                                    for c in (label_column, *drop_columns, *categorical, *(ordinal or {}))]
        except DatasetError:
            raise exc from None
        if where := _locate_delimited_error(path, delimiter, first_line, label, not_features):
            raise DatasetError(f"{exc}; {where}") from exc
        raise
    return X, y


def parse_excel(path: Path, n_features: int | None, *, sheet: str, label_column: int | str, header: bool = True,
                skip_rows: int = 0, drop_columns: Sequence[int | str] = (), categorical: Sequence[int | str] = (),
                ordinal: Mapping | None = None, label_map: Mapping | None = None, label_default: str | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """One sheet of an Excel 97-2003 workbook (``.xls``, read with xlrd), one row per sample.

    The column options are :func:`parse_delimited`'s. Rows whose label cell is empty are not
    samples (a spreadsheet's blank rows and the summaries under its table) and are left out.

    Parameters
    ----------
    sheet : str
        The sheet's name, e.g. ``Raw Data`` in UCI's CTG.xls.
    """
    try:
        book = xlrd.open_workbook(os.fspath(path), on_demand=True)
    except xlrd.XLRDError as exc:
        raise DatasetError(f"{path}: cannot read as an .xls workbook: {exc}") from exc
    if sheet not in book.sheet_names():
        raise DatasetError(f"{path}: no sheet {sheet!r}; sheets: {book.sheet_names()}")
    table = book.sheet_by_name(sheet)
    rows = [table.row_values(i) for i in range(skip_rows, table.nrows)]
    if len(rows) < 1 + header:
        raise DatasetError(f"{path}: sheet {sheet!r} has no data rows after skip_rows={skip_rows}")
    frame = pd.DataFrame(rows[header:], columns=rows[0] if header else None).replace("", np.nan)
    label = _column_key(frame.columns, label_column, "label_column", path)
    frame = frame[frame[label].notna()].infer_objects()
    return _columns_to_arrays(frame, path, n_features, label_column=label_column, drop_columns=drop_columns,
                              categorical=categorical, ordinal=ordinal, label_map=label_map,
                              label_default=label_default)


def _columns_to_arrays(frame: pd.DataFrame, path: Path, n_features: int | None, *, label_column: int | str,
                       drop_columns: Sequence[int | str], categorical: Sequence[int | str],
                       ordinal: Mapping | None, label_map: Mapping | None, label_default: str | None
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels of a parsed table, as the column options say."""
    label = _column_key(frame.columns, label_column, "label_column", path)
    dropped = [_column_key(frame.columns, c, "drop_columns", path) for c in drop_columns]
    symbolic = {_column_key(frame.columns, c, "categorical", path) for c in categorical}
    levels = {_column_key(frame.columns, c, "ordinal", path): order for c, order in (ordinal or {}).items()}
    features = _one_hot(_ordinal(frame.drop(columns=[label, *dropped]), levels, path), symbolic)
    text = [c for c in features.columns if not pd.api.types.is_numeric_dtype(features[c])]
    if text:
        raise DatasetError(f"{path}: feature column {text[0]!r} is not numeric "
                           f"(e.g. {features[text[0]].iloc[0]!r}); check delimiter and label_column, "
                           f"or list it in categorical or drop_columns")
    if n_features is not None and features.shape[1] != n_features:
        raise DatasetError(f"{path}: {features.shape[1]} feature columns, but the config says "
                           f"n_features={n_features}")
    y = frame[label].to_numpy()
    if label_map is not None:
        y = _relabel(y, label_map, label_default, path)
    return features.to_numpy(np.float64), y.astype(str) if y.dtype == object else y


def _ordinal(features: pd.DataFrame, levels: Mapping, path: Path) -> pd.DataFrame:
    """``features`` with each column ``levels`` names coded 1, 2, ... by the position of its value there."""
    coded = features.copy()
    for key, order in levels.items():
        codes = {str(level): i for i, level in enumerate(order, start=1)}
        text = features[key].astype(str)
        unknown = sorted(set(text) - set(codes))
        if unknown:
            raise DatasetError(f"{path}: column {key} has values {unknown[:5]} that are not among its ordinal "
                               f"levels {list(codes)}")
        coded[key] = text.map(codes).astype(np.float64)
    return coded


def _one_hot(features: pd.DataFrame, symbolic: set) -> pd.DataFrame:
    """``features`` with each column of ``symbolic`` replaced, in place, by its 0/1 indicators."""
    blocks = [pd.get_dummies(features[c].astype(str), prefix=str(c), dtype=np.float64) if c in symbolic
              else features[c] for c in features.columns]
    return pd.concat(blocks, axis=1) if blocks else features


def _relabel(y: np.ndarray, label_map: Mapping, default: str | None, path: Path) -> np.ndarray:
    """Labels mapped through ``label_map`` (keys as text); the rest become ``default``."""
    mapping = {str(k): str(v) for k, v in label_map.items()}
    text = y.astype(str)
    unnamed = sorted(set(text.tolist()) - set(mapping))
    if unnamed and default is None:
        raise DatasetError(f"{path}: labels {unnamed[:10]} are not in label_map (which names "
                           f"{sorted(mapping)[:10]}); add them or set label_default")
    return np.array([mapping.get(label, default) for label in text])


#: IDX element types (type code -> big-endian numpy dtype), as in LeCun's MNIST page.
_IDX_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def read_idx(path: Path) -> np.ndarray:
    """The array of an IDX file (LeCun's MNIST format), gzip-compressed or not.

    Layout: two zero bytes, a type code, the number of dimensions, each dimension as a
    big-endian uint32, then the elements in C order.
    """
    try:
        with (gzip.open if path.suffix == ".gz" else open)(path, "rb") as f:
            raw = f.read()
    except (OSError, EOFError) as exc:
        raise DatasetError(f"{path}: cannot read as IDX: {exc}") from exc
    if len(raw) < 4 or raw[:2] != b"\0\0" or raw[2] not in _IDX_TYPES:
        raise DatasetError(f"{path}: not an IDX file (magic bytes {raw[:4].hex() or 'missing'}; expected "
                           f"0000 then a type code in {[f'{t:02x}' for t in _IDX_TYPES]})")
    ndim, dtype = raw[3], np.dtype(_IDX_TYPES[raw[2]])
    if len(raw) < 4 + 4 * ndim:
        raise DatasetError(f"{path}: IDX header truncated: {ndim} dimensions announced, "
                           f"{len(raw) - 4} of their {4 * ndim} bytes present")
    dims = tuple(int(n) for n in np.frombuffer(raw, ">u4", count=ndim, offset=4))
    body = memoryview(raw)[4 + 4 * ndim:]
    if len(body) != math.prod(dims) * dtype.itemsize:
        raise DatasetError(f"{path}: IDX header says dimensions {dims} of {dtype.itemsize}-byte elements, "
                           f"but {len(body)} bytes of data follow (truncated?)")
    return np.frombuffer(body, dtype).reshape(dims)


def parse_idx(path: Path, n_features: int | None, labels: Path) -> tuple[np.ndarray, np.ndarray]:
    """IDX samples (e.g. MNIST's 28x28 images, flattened in C order) and their IDX label file.

    IDX keeps the labels in a companion file: a file spec in this format names it under
    ``labels`` (path, sha256, urls), fetched and verified like the data file itself.
    """
    X, y = read_idx(path), read_idx(labels)
    X = X.reshape(len(X), -1).astype(np.float64)
    if n_features is not None and X.shape[1] != n_features:
        raise DatasetError(f"{path}: samples of {X.shape[1]} values, but the config says n_features={n_features}")
    if y.ndim != 1 or len(y) != len(X):
        raise DatasetError(f"{labels}: {y.shape} labels for the {len(X)} samples of {path}; expected one per sample")
    return X, y


def parse_npz(path: Path, n_features: int | None) -> tuple[np.ndarray, np.ndarray]:
    """NumPy's ``.npz`` with arrays ``X`` (n_rows, n_features) and ``y`` (n_rows,): ``np.savez(path, X=X, y=y)``.

    Labels may be numbers or fixed-width text (``y.astype(str)``); object arrays are refused (they
    would need pickle, which runs code from the file).
    """
    fix = "save it with np.savez(path, X=X, y=y), X numeric of shape (n_rows, n_features), y of shape (n_rows,)"
    try:
        with np.load(path, allow_pickle=False) as stored:
            if missing := {"X", "y"} - set(stored.files):
                raise DatasetError(f"{path}: no array {sorted(missing)} (it has {stored.files}); {fix}")
            X, y = stored["X"], stored["y"]
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:  # ValueError: an object array (pickle)
        raise DatasetError(f"{path}: cannot read as .npz ({exc}); {fix}, labels as numbers or y.astype(str)") from exc
    if X.ndim != 2 or y.ndim != 1 or len(X) != len(y) or X.dtype.kind not in "biuf":
        raise DatasetError(f"{path}: X has shape {X.shape} and dtype {X.dtype}, y shape {y.shape}; {fix}")
    if n_features is not None and X.shape[1] != n_features:
        raise DatasetError(f"{path}: X has {X.shape[1]} columns, but the config says n_features={n_features}")
    return X.astype(np.float64), y


PARSERS: dict[str, Callable[..., tuple[np.ndarray, np.ndarray]]] = {
    "libsvm": parse_libsvm,
    "csv": parse_delimited,
    "tsv": functools.partial(parse_delimited, delimiter="\t"),
    "excel": parse_excel,
    "idx": parse_idx,
    "npz": parse_npz,
}
#: Formats whose labels are in a companion file, named by the file spec's ``labels``.
LABELS_IN_COMPANION = frozenset({"idx"})


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


def check_companion(fmt: str, has_labels: bool) -> None:
    """Raise a DatasetError unless a companion label file is given exactly when ``fmt`` needs one."""
    if fmt in LABELS_IN_COMPANION and not has_labels:
        raise DatasetError(f"format {fmt!r} keeps its labels in a companion file: add 'labels' "
                           "(path, sha256, urls) to the file spec")
    if has_labels and fmt not in LABELS_IN_COMPANION:
        raise DatasetError(f"format {fmt!r} has its labels in the file itself: remove 'labels' from the file "
                           f"spec (only formats {sorted(LABELS_IN_COMPANION)} take one)")


def parse_file(path: str | os.PathLike, fmt: str, options: Mapping, n_features: int,
               labels: str | os.PathLike | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Parse one file with the parser of ``fmt``; reject non-finite values.

    ``labels`` is the companion label file of a format in :data:`LABELS_IN_COMPANION`
    (required there, refused elsewhere).
    """
    check_format(fmt, options)
    check_companion(fmt, labels is not None)
    companion = (Path(labels),) if labels is not None else ()
    X, y = PARSERS[fmt](Path(path), n_features, *companion, **options)
    if not len(y):
        raise DatasetError(f"{path}: no data rows (empty file?)")
    check_finite(path, X, y)
    return X, y


def check_finite(path: str | os.PathLike, X: np.ndarray, y: np.ndarray) -> None:
    """Raise a DatasetError naming the first NaN or inf of ``X`` (row, feature) or ``y``."""
    bad = np.argwhere(~np.isfinite(X))
    if bad.size:
        row, col = bad[0]
        cause = " (an empty field, a row with too few fields, or nan in the file)" if np.isnan(X[row, col]) else ""
        raise DatasetError(f"{path}: non-finite value {X[row, col]} in data row {row + 1}, feature {col + 1}{cause} "
                           f"({len(bad)} such values); NaN/inf are not supported, clean the file first")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise DatasetError(f"{path}: non-finite label in data row {np.flatnonzero(~np.isfinite(y))[0] + 1}")


def _column_key(columns: pd.Index, column: int | str, option: str, path: Path):
    """The frame column an option names, by header name or by position."""
    if isinstance(column, str):
        if column not in columns:
            raise DatasetError(f"{path}: {option}: no column {column!r} (names need header: true); "
                               f"columns: {list(columns)[:10]}...")
        return column
    if not -len(columns) <= column < len(columns):
        raise DatasetError(f"{path}: {option} {column} out of range for {len(columns)} columns")
    return columns[column]


def open_text(path: Path):
    opener = {".gz": gzip.open, ".bz2": bz2.open}.get(path.suffix, open)
    return opener(path, "rt", errors="replace")


def _locate_libsvm_error(path: Path, n_features: int | None) -> str | None:
    """Name the first malformed line of a LIBSVM file (slow, only run after a failure)."""
    with open_text(path) as f:
        for lineno, line in enumerate(f, start=1):
            if reason := _libsvm_line_problem(line, n_features):
                return f"{path}, line {lineno}: {reason}: {line.strip()[:80]!r}"
    return None


def _libsvm_line_problem(line: str, n_features: int | None) -> str | None:
    tokens = line.split("#", 1)[0].split()
    if not tokens:
        return None
    try:
        label = float(tokens[0])
    except ValueError:
        return f"label {tokens[0]!r} is not a number"
    if not math.isfinite(label):
        return f"label {tokens[0]!r} is NaN or inf"
    previous = 0
    for token in tokens[1:]:
        index, _, value = token.partition(":")
        try:
            index, number = int(index), float(value)
        except ValueError:
            return f"token {token!r} is not <index>:<value>"
        if not math.isfinite(number):
            return f"value {token!r} is NaN or inf (not supported: remove or fill it)"
        if not previous < index <= (n_features or index):
            return f"feature index {index} must be increasing and within 1..{n_features}"
        previous = index
    return None


def _locate_delimited_error(path: Path, delimiter: str, first_line: int, label: int | None = None,
                            not_features: Sequence[int] = ()) -> str | None:
    """Name the first line of delimited text with another number of fields than the first data line, an
    empty or NaN/inf field, or a feature that is not a number (slow, only run after a failure).

    ``label`` is the label's column (anything but empty), ``not_features`` columns not read as numbers.
    """
    with open_text(path) as f:
        reader = csv.reader(f, delimiter=delimiter)
        width = None
        for fields in reader:
            if reader.line_num < first_line or not fields:
                continue
            width = width or len(fields)
            if len(fields) != width:
                return (f"line {reader.line_num} has {len(fields)} fields, the first data line {width}: every row "
                        f"needs the same fields (a missing value? a stray {delimiter!r}?)")
            for j, token in enumerate(fields):
                if problem := _field_problem(token.strip(), j, width, label, not_features):
                    return f"line {reader.line_num}, field {j + 1}: {problem}"
    return None


def _field_problem(token: str, column: int, width: int, label: int | None, not_features: Sequence[int]) -> str | None:
    """What is wrong with one field of a data line, or None."""
    if column in {c % width for c in not_features}:
        return None
    if not token:
        return "empty (a missing value): rfbench does not guess missing values; remove or fill that row"
    if label is not None and column == label % width:
        return None
    try:
        number = float(token)
    except ValueError:
        return (f"{token!r} is not a number; fix the value, or if this column is the label choose it with "
                "label_column (dataset.label_column for dataset=file), or check the delimiter and header")
    if not math.isfinite(number):
        return f"{token!r} is NaN or inf, which is not supported; remove or fill that row"
    return None
