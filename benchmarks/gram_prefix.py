"""Gram errors of ten prefixes of one Gaussian RFF map: one pass against ten separate calls.

    nice .venv/bin/python benchmarks/gram_prefix.py

spambase (rfbench's training split), the 1,000 rows of ``make bench``'s Gram section, Gaussian
kernel at the config's sigma, M = 2^10 d frequencies ([cos, sin]), sizes s = d 2^1 .. d 2^10:
``relative_gram_errors_by_prefix`` once against ``relative_gram_error`` of each prefix's own map
(``segment(0, s)``), which computes 2,046 d frequencies' features against 1,024 d. Wall times of
one run each, with the BLAS threads as they are; the errors of the two must agree.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from omegaconf import OmegaConf
from scipy.spatial.distance import cdist

from rfbench.dataset.loader import load_dataset
from rfbench.feature_map.rff import GaussianRFF
from rfbench.metrics import relative_gram_error, relative_gram_errors_by_prefix

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def main() -> None:
    spam = load_dataset(OmegaConf.to_container(OmegaConf.load(CONFIGS / "dataset" / "spambase.yaml"))).X_train
    X = spam[np.random.default_rng(0).choice(len(spam), 1000, replace=False)]
    sigma = OmegaConf.load(CONFIGS / "kernel" / "gaussian.yaml")["sigma"]
    K = np.exp(-cdist(X, X, "sqeuclidean") / (2 * sigma**2))
    d = X.shape[1]
    sizes = [d * 2**k for k in range(1, 11)]
    rff = GaussianRFF(n_components=sizes[-1], sigma=sigma, random_state=0).fit(X)

    start = time.perf_counter()
    one_pass = relative_gram_errors_by_prefix(K, rff, X, sizes)
    t_pass = time.perf_counter() - start
    start = time.perf_counter()
    separate = {s: relative_gram_error(K, rff.segment(0, s), X) for s in sizes}
    t_separate = time.perf_counter() - start

    gap = max(abs(one_pass[s] - separate[s]) / separate[s] for s in sizes)
    print(f"n={len(X)} d={d} M={sizes[-1]} sizes={sizes}")
    print("errors:", ", ".join(f"{s}: {one_pass[s]:.4g}" for s in sizes))
    print(f"one pass {t_pass:.1f} s; ten relative_gram_error calls {t_separate:.1f} s; "
          f"ratio {t_separate / t_pass:.2f}x; largest relative gap {gap:.1e}")


if __name__ == "__main__":
    main()
