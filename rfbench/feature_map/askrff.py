"""Random Fourier features for asymmetric kernels (AsK-RFF, He et al. 2022)."""
from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from rfbench.kernel import PARTS, Kernel, Part, estimate_total_masses, make_kernel, unit_mass_grams
from rfbench.kernel.modulated import ModulatedGaussianKernel
from rfbench.validation import is_int

from ._base import (
    DEFAULT_BLOCK_SIZE,
    FeatureMap,
    check_choice,
    check_positive_int,
    frequency_blocks,
)
from ._trig import cos_sin, feature_dtype

PART_CHOICES = ("asymmetric", "symmetric")
TOTAL_MASS_CHOICES = ("estimate", "exact")
IMAGINARY_CHOICES = ("magnitude", "drop")

#: Jordan parts of mu_R, whose measure mu_R = mu_R^+ - mu_R^- gives the symmetric part of k.
_REAL_PARTS: tuple[Part, ...] = ("real_pos", "real_neg")
#: Factor of each part's total mass in eq. (7): xi1 E cos - xi2 E cos - 2 xi3 E sin.
_EQ7_FACTORS: dict[Part, float] = {"real_pos": 1.0, "real_neg": -1.0, "imag_pos": -2.0}


class AsKRFF(FeatureMap):
    r"""AsK-RFF map of a shift-invariant, possibly asymmetric kernel (Algorithm 2).

    A real kernel k(D), D = x - y, is the Fourier transform of a complex measure
    whose Jordan parts have total masses xi1 = ||mu_R^+||, xi2 = ||mu_R^-||,
    xi3 = ||mu_I^+|| (eq. 7):

        k(D) = xi1 E[cos(w^T D)] - xi2 E[cos(z^T D)] - 2 xi3 E[sin(v^T D)],

    with w, z, v from the normalized parts.  With M samples of each and eq. (8),
    phi(x) = M^-1/2 [cos(W x), sin(W x)], psi(x) = M^-1/2 [-sin(W x), cos(W x)],
    the approximation is

        K~(x, y) = xi1 phi_w(x).phi_w(y) - xi2 phi_z(x).phi_z(y) - 2 xi3 phi_v(x).psi_v(y),

    unbiased when the masses are exact, and asymmetric (phi_v . psi_v = mean sin).
    ``gram_blocks`` factors exactly this K~.

    ``part="symmetric"`` is the "Sym" baseline of Section 5.4: only mu_R is
    sampled, which approximates the symmetric part (k(D) + k(-D)) / 2, i.e.
    (K + K^T) / 2, by K~ = xi1 phi_w.phi_w - xi2 phi_z.phi_z.

    **Classification features** (``transform``, Section 5.3).  The paper sends
    Phi(x) = [sqrt(xi1) phi_w, i sqrt(xi2) phi_z, sqrt(2 xi3) phi_v, sqrt(2 xi3) psi_v]
    to LibLinear, which takes no imaginary unit.  Here:

    * ``imaginary="magnitude"``: the i is dropped, the block is sqrt(xi2) phi_z.
      For an L2-regularized linear model the sign of a block is immaterial (its
      weights flip with it), so this equals reading i as -1 as well.
    * ``imaginary="drop"``: the phi_z block is omitted.

    Blocks of parts the kernel lacks (or, for "symmetric", the two v blocks) are
    omitted, so ``transform`` has 2M columns per block, in the order
    [phi_w, phi_z, phi_v, psi_v].  Its linear kernel is the symmetric PSD
    xi1 C_w + xi2 C_z + 4 xi3 C_v (C_u = mean_l cos(u_l^T D); without the xi2
    term for "drop"): it differs from K~ whenever the kernel is not PD.

    Parameters
    ----------
    kernel : Kernel or str, default="shift_gaussian"
        A kernel object on R^d with a spectral measure (its cached quadratures are reused by
        every fit), or its name in ``rfbench.kernel.KERNELS``, built with ``kernel_params``.
    n_components : int, default=100
        Number M of frequencies sampled from each non-zero part.
    kernel_params : mapping, optional
        Keyword arguments of the kernel (e.g. ``sigma``, ``r``, ``beta``).
    part : {"asymmetric", "symmetric"}, default="asymmetric"
    total_mass : {"estimate", "exact"}, default="estimate"
        "estimate" solves problem (12) on ``n_subset`` random training rows with
        the sampled frequencies (Algorithm 2); "exact" integrates numerically.
    n_subset : int, default=50
        N_s of problem (12); all rows are used when X has fewer.
    imaginary : {"magnitude", "drop"}, default="magnitude"
        Treatment of the i sqrt(xi2) phi_z block in ``transform``.
    dtype : {"float32", "float64"}, default="float32"
        dtype of ``transform``'s output (``gram_blocks`` is always float64).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of ``numpy.random.default_rng`` for the frequencies and the subset.

    Attributes
    ----------
    kernel_ : rfbench.kernel.Kernel
    frequencies_ : dict of part -> ndarray of shape (n_components, n_features_in_)
        Sampled frequencies of each part the map uses, in eq. (7) order.
    total_masses_ : dict of part -> float
        xi of each part in ``frequencies_``.
    acceptance_rates_ : dict of part -> float
        Empirical acceptance rate of the sampler that drew each part: the paper's
        rejection sampler (expected ||part|| / c), or, for a part whose expected
        rate is below ``ModulatedGaussianKernel.MIN_REJECTION_RATE``, the 1-D step of the stratified
        sampler that replaces it (so not comparable with ||part|| / c).
    n_features_in_ : int
    """

    def __init__(
        self,
        *,
        kernel: Kernel | str = "shift_gaussian",
        n_components: int = 100,
        kernel_params: dict | None = None,
        part: str = "asymmetric",
        total_mass: str = "estimate",
        n_subset: int = 50,
        imaginary: str = "magnitude",
        dtype: DTypeLike = "float32",
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.kernel = kernel
        self.n_components = n_components
        self.kernel_params = kernel_params
        self.part = part
        self.total_mass = total_mass
        self.n_subset = n_subset
        self.imaginary = imaginary
        self.dtype = dtype
        self.random_state = random_state

    approximates = (ModulatedGaussianKernel,)

    @classmethod
    def from_kernel(cls, kernel: Kernel, **params) -> AsKRFF:
        """The map of a built kernel object (its spectral parts and cached quadratures are reused)."""
        return cls(kernel=kernel, **params)

    def output_size(self, n_features_in: int) -> tuple[int, int]:
        """2M columns per block of ``transform``; M x d frequencies per sampled part."""
        parts = list(self.kernel.parts) if isinstance(self.kernel, Kernel) else list(PARTS)
        parts = [p for p in parts if self.part == "asymmetric" or p in _REAL_PARTS]
        blocks = len(parts) + ("imag_pos" in parts)
        return 2 * self.n_components * blocks, len(parts) * self.n_components * n_features_in

    def fit(self, X: ArrayLike, y: object = None) -> AsKRFF:
        """Sample M frequencies per part, then set the total masses."""
        self.check_params()
        X = self._validate_X(X, reset=True)
        kernel = self._kernel(X.shape[1])
        parts = [p for p in kernel.parts if self.part == "asymmetric" or p in _REAL_PARTS]
        if not parts:
            raise ValueError(f"kernel {kernel.name!r} has no spectral measure to sample; AsKRFF needs one")
        rng = np.random.default_rng(self.random_state)
        samples = {p: kernel.sample(p, self.n_components, rng) for p in parts}
        self.kernel_ = kernel
        self.frequencies_ = {p: W for p, (W, _) in samples.items()}
        self.acceptance_rates_ = {p: rate for p, (_, rate) in samples.items()}
        if self.total_mass == "exact":
            masses = kernel.exact_total_masses()
        else:
            masses = self._estimate_total_masses(kernel, X, rng)
        self.total_masses_ = {p: float(masses[p]) for p in parts}
        return self

    def fit_record(self) -> dict[str, float]:
        """The estimated total mass and the sampler's acceptance rate of each part."""
        return {**{f"mass_{p}": m for p, m in self.total_masses_.items()},
                **{f"acceptance_{p}": r for p, r in self.acceptance_rates_.items()}}

    def approximated_gram(self, K: np.ndarray) -> np.ndarray:
        """K, or its symmetric part (K + K^T) / 2 for ``part="symmetric"``."""
        return K if self.part == "asymmetric" else (K + K.T) / 2

    def _kernel(self, d: int) -> Kernel:
        """The kernel object: ``kernel`` itself, or built from its name and ``kernel_params``."""
        if not isinstance(self.kernel, Kernel):
            return make_kernel(self.kernel, d, **dict(self.kernel_params or {}))
        if self.kernel.d != d:
            raise ValueError(f"X has {d} features, but kernel {self.kernel.name!r} is defined on R^{self.kernel.d}")
        return self.kernel

    def transform(self, X: ArrayLike) -> np.ndarray:
        """Classification features [phi_w, phi_z, phi_v, psi_v] scaled as in the class docstring."""
        X = self._validate_X(X)
        dtype = feature_dtype(self.dtype)
        M = self.n_components
        parts = self._feature_parts()
        n_blocks = len(parts) + ("imag_pos" in parts)  # psi_v is a block of its own
        out = np.empty((X.shape[0], 2 * M * n_blocks), dtype=dtype)
        X = X.astype(dtype, copy=False)  # once, not once per block
        blocks = (out[:, start : start + 2 * M] for start in range(0, out.shape[1], 2 * M))
        for part in parts:
            mass = abs(_EQ7_FACTORS[part]) * self.total_masses_[part]
            phi = next(blocks)
            cos_sin(X, self.frequencies_[part].T, scale=np.sqrt(mass / M), out=phi, dtype=dtype)
            if part == "imag_pos":
                # psi_v = [-sin, cos] is a signed permutation of phi_v = [cos, sin]:
                # copy instead of a second GEMM and trigonometric pass.
                psi = next(blocks)
                np.negative(phi[:, M:], out=psi[:, :M])
                psi[:, M:] = phi[:, :M]
        return out

    def gram_blocks(
        self, X: ArrayLike, Y: ArrayLike | None = None, block_size: int = DEFAULT_BLOCK_SIZE
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Factors of K~(X, Y) (class docstring); see FeatureMap.gram_blocks.

        Each term c phi(x).rho(y), c in (xi1, -xi2, -2 xi3), rho in (phi, phi, psi),
        is split as L = sqrt(|c|) phi(X), R = sign(c) sqrt(|c|) rho(Y).
        """
        X, Y = self._validate_pair(X, Y)
        for part, freqs in self.frequencies_.items():
            coef = _EQ7_FACTORS[part] * self.total_masses_[part]
            if coef == 0.0:  # e.g. an estimated mass at its bound: nothing to add
                continue
            scale = np.sqrt(abs(coef) / self.n_components)
            rotated = part == "imag_pos"
            for cols in frequency_blocks(self.n_components, block_size):
                W = freqs[cols].T
                L = cos_sin(X, W, scale=scale, dtype=np.float64)
                if Y is X:  # the same trigonometry: derive R from L instead of recomputing it
                    yield L, _right_factor(L, np.sign(coef), rotated)
                else:
                    yield L, cos_sin(Y, W, scale=np.copysign(scale, coef), rotated=rotated, dtype=np.float64)

    def check_params(self) -> None:
        check_positive_int("n_components", self.n_components)
        if not is_int(self.n_subset) or self.n_subset < 3:
            raise ValueError(f"n_subset={self.n_subset!r} is invalid: an integer >= 3 (points of the "
                             "total-mass least squares (12))")
        check_choice("part", self.part, PART_CHOICES)
        check_choice("total_mass", self.total_mass, TOTAL_MASS_CHOICES)
        check_choice("imaginary", self.imaginary, IMAGINARY_CHOICES)
        feature_dtype(self.dtype)
        if self.kernel_params is not None and not isinstance(self.kernel_params, Mapping):
            raise ValueError(f"kernel_params must be a mapping or None, got {self.kernel_params!r}")

    def _estimate_total_masses(
        self, kernel: Kernel, X: np.ndarray, rng: np.random.Generator
    ) -> dict[Part, float]:
        """Problem (12) on n_subset random rows, with the frequencies already sampled.

        For part="symmetric" the bases are the symmetric C_w, C_z only, which are
        orthogonal to the skew part of K: fitting K then fits (K + K^T) / 2.
        """
        rows = rng.choice(X.shape[0], size=min(self.n_subset, X.shape[0]), replace=False)
        Xs = X[rows].astype(np.float64)
        return estimate_total_masses(kernel(Xs, Xs), unit_mass_grams(Xs, self.frequencies_), kernel.k0)

    def _feature_parts(self) -> list[Part]:
        """Parts with blocks in ``transform``: all sampled ones, but real_neg under "drop"."""
        return [p for p in self.frequencies_ if not (p == "real_neg" and self.imaginary == "drop")]


def _right_factor(L: np.ndarray, sign: float, rotated: bool) -> np.ndarray:
    """sign * phi(X) (R = +-L) or sign * psi(X) = sign * [-L2, L1] from L = phi(X) = [L1, L2].

    Bit for bit what ``cos_sin`` gives for the right factor (negation is exact), so
    ``metrics`` can recognise the structure and halve the Gram-error work.
    """
    if not rotated:
        return L if sign > 0 else -L
    half = L.shape[1] // 2
    return np.hstack([-sign * L[:, half:], sign * L[:, :half]])
