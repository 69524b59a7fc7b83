"""A cell on other data is explained by the config of the run that shows which data ran."""
from pathlib import Path

import yaml

from rfbench.report import data_difference, evidence
from rfbench.report.verdicts import EXPLAINED, UNEXPLAINED, citations


def _run(folder: Path, tree: str, run_id: str, config: dict) -> Path:
    path = folder / tree / "runs" / run_id / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(yaml.safe_dump(config))
    return path


def test_the_cause_cites_the_config_of_the_first_matching_run(tmp_path):
    folder = tmp_path / "rr"
    _run(folder, "table1", "aaa", {"dataset": {"name": "cpu_act"}, "feature_map": {"name": "rff"}})
    _run(folder, "table1", "bbb", {"dataset": {"name": "census_house"}, "feature_map": {"name": "binning"}})
    wanted = _run(folder, "table1", "ccc", {"dataset": {"name": "census_house"}, "feature_map": {"name": "rff"}})
    _run(folder, "table1", "ddd", {"dataset": {"name": "census_house"}, "feature_map": {"name": "rff"}})
    text = data_difference.cause(folder, "table1", {"dataset.name": "census_house", "feature_map.name": "rff"})
    assert text.startswith(EXPLAINED) and data_difference.MEASURES_NOTHING in text
    paths, _ = citations(text)
    assert paths == ["rr/table1/runs/ccc/config.yaml"] and (tmp_path / paths[0]) == wanted
    # its evidence: the cited config's values, which the verdict records' evidence check accepts
    assert text.evidence == "rr/table1/runs/ccc/config.yaml: dataset.name = census_house; feature_map.name = rff"
    assert evidence.quotes(text.evidence, paths)


def test_no_run_on_the_data_leaves_the_cell_unexplained(tmp_path):
    folder = tmp_path / "li"
    _run(folder, "kernel_svm", "aaa", {"dataset": {"name": "splice_li"}, "classifier": {"kernel": "gmm"}})
    assert data_difference.cause(folder, "kernel_svm", {"dataset.name": "splice_li",
                                                        "classifier.kernel": "cosine_rbf"}) == UNEXPLAINED
    assert data_difference.cause(folder, "linear_ovr", {"dataset.name": "splice_li"}) == UNEXPLAINED
    # a key the config lacks matches nothing (not None == None)
    assert data_difference.shown_by(folder, "kernel_svm", {"dataset.name": "splice_li", "dataset.scale": None}) is None
