"""Label encoding and feature scaling (fitted on the training split only)."""
from __future__ import annotations

import logging

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
    low = X_train.min(axis=0)
    span = X_train.max(axis=0) - low
    constant = span == 0
    if constant.any():
        logger.info("features %s are constant on the training split; mapped to 0",
                    (np.flatnonzero(constant) + 1).tolist())
    # Division (not multiplication by 1/span) keeps the training maximum at exactly 1.
    def scale(X: np.ndarray) -> np.ndarray:
        return np.divide(X - low, span, out=np.zeros_like(X, dtype=np.float64), where=~constant)

    return scale(X_train), scale(X_test)


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
SCALINGS = {"minmax": min_max_scale, "unit_rows": unit_rows, "minmax_unit_rows": min_max_unit_rows,
            "none": no_scaling}
