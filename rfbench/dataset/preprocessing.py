"""Label encoding and feature scaling (fitted on the training split, unless a scaling says otherwise)."""
from __future__ import annotations

import logging
from collections.abc import Callable

import numpy as np
from sklearn.preprocessing import normalize

from .errors import DatasetError

logger = logging.getLogger(__name__)


def encode_labels(y_train: np.ndarray, y_test: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Map labels to 0..C-1 by their sorted training values.

    Returns
    -------
    classes : ndarray
        The original labels, ``classes[k]`` being encoded as ``k``.
    y_train, y_test : ndarray of int64

    Raises
    ------
    DatasetError
        If the training split has fewer than 2 classes or the test split has
        a label the training split lacks.
    """
    classes = np.unique(y_train)
    if len(classes) < 2:
        raise DatasetError(f"the training split has only the label(s) {classes.tolist()}; need at least 2 classes: "
                           "check the label column (dataset.label_column for dataset=file), or if the labels are "
                           "numbers to predict, set dataset.task=regression")
    test = np.searchsorted(classes, y_test).clip(max=len(classes) - 1)
    unseen = classes[test] != y_test
    if unseen.any():
        raise DatasetError(f"test labels {np.unique(y_test[unseen])[:5].tolist()} do not occur in the training "
                           f"split (classes {classes.tolist()[:30]})")
    return classes, np.searchsorted(classes, y_train).astype(np.int64), test.astype(np.int64)


def min_max_scale(X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scale each feature to [0, 1] on the training split; apply the same map to test.

    Test values may fall outside [0, 1]; they are deliberately not clipped, as
    clipping would make the test map differ from the training one.  Columns
    constant on the training split carry no information and are mapped to 0 in
    both splits (a test deviation there would otherwise feed unseen values to
    the feature map).
    """
    scale = _min_max_map(X_train.min(axis=0), X_train.max(axis=0), "the training split")
    return scale(X_train), scale(X_test)


def min_max_pooled(X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One min-max map fitted on the training and test rows together, applied to both.

    "All data normalized to [0, 1]^d", then split: every row lies in [0, 1]^d, and the test
    rows take part in choosing the map (a protocol papers state; not the default).
    """
    low = np.minimum(X_train.min(axis=0), X_test.min(axis=0))
    high = np.maximum(X_train.max(axis=0), X_test.max(axis=0))
    scale = _min_max_map(low, high, "the training and test rows")
    return scale(X_train), scale(X_test)


def min_max_each(X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each part mapped to [0, 1] by its own minimum and maximum: two different maps."""
    train = _min_max_map(X_train.min(axis=0), X_train.max(axis=0), "the training split")
    test = _min_max_map(X_test.min(axis=0), X_test.max(axis=0), "the test split")
    return train(X_train), test(X_test)


def _min_max_map(low: np.ndarray, high: np.ndarray, fitted_on: str) -> Callable[[np.ndarray], np.ndarray]:
    """x -> (x - low) / (high - low) per feature; features with high == low map to 0."""
    span = high - low
    constant = span == 0
    if constant.any():
        logger.info("features %s are constant on %s; mapped to 0", (np.flatnonzero(constant) + 1).tolist(), fitted_on)

    # Division (not multiplication by 1/span) keeps the fitted maximum at exactly 1.
    def scale(X: np.ndarray) -> np.ndarray:
        return np.divide(X - low, span, out=np.zeros_like(X, dtype=np.float64), where=~constant)

    return scale


def unit_rows(X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row divided by its l2 norm (all-zero rows stay zero): nothing is fitted."""
    return normalize(X_train), normalize(X_test)


def min_max_unit_rows(X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`min_max_scale` (fitted on the training split), then :func:`unit_rows`.

    LIBSVM's guide scales each feature first; a row that is the training minimum in
    every feature becomes all-zero and stays zero.
    """
    return unit_rows(*min_max_scale(X_train, X_test))


def no_scaling(X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The features as parsed."""
    return X_train, X_test


#: ``dataset.scale`` choices: how the features reach the feature map.
SCALINGS = {"minmax": min_max_scale, "minmax_pooled": min_max_pooled, "minmax_each": min_max_each,
            "unit_rows": unit_rows, "minmax_unit_rows": min_max_unit_rows, "none": no_scaling}
