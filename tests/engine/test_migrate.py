"""The run-id migration on small generated results trees: renames, rewritten files, idempotence, refusals."""
import gzip

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from rfbench.engine import config, frames, migrate, records
from rfbench.papers.qmc import datasets as qmc_datasets
from tests.conftest import REPO

GAMMAS = [0.5, 1.0, 3]
OLD_TARGET = "rfbench.named_kernel_svm.NamedKernelSVC"


def named_config(metric="gmm", deviations=("prose",)):
    """A run of the old ``classifier=svc_named`` as it was recorded (minimal groups)."""
    return {"dataset": {"name": "toy", "deviations": list(deviations), "split": {"seed": 0}},
            "kernel": {"_target_": "rfbench.kernel.LinearKernel", "name": "linear"},
            "classifier": {"_target_": OLD_TARGET, "name": "svc_named", "metric": metric, "gamma_grid": GAMMAS,
                           "log2_C": [-2, 0], "selection": "test_grid", "n_jobs": None},
            "experiment": {"name": "li/kernel_svm", "trials": 2, "seed": 0, "blas_threads": None}}


def write_run(root, run_id, cfg, accuracies=(0.75, 0.5)):
    """A recorded run: config.yaml, trials.csv (config columns + metrics) and grid.csv, as the runner writes them."""
    run = root / "li" / "kernel_svm" / "runs" / run_id
    run.mkdir(parents=True)
    (run / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create(cfg)))
    rows = [{**config.flatten(cfg), "run_id": run_id, "trial": t, "test_accuracy": a} for t, a in enumerate(accuracies)]
    rows[1]["experiment.blas_threads"] = 2  # a row written by a resume under another launcher
    pd.DataFrame(rows).to_csv(run / "trials.csv", index=False)
    pd.DataFrame({"C": [0.25, 1.0], "test_score": [0.5, 0.75], "run_id": run_id, "trial": 0}).to_csv(
        run / "grid.csv", index=False)
    return run


