"""Recording a trial in a job's frame: appended as one gzip member, against the frame written whole again.

    nice .venv/bin/python benchmarks/records_append.py [--trials 40]

The tutorial's job (``configs/job/tutorial.yaml``: 1,000 ``errors`` rows and 1,203 ``curves`` rows a
trial) computed once per trial; each trial's frames recorded twice, in two run folders: through
``records.record_grid`` (a gzipped frame gets the trial as one member) and through the path it
replaced, every trial recorded so far written whole again (``records.write_frame`` of the merged
table: level-9 gzip of the whole text once over the threshold; the former path also re-read and
re-parsed the frame, which is left out here, so the peer is faster than the former code).  Per trial:
wall seconds and bytes passed to write(2) (``/proc/self/io``), for the first and the last trials;
both folders must read back the same frames.
"""
from __future__ import annotations

import argparse
import os
import re
import tempfile
import time
from pathlib import Path

import pandas as pd

from rfbench.engine import records
from rfbench.papers.tutorial import demo

#: The tutorial job's parameters (configs/job/tutorial.yaml).
PARAMS = {"x": 1.0, "y": 2.0, "k_max": 1000, "reps": 200}


def bytes_written() -> int:
    """The bytes this process has passed to write(2) so far (Linux's /proc/self/io)."""
    return int(re.search(r"wchar: (\d+)", Path("/proc/self/io").read_text())[1])


def measured(record, *args) -> tuple[float, int]:
    """Wall seconds and bytes written of ``record(*args)``."""
    written, start = bytes_written(), time.perf_counter()
    record(*args)
    return time.perf_counter() - start, bytes_written() - written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=40)
    args = parser.parse_args()
    rows, so_far = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        appended, whole = Path(tmp, "appended"), Path(tmp, "whole")
        appended.mkdir()
        whole.mkdir()
        for t in range(args.trials):
            for key, frame in demo.compute(trial=t, seed=0, **PARAMS).items():
                frame = frame.assign(trial=t)
                so_far[key] = pd.concat([so_far.get(key), frame], ignore_index=True)
                text = so_far[key].to_csv(index=False)
                append = measured(records.record_grid, appended / f"{key}.csv", frame)
                rewrite = measured(records.write_frame, whole / f"{key}.csv", text)
                rows.append({"trial": t, "frame": key, "append_s": append[0], "append_bytes": append[1],
                             "whole_s": rewrite[0], "whole_bytes": rewrite[1]})
        for key in so_far:
            pd.testing.assert_frame_equal(records.read_trials(appended / f"{key}.csv"),
                                          records.read_trials(whole / f"{key}.csv"), check_exact=True)
    table = pd.DataFrame(rows).groupby("trial").sum(numeric_only=True)
    print(f"{args.trials} trials of the tutorial's job (errors + curves frames), 1-min load {os.getloadavg()[0]:.1f}")
    shown = sorted({0, 1, 2, 3, 4, 5, len(table) // 2, len(table) - 2, len(table) - 1} & set(range(len(table))))
    print(table.iloc[shown].to_string(float_format=lambda v: f"{v:.3f}"))
    total = table.sum()
    print(f"total: appended {total['append_s']:.2f} s, {total['append_bytes'] / 1e6:.2f} MB written; "
          f"whole {total['whole_s']:.2f} s, {total['whole_bytes'] / 1e6:.2f} MB written")


if __name__ == "__main__":
    main()
