"""The tutorial's report: drawn from the job's records only, reproducible, a clear error without them."""
import pandas as pd
import pytest

from rfbench.engine import jobs
from rfbench.papers.tutorial import report
from tests.papers.tutorial.helpers import run_tutorial


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    run_tutorial(root)
    return root


def test_the_report_states_the_finding_from_the_records(results):
    out = results / "tutorial"
    md = (out / "tutorial.md").read_text()
    assert "0.241971" in md and "0.606531" in md and "2.5066" in md and "experiment.seed 0" in md
    assert (out / "tutorial.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    run = jobs.run_of(["job=tutorial"], results)
    recorded = jobs.read(run, "errors").drop(columns="trial")
    pd.testing.assert_frame_equal(pd.read_csv(out / "tutorial.csv"), recorded)
    assert not list(out.glob(".*"))  # no temporaries left behind


def test_rendering_again_changes_no_byte(results, tmp_path):
    out = results / "tutorial"
    before = {p.name: p.read_bytes() for p in out.glob("tutorial.*") if p.suffix != ".png"}
    report.main(["--results", str(results)])
    assert {p.name: p.read_bytes() for p in out.glob("tutorial.*") if p.suffix != ".png"} == before


def test_without_records_it_exits_2_and_writes_nothing(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        report.main(["--results", str(tmp_path)])
    assert exit_info.value.code == 2
    assert "run `make tutorial` first" in capsys.readouterr().err
    assert not (tmp_path / "tutorial").exists()
