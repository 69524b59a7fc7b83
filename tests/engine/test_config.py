import os
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.errors import MissingConfigException

from rfbench.engine import config
from tests.conftest import REPO


def compose_cfg(*overrides: str) -> dict:
    with initialize_config_dir(str(REPO / "configs"), version_base="1.3"):
        return config.to_dict(compose("config", overrides=list(overrides)))


def test_default_config_is_valid_and_has_every_group():
    cfg = compose_cfg()
    assert {"dataset", "kernel", "feature_map", "classifier", "experiment"} <= cfg.keys()
    config.validate(cfg)


@pytest.mark.parametrize("override, field, hint", [
    ("experiment.trials=true", "experiment.trials=True", "an integer"),
    ("experiment.trials=0", "experiment.trials=0", ">= 1"),
    ("experiment.trials=1000000000", "experiment.trials=1000000000", ">= 1 and <= 100000"),  # not a set of 1e9 ints
    ("experiment.n_gram=-1", "experiment.n_gram=-1", ">= 0"),
    ("experiment.seed=-1", "experiment.seed=-1", ">= 0"),
    ("experiment.blas_threads=0", "experiment.blas_threads=0", ">= 1, or null"),
    ("experiment.gram_norms=[nuclear]", "experiment.gram_norms=['nuclear']", "['fro', 'spectral']"),
    ("experiment.gram_norms=[]", "experiment.gram_norms=[]", "non-empty"),
    ("experiment.force=maybe", "experiment.force='maybe'", "true or false"),  # not read as true
    ("dataset.allow_unverified=2", "dataset.allow_unverified=2", "true or false"),
    ("experiment.gram_block=0", "experiment.gram_block=0", "an integer >= 1"),
    ("experiment.chunk_rows=0.5", "experiment.chunk_rows=0.5", "an integer >= 1"),
    ("experiment.results_dir=''", "experiment.results_dir=''", "a folder path"),
    ("experiment.name=5", "experiment.name=5", "a plain relative name"),  # Hydra reads 5 as an int: no traceback
    ("experiment.name=a/./b", "experiment.name='a/./b'", "a plain relative name"),
    (f"experiment.name=li/{'a' * 256}", f"experiment.name='li/{'a' * 256}'", "at most 255 bytes"),
])
def test_bad_values_name_field_value_and_range(override, field, hint):
    with pytest.raises(config.ConfigError) as err:
        config.validate(compose_cfg(override))
    assert field in str(err.value) and hint in str(err.value)


@pytest.mark.parametrize("override", [
    f"experiment.trials={config.MAX_TRIALS}",
    "experiment.n_gram=0",  # skips the Gram error
    f"experiment.name=li/{'a' * 255}",  # a folder name may take all of the file system's 255 bytes
    "experiment.gram_block=1",
    "experiment.chunk_rows=1",
    "experiment.blas_threads=1",
    "classifier.n_jobs=1",
    "experiment.gram_norms=[fro,spectral]",  # every norm at once
])
def test_values_at_the_edge_of_their_range_are_valid(override):
    config.validate(compose_cfg(override))


def test_a_dataset_config_without_allow_unverified_is_valid():
    """A user's own dataset config need not say ``allow_unverified``: a missing key reads as false."""
    cfg = compose_cfg()
    del cfg["dataset"]["allow_unverified"]
    config.validate(cfg)


@pytest.mark.parametrize("group", ["dataset", "kernel", "feature_map", "classifier", "experiment"])
def test_a_group_that_is_not_a_mapping_is_named_with_its_value(group):
    cfg = compose_cfg()
    cfg[group] = 5
    with pytest.raises(config.ConfigError, match=f"^{group}=5 is invalid"):
        config.validate(cfg)


@pytest.mark.parametrize("group, valid", [
    ("dataset", ["a9a", "cod_rna", "letter", "spambase"]),
    ("kernel", ["gaussian", "linear", "sinh_gaussian"]),
    ("feature_map", ["askrff", "identity", "rff"]),
    ("classifier", ["liblinear", "none"]),
])
def test_unknown_group_option_lists_the_valid_ones(group, valid):
    with pytest.raises(MissingConfigException) as err:
        compose_cfg(f"{group}=nope")
    message = str(err.value)
    assert f"'{group}/nope'" in message and all(f"\t{option}\n" in message for option in valid)


def test_run_id_ignores_execution_settings_only():
    base = compose_cfg()
    same = compose_cfg("experiment.trials=3", "experiment.name=other", "experiment.blas_threads=1",
                       "classifier.n_jobs=2")
    other = compose_cfg("feature_map.m_over_d=4")
    assert config.run_id(base) == config.run_id(same)
    assert config.run_id(base) != config.run_id(other)
    assert config.run_id(base) != config.run_id(compose_cfg("experiment.seed=1"))
    assert config.run_id(compose_cfg("feature_map.m_over_d=2")) == config.run_id(
        compose_cfg("feature_map.m_over_d=2.0"))


def test_flatten_makes_one_column_per_leaf():
    flat = config.flatten({"a": {"b": 1, "c": [1, 2]}, "d": "x"})
    assert flat == {"a.b": 1, "a.c": "[1, 2]", "d": "x"}