def snapshot(root):
    return {p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_named_svm_run_moves_to_the_id_of_its_migrated_config(tmp_path):
    old = write_run(tmp_path, "0123456789ab", named_config())
    assert migrate.main([str(tmp_path)]) == 0
    (run,) = (tmp_path / "li" / "kernel_svm" / "runs").iterdir()
    cfg = OmegaConf.to_container(OmegaConf.load(run / "config.yaml"))
    assert not old.exists() and run.name == config.run_id(cfg) != old.name
    assert cfg["classifier"] == {"_target_": "rfbench.model.kernel_svm.PrecomputedKernelSVC",
                                 "name": "svc_precomputed", "kernel": "gmm", "log2_gamma": None,
                                 "gamma_grid": GAMMAS, "log2_C": [-2, 0], "selection": "test_grid", "n_jobs": None}
    trials = pd.read_csv(run / "trials.csv")
    assert "classifier.metric" not in trials and list(trials["classifier.kernel"]) == ["gmm", "gmm"]
    columns = list(trials.columns)
    assert columns[columns.index("classifier.kernel") + 1] == "classifier.log2_gamma"
    assert trials["classifier.log2_gamma"].isna().all() and set(trials["classifier.name"]) == {"svc_precomputed"}
    assert list(trials["run_id"]) == [run.name] * 2 and list(trials["test_accuracy"]) == [0.75, 0.5]
    assert list(trials["experiment.blas_threads"].fillna(0)) == [0, 2]  # each row's execution keys kept
    assert list(pd.read_csv(run / "grid.csv")["run_id"]) == [run.name] * 2


def test_the_migrated_config_is_what_the_current_configs_compose():
    """Li's campaign overrides give the folded config, so the migrated run is found complete."""
    overrides = ["kernel=linear", "feature_map=identity", "classifier=svc_precomputed", "classifier.kernel=linear",
                 "classifier.log2_gamma=null", "classifier.gamma_grid=[0.5,1.0,3]", "classifier.selection=test_grid"]
    with initialize_config_dir(str(REPO / "configs"), version_base="1.3"):
        composed = config.to_dict(compose("config", overrides=overrides))
    old = {**composed, "classifier": {"_target_": OLD_TARGET, "name": "svc_named", "metric": "linear",
                                      **{k: v for k, v in composed["classifier"].items()
                                         if k not in ("_target_", "name", "kernel", "log2_gamma")}}}
    assert config.run_id(old) != config.run_id(composed)
    assert migrate.migrate_config(old) == composed and config.run_id(migrate.migrate_config(old)) == \
        config.run_id(composed)


def test_a_second_migration_and_a_dry_run_change_nothing(tmp_path, capsys):
    write_run(tmp_path, "0123456789ab", named_config())
    before = snapshot(tmp_path)
    assert migrate.main([str(tmp_path), "--dry-run"]) == 0
    assert snapshot(tmp_path) == before and "would migrate 1 run(s)" in capsys.readouterr().out
    migrate.main([str(tmp_path)])
    after = snapshot(tmp_path)
    assert migrate.plan(tmp_path) == [] and migrate.main([str(tmp_path)]) == 0
    assert snapshot(tmp_path) == after


def test_a_run_whose_id_only_changes_is_renamed_with_its_files_ids(tmp_path):
    """dataset.deviations left the run id: a liblinear run keeps its config, changes folder and ids."""
    cfg = {**named_config(), "classifier": {"_target_": "rfbench.model.liblinear.LibLinearClassifier",
                                            "name": "liblinear"}}
    old = write_run(tmp_path, "0123456789ab", cfg)
    before = {name: (old / name).read_text() for name in ("config.yaml", "trials.csv", "grid.csv")}
    (migration,) = migrate.plan(tmp_path)
    assert migration.new.name == config.run_id(cfg) and set(migration.files) == {"trials.csv", "grid.csv"}
    migrate.apply([migration])
    assert (migration.new / "config.yaml").read_text() == before["config.yaml"]
    for name in ("trials.csv", "grid.csv"):  # byte for byte, but for the id
        assert (migration.new / name).read_text() == before[name].replace(old.name, migration.new.name)


def test_a_cut_migration_is_finished_by_the_next(tmp_path):
    old = write_run(tmp_path, "0123456789ab", named_config())
    (migration,) = migrate.plan(tmp_path)
    for name, text in migration.files.items():  # killed after writing the files, before the rename
        (old / name).write_text(text)
    (again,) = migrate.plan(tmp_path)
    assert again.new == migration.new and again.files == {}
    migrate.apply([again])
    assert sorted(p.name for p in old.parent.iterdir()) == [migration.new.name]


def test_two_runs_that_would_collide_are_refused_and_nothing_changes(tmp_path, capsys):
    """Runs differing only in their deviations prose get one id now: the migration refuses."""
    write_run(tmp_path, "0123456789ab", named_config(deviations=["one wording"]))
    write_run(tmp_path, "ba9876543210", named_config(deviations=["another wording"]))
    before = snapshot(tmp_path)
    assert migrate.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("migrate: error: runs li/kernel_svm/runs/0123456789ab and li/kernel_svm/runs/ba9876543210 "
                          "would both become li/kernel_svm/runs/") and "nothing was changed" in err
    assert snapshot(tmp_path) == before


def test_a_root_that_is_not_a_folder_is_refused(tmp_path, capsys):
    assert migrate.main([str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err == (f"migrate: error: root={str(tmp_path / 'nope')!r} is not a folder; "
                                       "give a results tree, e.g. results\n")


def test_a_run_reached_through_a_link_out_of_the_tree_is_left_alone(tmp_path):
    outside = write_run(tmp_path / "elsewhere", "0123456789ab", named_config())
    before = snapshot(outside)
    link = tmp_path / "results" / "li" / "kernel_svm" / "runs" / "0123456789ab"
    link.parent.mkdir(parents=True)
    link.symlink_to(outside, target_is_directory=True)
    assert migrate.plan(tmp_path / "results") == [] and migrate.main([str(tmp_path / "results")]) == 0
    assert snapshot(outside) == before and link.is_symlink()


@pytest.mark.parametrize("old_name", ["cpu_act_qmc", "house_16h"])
def test_a_run_of_a_folded_dataset_config_moves_to_the_config_of_its_data(tmp_path, old_name):
    """QMC's cpu_act_qmc (cpu_act at 6,554 / 1,638) and house_16h (census_house under another name and
    prose): a recorded job on either is, migrated, the run its overrides compose now, found complete."""
    with initialize_config_dir(str(REPO / "configs"), version_base="1.3"):
        composed = config.to_dict(compose("config", overrides=["job=qmc_gram", *qmc_datasets.overrides(old_name)]))
    old = {**composed, "dataset": {**composed["dataset"], "name": old_name, "deviations": ["the old config's prose"]}}
    assert config.run_id(old) != config.run_id(composed)
    assert migrate.migrate_config(old) == composed
    write_run(tmp_path, config.run_id(old), old)
    assert migrate.main([str(tmp_path)]) == 0
    (run,) = tmp_path.rglob("runs/*")
    assert run.name == config.run_id(composed)
    trials = records.read_trials(run / "trials.csv")  # plain or gzipped (a job's rows are over the threshold)
    assert set(trials["dataset.name"]) == {composed["dataset"]["name"]} and set(trials["run_id"]) == {run.name}
    assert trials["dataset.split.n_train"].tolist() == [composed["dataset"]["split"]["n_train"]] * 2
    assert migrate.plan(tmp_path) == []


def test_a_run_named_like_a_folded_config_but_on_other_files_is_refused():
    node = {"name": "house_16h", "files": {"data": {"sha256": "0" * 64}}}
    with pytest.raises(ValueError, match="dataset=house_16h reads files .* not those of dataset=census_house"):
        migrate.fold_dataset_configs({"dataset": node})


def test_a_data_job_reading_a_data_job_loses_the_dataset_name_of_its_reads():
    """The read job gets the reader's dataset node whole now: a ``dataset=<name>`` in ``reads`` goes (it
    dropped the reader's settings); a job without data, or reads without a dataset, are left as they are."""
    reads = {"learnt": ["job=qmc_learnt", "dataset=cpu_act_qmc", "job.s=100"]}
    cfg = {"job": {"name": "qmc_table3", "data": True, "s": 100, "reads": reads}, "dataset": {"name": "cpu_act"}}
    migrated = migrate.reads_the_readers_data(cfg)
    assert migrated["job"]["reads"] == {"learnt": ["job=qmc_learnt", "job.s=100"]}
    assert migrated["dataset"] == cfg["dataset"]
    assert migrate.reads_the_readers_data(migrated) is migrated
    no_data = {"job": {**cfg["job"], "data": False}}
    assert migrate.reads_the_readers_data(no_data) is no_data


def test_a_frame_over_the_threshold_recorded_plain_is_stored_gzipped_with_the_same_text(tmp_path, capsys):
    """The run keeps its id and folder; its large frame becomes points.csv.gz holding the very text; a small
    frame and trials.csv stay plain; a dry run and a second migration change nothing."""
    cfg = {**named_config(), "classifier": {"_target_": "rfbench.model.liblinear.LibLinearClassifier",
                                            "name": "liblinear"}}
    run_id = config.run_id(cfg)
    run = write_run(tmp_path, run_id, cfg)
    values = np.random.default_rng(0).standard_normal((12_000, 2))
    pd.DataFrame(values, columns=["w0", "w1"]).assign(trial=0).to_csv(run / "points.csv", index=False)
    text = (run / "points.csv").read_text()
    assert len(text) > frames.GZIP_ABOVE_BYTES
    before = snapshot(tmp_path)
    assert migrate.main([str(tmp_path), "--dry-run"]) == 0 and snapshot(tmp_path) == before
    assert f"{run_id} -> {run_id}: points.csv" in capsys.readouterr().out
    assert migrate.main([str(tmp_path)]) == 0
    assert sorted(p.name for p in run.iterdir()) == ["config.yaml", "grid.csv", "points.csv.gz", "trials.csv"]
    assert gzip.decompress((run / "points.csv.gz").read_bytes()).decode() == text
    assert {p: before[p] for p in before if p.name != "points.csv"} == \
        {p: b for p, b in snapshot(tmp_path).items() if p.name != "points.csv.gz"}
    after = snapshot(tmp_path)
    assert migrate.plan(tmp_path) == [] and migrate.main([str(tmp_path)]) == 0 and snapshot(tmp_path) == after


@pytest.mark.parametrize(("text", "says"), [("", "config.yaml is empty, not the mapping"),
                                            ("- a\n- b\n", "config.yaml is a YAML list"),
                                            ("a: [1\n", "config.yaml is not YAML")])
def test_an_empty_list_or_unreadable_config_is_refused_and_nothing_changes(tmp_path, capsys, text, says):
    """Hashing nothing would re-id the run to the hash of nothing and orphan its trials (issue 48)."""
    run = write_run(tmp_path, "0123456789ab", named_config())
    (run / "config.yaml").write_text(text)
    before = snapshot(tmp_path)
    assert migrate.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"migrate: error: {run / 'config.yaml'}") and says in err and "\n" not in err.rstrip()
    assert snapshot(tmp_path) == before


def test_a_config_edited_after_its_trials_ran_is_refused_naming_the_value(tmp_path, capsys):
    """sigma 2 -> 7.5 by hand: re-iding would file the sigma = 2 trials under sigma = 7.5's id (issue 48)."""
    cfg = {**named_config(), "kernel": {"name": "gaussian", "sigma": 2.0}}
    run = write_run(tmp_path, config.run_id(cfg), cfg)
    (run / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create({**cfg, "kernel": {"name": "gaussian",
                                                                                           "sigma": 7.5}})))
    before = snapshot(tmp_path)
    assert migrate.main([str(tmp_path)]) == 2
    assert "kernel.sigma=7.5 in config.yaml, 2.0 in its trials: the config was edited" in capsys.readouterr().err
    assert snapshot(tmp_path) == before


def test_rows_of_another_run_or_a_trial_twice_are_refused_before_any_change(tmp_path, capsys):
    run = write_run(tmp_path, "0123456789ab", named_config())
    lines = (run / "trials.csv").read_text().splitlines()
    (run / "trials.csv").write_text("\n".join([*lines, lines[1]]) + "\n")
    before = snapshot(tmp_path)
    assert migrate.main([str(tmp_path)]) == 2
    assert "trial(s) [0] recorded more than once (lines 2, 4)" in capsys.readouterr().err
    assert snapshot(tmp_path) == before


def test_a_migration_cut_between_its_files_is_finished_by_the_next(tmp_path):
    """Killed after rewriting trials.csv, before the config (written last): the rows carry the new id and
    agree with the migrated config, so the next migration finishes, not refuses as an edited config."""
    clean, cut = tmp_path / "clean", tmp_path / "cut"
    write_run(clean, "0123456789ab", named_config())
    migrate.apply(migrate.plan(clean))
    old = write_run(cut, "0123456789ab", named_config())
    (migration,) = migrate.plan(cut)
    (old / "trials.csv").write_text(migration.files["trials.csv"])
    migrate.apply(migrate.plan(cut))
    assert snapshot(cut) == snapshot(clean) and migration.new.is_dir() and not migrate.plan(cut)


def test_a_run_recorded_plain_before_the_compact_layout_gets_its_large_index_and_grid_gzipped_with_the_same_text(
        tmp_path, capsys):
    """What the coordinator runs on a tree with new plain runs: trials.csv and grid.csv over the threshold become
    .csv.gz holding the very text (the same numbers, bit for bit, to every reader); a small run stays plain; a
    second migration changes nothing."""
    cfg = {**named_config(), "classifier": {"_target_": "rfbench.model.liblinear.LibLinearClassifier",
                                            "name": "liblinear"}}
    rng = np.random.default_rng(0)
    large = write_run(tmp_path, config.run_id(cfg), cfg, accuracies=rng.uniform(0, 1, 30))
    pd.DataFrame({"C": rng.uniform(0, 1, 200), "test_score": rng.uniform(0, 1, 200), "run_id": large.name,
                  "trial": 0}).to_csv(large / "grid.csv", index=False)
    small_cfg = {**cfg, "dataset": {**cfg["dataset"], "split": {"seed": 1}}}
    small = write_run(tmp_path, config.run_id(small_cfg), small_cfg)
    texts = {name: (large / name).read_text() for name in ("trials.csv", "grid.csv")}
    assert all(len(text) > frames.GZIP_ABOVE_BYTES for text in texts.values())
    read = {name: records.read_trials(large / name) for name in texts}
    small_before = snapshot(small)
    assert migrate.main([str(tmp_path)]) == 0
    assert f"{large.name} -> {large.name}: grid.csv, trials.csv" in capsys.readouterr().out
    assert sorted(p.name for p in large.iterdir()) == ["config.yaml", "grid.csv.gz", "trials.csv.gz"]
    for name, text in texts.items():
        assert gzip.decompress((large / f"{name}.gz").read_bytes()).decode() == text
        pd.testing.assert_frame_equal(records.read_trials(large / name), read[name], check_exact=True)
    assert snapshot(small) == small_before
    after = snapshot(tmp_path)
    assert migrate.plan(tmp_path) == [] and migrate.main([str(tmp_path)]) == 0 and snapshot(tmp_path) == after


def test_a_record_stored_both_plain_and_gzipped_is_refused_and_nothing_changed(tmp_path, capsys):
    """A merge that kept a branch's plain trials.csv beside main's trials.csv.gz: which holds every trial is not
    guessed (the .gz would win, losing the branch's new rows)."""
    cfg = {**named_config(), "classifier": {"_target_": "rfbench.model.liblinear.LibLinearClassifier",
                                            "name": "liblinear"}}
    run = write_run(tmp_path, config.run_id(cfg), cfg)
    frames.gzipped(run / "trials.csv").write_bytes(frames.pack((run / "trials.csv").read_text()))
    before = snapshot(tmp_path)
    assert migrate.main([str(tmp_path)]) == 2
    assert "trials.csv stored both plain and gzipped" in capsys.readouterr().err and snapshot(tmp_path) == before
