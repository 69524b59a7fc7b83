"""Figure helpers."""
import numpy as np
import pytest

from rfbench.report import plotting


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


def test_runs_differing_between_points_are_not_joined_into_one_curve():
    import pandas as pd

    # two unrelated runs in one folder: n_gram 1000 at M = d, n_gram 300 at M = 2d
    trials = pd.DataFrame({
        "dataset.name": ["spambase"] * 2, "m_over_d": [1.0, 2.0], "kernel.name": ["gaussian"] * 2,
        "feature_map.name": ["rff"] * 2, "feature_map.m_over_d": [1, 2], "experiment.n_gram": [1000, 300],
        "gram_error": [0.1, 0.05],
    })
    assert plotting.series_columns(trials) == ["kernel.name", "feature_map.name", "experiment.n_gram"]


def _points(metric, values_by_m):
    import pandas as pd

    return pd.DataFrame([{"m_over_d": m, metric: v} for m, values in values_by_m.items() for v in values])


def test_whiskers_of_a_nonnegative_metric_stop_at_zero():
    times = plotting.point_stats(_points("time_fit", {1: [0.01, 0.01, 0.10], 2: [1.0, 1.2]}), "time_fit")
    assert times["lower"][0] == times["mean"][0] == pytest.approx(0.04)  # sd 0.052 > mean: cut at 0
    assert times["upper"][0] == pytest.approx(np.std([0.01, 0.01, 0.10], ddof=1))
    assert times["lower"][1] == times["upper"][1] == pytest.approx(np.std([1.0, 1.2], ddof=1))  # whole
    acc = plotting.point_stats(_points("test_accuracy", {1: [-0.5, 0.1, 0.1]}), "test_accuracy")
    assert acc["lower"][0] == acc["upper"][0] > 0.3  # symmetric where negatives are possible
    one = plotting.point_stats(_points("time_fit", {4: [0.3]}), "time_fit")
    assert (one["lower"][0], one["upper"][0], one["count"][0]) == (0, 0, 1)


def test_caption_says_what_the_bars_are_and_how_many_trials():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    even = plotting.error_bars(ax, _points("gram_error", {1: [0.1, 0.2], 2: [0.1, 0.1]}), "gram_error")
    plotting.caption(fig, [(ax, even)])
    assert fig.texts[-1].get_text() == "bars: mean ± 1 sd over trials; 2 trial(s) per point"
    assert len(ax.texts) == 0
    uneven = plotting.error_bars(ax, _points("gram_error", {1: [0.1], 4: [0.1, 0.2, 0.3]}), "gram_error")
    plotting.caption(fig, [(ax, even), (ax, uneven)])
    assert fig.texts[-1].get_text() == "bars: mean ± 1 sd over trials; 1-3 trials per point (n at each point)"
    assert sorted(t.get_text() for t in ax.texts) == ["n=1", "n=2", "n=2", "n=3"]
    plt.close(fig)


def test_a_saved_png_has_a_palette_and_the_pixels_of_the_full_colour_render(tmp_path):
    import io

    import matplotlib.pyplot as plt
    from PIL import Image

    def figure():
        fig, ax = plt.subplots(figsize=(4, 3))
        for k in range(8):  # eight colours, antialiased lines and markers, text
            ax.semilogy(np.arange(6), np.exp(-k * np.arange(6) / 3), "o-", label=f"map {k}")
        ax.legend(fontsize=7)
        return fig

    full = io.BytesIO()
    fig = figure()
    fig.tight_layout()
    fig.savefig(full, dpi=120, format="png")
    plt.close(fig)
    saved = plotting.save(figure(), tmp_path / "f.png")
    stored = Image.open(saved)
    assert stored.mode == "P"
    a = np.asarray(stored.convert("RGB"), dtype=float)
    b = np.asarray(Image.open(full).convert("RGB"), dtype=float)
    assert a.shape == b.shape
    assert np.abs(a - b).mean() < 0.5 and np.percentile(np.abs(a - b).max(axis=2), 99) <= 16
    white = (b == 255).all(axis=2)
    assert (a[white] == 255).all()  # the white ground stays white
    assert saved.stat().st_size < 0.6 * len(full.getvalue())


def test_a_heat_map_keeps_its_full_colours(tmp_path):
    import matplotlib.pyplot as plt
    from PIL import Image

    fig, axes = plt.subplots(1, 3, figsize=(9, 3))
    u = np.linspace(0, 1, 300)
    for ax, cmap in zip(axes, ("viridis", "magma", "coolwarm")):  # 768 colours, and the colour is the value
        ax.imshow(np.sin(9 * u[:, None]) * np.cos(7 * u[None, :]), cmap=cmap)
    assert Image.open(plotting.save(fig, tmp_path / "h.png")).mode == "RGBA"


