"""SCALING.md: every campaign's list-schedule wall time on 2, 16 and 64 workers from its records."""
import math

import pandas as pd
import pytest

from rfbench.engine import campaign, jobs, records
from rfbench.report import schedule

HOUR = 3600.0


def frame(paper: str, hours: list[float], blas: list[str] | None = None) -> pd.DataFrame:
    """A campaign's jobs as :func:`schedule.estimates` gives them: job i is ``x=i``, run id ``<paper>i``."""
    return pd.DataFrame({"overrides": [f"x={i}" for i in range(len(hours))],
                         "run_id": [f"{paper}{i}" for i in range(len(hours))],
                         "seconds": [h * HOUR for h in hours], "blas_threads": blas or ["1"] * len(hours)})


def row(page: str, start: str) -> list[str]:
    line = next(line for line in page.splitlines() if line.startswith(start))
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_a_campaign_s_row_gives_its_cpu_its_wall_times_and_its_floor():
    # LPT on 2 workers: 5+3+3 | 4+3 -> 5+3=8, 4+3=7, then 3 to the 7 -> 10 h (Graham's example)
    page = schedule.render({"rr": frame("rr", [5, 4, 3, 3, 3, math.inf], ["1", "all", "1", "1", "2", "-"])})
    assert row(page, "| `make rr`") == ["`make rr`", "6", "18.00 core-h", "10 h 00 min", "5 h 00 min (floor)",
                                         "5 h 00 min (floor)", "5 h 00 min", "1", "7.00 core-h"]


def test_make_all_sums_the_five_papers_in_turn_and_the_atlas_is_not_in_it():
    papers = {p: frame(p, [1.0, 1.0]) for p in schedule.MAKE_ALL}
    page = schedule.render({**papers, "atlas": frame("atlas", [100.0])})
    assert row(page, "| `make all`")[:5] == ["`make all` (the papers in turn)", "10", "10.00 core-h",
                                             "5 h 00 min", "5 h 00 min"]
    assert "`make all`" not in schedule.render({"rr": frame("rr", [1.0])})  # not all five: no sum


def test_the_atlas_estimate_is_checked_against_its_measured_run():
    page = schedule.render({"atlas": frame("atlas", [1.0, 1.0, 1.0])})  # 2 h on 2 workers
    ratio = schedule.ATLAS_MEASURED / (2 * HOUR)
    assert f"workers is 2 h 00 min: measured / estimated = {ratio:.2f}" in page and "0.82" in page


def test_the_longest_jobs_are_listed_with_their_run_ids_and_overrides():
    page = schedule.render({"li": frame("li", [0.5, 2.0, 0.25, 1.0])})
    listed = [line for line in page.splitlines() if line.startswith("| li |")]
    assert [cells.split("|")[3].strip() for cells in listed] == ["`li1`", "`li3`", "`li0`"]
    assert "| li | 2 h 00 min | `li1` | 1 | `x=1` |" in listed


def test_the_page_says_it_is_an_estimate_and_what_it_leaves_out():
    page = schedule.render({"rr": frame("rr", [1.0])})
    assert "not a measurement" in page and "overstate the time of an idle machine" in page
    assert "BLAS thread" in page and "start-up" in page


@pytest.mark.slow
def test_estimates_are_the_dry_run_s_recorded_trial_times_times_the_trials(tmp_path):
    # records of the example campaign's 4 jobs: 2 trials each of 4, 3, 2, 1 s (trial 1 one second longer);
    # the job plans experiment.trials = 10 (configs/experiment/default.yaml): 45, 35, 25, 15 s from nothing
    plan = campaign.plan("example", "m_sweep").jobs
    for job, seconds in zip(plan, (4.0, 3.0, 2.0, 1.0)):
        run = jobs.run_of(job, tmp_path)
        run.mkdir(parents=True)
        for trial in range(2):
            records.record_trial(run / "trials.csv", {"trial": trial, "time_fit": seconds + trial, "time_gram": 0.0,
                                                      "experiment.blas_threads": 1 + trial})
    found = schedule.estimates("example", tmp_path, target="m_sweep")
    assert found["seconds"].tolist() == [45.0, 35.0, 25.0, 15.0]
    assert found["overrides"].tolist() == [" ".join(job) for job in plan]
    assert found["run_id"].tolist() == [jobs.run_of(job, tmp_path).name for job in plan]
    assert found["blas_threads"].tolist() == ["2"] * 4
    page = schedule.render({"example": found})
    assert row(page, "| `make example`")[3] == "1 min"  # 45+15 | 35+25 = 60 s
