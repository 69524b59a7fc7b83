"""The project's report: every paper's results beside its published values, on one page.

    python -m rfbench.reports.project [--results results]      (make report)

writes ``<results>/REPORT.md`` and ``<results>/REPORT.png`` (verdict counts per paper) from the
committed results alone, in seconds: nothing is run or recomputed.

How a paper joins
-----------------
A paper is an entry of :data:`PAPERS` (its results folder, title, text and make target).  Its
report targets leave, anywhere below ``<results>/<folder>/`` (run folders aside), the files of
the generic report layer, recognised by their columns:

- comparison tables, the output of :func:`rfbench.reports.compare.compare` written as CSV
  (AsK-RFF's ``table1/table1.csv``): each cell, ours beside the published value, with its verdict;
- claim tables, the output of :func:`~rfbench.reports.compare.check_claims` (``claims.csv``);
- deviation lists, ``deviation, reason`` (``deviations.csv``): how the protocol departs from the
  paper and why; the ``deviations`` recorded in the runs' ``trials.csv`` are added to them;
- Markdown reports (``*.md``), which the project report links.

A paper with no comparison or claim table yet is listed as not yet run.  A paper whose module
writes none of these files may supply its claims through :attr:`Paper.claims` instead.
"""
from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from rfbench import plotting, results  # noqa: E402
from rfbench.reports import render, runs, tutorial  # noqa: E402
from rfbench.reports.compare import FAILS, HOLDS, NO_PUBLISHED, NOT_RUN, VERDICTS, ClaimCheck  # noqa: E402

#: Columns that make a CSV a comparison table (:func:`rfbench.reports.compare.compare`).
COMPARISON = {"source", "metric", "unit", "mean", "sd", "n", "published", "published_sd", "difference",
              "threshold", "verdict"}
#: Columns that make a CSV a claim table (:func:`rfbench.reports.compare.check_claims`).
CLAIMS = {"source", "dataset", "claim", "verdict", "evidence"}
#: Columns that make a CSV a list of deviations from the paper's protocol.
DEVIATIONS = {"deviation", "reason"}
#: Columns of a comparison table that are not keys of its cells.
_VALUES = COMPARISON - {"source"} | {"note"}
REPORT, FIGURE = "REPORT.md", "REPORT.png"


@dataclass(frozen=True)
class Paper:
    """A paper the project reproduces.

    Parameters
    ----------
    folder : str
        Its results folder, ``<results>/<folder>``.
    title : str
        Authors, year and title.
    text : str
        Its text in ``../shared/papers/``.
    target : str
        The make target that reruns it.
    claims : callable, optional
        ``claims(folder) -> DataFrame`` in :func:`~rfbench.reports.compare.check_claims`'s columns,
        for a paper whose report writes no ``claims.csv``.
    """

    folder: str
    title: str
    text: str
    target: str
    claims: Callable[[Path], pd.DataFrame] | None = None


def tutorial_claims(folder: Path) -> pd.DataFrame:
    """The Bochner tutorial's two statements about its demo, judged on ``tutorial.csv``.

    Its report (:mod:`rfbench.reports.tutorial`) states the finding in prose; here it becomes two
    claims: the kernel the features estimate, and "when K >= 50, the error is nearly nonexistent"
    (read as an RMS error below a tenth of the stated kernel's value).
    """
    if not (folder / "tutorial.csv").exists():
        return pd.DataFrame(columns=[*CLAIMS])
    table = pd.read_csv(folder / "tutorial.csv").set_index("K")
    D = tutorial.X - tutorial.Y
    stated, limit = float(tutorial.stated_target(D)), float(tutorial.exact_limit(D))
    top = table.index.max()
    estimate = table.loc[top, "mean_estimate"]
    kernel = ClaimCheck(bool(abs(estimate - stated) < abs(estimate - limit)),
                        f"mean estimate at K = {top}: {estimate:.4f}; stated kernel (2 pi)^-1/2 exp(-D^2/2) = "
                        f"{stated:.4f}; the estimator's limit exp(-D^2/2) = {limit:.4f} (D = {D:g})")
    late = table.loc[50:]
    worst, actual = late["rms_error_vs_stated"].min(), late.loc[50, "rms_error_vs_limit"]
    error = ClaimCheck(bool(worst < 0.1 * stated),
                       f"RMS error against the stated kernel for K >= 50: at least {worst:.4f} "
                       f"(tenth of the stated value: {0.1 * stated:.4f}); against the actual limit "
                       f"{actual:.4f} at K = 50, falling like K^-1/2")
    rows = [("the features estimate the true kernel (2 pi)^-1/2 exp(-(x - y)^2 / 2) at x = 1, y = 2", kernel),
            ("when K >= 50, the error is nearly nonexistent", error)]
    return pd.DataFrame([{"source": "demo", "dataset": "", "claim": claim,
                          "verdict": NOT_RUN if found.holds is None else (HOLDS if found.holds else FAILS),
                          "evidence": found.evidence} for claim, found in rows])


