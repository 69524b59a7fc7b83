"""Campaigns as data: expansion, needs, duplicates, and every committed campaign composes."""
import json
import re

import pytest
from hydra import compose, initialize_config_dir

from rfbench.engine import campaign, launch
from rfbench.engine import config as config_
from rfbench.engine.config import CONFIG_DIR, ConfigError
from rfbench.engine.preflight import check_config


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """A campaign folder with one campaign, ``toy``, whose YAML the test writes."""
    monkeypatch.setattr(campaign, "CAMPAIGN_DIR", tmp_path)

    def write(text: str) -> None:
        (tmp_path / "toy.yaml").write_text(text)
    return write


def test_a_sweep_expands_to_the_cartesian_product_and_a_later_key_wins():
    jobs = campaign.expand(["a=1,2", "b=x", "c=[1,2]", "d=3,4", "b=y"])
    assert jobs == [["a=1", "b=y", "c=[1,2]", "d=3"], ["a=1", "b=y", "c=[1,2]", "d=4"],
                    ["a=2", "b=y", "c=[1,2]", "d=3"], ["a=2", "b=y", "c=[1,2]", "d=4"]]


def test_needs_come_first_shared_jobs_run_once_and_vars_splice_in(toy):
    toy("""
vars:
  base: [k=1, "m=2,3"]
targets:
  all: {needs: [a, b], steps: [[report, all]]}
  a: {sweeps: [["${vars.base}"]], steps: [[report, a]]}
  b: {needs: [a], sweeps: [["${vars.base}"], [k=1, m=4]], steps: [[report, b, --x, "1"]]}
""")
    plan = campaign.plan("toy", "all", extra=["r=z"])
    assert plan.jobs == [["k=1", "m=2", "r=z"], ["k=1", "m=3", "r=z"], ["k=1", "m=4", "r=z"]]
    assert plan.steps == [["report", "a"], ["report", "b", "--x", "1"], ["report", "all"]]


@pytest.mark.parametrize("text, message", [
    ("targets: {a: {needs: [b]}, b: {needs: [a]}}", "targets need each other: a -> b -> a"),
    ("targets: {a: {needs: [c]}}", "needs 'c' is unknown"),
    ("targets: {a: {sweep: []}}", "unknown key(s) ['sweep']"),
    ("targets: {a: {sweeps: [['k=[1']]}}", "campaign sweep ['k=[1']"),
    ("targets: [a, {b", "cannot be read"),
    # issue 48: the schema, checked before any job runs
    ("targets: [a, b]", "campaign toy.yaml: targets is list ['a', 'b'], not a mapping of target names"),
    ("targets: {a: }", "campaign toy.yaml, target a is NoneType None, not a mapping"),
    ("targets: {a: {doc: x}}", "campaign toy.yaml, target a: no needs, sweeps or steps: the target does nothing"),
    ("targets: {a: {needs: b, steps: [[r]]}, b: {steps: [[r]]}}", "target a: needs is str 'b', not a list"),
    ("targets: {a: {needs: [Fig1]}, fig1: {steps: [[r]]}}", "target a: needs 'Fig1' is unknown (did you mean fig1?)"),
    ("targets: {a: {sweeps: [[]]}}", "target a: sweeps entry [] is invalid: a non-empty list of overrides"),
    ("targets: {a: {steps: [{m: x}]}}", "target a: steps entry {'m': 'x'} is invalid"),
    ("target: {a: {steps: [[r]]}}", "campaign toy.yaml: unknown key(s) ['target']"),
    ("targets: {}", "campaign toy.yaml: targets is empty"),
])
def test_a_broken_campaign_is_a_config_error(toy, text, message):
    toy(text)
    with pytest.raises(ConfigError, match=re.escape(message)):
        campaign.plan("toy", "a")


def test_an_unknown_target_or_paper_names_the_closest_and_the_valid_ones(toy):
    toy("targets: {fig7: {steps: [[report]]}, fig10: {steps: [[report]]}}")
    with pytest.raises(ConfigError, match=r"target 'fig6' is unknown \(did you mean fig7\?\); valid: fig7, fig10"):
        campaign.plan("toy", "fig6")
    with pytest.raises(ConfigError, match="paper 'tyo' is unknown"):
        campaign.plan("tyo", "fig7")


@pytest.mark.parametrize("typed", ["toy-fig7-more", "toy_fig7_more", "fig7-more"])
def test_a_target_typed_as_make_names_it_is_told_the_yamls_name(toy, typed):
    toy("targets: {fig7: {steps: [[report]]}, fig7_more: {steps: [[report]]}}")
    with pytest.raises(ConfigError, match=f"target '{typed}' is spelled 'fig7_more' in configs/campaign/toy.yaml: "
                                          "rfbench-campaign toy fig7_more$"):
        campaign.plan("toy", typed)


