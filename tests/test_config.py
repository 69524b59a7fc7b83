import pytest
from hydra import compose, initialize_config_dir
from hydra.errors import MissingConfigException

from rfbench import config
from tests.conftest import REPO


def compose_cfg(*overrides: str) -> dict:
    with initialize_config_dir(str(REPO / "configs"), version_base="1.3"):
        return config.to_dict(compose("config", overrides=list(overrides)))


def test_default_config_is_valid_and_has_every_group():
    cfg = compose_cfg()
    assert {"dataset", "kernel", "feature_map", "classifier", "experiment"} <= cfg.keys()
    config.validate(cfg)


@pytest.mark.parametrize("override, field, hint", [
    ("feature_map.m_over_d=0", "feature_map.m_over_d=0", "> 0"),
    ("feature_map.m_over_d=-2", "feature_map.m_over_d=-2", "> 0"),
    ("feature_map.n_components=0", "feature_map.n_components=0", ">= 1"),
    ("kernel.sigma=0", "kernel.sigma=0", "> 0"),
    ("kernel.sigma=-1.5", "kernel.sigma=-1.5", "> 0"),
    ("kernel.sigma=inf", "kernel.sigma=inf", "finite"),
    ("kernel.sigma=abc", "kernel.sigma='abc'", "> 0"),
    ("feature_map.m_over_d=inf", "feature_map.m_over_d=inf", "> 0"),
    ("experiment.trials=true", "experiment.trials=True", "an integer"),
    ("experiment.trials=0", "experiment.trials=0", ">= 1"),
    ("classifier.log2_C=[]", "classifier.log2_C=[]", "non-empty"),
    ("classifier.cv=0", "classifier.cv=0", ">= 1"),
    ("experiment.n_gram=-1", "experiment.n_gram=-1", ">= 0"),
    ("experiment.seed=-1", "experiment.seed=-1", ">= 0"),
    ("experiment.blas_threads=0", "experiment.blas_threads=0", ">= 1, or null"),
    ("classifier.n_jobs=0", "classifier.n_jobs=0", ">= 1, or null"),
])
def test_bad_values_name_field_value_and_range(override, field, hint):
    with pytest.raises(config.ConfigError) as err:
        config.validate(compose_cfg(override))
    assert field in str(err.value) and hint in str(err.value)


def test_askrff_subset_size_is_checked():
    cfg = compose_cfg("kernel=sinh_gaussian", "feature_map=askrff", "feature_map.n_subset=2")
    with pytest.raises(config.ConfigError, match="feature_map.n_subset=2.*>= 3"):
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


MISMATCHES = [(fmap, kernel) for fmap, kernels in config.SUPPORTED_KERNELS.items()
              for kernel in ("gaussian", "linear", "shift_gaussian", "sinh_gaussian", "cosh_gaussian")
              if kernel not in kernels]


@pytest.mark.parametrize("fmap, kernel", MISMATCHES)
def test_feature_map_kernel_mismatch_is_rejected_with_reason(fmap, kernel):
    with pytest.raises(config.ConfigError) as err:
        config.validate(compose_cfg(f"kernel={kernel}", f"feature_map={fmap}"))
    assert f"feature_map={fmap} cannot approximate kernel={kernel}: it supports kernel=" in str(err.value)
    assert "kernel=linear takes feature_map=identity" in str(err.value)


def test_m_is_absolute_or_a_multiple_of_d():
    assert config.n_components({"m_over_d": 2, "n_components": None}, 57) == 114
    assert config.n_components({"m_over_d": 0.5, "n_components": None}, 57) == 28
    assert config.n_components({"m_over_d": 2, "n_components": 300}, 57) == 300


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
    """Pinning a URL's hash or adding a mirror keeps the recorded runs; another file sha256 does not."""
    from omegaconf import OmegaConf
    from rfbench.cli import CONFIG_DIR
    cfg = {"dataset": OmegaConf.to_container(OmegaConf.load(f"{CONFIG_DIR}/dataset/letter.yaml")),
           "experiment": {"name": "x", "seed": 0}}
    base = config.run_id(cfg)
    cfg["dataset"]["files"]["data"]["urls"][0]["sha256"] = "0" * 64
    cfg["dataset"]["mirror"] = "file:///path/to/mirror"
    cfg["dataset"]["allow_unverified"] = True
    assert config.run_id(cfg) == base
    cfg["dataset"]["files"]["data"]["sha256"] = "0" * 64
    assert config.run_id(cfg) != base
