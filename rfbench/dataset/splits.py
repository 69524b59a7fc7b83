"""Train/test splits, fixed across trials.

The split depends only on the data and ``split.seed``, never on a trial seed:
the AsK-RFF paper kept one partition for its 10 trials (Table 1's Linear
column has stds as small as
0.029<!-- rec: rfbench/papers/askrff/published.csv | dataset=letter; method=linear | sd -->
on 6,000 test points, which a re-drawn split
could not give).

Split kinds (the ``split`` node of a dataset config):

``{kind: files, train: <file key>, test: <file key>}``
    The publisher's own train and test files.
``{kind: random, file: <file key>, n_train: int, n_test: int, seed: int}``
    A uniformly random partition of one file; rows beyond ``n_train + n_test``
    are left out.
``{kind: stratified, file: <file key>, test_fraction: float, seed: int}``
    A class-stratified random partition of one file.

For ``random`` and ``stratified``, ``file`` may also be a list of file keys: their
rows are pooled in that order first (e.g. a publisher's train and test files, when
a paper re-split their union).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from sklearn.model_selection import train_test_split

from rfbench.validation import is_int, is_real

from .errors import DatasetError

#: Keys each split kind requires (besides ``kind``).
SPLIT_KEYS: dict[str, tuple[str, ...]] = {
    "files": ("train", "test"),
    "random": ("file", "n_train", "n_test", "seed"),
    "stratified": ("file", "test_fraction", "seed"),
}

Arrays = tuple[np.ndarray, np.ndarray]


def check_split(split: Mapping, file_keys: list[str]) -> None:
    """Raise a DatasetError unless ``split`` is a well-formed split over ``file_keys``."""
    kind = split.get("kind")
    if kind not in SPLIT_KEYS:
        raise DatasetError(f"unknown split kind {kind!r}; valid kinds: {', '.join(SPLIT_KEYS)}")
    expected = set(SPLIT_KEYS[kind])
    given = set(split) - {"kind"}
    if given != expected:
        raise DatasetError(f"split kind {kind!r} takes exactly {sorted(expected)}; got {sorted(given)}")
    for name in required_files(split):
        if name not in file_keys:
            raise DatasetError(f"split refers to file {name!r}, but files has only {file_keys}")
    if kind == "random" and not (_is_positive_int(split["n_train"]) and _is_positive_int(split["n_test"])):
        raise DatasetError(f"n_train and n_test must be positive integers, got {split['n_train']!r}, "
                           f"{split['n_test']!r}")
    if kind == "stratified" and not (is_real(split["test_fraction"]) and 0 < split["test_fraction"] < 1):
        raise DatasetError(f"test_fraction must be in (0, 1), got {split['test_fraction']!r}")
    if kind != "files" and not (is_int(split["seed"]) and split["seed"] >= 0):
        raise DatasetError(f"dataset.split.seed={split['seed']!r} is invalid: an integer >= 0 "
                           "(numpy SeedSequence entropy)")


def required_files(split: Mapping) -> tuple[str, ...]:
    """The file keys a split reads."""
    if split["kind"] == "files":
        return split["train"], split["test"]
    return tuple(split["file"]) if isinstance(split["file"], (list, tuple)) else (split["file"],)


def apply_split(split: Mapping, data: Mapping[str, Arrays]) -> tuple[Arrays, Arrays]:
    """``((X_train, y_train), (X_test, y_test))`` from parsed files keyed as in the config."""
    if split["kind"] == "files":
        return data[split["train"]], data[split["test"]]
    pooled = [data[key] for key in required_files(split)]
    # one file is used as it is: a copy of a large dataset is what the split's indexing avoids
    X, y = pooled[0] if len(pooled) == 1 else (np.concatenate([X for X, _ in pooled]),
                                                np.concatenate([y for _, y in pooled]))
    if split["kind"] == "random":
        train, test = _random_indices(len(y), split["n_train"], split["n_test"], split["seed"])
    else:
        train, test = train_test_split(np.arange(len(y)), test_size=split["test_fraction"], stratify=y,
                                       random_state=split["seed"])
    return (X[train], y[train]), (X[test], y[test])


def _random_indices(n_rows: int, n_train: int, n_test: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    if n_train + n_test > n_rows:
        raise DatasetError(f"split asks for n_train + n_test = {n_train + n_test} rows, "
                           f"but the file has {n_rows}")
    order = np.random.default_rng(seed).permutation(n_rows)
    return order[:n_train], order[n_train:n_train + n_test]


def _is_positive_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
