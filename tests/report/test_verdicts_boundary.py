"""A cell at exactly its threshold agrees, one float beyond it does not (the rule says ``<=``).

Assumes only the public ``judge(difference, u_ours, u_published, higher_is_better)`` returning
``(verdict, threshold)``, with a threshold that does not depend on the difference; the multiple of
sqrt(u_ours^2 + u_published^2) is read from ``judge`` itself, not assumed.
"""
import numpy as np
import pytest

from rfbench.report.verdicts import AGREES, HIGHER, LOWER, judge


@pytest.mark.parametrize("u_ours, u_published", [(3.0, 4.0), (0.3, 0.4), (0.0, 0.005), (0.2, 0.0)])
@pytest.mark.parametrize("higher_is_better", [True, False])
def test_a_difference_of_exactly_the_threshold_agrees(u_ours, u_published, higher_is_better):
    threshold = judge(0.0, u_ours, u_published, higher_is_better)[1]
    assert threshold > 0
    for sign, beyond in ((1.0, HIGHER), (-1.0, LOWER)):
        assert judge(sign * threshold, u_ours, u_published, higher_is_better) == (AGREES, threshold)
        past = sign * np.nextafter(threshold, np.inf)
        assert judge(past, u_ours, u_published, higher_is_better) == (beyond, threshold)


def test_an_exact_match_of_a_deterministic_cell_agrees():
    """No uncertainty on either side: the threshold is 0 and only an equal value agrees."""
    assert judge(0.0, 0.0, 0.0, True) == (AGREES, 0.0)
    assert judge(1e-300, 0.0, 0.0, True) == (HIGHER, 0.0)
    assert judge(-1e-300, 0.0, 0.0, False) == (LOWER, 0.0)