def test_run_id_ignores_where_the_data_comes_from_but_not_what_it_is():
    """Pinning a URL's hash, adding a mirror or rewording the deviations keeps the recorded runs;
    another file sha256 does not."""
    from omegaconf import OmegaConf

    from rfbench.cli import CONFIG_DIR
    cfg = {"dataset": OmegaConf.to_container(OmegaConf.load(f"{CONFIG_DIR}/dataset/letter.yaml")),
           "experiment": {"name": "x", "seed": 0}}
    base = config.run_id(cfg)
    cfg["dataset"]["files"]["data"]["urls"][0]["sha256"] = "0" * 64
    cfg["dataset"]["mirror"] = "file:///path/to/mirror"
    cfg["dataset"]["allow_unverified"] = True
    cfg["dataset"]["deviations"] = ["prose saying how the data departs from a paper, reworded later"]
    assert config.run_id(cfg) == base
    cfg["dataset"]["files"]["data"]["sha256"] = "0" * 64
    assert config.run_id(cfg) != base


# Each kernel's natural feature map, as the README states it.
NATURAL_MAPS = {"gaussian": "rff", "linear": "identity", "shift_gaussian": "askrff",
                "sinh_gaussian": "askrff", "cosh_gaussian": "askrff"}


@pytest.mark.parametrize("kernel, fmap", NATURAL_MAPS.items())
def test_each_kernel_selects_its_natural_feature_map(kernel, fmap):
    cfg = compose_cfg(f"kernel={kernel}")
    assert cfg["feature_map"]["name"] == fmap
    config.validate(cfg)
    assert config.run_id(cfg) == config.run_id(compose_cfg(f"kernel={kernel}", f"feature_map={fmap}"))
    assert config.run_id(cfg) == config.run_id(compose_cfg(f"feature_map={fmap}", f"kernel={kernel}"))


@pytest.mark.parametrize("overrides, fmap", [
    (("kernel=sinh_gaussian", "feature_map=rff"), "rff"),
    (("feature_map=identity", "kernel=shift_gaussian"), "identity"),
    (("kernel=gaussian", "feature_map=askrff"), "askrff"),
])
def test_an_explicit_feature_map_wins_over_the_kernels(overrides, fmap):
    assert compose_cfg(*overrides)["feature_map"]["name"] == fmap


def test_a_missing_group_is_named():
    cfg = compose_cfg()
    del cfg["dataset"]
    with pytest.raises(config.ConfigError, match="dataset=None is invalid: every run takes one dataset"):
        config.validate(cfg)


def test_results_dir_must_be_a_writable_folder(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(config.ConfigError, match=r"experiment.results_dir=.*file/x.* is not a folder"):
        config.validate(compose_cfg(f"experiment.results_dir={tmp_path / 'file' / 'x'}"))
    config.validate(compose_cfg(f"experiment.results_dir={tmp_path / 'new' / 'results'}"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"], "the write test left something behind"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
def test_results_dir_on_a_file_system_without_folders_is_refused():
    # /proc takes no new folders, even for root (for whom os.access says yes)
    with pytest.raises(config.ConfigError, match=r"results_dir='/proc/x' is invalid: cannot create folders in /proc"):
        config.validate(compose_cfg("experiment.results_dir=/proc/x"))


def test_a_trial_may_take_all_the_available_memory_but_not_a_byte_more(monkeypatch):
    sizes = {"K": 2**30, "features": 2 * 2**30}
    monkeypatch.setattr(config, "available_memory", lambda: 3 * 2**30)
    config.check_memory(sizes, "feature_map.m_over_d=8 is invalid")
    monkeypatch.setattr(config, "available_memory", lambda: 3 * 2**30 - 1)
    with pytest.raises(config.ConfigError) as err:
        config.check_memory(sizes, "feature_map.m_over_d=8 is invalid", "choose a smaller m_over_d")
    assert str(err.value) == ("feature_map.m_over_d=8 is invalid: a trial needs about 3 GiB (K 1 + features 2), more "
                              "than the 3 GiB of memory available; choose a smaller m_over_d")
    with pytest.raises(config.ConfigError) as err:  # no fix to suggest: the message ends with the memory
        config.check_memory(sizes, "feature_map.m_over_d=8 is invalid")
    assert str(err.value).endswith("more than the 3 GiB of memory available")
    monkeypatch.setattr(config, "available_memory", lambda: None)  # unknown (no /proc/meminfo): not refused
    config.check_memory(sizes, "feature_map.m_over_d=8 is invalid")


@pytest.mark.skipif(not Path("/proc/meminfo").is_file(), reason="needs Linux /proc/meminfo")
def test_the_available_memory_is_a_part_of_the_machines_memory_in_bytes():
    """Linux gives MemAvailable in kB: a whole number of KiB, more than nothing and at most the physical memory."""
    available = config.available_memory()
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert isinstance(available, int) and 0 < available <= physical and available % 1024 == 0, (available, physical)


def test_to_dict_leaves_the_hydra_node_out():
    """A config that carries Hydra's own node (resolved, as a record of a launcher's job might) is the same run as
    without it."""
    plain = compose_cfg("kernel=laplacian")
    with_hydra = config.to_dict({**plain, "hydra": {"job": {"name": "rfbench", "num": 3}}})
    assert "hydra" not in with_hydra and config.run_id(with_hydra) == config.run_id(plain)