def _run(dataset, kernel, fmap, ratios, metric, values, trials=3):
    import pandas as pd

    return pd.DataFrame([{"dataset.name": dataset, "kernel.name": kernel, "feature_map.name": fmap,
                          "feature_map.m_over_d": r, "m_over_d": r, "run_id": f"{dataset}{r}",
                          metric: v * (1 + t / 100)}
                         for r, v in zip(ratios, values) for t in range(trials)])


def test_the_aggregate_gives_unlike_runs_panels_of_their_own():
    import matplotlib.pyplot as plt
    import pandas as pd

    # the README in order: letter's AsK-RFF run at M/d = 2, then spambase's RFF sweep over M/d = 1..8
    trials = pd.concat([_run("letter", "sinh_gaussian", "askrff", [2.0], "test_accuracy", [0.9]),
                        _run("spambase", "gaussian", "rff", [1.0, 2.0, 4.0, 8.0], "test_accuracy",
                             [0.80, 0.85, 0.88, 0.90])])
    fig = plotting.metric_panels(trials, "test_accuracy")
    letter, spambase = fig.axes[:2]
    assert [ax.get_title() for ax in fig.axes if ax.axison] == ["letter | sinh_gaussian | askrff",
                                                                 "spambase | gaussian | rff"]
    # x: M/d on a log2 axis ticked at the runs' own values, a single point centred in its panel
    assert letter.get_xscale() == spambase.get_xscale() == "log"
    assert [t.get_text() for t in letter.get_xticklabels()] == ["2"]
    assert [t.get_text() for t in spambase.get_xticklabels()] == ["1", "2", "4", "8"]
    low, high = letter.get_xlim()
    assert np.isclose(np.log2(2 / low), np.log2(high / 2))
    assert spambase.get_yscale() == "linear"  # accuracies within a decade
    assert fig.texts[-1].get_text() == "bars: mean ± 1 sd over trials; 3 trial(s) per point"
    plt.close(fig)
    # a run without the metric (classifier=none: no accuracy) gets no panel
    no_model = _run("a9a", "gaussian", "rff", [1.0], "gram_error", [0.1]).assign(test_accuracy=np.nan)
    fig = plotting.metric_panels(pd.concat([trials, no_model]), "test_accuracy")
    assert [ax.get_title() for ax in fig.axes if ax.axison] == ["letter | sinh_gaussian | askrff",
                                                                 "spambase | gaussian | rff"]
    plt.close(fig)


def test_two_kernels_on_one_dataset_are_two_panels_and_an_error_spanning_decades_is_logarithmic():
    import matplotlib.pyplot as plt
    import pandas as pd

    trials = pd.concat([_run("spambase", "gaussian", "rff", [0.5, 1.0, 2.0, 4.0], "gram_error", [0.9, 0.3, 0.1, 0.05]),
                        _run("spambase", "laplacian", "binning", [0.5, 1.0], "gram_error", [0.4, 0.3])])
    fig = plotting.metric_panels(trials, "gram_error")
    gaussian, laplacian = fig.axes[:2]
    assert gaussian.get_title() == "spambase | gaussian | rff"
    assert laplacian.get_title() == "spambase | laplacian | binning"
    assert gaussian.get_yscale() == "log" and laplacian.get_yscale() == "linear"  # 18x vs 1.3x
    assert [t.get_text() for t in gaussian.get_xticklabels()] == ["0.5", "1", "2", "4"]
    plt.close(fig)


def test_log_y_only_for_positive_nonnegative_metrics_spanning_more_than_a_decade():
    import pandas as pd

    assert plotting.log_y("test_error", pd.Series([0.5, 0.04]))
    assert not plotting.log_y("test_error", pd.Series([0.5, 0.06]))  # 8.3x
    assert not plotting.log_y("test_accuracy", pd.Series([0.99, 0.01]))  # not an error
    assert not plotting.log_y("gram_error", pd.Series([0.0, 0.5]))  # a zero has no logarithm
    assert plotting.log_y("time_fit", pd.Series([0.01, 1.0]))


def test_runs_differing_within_a_panel_are_curves_labelled_by_what_tells_them_apart():
    import matplotlib.pyplot as plt
    import pandas as pd

    # classifier.solver goes with classifier.name: the label names only the classifier
    with_model = _run("spambase", "gaussian", "rff", [1.0, 2.0], "gram_error", [0.2, 0.1]).assign(
        **{"classifier.name": "liblinear", "classifier.solver": "newton"})
    without = _run("spambase", "gaussian", "rff", [0.5, 4.0], "gram_error", [0.3, 0.05]).assign(
        **{"classifier.name": "none", "classifier.solver": np.nan})
    fig = plotting.metric_panels(pd.concat([with_model, without]), "gram_error")
    (ax,) = [ax for ax in fig.axes if ax.axison]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["classifier.name=liblinear",
                                                                   "classifier.name=none"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.5", "1", "2", "4"]
    plt.close(fig)
