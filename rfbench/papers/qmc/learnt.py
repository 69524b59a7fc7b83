"""QMC Tables 2-3, the shared computation: the adaptive sequences learnt on a dataset's box, as one
job (``rfbench job=qmc_learnt dataset=<config> job.s=<s>``, ``configs/job/qmc_learnt.yaml``).

On the training rows X of the dataset (Sec. 6.2), sigma chosen by 5-fold CV of ridge on Monte Carlo
features (:func:`rfbench.papers.qmc.protocol.select_sigma`, as Figs 2-3's job does), the scrambled
Halton frequencies of s points (:func:`~rfbench.qmc.adaptive.halton_frequencies`) are the start of
the adaptive sequences of Section 5, each learnt on every box of ``boxes`` (fractions f of the
bounding box b of X, named b, b/2, b/4 for f = 1, 1/2, 1/4): Global (all points by nonlinear CG,
``maxiter`` iterations at most), Greedy (one point at a time) and Weighted (the QP's non-negative
weights xi on the Halton points).

Frames (one deterministic trial: nothing here is random beyond the fixed scrambling):

* ``discrepancy``: Table 2's rows, per box and method (Halton too) the normalized
  (pi^d / prod b_j) D^2 and the raw D^2 on that box, MC's expected normalized D^2 (13) at s, the
  seconds the method took, sigma and d;
* ``points``: every sequence, one row per (box, method, point l) with its frequencies w_l
  (columns ``w0``..) and its weight xi_l (Weighted only);
* ``history``: the Global sequence's normalized D^2 on its box after every CG iteration
  (iteration 0: its Halton start), the loss the optimisation follows;
* ``setting``: the sigma choice.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from rfbench.engine import blas_pin, jobs, records
from rfbench.papers.qmc import datasets as qmc_datasets
from rfbench.papers.qmc import protocol
from rfbench.qmc.adaptive import global_adaptive, greedy_adaptive, halton_frequencies, optimal_weights
from rfbench.qmc.discrepancy import TRIG, BoxDiscrepancy, bounding_box

#: The adaptive schemes, each learnt from the Halton start.
SCHEMES = ("global", "greedy", "weighted")


def box_name(fraction: float) -> str:
    """The name of the box ``fraction`` x b: b, b/2, b/4 (the paper's)."""
    return "b" if fraction == 1 else f"b/{1 / fraction:g}"


def method_name(method: str, box: str) -> str:
    """Table 3's name of a sequence: halton, or the scheme and its box (global_b, weighted_b4)."""
    return method if method == "halton" else f"{method}_{box.replace('/', '')}"


@blas_pin.needs_records_loops
def learn(trial: int, seed: int, data: dict, s: int, boxes: Sequence[float], schemes: Sequence[str],
          maxiter: int, trig: str = "direct") -> dict[str, pd.DataFrame]:
    """The Halton sequence of ``s`` points and the adaptive ``schemes`` learnt from it on each box.

    ``trial`` plays no part (the sequences are deterministic); ``seed`` seeds the sigma choice;
    ``trig`` is the discrepancy's way to its pairs' sines (``BoxDiscrepancy``: ``"tables"`` is four
    to eight times faster, not bit for bit).
    """
    rows = protocol.setting(data, seed)
    X, choice = rows.X, rows.choice
    start = halton_frequencies(s, X.shape[1], choice["sigma"])
    return {**learn_sequences(X, choice["sigma"], start, boxes, schemes, maxiter, trig),
            "setting": pd.DataFrame([choice])}


def learn_sequences(X: np.ndarray, sigma: float, start: np.ndarray, boxes: Sequence[float],
                    schemes: Sequence[str], maxiter: int, trig: str = "direct") -> dict[str, pd.DataFrame]:
    """The frames ``discrepancy``, ``points`` and ``history`` of the sequences learnt from ``start``
    (s Halton frequencies at ``sigma``) on each box of ``boxes`` (fractions of the bounding box of X)."""
    s, d = start.shape
    rows, points, history = [], [], []
    for fraction in boxes:
        box, b = box_name(fraction), fraction * bounding_box(X)
        normalized, raw = BoxDiscrepancy(b, sigma, normalized=True, trig=trig), BoxDiscrepancy(b, sigma, trig=trig)
        for method in ("halton", *schemes):
            begin = time.perf_counter()
            W, weights, losses = _sequence(method, start, raw, normalized, maxiter)
            rows.append({"s": s, "box": box, "method": method, "normalized": normalized.squared(W, weights),
                         "raw": raw.squared(W, weights), "expected_mc": normalized.expected_squared_mc(s),
                         "time": time.perf_counter() - begin})
            points.append(_points(W, weights).assign(box=box, method=method))
            if losses:
                history.append(pd.DataFrame({"box": box, "method": method, "iteration": range(len(losses)),
                                             "normalized": losses}))
    return {"discrepancy": pd.DataFrame(rows).assign(sigma=sigma, d=d),
            "points": pd.concat(points, ignore_index=True), "history": pd.concat(history, ignore_index=True)
            if history else pd.DataFrame(columns=["box", "method", "iteration", "normalized"])}


def check_params(s: int, boxes: Sequence[float], schemes: Sequence[str], maxiter: int, trig: str = "direct") -> None:
    """ValueError naming a bad value: every scheme one of :data:`SCHEMES`, ``trig`` one of ``TRIG``."""
    unknown = sorted(set(schemes) - set(SCHEMES))
    if unknown:
        raise ValueError(f"job.schemes={list(schemes)}: unknown scheme(s) {unknown}; valid: {list(SCHEMES)}")
    if trig not in TRIG:
        raise ValueError(f"job.trig={trig!r} is not one of {list(TRIG)}")


learn.check_params = check_params


def _sequence(method: str, start: np.ndarray, raw: BoxDiscrepancy, normalized: BoxDiscrepancy, maxiter: int
              ) -> tuple[np.ndarray, np.ndarray | None, list[float]]:
    """(frequencies, weights or None, Global's loss after each CG iteration) of one method on one box."""
    if method == "global":
        losses = [normalized.squared(start)]
        W = global_adaptive(start, raw, maxiter=maxiter, callback=lambda W: losses.append(normalized.squared(W)))
        return W, None, losses
    if method == "greedy":
        return greedy_adaptive(start, raw), None, []
    if method == "weighted":
        return start, optimal_weights(start, raw), []
    return start, None, []


def _points(W: np.ndarray, weights: np.ndarray | None) -> pd.DataFrame:
    """One row per frequency w_l: ``point``, ``weight`` (xi_l, NaN without weights), ``w0``.. ``w{d-1}``."""
    frame = pd.DataFrame(W, columns=[f"w{j}" for j in range(W.shape[1])])
    frame.insert(0, "weight", np.nan if weights is None else weights)
    frame.insert(0, "point", np.arange(len(W)))
    return frame


def sequences(run: Path) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
    """The learnt sequences of a ``qmc_learnt`` run by Table 3's names (:func:`sequences_of`)."""
    return sequences_of(jobs.read(run, "points"))


def sequences_of(points: pd.DataFrame) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
    """The sequences of a ``points`` frame by Table 3's names (:func:`method_name`; Halton's points are
    the same on every box): (frequencies (s, d), weights or None)."""
    columns = [c for c in points.columns if c.startswith("w") and c[1:].isdigit()]
    out = {}
    for (box, method), group in points.groupby(["box", "method"], sort=False):
        name = method_name(method, box)
        if name not in out:
            group = group.sort_values("point")
            weights = group["weight"].to_numpy(float)
            out[name] = (group[columns].to_numpy(float),
                         None if np.isnan(weights).all() else weights)
    return out


def discrepancies(out: Path, dataset: str) -> pd.DataFrame:
    """Table 2's rows of every recorded ``qmc_learnt`` run of dataset config ``dataset`` below ``out``
    (``<results>/qmc``), by s; empty if none is recorded."""
    return _recorded(out, dataset, "discrepancy")


def histories(out: Path, dataset: str) -> pd.DataFrame:
    """The Global sequences' loss after each CG iteration (``history``) of every recorded ``qmc_learnt`` run of
    dataset config ``dataset`` below ``out``, with the run's s; empty if none is recorded."""
    return _recorded(out, dataset, "history")


def _recorded(out: Path, dataset: str, key: str) -> pd.DataFrame:
    """Frame ``key`` of every recorded ``qmc_learnt`` run of ``dataset`` below ``out``, each row with its run's s."""
    frames = []
    for run in sorted((out / "learnt" / "runs").glob("*/")):
        done = records.recorded(run / "trials.csv")
        if done and qmc_datasets.recorded_name(run) == dataset:
            s = jobs.read(run, "discrepancy")["s"].iloc[0]
            frames.append(jobs.read(run, key).drop(columns="trial").assign(s=s))
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True).sort_values("s", kind="stable", ignore_index=True)
