"""The atlas's SORF study job: its three views of the data and its records, on generated data."""
from types import SimpleNamespace

import numpy as np
import pytest

from rfbench.papers.atlas import sorf_padding


def test_views_pad_with_zeros_and_keep_the_top_variance_power_of_2_columns():
    X = np.random.default_rng(0).normal(size=(50, 6)) * np.array([1.0, 5.0, 0.1, 3.0, 2.0, 0.5])
    views = sorf_padding.views(X, np.arange(10, 20))
    (as_is, s1), (padded, s2), (top, s3) = (views[v] for v in sorf_padding.VIEWS)
    np.testing.assert_array_equal(as_is, X[10:20])
    assert padded.shape == (10, 8) and s1 == s2 == 6 and s3 == 4
    np.testing.assert_array_equal(padded[:, :6], as_is)
    assert not padded[:, 6:].any()
    np.testing.assert_array_equal(top, X[10:20][:, [0, 1, 3, 4]])  # variances 1, 25, 9, 4 beat 0.01, 0.25


@pytest.fixture
def records(monkeypatch):
    X = np.random.default_rng(1).normal(size=(120, 24))  # d = 24: SORF pads to p = 32; top view 16 columns
    monkeypatch.setattr(sorf_padding, "load_dataset", lambda data: SimpleNamespace(X_train=X, d=24))
    return sorf_padding.compute(trial=0, seed=3, data={}, sigma=5.0, n_gram=60, m_over_d=[1, 2])


def test_sorf_sees_the_same_padding_in_both_views_and_orf_gets_blocks_as_wide(records):
    gram = records["gram"].set_index(["view", "map", "m_over_d"])
    assert len(gram) == 3 * 3 * 2
    for m in (1, 2):  # one draw: the padding SORF applies itself is the padded view's
        assert gram.loc[("as_is", "sorf", m), "gram_error"] == gram.loc[("zero_padded", "sorf", m), "gram_error"]
    assert gram.loc[("as_is", "orf", 1), "block_width"] == 24
    assert gram.loc[("zero_padded", "orf", 1), "block_width"] == gram.loc[("as_is", "sorf", 1), "block_width"] == 32
    assert gram.loc[("top_variance", "sorf", 2), "n_components"] == 48  # M = m d of the data as it is
    assert gram["gram_error"].between(0, 1).all()


def test_frequency_statistics_show_orthogonality_on_the_data_coordinates_or_its_loss(records):
    freq = records["frequencies"].set_index(["view", "map"])
    assert freq.loc[("as_is", "orf"), "cos2_mean"] < 1e-25
    # p rows orthogonal in R^p, seen on d of its coordinates: mean squared cosine (p - d) / (p d) = 1/96
    for view, fmap in (("as_is", "sorf"), ("zero_padded", "orf")):
        assert freq.loc[(view, fmap), "cos2_mean"] == pytest.approx(8 / (32 * 24), rel=0.3)
    assert freq.loc[("as_is", "rff"), "cos2_mean"] == pytest.approx(1 / 24, rel=0.3)  # independent rows
    top = freq.loc[("top_variance", "sorf")]  # d = p = 16: every row of norm sqrt(p) / sigma exactly
    assert top["norm2_mean"] == pytest.approx(16) and top["norm2_var"] < 1e-9 and top["cos2_mean"] < 1e-25


@pytest.mark.parametrize(("params", "message"), [
    ({"sigma": 0.0, "n_gram": 10, "m_over_d": [1]}, "job.sigma=0.0 is invalid"),
    ({"sigma": 1.0, "n_gram": 1, "m_over_d": [1]}, "job.n_gram=1 is invalid"),
    ({"sigma": 1.0, "n_gram": 10, "m_over_d": [0]}, r"job.m_over_d=\[0\] is invalid"),
])
def test_bad_parameters_are_refused_before_any_work(params, message):
    with pytest.raises(ValueError, match=message):
        sorf_padding.compute.check_params(**params)
