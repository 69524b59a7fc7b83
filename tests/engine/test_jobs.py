"""Jobs: a paper's own computation recorded, resumed and identified like a runner's trials."""
import multiprocessing

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra

from rfbench.engine import config, jobs, preflight, records, runner
from rfbench.engine.config import ConfigError

CALLS = []


def toy(trial: int, seed: int, n: int, scale: float = 1.0) -> dict[str, pd.DataFrame]:
    """n normal draws times ``scale``, and their mean: a job with a known answer per seed."""
    CALLS.append(trial)
    draws = np.random.default_rng(jobs.trial_seed(seed, trial)).standard_normal(n) * scale
    return {"draws": pd.DataFrame({"i": range(n), "x": draws}), "mean": pd.DataFrame({"mean": [draws.mean()]})}


def job_cfg(results, trials=3, **params) -> dict:
    with initialize_config_dir(config.CONFIG_DIR, version_base="1.3"):
        cfg = config.to_dict(compose("config", overrides=["job=tutorial", f"experiment.results_dir={results}",
                                                           f"experiment.trials={trials}", "experiment.name=toy"]))
    cfg["job"] = {"_target_": "tests.engine.test_jobs.toy", "name": "toy", "n": 5, **params}
    return cfg


def test_each_trial_is_recorded_once_with_its_own_seed_and_a_rerun_computes_nothing(tmp_path):
    CALLS.clear()
    cfg = job_cfg(tmp_path)
    trials = runner.run(cfg)
    assert list(trials["trial"]) == [0, 1, 2] and CALLS == [0, 1, 2]
    run = records.run_dir(cfg)
    draws = jobs.read(run, "draws")
    assert (trials["seed"] == 0).all()  # the experiment's seed; trial t draws from SeedSequence(0, spawn_key=(t,))
    for t in range(3):
        expected = np.random.default_rng(np.random.SeedSequence(0, spawn_key=(t,)).generate_state(1)[0])
        np.testing.assert_array_equal(draws[draws["trial"] == t]["x"], expected.standard_normal(5))
    assert (trials["rows_draws"] == 5).all() and trials.loc[0, "job.n"] == 5
    runner.run(cfg)
    cfg["experiment"]["trials"] = 4  # more trials extend the same run
    runner.run(cfg)
    assert CALLS == [0, 1, 2, 3] and records.run_dir(cfg) == run


def test_the_run_id_hashes_the_job_and_the_seed_and_nothing_else(tmp_path):
    cfg = job_cfg(tmp_path)
    other_groups = {**cfg, "dataset": {**cfg["dataset"], "name": "letter"}, "kernel": {"name": "laplacian"}}
    assert config.run_id(other_groups) == config.run_id(cfg)
    assert config.run_id(job_cfg(tmp_path, scale=2.0)) != config.run_id(cfg)
    assert config.run_id({**cfg, "experiment": {**cfg["experiment"], "seed": 1}}) != config.run_id(cfg)
    assert config.run_id({**cfg, "experiment": {**cfg["experiment"], "trials": 9}}) == config.run_id(cfg)


def test_rows_of_a_trial_that_was_not_marked_done_are_no_results_and_it_is_computed_again(tmp_path):
    cfg = job_cfg(tmp_path, trials=1)
    run = records.run_dir(cfg)
    run.mkdir(parents=True)
    pd.DataFrame({"i": [0], "x": [99.0], "trial": [0]}).to_csv(run / "draws.csv", index=False)  # killed writer
    with pytest.raises(FileNotFoundError, match="no recorded trial"):
        jobs.read(run, "draws")
    runner.run(cfg)
    assert len(jobs.read(run, "draws")) == 5 and 99.0 not in set(jobs.read(run, "draws")["x"])


def _run_in_process(cfg):
    runner.run(cfg)


