"""Kernels, their spectral measures, frequency sampling and total masses."""
from __future__ import annotations

import inspect

from .asymmetric import CoshGaussian, ShiftGaussian, SinhGaussian
from .base import PARTS, Kernel, Part
from .cosine_rbf import CosineRBFKernel
from .gaussian import GaussianKernel, LinearKernel
from .gmm import GMMKernel
from .laplacian import LaplacianKernel
from .total_mass import estimate_total_masses, unit_mass_grams

KERNELS: dict[str, type[Kernel]] = {
    "gaussian": GaussianKernel,
    "linear": LinearKernel,
    "laplacian": LaplacianKernel,
    "gmm": GMMKernel,
    "cosine_rbf": CosineRBFKernel,
    "shift_gaussian": ShiftGaussian,
    "sinh_gaussian": SinhGaussian,
    "cosh_gaussian": CoshGaussian,
}


def make_kernel(name: str, d: int, **params) -> Kernel:
    """Instantiate kernel ``name`` on R^d; invalid names or parameters raise ValueError."""
    if name not in KERNELS:
        raise ValueError(f"unknown kernel {name!r}; valid names: {sorted(KERNELS)}")
    cls = KERNELS[name]
    accepted = [p for p in inspect.signature(cls).parameters if p != "d"]
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise ValueError(f"unknown parameter(s) {unknown} for kernel {name!r}; accepted: {accepted}")
    return cls(d, **params)


__all__ = [
    "KERNELS",
    "PARTS",
    "CoshGaussian",
    "CosineRBFKernel",
    "GMMKernel",
    "GaussianKernel",
    "Kernel",
    "LaplacianKernel",
    "LinearKernel",
    "Part",
    "ShiftGaussian",
    "SinhGaussian",
    "estimate_total_masses",
    "make_kernel",
    "unit_mass_grams",
]
