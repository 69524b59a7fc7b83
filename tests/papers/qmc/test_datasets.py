"""The QMC paper's datasets: one config each, the paper's settings as overrides that compose to the node
its records were made with."""
from hydra import compose, initialize_config_dir

from rfbench.engine import config
from rfbench.papers.qmc import datasets


def _composed(name):
    with initialize_config_dir(config.CONFIG_DIR, version_base="1.3"):
        return config.to_dict(compose("config", overrides=datasets.overrides(name)))["dataset"]


def test_cpu_is_cpu_act_at_the_papers_split_and_census_the_census_house_config():
    assert datasets.overrides("cpu_act_qmc") == ["dataset=cpu_act", "dataset.split.n_train=6554",
                                                 "dataset.split.n_test=1638"]
    cpu, base = _composed("cpu_act_qmc"), _composed("cpu_act")
    assert cpu == {**base, "split": {**base["split"], "n_train": 6554, "n_test": 1638}}
    assert datasets.node("cpu_act_qmc") == {**cpu, "name": "cpu_act_qmc"}  # QMC's records keep their names
    assert datasets.node("house_16h") == {**_composed("census_house"), "name": "house_16h"}
    assert datasets.overrides("mnist") == ["dataset=mnist"] and datasets.node("mnist")["name"] == "mnist"


def test_a_composed_node_is_named_back_by_its_config_and_settings():
    assert datasets.name_of(_composed("cpu_act_qmc")) == "cpu_act_qmc"
    assert datasets.name_of(_composed("cpu_act")) == "cpu_act"  # Rahimi & Recht's 6,500 / 1,500 is not QMC's
    assert datasets.name_of(_composed("census_house")) == "house_16h"
    assert datasets.name_of(_composed("usps_test")) == "usps_test"


def test_the_provenance_sets_each_compared_dataset_beside_the_papers_and_marks_other_features_as_other_data():
    table = datasets.provenance().set_index("paper_dataset")
    cpu, census = table.loc["cpu"], table.loc["census"]
    assert (cpu["ours"], cpu["features"], cpu["n_train"], cpu["n_test"]) == ("cpu_act_qmc", 21, 6554, 1638)
    assert bool(cpu["same_data"])  # the paper's 21 features
    assert (census["ours"], census["features"], census["paper_features"]) == ("house_16h", 16, 119)
    assert not bool(census["same_data"])  # 16 features for the paper's 119: another dataset
    assert census["sha256"] == datasets.node("house_16h")["files"]["data"]["sha256"]
    assert census["config"] == "configs/dataset/census_house.yaml"