def test_two_processes_on_one_job_record_every_trial_once(tmp_path):
    cfg = job_cfg(tmp_path, trials=6, n=200_000)
    procs = [multiprocessing.get_context("spawn").Process(target=_run_in_process, args=(cfg,)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=300)
        assert p.exitcode == 0
    run = records.run_dir(cfg)
    trials, draws = records.read_trials(run / "trials.csv"), jobs.read(run, "draws")
    assert sorted(trials["trial"]) == list(range(6)) and len(draws) == 6 * 200_000
    assert not draws.duplicated(["trial", "i"]).any()


@pytest.mark.parametrize("change, message", [
    ({"n_points": 3}, "job=toy: unknown parameter(s) ['n_points']; tests.engine.test_jobs.toy takes ['n', 'scale']"),
    ({"_target_": "tests.engine.test_jobs.nothing"}, "job=toy: _target_ 'tests.engine.test_jobs.nothing' cannot"),
])
def test_a_bad_job_config_is_refused_before_any_work(tmp_path, change, message):
    cfg = job_cfg(tmp_path)
    cfg["job"].update(change)
    with pytest.raises(ConfigError) as err:
        preflight.check_config(cfg)
    assert message in str(err.value)
    assert not tmp_path.joinpath("toy").exists()


def reader(trial: int, seed: int, source) -> dict[str, pd.DataFrame]:
    """A job reading another job's records (``job.reads``): the number of rows of each of its frames."""
    CALLS.append(("reader", source.name))
    trials = records.read_trials(source / "trials.csv")
    return {"seen": pd.DataFrame({"run": [source.name], "trials": [len(trials)]})}


def test_a_job_reads_the_run_its_reads_name_which_is_run_first_once_and_is_in_its_run_id(tmp_path):
    CALLS.clear()
    tutorial = ["job=tutorial", "job.k_max=20", "job.reps=3"]
    cfg = job_cfg(tmp_path, trials=1)
    cfg["job"] = {"_target_": "tests.engine.test_jobs.reader", "name": "reader", "reads": {"source": tutorial}}
    preflight.check_config(cfg)
    runner.run(cfg)
    source = jobs.run_of(tutorial, tmp_path)
    assert records.recorded(source / "trials.csv") == {0}  # the read job ran first, in this results folder
    seen = jobs.read(records.run_dir(cfg), "seen")
    assert seen.loc[0, "run"] == source.name and seen.loc[0, "trials"] == 1
    before = records.read_text(source / "trials.csv")
    runner.run({**cfg, "experiment": {**cfg["experiment"], "trials": 2}})  # the read run is only looked up
    assert records.read_text(source / "trials.csv") == before
    other = {**cfg, "job": {**cfg["job"], "reads": {"source": [*tutorial[:2], "job.reps=4"]}}}
    assert config.run_id(other) != config.run_id(cfg)


def test_a_job_reads_its_runs_inside_a_hydra_app_and_leaves_the_app_as_it_was(tmp_path):
    """``rfbench job=...`` and a launcher's workers run a job inside Hydra's app, whose global state
    refuses a second initialisation: composing the reads must work there too, the app's state intact."""
    CALLS.clear()
    tutorial = ["job=tutorial", "job.k_max=20", "job.reps=3"]
    cfg = job_cfg(tmp_path, trials=1)
    cfg["job"] = {"_target_": "tests.engine.test_jobs.reader", "name": "reader", "reads": {"source": tutorial}}
    with initialize_config_dir(config.CONFIG_DIR, version_base="1.3"):  # the app's own global state
        runner.run(cfg)
        assert GlobalHydra.instance().is_initialized()  # put back (the app composes with it after the job)
        assert compose("config", overrides=["job=tutorial"])["job"]["name"] == "tutorial"
    seen = jobs.read(records.run_dir(cfg), "seen")
    assert seen.loc[0, "run"] == jobs.run_of(tutorial, tmp_path).name and seen.loc[0, "trials"] == 1


@pytest.mark.parametrize("reads, message", [
    ({"source": "job=tutorial"}, "reads must map an argument name to a list of overrides"),
    ({"source": ["dataset=letter"]}, "reads.source ['dataset=letter'] is not a job"),
])
def test_bad_reads_are_refused_naming_the_value(tmp_path, reads, message):
    cfg = job_cfg(tmp_path, trials=1)
    cfg["job"] = {"_target_": "tests.engine.test_jobs.reader", "name": "reader", "reads": reads}
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        runner.run(cfg)


def test_a_data_job_reads_its_read_job_on_its_own_dataset_node_settings_included(tmp_path):
    """QMC Table 3 (data) reads the learnt sequences (data) of cpu_act at the paper's split: the read job
    is the one composed with the same dataset overrides, not cpu_act at its config's split."""
    paper_cpu = ["dataset=cpu_act", "dataset.split.n_train=6554", "dataset.split.n_test=1638"]
    cfg = jobs._compose(["job=qmc_table3", "job.s=300", *paper_cpu, f"experiment.results_dir={tmp_path}"])
    read = jobs.read_configs(cfg)["learnt"]
    assert read["dataset"] == cfg["dataset"] and read["job"]["s"] == 300
    learnt = jobs._compose(["job=qmc_learnt", "job.s=300", *paper_cpu, f"experiment.results_dir={tmp_path}"])
    assert records.run_dir(read) == records.run_dir(learnt)
    assert records.run_dir(read) != jobs.run_of(["job=qmc_learnt", "job.s=300", "dataset=cpu_act"], tmp_path)


def test_a_gzipped_frame_is_read_as_recorded_and_a_cut_one_is_computed_again(tmp_path, caplog):
    """20,000 draws a trial (~0.8 MB of text over 3 trials) are stored as draws.csv.gz; a .gz cut short is,
    at the resume, a cut record: the trials it may lack rows of are computed again, the others kept."""
    CALLS.clear()
    cfg = job_cfg(tmp_path, trials=3, n=20_000)
    runner.run(cfg)
    run = records.run_dir(cfg)
    packed = run / "draws.csv.gz"
    assert packed.exists() and not (run / "draws.csv").exists() and (run / "mean.csv").exists()
    whole = jobs.read(run, "draws")
    for t in range(3):
        expected = np.random.default_rng(jobs.trial_seed(0, t)).standard_normal(20_000)
        np.testing.assert_array_equal(whole.query(f"trial == {t}")["x"], expected)  # bit for bit
    data = packed.read_bytes()
    packed.write_bytes(data[:len(data) // 2])  # cut inside trial 1's rows
    with pytest.raises(records.RecordError, match="draws.csv.gz is cut short"):
        jobs.read(run, "draws")
    CALLS.clear()
    with caplog.at_level("WARNING", logger="rfbench"):
        runner.run(cfg)
    assert CALLS == [1, 2] and "draws.csv.gz is cut short (its gzip stream ends early)" in caplog.text
    pd.testing.assert_frame_equal(jobs.read(run, "draws"), whole, check_exact=True)
    assert packed.read_bytes() == data  # the same rows, the same bytes
