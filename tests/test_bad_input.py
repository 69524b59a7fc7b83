"""Bad data end to end: small generated files in a temporary mirror, loaded like a real dataset."""
import hashlib
import logging
import os
import subprocess
import sys

import pytest
from omegaconf import OmegaConf

from rfbench.dataset import DatasetError, load_dataset
from tests.conftest import REPO

GOOD_ROWS = ["0,0,1,0", "1,0,2,1", "2,0,3,0", "3,0,4,1", "4,0,5,0", "5,0,6,1"]


def toy_config(tmp_path, text: str, *, name="toy.csv", fmt="csv", split=None) -> dict:
    """Write ``text`` as ``<mirror>/toy/<name>`` and return a dataset config for it."""
    path = tmp_path / "mirror" / "toy" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    options = {"label_column": -1} if fmt == "csv" else {}
    return {"name": "toy", "n_features": 3,
            "files": {"data": {"path": f"toy/{name}", "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                               "format": fmt, "options": options}},
            "split": split or {"kind": "random", "file": "data", "n_train": 4, "n_test": 2, "seed": 0}}


def load(tmp_path, cfg):
    return load_dataset(cfg, cache_dir=tmp_path / "cache", mirror=str(tmp_path / "mirror"))


@pytest.mark.parametrize("bad_row, message", [
    ("nan,0,1,0", "non-finite value nan in data row 2, feature 1"),
    ("1,inf,1,0", "non-finite value inf in data row 2, feature 2"),
])
def test_nan_or_inf_is_rejected_with_row_and_feature(tmp_path, bad_row, message):
    cfg = toy_config(tmp_path, "\n".join([GOOD_ROWS[0], bad_row, *GOOD_ROWS[1:]]))
    with pytest.raises(DatasetError, match=message) as err:
        load(tmp_path, cfg)
    assert "toy.csv" in str(err.value)


def test_constant_column_is_mapped_to_zero_and_logged(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    data = load(tmp_path, toy_config(tmp_path, "\n".join(GOOD_ROWS)))
    assert (data.X_train[:, 1] == 0).all() and (data.X_test[:, 1] == 0).all()
    assert "features [2] are constant on the training split; mapped to 0" in caplog.text


def test_single_class_training_split_is_rejected(tmp_path):
    cfg = toy_config(tmp_path, "\n".join(row[:-1] + "1" for row in GOOD_ROWS))
    with pytest.raises(DatasetError, match=r"the training split has only the label\(s\) \[1\]; need at least 2"):
        load(tmp_path, cfg)


def test_malformed_libsvm_line_names_file_and_line(tmp_path):
    cfg = toy_config(tmp_path, "1 1:0.5 2:1\n-1 3:2\n+1 2:x\n-1 1:1\n", name="toy.libsvm", fmt="libsvm")
    with pytest.raises(DatasetError, match=r"toy\.libsvm, line 3: "):
        load(tmp_path, cfg)


@pytest.mark.parametrize("name, fmt, message", [
    ("empty.csv", "csv", "empty.csv: cannot parse as delimited text"),
    ("empty.libsvm", "libsvm", "empty.libsvm: no data rows"),
])
def test_empty_file_is_an_error(tmp_path, name, fmt, message):
    with pytest.raises(DatasetError, match=message):
        load(tmp_path, toy_config(tmp_path, "", name=name, fmt=fmt))


def test_bad_data_through_the_cli_exits_2_before_writing_results(tmp_path):
    cfg = toy_config(tmp_path, "\n".join([GOOD_ROWS[0], "nan,0,1,0", *GOOD_ROWS[1:]]))
    (tmp_path / "configs" / "dataset").mkdir(parents=True)
    OmegaConf.save(cfg, tmp_path / "configs" / "dataset" / "toy.yaml")
    env = {**os.environ, "RFBENCH_DATA_MIRROR": (tmp_path / "mirror").as_uri(),
           "RFBENCH_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-m", "rfbench", "--config-dir", str(tmp_path / "configs"), "dataset=toy",
                           f"experiment.results_dir={tmp_path / 'results'}", "experiment.n_gram=2"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "rfbench: error:" in proc.stderr and "non-finite value nan in data row 2" in proc.stderr
    assert not (tmp_path / "results" / "default" / "runs").exists()


# Inputs that once passed validation and ended in a traceback (issue 15), one per class of mistake.


@pytest.mark.slow
@pytest.mark.parametrize("overrides, message", [
    # out of range, checked by the component that owns the parameter once d is known
    ("kernel=sinh_gaussian feature_map=askrff kernel.beta=5", "kernel.beta=5 with sigma=2"),
    ("kernel.sigma=1e300", "kernel.sigma=1e+300 is invalid: a bandwidth with 1e-30 <= sigma <= 1e+30"),
    ("kernel.sigma=1e-300", "kernel.sigma=1e-300 is invalid: a bandwidth with 1e-30 <= sigma <= 1e+30"),
    # non-numeric and overflow
    ("classifier.log2_C=[abc]", "classifier.log2_C=['abc'] is invalid: a list of exponents e, -1000 <= e <= 1000"),
    ("classifier.log2_C=[5000]", "classifier.log2_C=[5000] is invalid: a list of exponents e, -1000 <= e <= 1000"),
    ("feature_map.m_over_d=1e6", "feature_map.m_over_d=1000000.0 is invalid (M = 57000000 on d=57"),
    # empty
    ("-m dataset=[]", "dataset=[] is invalid: dataset takes one option; choose one of a9a,"),
    ("dataset=null", "dataset=null is invalid: dataset takes one option; choose one of a9a,"),
    # conflicting
    ("feature_map.n_components=10 feature_map.m_over_d=2", "are both set, and M is one or the other: drop"),
    # unknown names
    ("feature_map.m_over=2", "feature_map.m_over=2 is invalid: feature_map=rff has no key 'm_over'; did you mean"),
    # unwritable paths
    ("experiment.results_dir=/proc/x", "experiment.results_dir='/proc/x' is invalid: cannot create folders in /proc"),
    # out of range, known once the data is loaded
    ("classifier.cv=99999", "classifier.cv=99999 exceeds"),
    ("dataset.split.seed=-1", "split.seed=-1 is invalid"),
])
def test_a_users_mistake_is_one_error_line_exit_2_and_writes_nothing(tmp_path, overrides, message):
    results = tmp_path / "results"
    results.mkdir()
    args = overrides.split()
    flags = [a for a in args if a.startswith("-")]
    proc = subprocess.run([sys.executable, "-m", "rfbench", *flags, f"experiment.results_dir={results}",
                           "experiment.trials=1", "experiment.n_gram=50", *(a for a in args if a not in flags)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("rfbench: error: ") and proc.stderr.count("\n") == 1, proc.stderr
    assert message in proc.stderr
    assert list(results.iterdir()) == []
