"""Type predicates shared by the parameter checks of configs, feature maps and classifiers.

``bool`` is an ``int`` to Python, but ``trials=true`` or ``cv=True`` is a typo, not a count.
"""
from __future__ import annotations

from numbers import Integral, Real


def is_int(value: object) -> bool:
    """True for Python and numpy integers, False for booleans."""
    return isinstance(value, Integral) and not isinstance(value, bool)


def is_real(value: object) -> bool:
    """True for Python and numpy real numbers (integers included), False for booleans."""
    return isinstance(value, Real) and not isinstance(value, bool)