#: Every paper of the project, in the order of the report.
PAPERS = (
    Paper("askrff", "He, He, Liu, Huang (2022), Random Fourier Features for Asymmetric Kernels (AsK-RFF)",
          "askrff-asymmetric-kernels.txt", "make askrff"),
    Paper("tutorial", "A tutorial on Bochner's theorem and random Fourier features (its 1-D demo)",
          "bochner-rff-tutorial.txt", "make tutorial", claims=tutorial_claims),
    Paper("qmc", "Avron, Sindhwani, Yang, Mahoney (2016), Quasi-Monte Carlo Feature Maps for Shift-Invariant Kernels",
          "qmc-feature-maps.txt", "make qmc"),
    Paper("li", "Li (2017), Linearized GMM Kernels and Normalized Random Fourier Features",
          "gmm-nrff-gcws.txt", "make li"),
    Paper("rr", "Rahimi and Recht (2007), Random Features for Large-Scale Kernel Machines (Table 1)",
          "rahimi-recht-random-features-notes.txt", "make rr-table1"),
)


@dataclass
class Findings:
    """What one paper's committed results hold: its cells, claims, deviations and reports."""

    paper: Paper
    cells: pd.DataFrame
    claims: pd.DataFrame
    deviations: pd.DataFrame
    reports: list[Path]

    @property
    def run(self) -> bool:
        return bool(len(self.cells) or len(self.claims))


def collect(root: Path, paper: Paper) -> Findings:
    """Read ``root/<paper.folder>``: its comparison, claim and deviation tables and its reports."""
    folder = root / paper.folder
    tables: dict[str, list[pd.DataFrame]] = {"cells": [], "claims": [], "deviations": []}
    for path in _files(folder, "*.csv"):
        columns = set(pd.read_csv(path, nrows=0).columns)
        kind = ("cells" if COMPARISON <= columns else "claims" if CLAIMS <= columns
                else "deviations" if DEVIATIONS <= columns else None)
        if kind or {"source", "verdict"} <= columns:  # a table of verdicts missing a column: damage
            table = _checked(path, kind, paper)
            tables[kind].append(table)
    if paper.claims:
        tables["claims"].append(paper.claims(folder))
    cells = pd.concat(tables["cells"], ignore_index=True) if tables["cells"] else pd.DataFrame(columns=[*COMPARISON])
    claims = pd.concat(tables["claims"], ignore_index=True) if tables["claims"] else pd.DataFrame(columns=[*CLAIMS])
    deviations = pd.concat([*tables["deviations"], _run_deviations(folder)], ignore_index=True)
    deviations = deviations.drop_duplicates(subset="deviation", ignore_index=True)
    return Findings(paper, cells, claims.astype(object).fillna(""), deviations[["deviation", "reason"]],
                    _files(folder, "*.md"))


