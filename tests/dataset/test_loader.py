"""load_dataset end to end on the shipped configs and the real mirrored files."""
from pathlib import Path

import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from rfbench.dataset import Dataset, DatasetError, load_dataset, parsers
from rfbench.dataset.sources import sha256_file

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


@pytest.fixture(scope="module")
def load(mirror, data_cache, dataset_config):
    """``load(name)``: a shipped config loaded through the session cache (parsed once)."""
    loaded = {}

    def get(name: str) -> Dataset:
        if name not in loaded:
            loaded[name] = load_dataset(dataset_config(name), cache_dir=data_cache, mirror=mirror)
        return loaded[name]
    return get


@pytest.mark.parametrize("name, n_train, n_test, d, n_classes", [
    ("spambase", 2760, 1841, 57, 2),    # Table 1
    ("letter", 12000, 6000, 16, 26),    # Table 1 (cells swapped with ijcnn1 there)
    ("ijcnn1", 49990, 91701, 22, 2),    # Table 1 (cells swapped with letter there)
    ("a9a", 32561, 16281, 123, 2),      # LIBSVM's own split
    ("cod_rna_stratified", 39690, 19845, 8, 2),
])
def test_shipped_configs_give_the_paper_split_sizes(load, name, n_train, n_test, d, n_classes):
    ds = load(name)
    assert (len(ds.y_train), len(ds.y_test), ds.d, ds.n_classes) == (n_train, n_test, d, n_classes)
    assert ds.X_train.shape == (n_train, d) and ds.X_test.shape == (n_test, d)
    assert ds.X_train.dtype == ds.X_test.dtype == np.float64
    assert ds.y_train.dtype == ds.y_test.dtype == np.int64
    assert set(np.unique(ds.y_train)) == set(range(n_classes))
    np.testing.assert_array_equal(ds.X_train.min(axis=0), 0.0)
    np.testing.assert_array_equal(ds.X_train.max(axis=0), 1.0)


def test_spambase_equals_an_independent_numpy_computation(load, real_file):
    raw = np.loadtxt(real_file("spambase", "data"), delimiter=",")
    order = np.random.default_rng(0).permutation(len(raw))
    train, test = raw[order[:2760]], raw[order[2760:]]
    low, high = train[:, :-1].min(axis=0), train[:, :-1].max(axis=0)
    ds = load("spambase")
    np.testing.assert_allclose(ds.X_train, (train[:, :-1] - low) / (high - low), rtol=1e-12, atol=0)
    np.testing.assert_allclose(ds.X_test, (test[:, :-1] - low) / (high - low), rtol=1e-12, atol=0)
    np.testing.assert_array_equal(ds.classes[ds.y_test], test[:, -1])
    assert ds.deviations == ()


def test_split_is_fixed_across_loads(load, mirror, tmp_path, dataset_config):
    again = load_dataset(OmegaConf.create(dataset_config("letter")), cache_dir=tmp_path, mirror=mirror)
    np.testing.assert_array_equal(again.X_train, load("letter").X_train)
    np.testing.assert_array_equal(again.y_test, load("letter").y_test)


def test_cod_rna_fallback_is_stratified_and_carries_its_deviation(load):
    ds = load("cod_rna_stratified")
    assert np.bincount(ds.y_train).tolist() == [26460, 13230]  # 2:1 as in all 59,535 rows
    assert len(ds.deviations) == 1 and "cod-rna.t" in ds.deviations[0]


def test_cod_rna_paper_split_fails_naming_the_file_the_urls_and_the_fallback(mirror, tmp_path, dataset_config):
    with pytest.raises(DatasetError) as err:
        load_dataset(dataset_config("cod_rna"), cache_dir=tmp_path, mirror=mirror)
    message = str(err.value)
    assert "could not obtain 'cod_rna/cod-rna.t'" in message
    assert f"{mirror.rstrip('/')}/cod_rna/cod-rna.t" in message
    assert "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/cod-rna.t" in message
    assert "dataset=cod_rna_stratified" in message


def test_second_load_reads_the_npz_cache_instead_of_parsing(mirror, tmp_path, monkeypatch, dataset_config):
    first = load_dataset(dataset_config("spambase"), cache_dir=tmp_path, mirror=mirror)
    assert len(list((tmp_path / "parsed").glob("spambase.data.*.npz"))) == 1

    def no_parsing(*args, **kwargs):
        raise AssertionError("text was parsed again")
    monkeypatch.setattr(parsers, "parse_file", no_parsing)
    second = load_dataset(dataset_config("spambase"), cache_dir=tmp_path, mirror=mirror)
    np.testing.assert_array_equal(first.X_train, second.X_train)


def test_hydra_composes_the_dataset_group_and_overrides_reach_the_loader(mirror, data_cache):
    with initialize_config_dir(str(CONFIGS), version_base="1.3"):
        cfg = compose(overrides=["+dataset=spambase", "dataset.split.seed=1"])
    ds = load_dataset(cfg.dataset, cache_dir=data_cache, mirror=mirror)
    assert (ds.name, len(ds.y_train)) == ("spambase", 2760)


