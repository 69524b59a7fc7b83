"""A dataset's rows under a partition rule a study compares: the config's own split, or the file's order.

The papers' studies of which rows train (QMC's Table 1 protocol, RR's cpu_act protocol) read one file
whose split the paper does not give; ``file_order`` trains on its first ``n_train`` rows and tests on the
next ``n_test``, ``random`` is the config's seeded split. Rows come unscaled: the study scales them.
"""
from __future__ import annotations

import dataclasses

from rfbench.dataset.loader import Dataset, load_dataset

#: The partition rules: the config's own split, or the file's order.
PARTITIONS = ("random", "file_order")


def partitioned(node: dict, partition: str) -> Dataset:
    """The unscaled rows of the dataset config ``node`` (a single-file split with ``n_train``, ``n_test``)
    under ``partition``."""
    node = {**node, "scale": "none"}
    split = node["split"]
    if partition == "file_order":  # the whole file as the training part, in its order; then cut
        node["split"] = {"kind": "files", "train": split["file"], "test": split["file"]}
    loaded = load_dataset(node)
    if partition != "file_order":
        return loaded
    n_train, n_test = split["n_train"], split["n_test"]
    return dataclasses.replace(loaded, X_train=loaded.X_train[:n_train], y_train=loaded.y_train[:n_train],
                               X_test=loaded.X_test[n_train:n_train + n_test],
                               y_test=loaded.y_test[n_train:n_train + n_test])
