"""A cell at exactly its threshold agrees, one float beyond it does not (the rule says ``<=``).

Assumes only the public ``judge(difference, u_ours, u_published)`` returning
``(verdict, threshold)``, with a threshold that does not depend on the difference; the multiple of
sqrt(u_ours^2 + u_published^2) is read from ``judge`` itself, not assumed.
"""
import numpy as np
import pytest

from rfbench.report.verdicts import AGREES, HIGHER, LOWER, judge


@pytest.mark.parametrize("u_ours, u_published", [(3.0, 4.0), (0.3, 0.4), (0.0, 0.005), (0.2, 0.0)])
def test_a_difference_of_exactly_the_threshold_agrees(u_ours, u_published):
    threshold = judge(0.0, u_ours, u_published)[1]
    assert threshold > 0
    for sign, beyond in ((1.0, HIGHER), (-1.0, LOWER)):
        assert judge(sign * threshold, u_ours, u_published) == (AGREES, threshold)
        past = sign * np.nextafter(threshold, np.inf)
        assert judge(past, u_ours, u_published) == (beyond, threshold)


def test_an_exact_match_of_a_deterministic_cell_agrees():
    """No uncertainty on either side: the threshold is 0 and only an equal value agrees."""
    assert judge(0.0, 0.0, 0.0) == (AGREES, 0.0)
    assert judge(1e-300, 0.0, 0.0) == (HIGHER, 0.0)
    assert judge(-1e-300, 0.0, 0.0) == (LOWER, 0.0)


@pytest.mark.parametrize("u_ours, u_published", [(np.nan, 0.1), (0.1, np.nan), (-0.1, 0.1)])
def test_an_uncertainty_that_is_not_a_number_at_least_zero_is_refused(u_ours, u_published):
    """A NaN would put every difference beyond a NaN threshold ("lower" for an exact match): refused instead."""
    with pytest.raises(ValueError, match="an uncertainty must be a number >= 0"):
        judge(0.0, u_ours, u_published)