@pytest.mark.parametrize("change, message", [
    ({"splti": {}}, "unknown keys ['splti']"),
    ({"n_features": "57"}, "n_features must be a positive integer, got '57'"),
    ({"files": {}}, "files must be a non-empty mapping"),
    ({"scale": "standard"},
     "dataset.scale='standard' is invalid; choose one of "
     "['minmax', 'minmax_pooled', 'minmax_each', 'unit_rows', 'minmax_unit_rows', 'none']"),
    ({"split": {"kind": "random", "file": "train", "n_train": 1, "n_test": 1, "seed": 0}},
     "refers to file 'train', but files has only ['data']"),
])
def test_bad_configs_fail_before_any_download(tmp_path, dataset_config, change, message):
    cfg = {**dataset_config("spambase"), **change}
    with pytest.raises(DatasetError) as err:
        load_dataset(cfg, cache_dir=tmp_path, mirror="http://127.0.0.1:9")
    assert message in str(err.value)


def test_unknown_source_format_fails_before_any_download(tmp_path, dataset_config):
    cfg = dataset_config("spambase")
    cfg["files"]["data"]["urls"][0]["format"] = "xls"
    with pytest.raises(DatasetError, match="unknown format 'xls'; valid formats: libsvm, csv, tsv"):
        load_dataset(cfg, cache_dir=tmp_path, mirror="http://127.0.0.1:9")


@pytest.mark.parametrize("scale", ["none", "unit_rows"])
def test_scale_none_keeps_the_parsed_values_and_unit_rows_normalizes_them(load, mirror, data_cache,
                                                                           dataset_config, real_file, scale):
    raw = np.loadtxt(real_file("spambase", "data"), delimiter=",")
    ds = load_dataset({**dataset_config("spambase"), "scale": scale}, cache_dir=data_cache, mirror=mirror)
    order = np.random.default_rng(0).permutation(len(raw))
    expected = raw[order[:2760], :-1]
    if scale == "unit_rows":
        expected = expected / np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(ds.X_train, expected, rtol=1e-12)
    np.testing.assert_array_equal(ds.y_train, load("spambase").y_train)


def test_categorical_is_refused_on_a_dataset_of_two_files(tmp_path, dataset_config):
    cfg = dataset_config("a9a")
    for spec in cfg["files"].values():
        spec.update(format="csv", options={"label_column": 0, "categorical": [1]})
    with pytest.raises(DatasetError, match=r"needs a single-file dataset .* files \['train', 'test'\]"):
        load_dataset(cfg, cache_dir=tmp_path, mirror="http://127.0.0.1:9")


def test_mnist_gives_the_official_split_and_class_counts(load):
    # LeCun's page: 60,000 training and 10,000 test images; the label files' class counts.
    ds = load("mnist")
    assert ds.X_train.shape == (60000, 784) and ds.X_test.shape == (10000, 784)
    assert np.bincount(ds.y_train).tolist() == [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]
    assert np.bincount(ds.y_test).tolist() == [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]
    assert ds.X_train.max() == 1.0 and ds.X_train.min() == 0.0


def _idx_dataset(root, labels: list[int]) -> dict:
    """A one-file IDX dataset in a mirror laid out under ``root`` (4 samples of 2x2 values)."""
    folder = root / "toy"
    folder.mkdir(exist_ok=True)
    specs = {}
    for name, array, code in [("x.idx", np.arange(16, dtype=np.uint8).reshape(4, 2, 2), 0x08),
                              ("y.idx", np.array(labels, np.uint8), 0x08)]:
        path = folder / name
        path.write_bytes(bytes([0, 0, code, array.ndim]) + np.array(array.shape, ">u4").tobytes() + array.tobytes())
        specs[name] = {"path": f"toy/{name}", "sha256": sha256_file(path)}
    return {"name": "toy", "n_features": 4, "scale": "none",
            "files": {"data": {**specs["x.idx"], "format": "idx", "labels": specs["y.idx"]}},
            "split": {"kind": "random", "file": "data", "n_train": 3, "n_test": 1, "seed": 0}}


def test_the_companion_label_file_is_fetched_and_bound_to_the_parse_cache(tmp_path):
    mirror, cache = tmp_path / "mirror", tmp_path / "cache"
    mirror.mkdir()
    first = load_dataset(_idx_dataset(mirror, [0, 1, 0, 1]), cache_dir=cache, mirror=mirror.as_uri())
    assert sorted(first.classes[np.r_[first.y_train, first.y_test]].tolist()) == [0, 0, 1, 1]
    # New label bytes (new sha256), same data file: the cached parse must not be reused.
    second = load_dataset(_idx_dataset(mirror, [2, 3, 2, 3]), cache_dir=cache, mirror=mirror.as_uri())
    assert second.classes.tolist() == [2, 3]
    np.testing.assert_array_equal(second.X_train, first.X_train)


@pytest.mark.parametrize("change, message", [
    (lambda spec: spec.pop("labels"), "format 'idx' keeps its labels in a companion file"),
    (lambda spec: spec.update(labels="y.idx"), "labels of 'toy/x.idx' must be a file spec"),
    (lambda spec: spec["labels"].update(path="../y.idx"), "must be '<folder>/<file>'"),
])
def test_bad_companion_specs_fail_before_any_download(tmp_path, change, message):
    cfg = _idx_dataset(tmp_path, [0, 1, 0, 1])
    change(cfg["files"]["data"])
    with pytest.raises(DatasetError) as err:
        load_dataset(cfg, cache_dir=tmp_path / "cache", mirror="http://127.0.0.1:9")
    assert message in str(err.value)


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("dataset/*.yaml")), ids=lambda p: p.stem)
def test_every_shipped_dataset_names_its_scale_so_the_command_line_can_override_it(path):
    # Hydra refuses `dataset.scale=unit_rows` for a config without the key ("not in struct").
    assert OmegaConf.load(path).scale in ("minmax", "unit_rows", "minmax_unit_rows", "none")
