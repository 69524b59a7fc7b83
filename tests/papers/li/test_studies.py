"""Li's third-round studies: the split draws' band and the C grid past its top, on frames with a known answer."""
import numpy as np
import pandas as pd
import pytest

from rfbench.papers.li.studies import c_top_comparison, split_comparison

GRID = "[18, 20, 22, 24]"


def _table(*cells):
    return pd.DataFrame([{"dataset": d, "method": m, "mean": 100 * a, "published": p} for d, m, a, p in cells])


def _trial(dataset, method, accuracy, run, **extra):
    return {"dataset": dataset, "method": method, "classifier.selection": "test_grid", "test_accuracy": accuracy,
            "run_id": run, **extra}


def test_the_split_band_is_the_draws_range_widened_by_two_binomial_standard_errors():
    table = _table(("SkinSeg10k", "rbf", 0.9987, 99.74), ("Car", "rbf", 0.92, 94.91))
    on_test = pd.DataFrame([_trial("SkinSeg10k", "rbf", 0.9987, "p0", n_test=10000),
                            _trial("Car", "rbf", 0.92, "c0", n_test=864)])
    draws = pd.DataFrame([_trial("SkinSeg10k", "rbf", 0.9980, "s1", n_test=10000, **{"dataset.split.seed": 1}),
                          _trial("SkinSeg10k", "rbf", 0.9990, "s2", n_test=10000, **{"dataset.split.seed": 2}),
                          _trial("Car", "rbf", 0.93, "c1", n_test=864, **{"dataset.split.seed": 1}),
                          _trial("Car", "rbf", 0.90, "c2", n_test=864, **{"dataset.split.seed": 2})])
    side = split_comparison(table, on_test, draws).set_index("dataset")
    low = 0.9980 - 2 * np.sqrt(0.9980 * 0.0020 / 10000)  # the lowest draw, by hand
    assert side.loc["SkinSeg10k", "band_low"] == pytest.approx(100 * low)  # 99.7106..: holds 99.74
    assert bool(side.loc["SkinSeg10k", "holds"])
    high = 0.93 + 2 * np.sqrt(0.93 * 0.07 / 864)  # 94.7..: short of 94.91
    assert side.loc["Car", "band_high"] == pytest.approx(100 * high) and not bool(side.loc["Car", "holds"])
    assert side.loc["Car", ["seed 0", "seed 1", "seed 2"]].tolist() == pytest.approx([92.0, 93.0, 90.0])
    assert side.loc["Car", ["run seed 0", "run seed 1", "run seed 2"]].tolist() == ["c0", "c1", "c2"]


def test_the_extended_grid_keeps_the_primary_best_on_a_tie_and_says_when_its_best_is_the_top_again():
    table = _table(("CTG", "rbf", 0.85, 89.75), ("ImageSeg", "linear", 0.91, 83.81))
    on_test = pd.DataFrame([_trial("CTG", "rbf", 0.85, "p1", C=2.0**16), _trial("ImageSeg", "linear", 0.91, "p2",
                                                                                C=2.0**16)])
    extension = pd.DataFrame([_trial("CTG", "rbf", 0.88, "e1", C=2.0**24, **{"classifier.log2_C": GRID}),
                              _trial("ImageSeg", "linear", 0.91, "e2", C=2.0**18, **{"classifier.log2_C": GRID})])
    side = c_top_comparison(table, on_test, extension).set_index("dataset")
    assert side.loc["CTG", ["extended grid", "C extended grid", "top again"]].tolist() == [88.0, 2.0**24, True]
    assert side.loc["ImageSeg", ["extended grid", "C extended grid", "top again"]].tolist() == [91.0, 2.0**16, False]
    assert side.loc["CTG", ["run primary grid", "run extension"]].tolist() == ["p1", "e1"]


def test_no_study_runs_give_no_record():
    table = _table(("CTG", "rbf", 0.85, 89.75))
    empty = pd.DataFrame(columns=["dataset", "method", "classifier.selection"])
    assert split_comparison(table, table, empty).empty and c_top_comparison(table, table, empty).empty
