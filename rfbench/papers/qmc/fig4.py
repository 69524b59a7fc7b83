"""QMC feature maps, Figure 4: box discrepancy D^{box b/2} of the classical sequences on cpu and
census (substitute), and the relative Gram error against it (Sec. 6.1, "Behavior of Box Discrepancy").

The computation is a job of the engine (``rfbench job=qmc_box_discrepancy dataset=<config>``,
``configs/job/qmc_box_discrepancy.yaml``, records under ``<results>/qmc/fig4/runs/``): for the rows
and sigma of Figure 2 (cpu: 6,554 rows; census: 5,000 rows of the house_16h substitute, sigma
chosen as the ``qmc_gram`` job chooses it) and the box b/2 (half the bounding box of those rows),
trial t of each scrambled sequence regenerates the frequencies of Figure 2's trial t and records
the normalized square discrepancy (pi^d / prod_j b_j) D^2 of its prefixes s.  The report pairs
them with the Frobenius errors of the ``qmc_gram`` records; it reads records only.

    python -m rfbench.papers.qmc.report fig4 [--results results]
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import pearsonr, spearmanr

from rfbench.engine import records
from rfbench.engine.jobs import trial_seed
from rfbench.feature_map import QMCFourierFeatures
from rfbench.papers.qmc import datasets as qmc_datasets
from rfbench.papers.qmc import figures as qmc_figures
from rfbench.papers.qmc import protocol
from rfbench.papers.qmc import report as qmc
from rfbench.qmc.discrepancy import BoxDiscrepancy, bounding_box
from rfbench.report import render
from rfbench.report.compare import ClaimCheck, all_of, check_claims

#: Figure 4's panels: cpu and census (the house_16h substitute), keys of ``protocol.GRAM_DATASETS``.
DATASETS = ("cpu", "census")


def discrepancies(trial: int, seed: int, data: dict, sizes: Sequence[int], box: float) -> dict[str, pd.DataFrame]:
    """Trial ``trial`` of Figure 4 on the dataset ``data``: ``discrepancy``, one row per sequence and s
    (scrambled Halton, deterministic, at trial 0 only); ``box`` is the fraction of the bounding box
    (the paper's b/2: ``box = 0.5``)."""
    rows = protocol.setting(data, seed, rows="gram")  # Figure 2's rows and sigma, shared by every trial
    frames = [sequence_discrepancy(rows.X, rows.sigma, sequence, trial_seed(seed, trial), sizes, box)
              for sequence in protocol.SEQUENCES if trial == 0 or sequence != "halton"]
    return {"discrepancy": pd.concat(frames, ignore_index=True)}


def check_params(sizes: Sequence[int], box: float) -> None:
    """ValueError naming a bad value: sizes positive integers, box a positive fraction of the bounding box."""
    protocol.check_sizes(sizes)
    if not box > 0:
        raise ValueError(f"job.box={box}: give a positive fraction of the bounding box (the paper's b/2: `0.5`)")


discrepancies.check_params = check_params


def sequence_discrepancy(X: np.ndarray, sigma: float, sequence: str, seed: int, sizes: Sequence[int],
                         box: float) -> pd.DataFrame:
    """Normalized D^{box b}(S)^2 of the first s frequencies of one Figure 2 trial, every s, with
    b = ``box`` x the bounding box of X, beside MC's expectation at s (eq. 13)."""
    fmap = QMCFourierFeatures(n_components=max(sizes), sigma=sigma, sequence=sequence, dtype="float64",
                              random_state=seed).fit(X)
    W = fmap.random_weights_.T
    discrepancy = BoxDiscrepancy(box * bounding_box(X), sigma, normalized=True)
    rows = [{"s": s, "discrepancy": discrepancy.squared(W[:s]), "expected_mc": discrepancy.expected_squared_mc(s)}
            for s in sizes]
    return pd.DataFrame(rows).assign(sequence=sequence, seed=seed, sigma=sigma, n=len(X), d=X.shape[1])


def collect(out: Path) -> pd.DataFrame:
    """Every recorded discrepancy trial, joined with the recorded Frobenius errors where they exist."""
    jobs = {name: ["job=qmc_box_discrepancy", *qmc_datasets.overrides(protocol.GRAM_DATASETS[name].config)]
            for name in DATASETS}
    frames = qmc.recorded(out, jobs, "discrepancy")
    if len(frames) < len(DATASETS):
        raise ValueError(f"Figure 4 has no records of {sorted(set(DATASETS) - set(frames))} under "
                         f"{out / 'fig4'}; run `make qmc-fig4` first")
    disc = pd.concat([frame.assign(dataset=name) for name, frame in frames.items()], ignore_index=True)
    try:
        gram_errors = qmc.collect_gram(out)
    except ValueError:
        return disc.assign(fro=np.nan)
    gram_errors = gram_errors[gram_errors["scramble"]][["dataset", "sequence", "trial", "s", "fro"]]
    return disc.merge(gram_errors, on=["dataset", "sequence", "trial", "s"], how="left")


def fig4(out: Path) -> pd.DataFrame:
    """Figure 4's panels, the summary table and the verdicts on the paper's claims, from the records."""
    table = collect(out)
    summary = table.groupby(["dataset", "sequence", "s"]).agg(
        disc_mean=("discrepancy", "mean"), disc_std=("discrepancy", "std"), fro_mean=("fro", "mean"),
        fro_std=("fro", "std"), expected_mc=("expected_mc", "first"), trials=("discrepancy", "size"),
        fro_trials=("fro", "count")).reset_index()
    dest = out / "fig4"
    records.write_csv(dest / "fig4.csv", summary)
    qmc_figures.discrepancy_panels(summary, dest / "fig4.png",
                                   {name: protocol.GRAM_DATASETS[name].paper_name for name in DATASETS})
    pub = qmc.load_published()
    claims = check_claims(pub[pub["source"] == "Fig. 4"],
                          {"fig4_discrepancy_falls_with_s": lambda _: _falls(summary),
                           "fig4_discrepancy_tracks_error": lambda _: _correlated(summary)})
    records.write_csv(dest / "claims.csv", claims)
    render.write_markdown(dest / "fig4.md", "QMC feature maps, Figure 4: normalized D^{box b/2}(S)^2 per "
                          "sequence, and the relative Frobenius Gram error against it",
                          [("Mean (sd) over trials; fro from the Figure 2 trials of the same seed", summary),
                           ("Claims of the paper (Sec. 6.1)", claims)],
                          ["census: the house_16h substitute (5,000 rows, 16 features), qualitative only",
                           "box: b/2, b the bounding box of the Figure 2 rows (min-max scaled: every b_j <= 1)",
                           "sequences and seeds: those of Figure 2 (scrambled); MC's expectation is eq. (13)"])
    return summary


def _falls(summary: pd.DataFrame) -> ClaimCheck:
    """Each sequence's mean discrepancy decreases at every step of s, per dataset."""
    cases = {}
    for (name, sequence), curve in summary.groupby(["dataset", "sequence"]):
        steps = np.diff(curve.sort_values("s")["disc_mean"].to_numpy())
        cases[f"{name} {sequence} ({int((steps < 0).sum())}/{len(steps)} steps down)"] = bool((steps < 0).all())
    return all_of(cases, "(dataset, sequence) with the discrepancy falling at every s")


def _correlated(summary: pd.DataFrame) -> ClaimCheck:
    """Per dataset, Spearman's rho of the means (sequence, s) of log D^2 and log error ``>= 0.8``; also at fixed s."""
    cases = {}
    for name, points in summary.dropna(subset=["fro_mean"]).groupby("dataset"):
        rho = spearmanr(points["disc_mean"], points["fro_mean"]).statistic
        r = pearsonr(np.log(points["disc_mean"]), np.log(points["fro_mean"])).statistic
        within = [spearmanr(g["disc_mean"], g["fro_mean"]).statistic for _, g in points.groupby("s")]
        cases[f"{name}: Spearman {rho:.2f}, Pearson of logs {r:.2f} over {len(points)} points; "
              f"at fixed s, Spearman over the sequences {np.min(within):.2f}..{np.max(within):.2f}"] = bool(rho >= 0.8)
    if not cases:
        return ClaimCheck(None, "no Gram-error trials recorded (run `make qmc-fig2`)")
    return ClaimCheck(all(cases.values()), "; ".join(cases) + " (judged on the pooled Spearman `>= 0.8`)")
