"""The run id of a key in IMPLIED_VALUES: left out at its implied value only, so another value is
another run (a run id that ignored the value would file ``dataset.scale=unit_rows`` under the
default run's numbers)."""
import copy

import pytest
import yaml

from rfbench.engine import config
from tests.conftest import REPO
from tests.engine.test_config import compose_cfg

#: For each key of IMPLIED_VALUES, a valid value other than the implied one.
OTHER_VALUES = {
    "dataset.task": "regression",
    "dataset.scale": "unit_rows",
    "classifier.selection": "test_grid",
    "experiment.gram_norms": ["fro", "spectral"],
    "job.trig": "tables",
    "classifier.newton_step": "auto",
}


def with_value(cfg: dict, key: str, value) -> dict:
    """A copy of ``cfg`` with the dotted ``key`` set to ``value``, or removed for ``value`` None."""
    cfg = copy.deepcopy(cfg)
    *path, leaf = key.split(".")
    node = cfg
    for part in path:
        node = node[part]
    if value is None:
        node.pop(leaf, None)
    else:
        node[leaf] = value
    return cfg


def test_every_implied_key_has_another_value_here():
    assert set(OTHER_VALUES) == set(config.IMPLIED_VALUES)


#: What every run recorded before each key existed did: a fact of the records' history, written out
#: here rather than read from IMPLIED_VALUES, so that a changed implied value (orphaning those runs) fails.
BEFORE_THE_KEY = {
    "dataset.task": "classification",
    "dataset.scale": "minmax",
    "classifier.selection": "cv",
    "experiment.gram_norms": ["fro"],
    "job.trig": "direct",
    "classifier.newton_step": "primal",
}


def base_for(key: str) -> dict:
    """The composed default config, or a job's where ``key`` is a job's (qmc_learnt's ``job.trig``)."""
    return compose_cfg("job=qmc_learnt") if key.startswith("job.") else compose_cfg()


def test_every_implied_key_has_its_earlier_value_here():
    assert set(BEFORE_THE_KEY) == set(config.IMPLIED_VALUES)


@pytest.mark.parametrize("key", sorted(config.IMPLIED_VALUES))
def test_a_key_at_its_implied_value_keeps_the_id_of_runs_recorded_before_it(key):
    base = base_for(key)
    absent = config.run_id(with_value(base, key, None))
    assert config.run_id(with_value(base, key, BEFORE_THE_KEY[key])) == absent


@pytest.mark.parametrize("key", sorted(config.IMPLIED_VALUES))
def test_a_key_at_another_value_is_another_run(key):
    base = base_for(key)
    absent = config.run_id(with_value(base, key, None))
    other = config.run_id(with_value(base, key, OTHER_VALUES[key]))
    assert other not in (absent, config.run_id(base))


def test_unit_rows_is_not_the_default_run():
    """The issue's case, through Hydra: the default config's scale is minmax, the implied value."""
    assert config.run_id(compose_cfg("dataset.scale=unit_rows")) != config.run_id(compose_cfg())
    assert config.run_id(compose_cfg("dataset.scale=minmax")) == config.run_id(compose_cfg())


def test_the_code_a_component_runs_is_not_its_identity():
    """``_target_`` names the code (moving a module must not orphan runs); ``name`` names the component."""
    base = compose_cfg()
    moved = with_value(base, "feature_map._target_", "somewhere.else.GaussianRFF")
    assert config.run_id(moved) == config.run_id(base)
    assert config.run_id(with_value(base, "feature_map.name", "other")) != config.run_id(base)


def test_the_order_of_the_keys_is_not_identity():
    """A config.yaml read back (or written by another tool) may list its keys in another order."""
    base = compose_cfg()
    reordered = {group: dict(reversed(list(node.items()))) if isinstance(node, dict) else node
                 for group, node in reversed(list(base.items()))}
    assert list(reordered) != list(base)
    assert config.run_id(reordered) == config.run_id(base)


def test_a_jobs_id_is_its_job_node_its_seed_and_the_data_it_reads():
    """``job=<name>``: the other groups play no part in its numbers; the dataset only if ``job.data``."""
    base = {**compose_cfg(), "job": {"name": "toy", "data": False}}
    job_id = config.run_id(base)
    assert config.run_id(with_value(base, "feature_map.m_over_d", 7.0)) == job_id
    assert config.run_id(with_value(base, "dataset.scale", "unit_rows")) == job_id
    assert config.run_id(with_value(base, "experiment.seed", 1)) != job_id
    assert config.run_id(with_value(base, "job.name", "other")) != job_id
    reads = with_value(base, "job.data", True)
    assert config.run_id(with_value(reads, "dataset.scale", "unit_rows")) != config.run_id(reads)
    assert config.run_id(with_value(reads, "feature_map.m_over_d", 7.0)) == config.run_id(reads)


@pytest.mark.parametrize("key", sorted(config.IMPLIED_VALUES))
def test_a_config_written_before_a_key_existed_is_still_valid(key):
    """A config dict written before the key existed (a caller of ``runner.run``) is run at the key's implied
    value, as its run id says: ``validate`` does not refuse it (the runner reads a missing
    ``experiment.gram_norms`` as ["fro"])."""
    config.validate(with_value(base_for(key), key, None))


def test_every_committed_run_and_job_keeps_its_id():
    """The committed records are filed under the id of their config: a change to what the id hashes (a key's
    name in a job's identity, the id's length) would orphan every one of them."""
    folders = sorted(REPO.glob("results/**/runs/*/config.yaml"))
    configs = {path.parent.name: yaml.load(path.read_text(), Loader=yaml.CSafeLoader) for path in folders}
    jobs = [cfg["job"] for cfg in configs.values() if "job" in cfg]
    assert len(configs) > 1000 and any(job.get("data") for job in jobs) and not all(job.get("data") for job in jobs)
    wrong = {name: config.run_id(cfg) for name, cfg in configs.items() if config.run_id(cfg) != name}
    assert not wrong, f"{len(wrong)} of {len(configs)} committed runs hash elsewhere: {dict(list(wrong.items())[:3])}"
