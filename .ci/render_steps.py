"""Run report steps as `python -m <module> <args> --results results` would, side by side, one per core.

Used by .ci/rendered: each line of stdin is a step, ``<module> <args...>``; the steps run in the given
order on a pool of forked children, one child per step, of a parent that imported every step's module
once: a step costs its own work, not a fresh interpreter's imports (about 3 s of CPU each). A child is
a fresh copy of that parent, so no state passes from one step to another. A step's stdout is dropped
(as the shell's `>/dev/null` did), its stderr kept. Exit status: 1 if any step failed, naming each.
"""
from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import os
import runpy
import sys
import time
import warnings


def run(step: str) -> tuple[str, int, float]:
    """Run one step as ``python -m``; its exit status and seconds."""
    module, *args = step.split()
    start = time.perf_counter()
    sys.argv = [module, *args, "--results", "results"]
    with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
        try:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
            status = 0
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
            if not isinstance(exit_.code, (int, type(None))):  # sys.exit("message"): python -m prints it
                print(f"{step}: {exit_.code}", file=sys.stderr)
        except BaseException as err:  # noqa: BLE001 (a failing step is reported, the others go on)
            print(f"{step}: {type(err).__name__}: {err}", file=sys.stderr)
            status = 1
    sys.stderr.flush()
    return step, status, time.perf_counter() - start


def main() -> None:
    sys.path.insert(0, os.getcwd())  # as `python -m` puts the working folder first
    # runpy warns that a step's module was imported before it runs as __main__: the imported copy is a
    # second one, as `python -m` itself makes when another module imports the step's module by name
    warnings.filterwarnings("ignore", message=".*found in sys.modules after import of package",
                            category=RuntimeWarning)
    steps = [line.strip() for line in sys.stdin if line.strip()]
    for module in dict.fromkeys(step.split()[0] for step in steps):
        importlib.import_module(module)
    failed = []
    context = multiprocessing.get_context("fork")
    with context.Pool(os.cpu_count() or 1, maxtasksperchild=1) as pool:
        for step, status, seconds in pool.imap_unordered(run, steps):
            print(f"+ python -m {step} ({seconds:.0f} s{'' if status == 0 else f', exit {status}'})", flush=True)
            if status:
                failed.append(step)
    if failed:
        print("render_steps: failed: " + "; ".join(failed), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
