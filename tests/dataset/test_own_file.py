"""Your own data file (``dataset=file``): small generated files whose arrays, split and task are known."""
from __future__ import annotations

import gzip
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from rfbench.dataset import DatasetError, load_dataset
from rfbench.dataset.own_file import describe
from rfbench.engine import config, records
from tests.conftest import REPO

FILE_CONFIG = yaml.safe_load((REPO / "configs" / "dataset" / "file.yaml").read_text())
RNG = np.random.default_rng(0)
#: 40 rows, 3 features, two classes of 20 (labels 3 and 7).
X = np.round(RNG.normal(size=(40, 3)), 4)
Y = np.repeat([3, 7], 20)


def own(path: Path, **changes) -> dict:
    return {**FILE_CONFIG, "path": str(path), **changes}


def write_csv(path: Path, X: np.ndarray, y: np.ndarray, header: bool = True) -> Path:
    lines = ["a,b,c,label"] if header else []
    lines += [",".join(f"{v:g}" for v in row) + f",{label}" for row, label in zip(X, y)]
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt") as f:
        f.write("\n".join(lines) + "\n")
    return path


def load(cfg: dict, tmp_path: Path):
    return load_dataset(cfg, cache_dir=tmp_path / "cache")


def unscaled(data) -> np.ndarray:
    return np.vstack([data.X_train, data.X_test])