def _checked(path: Path, kind: str | None, paper: Paper) -> pd.DataFrame:
    """The table at ``path``, or a RecordError naming its damage and the cells it would change.

    A cut or ragged file, a table of verdicts missing a column, a verdict that is none of VERDICTS,
    and a missing number (``mean`` unless not run, ``published`` unless there is none) are damage:
    read silently, they would change the paper's counts.
    """
    fix = f"restore it (git checkout -- {path}) or rerun `{paper.target}`"
    if damage := results.table_damage(path):
        raise results.RecordError(f"{path} is {damage}; its {kind or 'verdicts'} are not counted: {fix}")
    if kind is None:
        columns = set(pd.read_csv(path, nrows=0).columns)
        missing = min(COMPARISON - columns, CLAIMS - columns, key=len)
        raise results.RecordError(f"{path} holds verdicts but lacks the columns {sorted(missing)} of a comparison "
                                  f"or claim table; its verdicts are not counted: {fix}")
    table = pd.read_csv(path)
    bad = ~table["verdict"].isin(VERDICTS) if "verdict" in table else pd.Series(False, index=table.index)
    if kind == "cells":
        bad |= table["mean"].isna() & (table["verdict"] != NOT_RUN)
        bad |= table["published"].isna() & ~table["verdict"].isin((NOT_RUN, NO_PUBLISHED))
    if bad.any():
        rows = [int(i) + 2 for i in np.flatnonzero(bad)]  # file lines: the header is line 1
        raise results.RecordError(f"{path}, line(s) {rows}: a verdict that is none of {list(VERDICTS)}, or a "
                                  f"missing mean or published value; those {kind} would be miscounted: {fix}")
    return table


def _files(folder: Path, pattern: str) -> list[Path]:
    """The files matching ``pattern`` below ``folder``, outside run folders, sorted."""
    return sorted(p for p in folder.rglob(pattern) if "runs" not in p.relative_to(folder).parts)


def _run_deviations(folder: Path) -> pd.DataFrame:
    """The distinct ``deviations`` recorded by the runs below ``folder`` (each carries its reason;
    :func:`rfbench.reports.runs.deviations` says which are left out)."""
    recorded = [pd.read_csv(path, usecols=["deviations"]) for path in folder.rglob("runs/*/trials.csv")
                if "deviations" in pd.read_csv(path, nrows=0).columns]
    found = runs.deviations(pd.concat(recorded, ignore_index=True)) if recorded else []
    return pd.DataFrame({"deviation": found, "reason": ""})


def counts(findings: Findings) -> dict[str, int]:
    """Verdicts of a paper's cells and claims, by verdict."""
    verdicts = pd.concat([findings.cells["verdict"], findings.claims["verdict"]])
    return {v: int((verdicts == v).sum()) for v in VERDICTS if (verdicts == v).any()}


def write(root: Path) -> Path:
    """Write ``root/REPORT.md`` and ``root/REPORT.png`` from the committed results below ``root``."""
    findings = [collect(root, paper) for paper in PAPERS]
    verdict_figure(findings, root / FIGURE)
    results.write_atomic(root / REPORT, markdown(findings, root))
    return root / REPORT


def markdown(findings: list[Findings], root: Path) -> str:
    """The report: a summary table of every paper, then each paper's cells, claims and deviations."""
    lines = ["# rfbench: every paper, ours beside the published values", "",
             "Rendered by `make report` (`python -m rfbench.reports.project`) from the committed results under "
             "`results/`; nothing is rerun.  " + render.RULE + "  Claims are the papers' qualitative statements, "
             "each checked on our numbers (holds / fails).", "",
             f"![verdict counts per paper]({FIGURE})", "", "## Papers", "",
             _table(pd.DataFrame([_summary(f) for f in findings])), ""]
    for found in findings:
        lines += _paper_section(found, root)
    lines += ["## Deviations from the papers' protocols", "",
              "Each listed once, with its reason (a deviation recorded by the runs states its reason in its text).",
              ""]
    for found in findings:
        for _, row in found.deviations.iterrows():
            reason = f" **Why:** {row['reason']}." if isinstance(row["reason"], str) and row["reason"] else ""
            lines.append(f"- {found.paper.folder}: {row['deviation'].rstrip('.')}.{reason}")
    return "\n".join([*lines, ""])


def _summary(found: Findings) -> dict[str, str]:
    tally = counts(found)
    return {"paper": f"[{found.paper.folder}](#{_anchor(found.paper)})", "title": found.paper.title,
            "status": "run" if found.run else f"not yet run (`{found.paper.target}`)",
            **{v: str(tally.get(v, "")) for v in VERDICTS}}