@pytest.mark.parametrize("paper", campaign.papers())
def test_every_committed_sweep_composes_and_passes_the_preflight(paper):
    """The first job of each sweep of each target: a typo in a campaign fails here, not mid-campaign."""
    firsts = {}
    for target, node in campaign.targets(paper).items():
        for sweep in node.get("sweeps", []):
            firsts.setdefault(tuple(campaign.expand(campaign._flat(sweep))[0]), target)
        for step in node.get("steps", []):  # a step may be an interpolated list ([["${vars.own_report}"]])
            module, *_ = campaign._flat(step)
            __import__(f"rfbench.papers.{paper}.{module}")
    with initialize_config_dir(CONFIG_DIR, version_base="1.3"):
        for job in firsts:
            # the atlas's own-map targets name a placeholder the user's feature_map=<yours> replaces: a
            # built-in map of the kernel, sized by m_over_d as the user's must be, stands in for it
            stand_in = "feature_map=cauchy_rff" if "kernel=laplacian" in job else "feature_map=rff"
            job = [stand_in if o == "feature_map=YOUR_MAP" else o for o in job]
            check_config(config_.to_dict(compose("config", overrides=job)))


def test_make_li_is_the_205_runs_of_the_paper_and_its_two_simulation_jobs():
    """The counts the Makefile's hand-made groups had (a clean clone found 199 runs), the features study's six
    (Car's and CTG's primary cells on Li's printed feature counts, `make li-features`), plus Figs 1-4's jobs."""
    jobs = campaign.plan("li", "li").jobs
    assert len(jobs) == 207 and [job for job in jobs if job[0].startswith("job=")] == [
        ["job=li_variance_grid"], ["job=li_variance_k"]]
    assert len(campaign.plan("askrff", "askrff").jobs) == 201  # 200 runs and Fig. 1's job
    assert len(campaign.plan("rr", "rr").jobs) == 33


def test_the_progress_line_weighs_jobs_by_their_recorded_times(tmp_path, monkeypatch):
    plan = {"campaign": "li fig7", "start": 1000.0, "jobs": [{"overrides": ["a=1"], "seconds": 300.0},
                                                            {"overrides": ["a=2"], "seconds": 100.0},
                                                            {"overrides": ["a=3"], "seconds": None}]}
    (tmp_path / launch.PLAN).write_text(json.dumps(plan))
    monkeypatch.setattr(launch.time, "time", lambda: 1000.0 + 600)
    # 300 of 300 + 100 + 200 s done (the unknown job counts as the known mean) in 600 s: 600 s left
    assert launch.progress_line(tmp_path, [["a=1"]]) == "campaign li fig7: 1/3 jobs, 0:10:00 elapsed, ETA 0:10:00"
    assert launch.progress_line(tmp_path, []).endswith("ETA unknown")
    assert launch.progress_line(tmp_path / "other", [["a=1"]]) is None


def test_a_step_naming_no_module_is_refused_before_any_job_runs():
    campaign.check_steps("li", campaign.plan("li", "li").steps)  # every committed step of li exists
    with pytest.raises(ConfigError, match=r"campaign li.yaml: step 'tabels' names no module rfbench.papers.li.tabels; "
                                          r"valid: .*\btables\b"):
        campaign.check_steps("li", [["tables"], ["tabels", "x"]])


def test_sweep_folder_overrides_are_refused_so_outputs_stay_under_results(tmp_path, capsys):
    """hydra.sweep.subdir=<elsewhere> wrote rfbench_job.json there, then found 'no completed job' (issue 48)."""
    with pytest.raises(SystemExit) as exit_:
        launch.main(["example", "m_sweep", "--results", str(tmp_path), "--", f"hydra.sweep.subdir={tmp_path}/x"])
    assert exit_.value.code == 2 and list(tmp_path.iterdir()) == []
    assert capsys.readouterr().err == (f"rfbench-campaign: error: hydra.sweep.subdir={tmp_path}/x is invalid: a "
                                       f"campaign keeps its sweep folder under --results ({tmp_path}/example/hydra/"
                                       "...); choose the folder with --results\n")


@pytest.mark.parametrize("results", ["nan", "1e3", "it's/a b", "back\\slash", "end\\", "quote\\'d"])
def test_the_results_folder_reaches_the_jobs_as_the_string_given(results):
    """--results nan was read by Hydra as a float (issue 48): the override is quoted."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    (override,) = OverridesParser.create().parse_overrides([f"experiment.results_dir={launch._quoted(results)}"])
    assert override.value() == results


@pytest.mark.parametrize("written, message", [
    ("1e3", "needs '1e3' (read as float 1000.0) is unknown (a target's name is text: quote it, '1e3')"),
    ("007", "needs '007' (read as int 7) is unknown (a target's name is text: quote it, '007')"),
    ("null", "needs 'null' (read as NoneType None) is unknown (a target's name is text: quote it, 'null')"),
    ("'${vars.typo}'", "needs '${vars.typo}' (read as str 'fgi1') is unknown (did you mean fig1?)"),
    ("toy-fig1", "needs 'toy-fig1' is unknown (did you mean fig1?)"),
])
def test_an_unknown_need_is_named_as_written_in_the_file(toy, written, message):
    """A need YAML reads as a number or null was a TypeError traceback, an interpolation named by its value
    only (issue 48): the refusal quotes the file's text, then what it was read as."""
    toy(f"vars: {{typo: fgi1}}\ntargets: {{a: {{needs: [{written}]}}, fig1: {{steps: [[r]]}}}}")
    with pytest.raises(ConfigError) as err:
        campaign.plan("toy", "a")
    assert str(err.value) == f"campaign toy.yaml, target a: {message}; valid: a, fig1"


def test_a_quoted_need_names_a_target_whose_name_looks_like_a_number(toy):
    toy("targets: {a: {needs: ['1e3']}, '1e3': {steps: [[r, x]]}}")
    assert campaign.plan("toy", "a").steps == [["r", "x"]]
