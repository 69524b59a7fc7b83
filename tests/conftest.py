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


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads the groups into each test's id
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (`make test` runs one worker per core), the tests that start or use a
    cluster (a Ray head, the one-node SLURM) run on one worker, one after the other: two clusters
    on one machine would share its ports and its two slots.  The tests sharing a module-scoped
    fixture (a recorded run, a campaign, an installed wheel) run on one worker too, so that the
    fixture is computed once, not once per worker."""
    for item in items:
        if {"ray_head", "slurm"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group("cluster"))
        elif shared := module_fixtures(item):
            item.add_marker(pytest.mark.xdist_group(f"{item.nodeid.split('::')[0]}::{shared[0]}"))


def module_fixtures(item: pytest.Item) -> list[str]:
    """The names of the module-scoped fixtures ``item`` uses, sorted."""
    info = getattr(item, "_fixtureinfo", None)
    return sorted(name for name, defs in (info.name2fixturedefs.items() if info else ()) if defs[-1].scope == "module")
