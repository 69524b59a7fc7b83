"""The records layer's imports (issue 48, point 7): storage below everything, datasets below the engine,
and a run's records reached through ``rfbench.engine.records`` alone."""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "rfbench"


def imported(path: Path) -> set[str]:
    """The modules ``path`` imports (``from a.b import c`` counts as ``a.b`` and ``a.b.c``)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return names


def importers(prefix: str) -> set[str]:
    """The modules of rfbench (paths below the package) that import ``prefix`` or a module below it."""
    return {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
            if any(name == prefix or name.startswith(f"{prefix}.") for name in imported(p))}


def test_storage_imports_nothing_of_rfbench_and_datasets_nothing_of_the_engine():
    assert not {p for p in importers("rfbench") if p.startswith("storage/")}
    assert not {p for p in importers("rfbench.engine") if p.startswith("dataset/")}


def test_only_the_records_module_reads_the_frames_layout():
    assert importers("rfbench.engine.frames") == {"engine/records.py"}
