"""Screen mutmut's mutants in one process (tests/README.md, "Full runs"): the second pass over kernel/ and feature_map/.

For each mutant named in a queue file, run the tests that mutmut's first pass found executing its function (fastest
first, stopping at the first failure) in a copy of mutmut's ``mutants`` folder, with ``tests/kernel/test_sampling.py``'s
cached draws cleared, and append one line per mutant to an output file: its name, the seconds taken and ``SURVIVED``,
``KILLED <test> :: <message>``, ``NO TESTS`` or ``RC<pytest's exit code>``. Names already in the output are skipped,
so an interrupted screen resumes. A test added after the first pass is not in its selection: check its kills by hand
(``MUTANT_UNDER_TEST=<name> python -m pytest <file>`` in the copy).

    python tests/mutation_screen.py <copy of mutants/> <queue file> <output file>
"""
from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import pytest


class _FirstFailure:
    """A pytest plugin: clears the sampler tests' draws cache per session and keeps the first failing test."""

    def __init__(self) -> None:
        self.failed: str | None = None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        module = sys.modules.get("tests.kernel.test_sampling")
        if module is not None:
            module.draws.cache_clear()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed and self.failed is None:
            message = str(report.longrepr).strip().splitlines()
            self.failed = report.nodeid + " :: " + (message[-1][:160] if message else "")


def screen(mutants: Path, queue: Path, out: Path) -> None:
    """Run every mutant of ``queue`` not yet in ``out`` against its selected tests in ``mutants``."""
    os.chdir(mutants)
    sys.path.insert(0, str(mutants))
    stats = json.loads((mutants / "mutmut-stats.json").read_text())
    selected, duration = stats["tests_by_mangled_function_name"], stats["duration_by_test"]
    done = {line.split()[0] for line in out.read_text().splitlines() if line.strip()} if out.exists() else set()
    names = [n for n in queue.read_text().split() if n not in done]
    with out.open("a") as sink:
        for i, name in enumerate(names, 1):
            tests = sorted(selected.get(re.sub(r"__mutmut_\d+$", "", name), []), key=lambda t: duration.get(t, 0))
            if not tests:
                print(name, "NO TESTS", file=sink, flush=True)
                continue
            os.environ["MUTANT_UNDER_TEST"] = name
            plugin, start = _FirstFailure(), time.time()
            code = pytest.main(["-x", "-q", "-p", "no:cacheprovider", "-m", "not slow", "--timeout=300", "-W", "ignore",
                                "--no-header", "-o", "addopts=", *tests], plugins=[plugin])
            verdict = "SURVIVED" if code == 0 else (f"KILLED {plugin.failed}" if plugin.failed else f"RC{int(code)}")
            print(name, f"{time.time() - start:.0f}s", verdict, file=sink, flush=True)
            print(f"{i}/{len(names)} {name} {verdict[:60]}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    screen(*(Path(arg).resolve() for arg in sys.argv[1:4]))
