"""Figure helpers."""
from rfbench import plotting


def test_dataset_colors_do_not_depend_on_which_datasets_are_present():
    order = ("spambase", "ijcnn1", "letter")
    alone = plotting.dataset_colors(["letter"], order)
    together = plotting.dataset_colors(["spambase", "letter", "a9a"], order)
    assert alone["letter"] == together["letter"] == "C2"
    assert together["a9a"] == "C3"  # not in the order: after it


def test_a_swept_config_value_gets_its_own_curve():
    import pandas as pd

    trials = pd.DataFrame({
        "dataset.name": ["spambase"] * 4, "m_over_d": [1.0, 1.0, 2.0, 2.0],
        "kernel.name": ["gaussian"] * 4, "feature_map.name": ["rff"] * 4, "feature_map.part": [float("nan")] * 4,
        "feature_map.m_over_d": [1, 1, 2, 2], "kernel.sigma": [1.0, 2.0, 1.0, 2.0],
        "experiment.trials": [1, 2, 1, 2], "gram_error": [0.1, 0.2, 0.05, 0.1],
    })
    series = plotting.series_columns(trials)
    # sigma splits a point; the x column and an execution setting do not
    assert series == plotting.SERIES + ["kernel.sigma"]
    labels = {plotting._label(series, key) for key, _ in trials.groupby(series, dropna=False)}
    assert labels == {"gaussian rff kernel.sigma=1.0", "gaussian rff kernel.sigma=2.0"}
    assert plotting.series_columns(trials[trials["kernel.sigma"] == 1.0]) == plotting.SERIES
