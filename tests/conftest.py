"""Shared test setup: offline data from the workplace mirror, never the internet."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MIRROR_DIR = REPO.parent / "shared" / "datasets"

# Tests read real data only through a mirror; the canonical URLs are never contacted.
os.environ.setdefault("RFBENCH_DATA_MIRROR", MIRROR_DIR.as_uri())
os.environ["RFBENCH_OFFLINE"] = "1"


@pytest.fixture(scope="session")
def mirror() -> str:
    return os.environ["RFBENCH_DATA_MIRROR"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (`make test` runs one worker per core), the tests that start or use a
    cluster (a Ray head, the one-node SLURM) run on one worker, one after the other: two clusters
    on one machine would share its ports and its two slots."""
    for item in items:
        if {"ray_head", "slurm"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group("cluster"))
