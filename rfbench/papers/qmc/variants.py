"""QMC Tables 2-3 under other sigmas, Halton scrambles, feature scalings and CG iterations (issue 45's
sigma sweep, spread and scaling studies), as one job: ``rfbench job=qmc_sigma_sweep|qmc_spread|
qmc_table2_scaling dataset=<cpu> job.s=<s>`` (``configs/job/``).

Trial t computes ``variants[t]`` (so ``experiment.trials`` is the number of variants): the rows are the
dataset's own (``scaling`` null, as Tables 2-3 are: :func:`rfbench.papers.qmc.protocol.setting`) or its
raw training rows of the same partition scaled by ``scaling`` (one of
:data:`rfbench.papers.qmc.ridge.SCALINGS`, fitted on the training part, as Table 1's protocol study
does), sigma is ``sigma_scale`` x the CV's choice on those rows, the Halton start is scrambled by the
digit permutations of ``scramble_seed`` (null: the fixed ones of :mod:`rfbench.qmc.sequences`, as
Tables 2-3 are), and every sequence of Table 2 is learnt from it
(:func:`rfbench.papers.qmc.learnt.learn_sequences`, Global by at most ``maxiter`` CG iterations: the
job's unless the variant sets its own); with ``ridge``, Table 3's ridge cells on them too
(:func:`rfbench.papers.qmc.table3.ridge_cells`). The variant (1, null) is the committed Tables 2-3
computation, which its rows must equal.

Frames: ``discrepancy`` (Table 2's rows), ``history`` (Global's normalized D^2 after each CG iteration),
``cells`` (Table 3's, with ``ridge``) and ``setting``, each with the variant's ``sigma_scale`` and
``scramble_seed`` (-1: the fixed scramble), and its ``scaling`` and ``maxiter`` where any variant of
the job sets them (so that the sigma sweep's and the spread's frames keep their columns).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import ndtri
from scipy.stats import qmc

from rfbench.dataset.loader import Dataset
from rfbench.engine import blas_pin
from rfbench.papers.qmc import learnt as learnt_
from rfbench.papers.qmc import protocol, table3
from rfbench.papers.qmc.ridge import SCALINGS, scaled_rows
from rfbench.qmc.adaptive import halton_frequencies
from rfbench.qmc.sequences import EDGE

#: What a variant may set; a key left out keeps the value of Tables 2-3 (maxiter None: the job's).
DEFAULT = {"sigma_scale": 1.0, "scramble_seed": None, "scaling": None, "maxiter": None}
#: The keys recorded only by a job whose variants set them.
OPTIONAL = ("scaling", "maxiter")
#: ``scramble_seed`` as recorded for the fixed scramble of Tables 2-3.
FIXED = -1


def start_frequencies(s: int, d: int, sigma: float, scramble_seed: int | None) -> np.ndarray:
    """The scrambled Halton start (s, d) at ``sigma``: the fixed scramble (None), or scipy's random
    digit permutations drawn from ``scramble_seed``, mapped to N(0, sigma^-2 I) as the fixed one is."""
    if scramble_seed is None:
        return halton_frequencies(s, d, sigma)
    points = np.clip(qmc.Halton(d, scramble=True, rng=scramble_seed).random(s), EDGE, 1.0 - EDGE)
    return ndtri(points) / sigma


@blas_pin.needs_records_loops
def learn(trial: int, seed: int, data: dict, s: int, variants: Sequence[Mapping[str, Any]],
          boxes: Sequence[float], schemes: Sequence[str], maxiter: int, ridge: bool) -> dict[str, pd.DataFrame]:
    """Table 2's sequences (and with ``ridge`` Table 3's cells) under variant ``variants[trial]``."""
    if trial >= len(variants):
        raise ValueError(f"trial {trial}: the job has {len(variants)} variants; set experiment.trials={len(variants)}")
    variant = {**DEFAULT, **variants[trial]}
    dataset, choice = _rows(data, seed, variant["scaling"])
    sigma = choice["sigma"] * variant["sigma_scale"]
    start = start_frequencies(s, dataset.X_train.shape[1], sigma, variant["scramble_seed"])
    iterations = maxiter if variant["maxiter"] is None else variant["maxiter"]
    frames = learnt_.learn_sequences(dataset.X_train, sigma, start, boxes, schemes, iterations)
    tag = {"sigma_scale": float(variant["sigma_scale"]),
           "scramble_seed": FIXED if variant["scramble_seed"] is None else int(variant["scramble_seed"])}
    studied = any(key in v for v in variants for key in OPTIONAL)  # every trial of such a job: the same columns
    if studied:
        tag |= {"scaling": variant["scaling"] or "dataset", "maxiter": int(iterations)}
    out = {"discrepancy": frames["discrepancy"].assign(**tag), "setting": pd.DataFrame([{**choice, **tag}])}
    if studied:  # the scaling study draws the discrepancy against the CG iterations
        out["history"] = frames["history"].assign(**tag)
    if ridge:
        maps = learnt_.sequences_of(frames["points"])
        out["cells"] = table3.ridge_cells(maps, frames["discrepancy"], dataset).assign(**tag)
    return out


def _rows(data: dict, seed: int, scaling: str | None) -> tuple[Dataset, dict[str, Any]]:
    """(the loaded dataset, its sigma choice): the dataset's own rows (``scaling`` None), else the raw rows of its
    partition scaled by ``scaling`` (:func:`rfbench.papers.qmc.ridge.scaled_rows`: its seeded random partition)."""
    if scaling is None:
        rows = protocol.setting(data, seed)
        return rows.data, rows.choice
    return scaled_rows(data, "random", scaling, seed)


def check_params(s: int, variants: Sequence[Mapping[str, Any]], boxes: Sequence[float], schemes: Sequence[str],
                 maxiter: int, ridge: bool) -> None:
    """ValueError naming a bad value: each variant a mapping of :data:`DEFAULT`'s keys, sigma_scale > 0,
    scramble_seed null or an integer >= 0, scaling null or one of :data:`rfbench.papers.qmc.ridge.SCALINGS`,
    maxiter null or an integer >= 1; ridge needs every scheme (Table 3 has them all)."""
    learnt_.check_params(s, boxes, schemes, maxiter)
    for variant in variants:
        unknown = sorted(set(variant) - set(DEFAULT)) if isinstance(variant, Mapping) else ["(not a mapping)"]
        if unknown:
            raise ValueError(f"job.variants: {variant!r} has unknown key(s) {unknown}; valid: {list(DEFAULT)}")
        scale, seed = variant.get("sigma_scale", 1.0), variant.get("scramble_seed")
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not scale > 0:
            raise ValueError(f"job.variants: sigma_scale={scale!r}; give a number > 0")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise ValueError(f"job.variants: scramble_seed={seed!r}; give null or an integer >= 0")
        scaling, iterations = variant.get("scaling"), variant.get("maxiter")
        if scaling is not None and scaling not in SCALINGS:
            raise ValueError(f"job.variants: scaling={scaling!r}; give null or one of {list(SCALINGS)}")
        if iterations is not None and (isinstance(iterations, bool) or not isinstance(iterations, int)
                                       or iterations < 1):
            raise ValueError(f"job.variants: maxiter={iterations!r}; give null or an integer >= 1")
    if ridge and (sorted(schemes) != sorted(learnt_.SCHEMES) or sorted(boxes) != [0.25, 1.0]):
        raise ValueError(f"job.ridge=true needs Table 3's sequences: schemes {list(learnt_.SCHEMES)} on boxes "
                         f"`[1.0, 0.25]`; got {list(schemes)} on {list(boxes)}")


learn.check_params = check_params
