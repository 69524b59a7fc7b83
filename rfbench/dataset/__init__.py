"""The data layer: fetch, verify, parse, split and scale benchmark datasets.

A dataset is described entirely by a config file in ``configs/dataset/``;
:func:`load_dataset` turns that node into a :class:`Dataset`.
"""
from .errors import CacheError, DatasetError
from .loader import TASKS, Dataset, load_dataset
from .sources import fetch

__all__ = ["TASKS", "CacheError", "Dataset", "DatasetError", "fetch", "load_dataset"]