def _paper_section(found: Findings, root: Path) -> list[str]:
    paper = found.paper
    lines = [f"## {paper.folder}: {paper.title}", "",
             f"Text: `../shared/papers/{paper.text}`; rerun: `{paper.target}`.", ""]
    if not found.run:
        return [*lines, "Not yet run: no comparison with the paper is committed.", ""]
    if found.reports:
        lines += ["Reports: " + ", ".join(_link(p, root) for p in found.reports) + ".", ""]
    lines += ["Verdicts: " + ", ".join(f"{v} {n}" for v, n in counts(found).items()) + ".", ""]
    for source, cells in found.cells.groupby("source", sort=False):
        lines += [f"### {source}: ours beside the published values", "", _table(_cells_view(cells)), ""]
    if len(found.claims):
        claims = found.claims[["source", "claim", "verdict", "evidence"]]
        lines += ["### Claims", "", _table(claims), ""]
    return lines


def _cells_view(cells: pd.DataFrame) -> pd.DataFrame:
    """One row per cell: its keys in one label, ours and the published value (mean ± sd), the verdict."""
    keys = [c for c in cells.columns if c not in _VALUES | {"source"}]
    digits = {"%": ".2f"}
    return pd.DataFrame({
        "cell": [" ".join(str(v) for v in row if not pd.isna(v) and str(v))
                 for row in cells[keys].itertuples(index=False)],
        "ours": [_value(m, s, n, digits.get(u, ".4g")) for m, s, n, u in
                 zip(cells["mean"], cells["sd"], cells["n"], cells["unit"])],
        "published": [render.mean_sd(m, s, digits.get(u, ".4g")) for m, s, u in
                      zip(cells["published"], cells["published_sd"], cells["unit"])],
        "unit": cells["unit"],
        "difference": ["" if pd.isna(d) else f"{d:+.2f}" for d in cells["difference"]],
        "verdict": cells["verdict"]})


def _value(mean: float, sd: float, n: float, fmt: str) -> str:
    if pd.isna(mean):
        return ""
    return f"{render.mean_sd(mean, sd, fmt)} (n={int(n)})"


def _table(frame: pd.DataFrame) -> str:
    return frame.to_markdown(index=False, disable_numparse=True)


def _link(path: Path, root: Path) -> str:
    relative = path.relative_to(root).as_posix()
    return f"[{relative}]({relative})"


def _anchor(paper: Paper) -> str:
    """GitHub's anchor of the paper's heading: lower case, spaces to hyphens, punctuation dropped."""
    heading = f"{paper.folder}: {paper.title}".lower()
    return "".join(c for c in heading.replace(" ", "-") if c.isalnum() or c in "-_")


def verdict_figure(findings: list[Findings], path: Path) -> Path:
    """Horizontal stacked bars: per paper, its cells' and claims' verdicts (papers not run marked so)."""
    colors = {**render.VERDICT_COLORS, HOLDS: "C2", FAILS: "C3"}
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.5 * len(findings)))
    y = np.arange(len(findings))[::-1]
    for verdict in VERDICTS:
        left = [sum(n for v, n in counts(f).items() if VERDICTS.index(v) < VERDICTS.index(verdict))
                for f in findings]
        width = [counts(f).get(verdict, 0) for f in findings]
        if any(width):
            hatch = "//" if verdict in (HOLDS, FAILS) else None
            ax.barh(y, width, left=left, color=colors.get(verdict, "0.6"), hatch=hatch, edgecolor="w",
                    label=verdict + (" (claims)" if hatch else ""))
    for yi, found in zip(y, findings):
        if not found.run:
            ax.text(0.2, yi, "not yet run", va="center", fontsize=8, color="0.4")
    ax.set(yticks=y, xlabel="cells and claims", title="Verdicts per paper (cells: ours vs published; claims)")
    ax.set_yticklabels([f.paper.folder for f in findings])
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    return plotting.save(fig, path)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m rfbench.reports.project", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=Path, default=Path("results"),
                        help="results tree; reads <results>/<paper>/ and writes <results>/REPORT.{md,png}")
    args = parser.parse_args(argv)
    if not args.results.is_dir():
        parser.exit(2, f"{parser.prog}: error: --results {args.results} is not a directory; pass the results "
                       "tree (default: results)\n")
    try:
        print(f"wrote {write(args.results)}")
    except results.RecordError as err:
        parser.exit(2, f"{parser.prog}: error: {err}\n")


if __name__ == "__main__":
    main()