def test_a_csv_with_a_header_is_read_split_stratified_and_classified(tmp_path):
    path = write_csv(tmp_path / "my.csv", X, Y)
    data = load(own(path, scale="none"), tmp_path)
    assert (data.name, data.task, data.classes.tolist()) == ("my", "classification", [3, 7])
    assert (len(data.y_train), len(data.y_test)) == (30, 10)  # test_fraction 0.25
    assert np.bincount(data.y_test).tolist() == [5, 5]  # stratified: half of each class
    # every row once, as written, with its own label
    rows = {tuple(r): label for r, label in zip(X, Y)}
    got = {tuple(r): data.classes[k] for r, k in zip(unscaled(data), np.concatenate([data.y_train, data.y_test]))}
    assert got == rows
    described = describe(own(path), tmp_path / "cache")
    assert described["header"] is True and described["format"] == "csv"
    assert described["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_label_column_by_name_or_index_and_no_header(tmp_path):
    path = write_csv(tmp_path / "first.csv", X, Y, header=False)
    assert describe(own(path), tmp_path)["header"] is False
    by_index = load(own(path, label_column=0, scale="none"), tmp_path)  # the first column as the label
    assert by_index.task == "regression" and by_index.d == 3  # 40 distinct real values: a regression
    named = write_csv(tmp_path / "named.csv", X, Y)
    by_name = load(own(named, label_column="a", task="regression", scale="none"), tmp_path)
    assert sorted(np.concatenate([by_name.y_train, by_name.y_test])) == sorted(X[:, 0])


def test_csv_gz_gives_the_arrays_of_the_csv(tmp_path):
    plain = load(own(write_csv(tmp_path / "my.csv", X, Y)), tmp_path)
    packed = load(own(write_csv(tmp_path / "my.csv.gz", X, Y)), tmp_path)
    assert np.array_equal(plain.X_train, packed.X_train) and np.array_equal(plain.y_test, packed.y_test)


@pytest.mark.parametrize("suffix", [".libsvm", ".svm", ".txt"])
def test_svmlight_with_a_test_file_of_another_width_is_padded_with_zeros(tmp_path, suffix):
    train = tmp_path / f"train{suffix}"
    train.write_text("1 1:0.5 3:2\n-1 2:1\n1 1:1.5\n-1 3:4\n")
    test = tmp_path / f"test{suffix}"
    test.write_text("1 1:2\n-1 2:3\n")  # highest index 2: its third feature is absent, so 0
    data = load(own(train, test_path=str(test), scale="none"), tmp_path)
    assert data.X_train.tolist() == [[0.5, 0, 2], [0, 1, 0], [1.5, 0, 0], [0, 0, 4]]
    assert data.X_test.tolist() == [[2, 0, 0], [0, 3, 0]]
    assert data.classes.tolist() == [-1, 1] and data.y_test.tolist() == [1, 0]


def test_npz_with_text_labels(tmp_path):
    path = tmp_path / "my.npz"
    np.savez(path, X=X, y=np.where(Y == 3, "cat", "dog"))
    data = load(own(path, scale="none"), tmp_path)
    assert data.classes.tolist() == ["cat", "dog"] and sorted(unscaled(data).ravel()) == sorted(X.ravel())


def test_task_inference_and_its_override(tmp_path):
    y_real = np.round(RNG.normal(size=40), 3)
    path = write_csv(tmp_path / "real.csv", X, y_real)
    assert load(own(path), tmp_path).task == "regression"
    many = write_csv(tmp_path / "many.csv", X, np.arange(40))  # 40 distinct integers: at most 50, classes
    assert describe(own(many), tmp_path)["task"] == "classification"
    with pytest.raises(DatasetError, match=r"cannot split its 40 rows .*have only 1 member, which is too few\); "
                                           r".* or if the labels are numbers to predict, pass dataset.task=regression"):
        load(own(many), tmp_path)
    assert load(own(many, task="regression"), tmp_path).task == "regression"
    more = write_csv(tmp_path / "more.csv", np.tile(X, (2, 1)), np.arange(80))  # 80 distinct integers: more than 50
    assert describe(own(more), tmp_path)["task"] == "regression"


def test_the_split_seed_changes_the_partition_and_a_split_is_fixed(tmp_path):
    path = write_csv(tmp_path / "my.csv", X, Y)
    a, b = load(own(path), tmp_path), load(own(path), tmp_path)
    other = load(own(path, split={"test_fraction": 0.25, "seed": 1}), tmp_path)
    assert np.array_equal(a.X_test, b.X_test) and not np.array_equal(a.X_test, other.X_test)


def test_scaling_is_fitted_on_the_training_part(tmp_path):
    data = load(own(write_csv(tmp_path / "my.csv", X, Y)), tmp_path)
    assert data.X_train.min() == 0 and data.X_train.max() == 1


def test_the_run_id_follows_the_bytes_not_the_path(tmp_path, monkeypatch):
    a = write_csv(tmp_path / "a.csv", X, Y)
    (tmp_path / "sub").mkdir()
    write_csv(tmp_path / "sub" / "a.csv", X, Y)
    changed = write_csv(tmp_path / "sub" / "b.csv", X, Y[::-1])
    base = config.to_dict({"experiment": {"seed": 0}, "dataset": own(a)})
    monkeypatch.chdir(tmp_path)  # a relative path is read from the folder rfbench runs in
    relative = config.to_dict({"experiment": {"seed": 0}, "dataset": own(Path("sub/a.csv"))})
    assert relative["dataset"]["sha256"] == base["dataset"]["sha256"]
    assert config.run_id(relative) == config.run_id(base)  # same bytes, same name: the same run
    other = config.to_dict({"experiment": {"seed": 0}, "dataset": own(changed, name="a")})
    assert config.run_id(other) != config.run_id(base)


def test_a_pinned_sha256_is_checked(tmp_path):
    path = write_csv(tmp_path / "my.csv", X, Y)
    with pytest.raises(DatasetError, match="dataset.sha256 pins 00ff: the file changed since"):
        describe(own(path, sha256="00ff"))


@pytest.mark.parametrize("text, message", [
    ("1,2,0\n3,nan,1\n5,6,0\n", "line 2, field 2: 'nan' is NaN or inf"),
    ("1,2,0\n3,4,1\n5,inf,0\n", "line 3, field 2: 'inf' is NaN or inf"),
    ("1,2,0\n3,x4,1\n5,6,0\n", "line 2, field 2: 'x4' is not a number"),
    ("1,2,0\n3,4,1\n5,0\n7,8,1\n", "line 3 has 2 fields, the first data line 3"),
    ("1,2,0\n3,4,1\n5,6,0,9\n7,8,1\n", "line 3 has 4 fields, the first data line 3"),
    ("1,2,0\n3,,1\n5,6,0\n", "line 2, field 2: empty (a missing value)"),
])
def test_a_bad_csv_names_its_line_and_the_fix(tmp_path, text, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(DatasetError, match="bad.csv") as err:
        load(own(path), tmp_path)
    assert message in str(err.value)


@pytest.mark.parametrize("text, message", [
    ("1 1:0.5\n-1 2:nan\n", "line 2: value '2:nan' is NaN or inf"),
    ("1 1:0.5\n-1 2:x\n", "line 2: token '2:x' is not <index>:<value>"),
])
def test_a_bad_svmlight_file_names_its_line(tmp_path, text, message):
    path = tmp_path / "bad.svm"
    path.write_text(text)
    with pytest.raises(DatasetError, match=message):
        load(own(path), tmp_path)


def test_one_class_in_training_says_what_to_check(tmp_path):
    path = write_csv(tmp_path / "one.csv", X, np.full(40, 2))
    with pytest.raises(DatasetError, match=r"only the label\(s\) \[2\]; need at least 2 classes: check the label "
                                           r"column \(dataset.label_column"):
        load(own(path), tmp_path)


@pytest.mark.parametrize("changes, message", [
    ({"path": None}, "dataset=file reads a file of your own: pass dataset.path=<your file>"),
    ({"path": "nope.csv"}, "dataset.path='nope.csv': no such file"),
    ({"path": "data.parquet"}, "its suffix '.parquet' names no format; rename it or pass dataset.format="),
    ({"format": "xml"}, "dataset.format='xml' is invalid"),
    ({"split": {"test_fraction": 1.5, "seed": 0}}, "dataset.split.test_fraction=1.5 is invalid"),
    ({"task": "ranking"}, "dataset.task='ranking' is invalid"),
    ({"header": "yes"}, "dataset.header='yes' is invalid: true, false or auto"),
    ({"colour": 1}, "dataset=file has no key(s) ['colour']"),
])
def test_bad_options_are_named(tmp_path, monkeypatch, changes, message):
    monkeypatch.chdir(tmp_path)
    write_csv(tmp_path / "my.csv", X, Y)
    (tmp_path / "data.parquet").write_text("x")
    with pytest.raises(DatasetError) as err:
        load({**own(Path("my.csv")), **changes}, tmp_path)
    assert message in str(err.value)


def rfbench(cwd: Path, *overrides: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "RFBENCH_CACHE": str(cwd / "cache")}
    (cwd / "cache").mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", "rfbench", "dataset=file", "experiment.trials=2",
                           "classifier.log2_C=[0,2]", *overrides], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.slow
def test_the_command_runs_a_small_file_and_records_its_sha256_in_every_row(tmp_path):
    path = write_csv(tmp_path / "my.csv", X, Y)
    proc = rfbench(tmp_path, "dataset.path=my.csv")  # relative to the folder rfbench runs in; 30 training rows
    assert proc.returncode == 0, proc.stderr
    (run,) = (tmp_path / "results" / "default" / "runs").iterdir()
    trials = records.read_trials(run / "trials.csv")
    assert trials["dataset.sha256"].tolist() == [hashlib.sha256(path.read_bytes()).hexdigest()] * 2
    assert trials[["dataset.name", "dataset.task", "n_train", "n_test"]].drop_duplicates().values.tolist() == [
        ["my", "classification", 30, 10]]
    assert trials["gram_error"].notna().all()  # the default n_gram (1000) took all 30 training rows


@pytest.mark.slow
@pytest.mark.parametrize("rows, message", [
    ("1,2,0\n3,nan,1\n5,6,0\n7,8,1\n", "bad.csv: non-finite value nan in data row 2, feature 2"),
    # 12 rows, 9 for training: 4 of the smaller class, fewer than the 5 folds
    ("\n".join(f"{i},{i % 3},{int(i < 5)}" for i in range(12)), "cv=5 exceeds the 4 samples of the smallest class"),
])
def test_a_bad_file_exits_2_with_its_message_and_writes_nothing(tmp_path, rows, message):
    (tmp_path / "bad.csv").write_text(rows)
    proc = rfbench(tmp_path, "dataset.path=bad.csv")
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert not (tmp_path / "results").exists()


@pytest.mark.slow
def test_a_dataset_yaml_of_your_own_in_config_dir_runs_and_sha256_null_gets_one_message(tmp_path):
    (tmp_path / "mirror" / "toy").mkdir(parents=True)
    path = write_csv(tmp_path / "mirror" / "toy" / "toy.csv", X, Y)
    (tmp_path / "configs" / "dataset").mkdir(parents=True)
    entry = {"path": "toy/toy.csv", "format": "csv", "options": {"label_column": -1, "header": True}}
    for name, sha256 in (("toy", hashlib.sha256(path.read_bytes()).hexdigest()), ("unpinned", None)):
        (tmp_path / "configs" / "dataset" / f"{name}.yaml").write_text(yaml.safe_dump(
            {"name": name, "n_features": 3, "files": {"data": {**entry, "sha256": sha256}},
             "split": {"kind": "random", "file": "data", "n_train": 30, "n_test": 10, "seed": 0}}))
    def rfbench_with(dataset: str) -> subprocess.CompletedProcess:
        (tmp_path / f"cache_{dataset}").mkdir()  # a cache of its own: a verified copy would serve sha256: null
        env = {**os.environ, "RFBENCH_DATA_MIRROR": str(tmp_path / "mirror"),
               "RFBENCH_CACHE": str(tmp_path / f"cache_{dataset}")}
        return subprocess.run([sys.executable, "-m", "rfbench", "--config-dir", "configs", f"dataset={dataset}",
                               "experiment.trials=1", "classifier.log2_C=[0]"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)

    pinned = rfbench_with("toy")
    assert pinned.returncode == 0, pinned.stderr
    unpinned = rfbench_with("unpinned")
    assert unpinned.returncode == 2
    assert f"(sha256: {hashlib.sha256(path.read_bytes()).hexdigest()} (the mirror's toy.csv))" in unpinned.stderr
    assert "has no toy/toy.csv" not in unpinned.stderr


def test_a_config_naming_a_path_takes_the_keys_of_file_yaml(tmp_path):
    path = write_csv(tmp_path / "my.csv", X, Y)
    with pytest.raises(DatasetError, match=r"lacks the keys \['test_path', .*'defaults: \[file, _self_\]'"):
        load({"name": "mine", "path": str(path), "format": "csv"}, tmp_path)
