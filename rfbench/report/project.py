"""The project's report: every paper's verdict records, counted and shown on one page.

    python -m rfbench.report.project [--results results]      (make report)

writes, for every paper, ``<results>/<paper>/verdicts.csv`` (its verdict records,
:mod:`rfbench.report.verdicts`) and ``<results>/<paper>/summary.md`` (its reproducibility summary),
then ``<results>/REPORT.md`` and ``<results>/REPORT.png`` from those records alone, in seconds:
nothing is run or recomputed.

How a paper joins
-----------------
A paper is an entry of :data:`PAPERS` (its results folder, title, text and make target) and a module
``rfbench/papers/<folder>/verdicts.py`` with ``records(root) -> DataFrame`` (the verdict records of
its committed comparison and claim tables) and ``NOTES`` (what was easy, hard, and remains). Besides
them the report reads, below ``<results>/<folder>/`` (run folders aside), the deviation lists
``deviation, reason`` (``deviations.csv``), with the ``deviations`` recorded in the runs'
``trials.csv``, and links the Markdown reports (``*.md``). A paper without records is listed as not
yet run.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from rfbench.engine import campaign, records  # noqa: E402
from rfbench.report import command, plotting, runs, summary, verdicts  # noqa: E402
from rfbench.report.published import PublishedError  # noqa: E402
from rfbench.report.verdicts import (  # noqa: E402
    AGREES,
    BETTER,
    CELL,
    CHECK,
    CLAIM,
    FAILS,
    HOLDS,
    NO_PUBLISHED,
    NOT_COMPARABLE,
    NOT_OBTAINABLE,
    NOT_YET,
    WORSE,
)
from rfbench.storage.atomic import write_atomic  # noqa: E402

#: Columns that make a CSV a list of deviations from the paper's protocol.
DEVIATIONS = {"deviation", "reason"}
REPORT, FIGURE, SUMMARY = "REPORT.md", "REPORT.png", "summary.md"
#: The report's categories, in order: cells (higher and lower split by the metric's direction), then claims.
CATEGORIES = (AGREES, BETTER, WORSE, NOT_COMPARABLE, NOT_OBTAINABLE, NOT_YET, NO_PUBLISHED,
              f"{CLAIM} {HOLDS}", f"{CLAIM} {FAILS}", f"{CLAIM} {NOT_YET}",
              f"{CHECK} {HOLDS}", f"{CHECK} {FAILS}", f"{CHECK} {NOT_YET}")
#: Per category: colour and hatch in REPORT.png, and its label in the legend.
STYLE = {AGREES: ("C2", None, "cells: agree"), BETTER: ("C0", None, "cells: ours better (higher / lower)"),
         WORSE: ("C3", None, "cells: ours worse (higher / lower)"),
         NOT_COMPARABLE: ("#e0a030", "xx", "cells: not comparable (other data or protocol)"),
         NOT_OBTAINABLE: ("0.88", "//", "cells: not run, data not obtainable"),
         NOT_YET: ("0.45", None, "cells: not run yet"), NO_PUBLISHED: ("0.7", "..", "cells: no published value"),
         f"{CLAIM} {HOLDS}": ("#9ad09a", "++", "paper's claims: hold"),
         f"{CLAIM} {FAILS}": ("#f0a0a0", "++", "paper's claims: fail"),
         f"{CLAIM} {NOT_YET}": ("0.6", "++", "paper's claims: not run yet"),
         f"{CHECK} {HOLDS}": ("#9ad09a", "oo", "our checks: hold"),
         f"{CHECK} {FAILS}": ("#f0a0a0", "oo", "our checks: fail"),
         f"{CHECK} {NOT_YET}": ("0.6", "oo", "our checks: not run yet")}


@dataclass(frozen=True)
class Paper:
    """A paper the project reproduces.

    Parameters
    ----------
    folder : str
        Its results folder, ``<results>/<folder>``, and its package ``rfbench.papers.<folder>``.
    title : str
        Authors, year and title.
    text : str
        Its text in ``../shared/papers/``.
    target : str
        The make target that reruns it.
    """

    folder: str
    title: str
    text: str
    target: str


#: Every paper of the project, in the order of the report.
PAPERS = (
    Paper("askrff", "He, He, Liu, Huang (2022), Random Fourier Features for Asymmetric Kernels (AsK-RFF)",
          "askrff-asymmetric-kernels.txt", "make askrff"),
    Paper("tutorial", "A tutorial on Bochner's theorem and random Fourier features (its 1-D demo)",
          "bochner-rff-tutorial.txt", "make tutorial"),
    Paper("qmc", "Avron, Sindhwani, Yang, Mahoney (2016), Quasi-Monte Carlo Feature Maps for Shift-Invariant Kernels",
          "qmc-feature-maps.txt", "make qmc"),
    Paper("li", "Li (2017), Linearized GMM Kernels and Normalized Random Fourier Features",
          "gmm-nrff-gcws.txt", "make li"),
    Paper("rr", "Rahimi and Recht (2007), Random Features for Large-Scale Kernel Machines (Table 1)",
          "rahimi-recht-random-features-notes.txt", "make rr-table1"),
)


@dataclass
class Findings:
    """One paper's verdict records, deviations and reports."""

    paper: Paper
    records: pd.DataFrame
    deviations: pd.DataFrame
    reports: list[Path]

    @property
    def run(self) -> bool:
        return bool(len(self.records))


def paper_records(root: Path, paper: Paper) -> pd.DataFrame:
    """The paper's verdict records from its tables under ``root/<folder>``, their citations checked."""
    frame = importlib.import_module(f"rfbench.papers.{paper.folder}.verdicts").records(root)
    return verdicts.check_citations(frame, root, make_targets())


def write_records(root: Path, paper: Paper, frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """Write the paper's ``verdicts.csv`` and ``summary.md`` under ``root/<folder>`` (when it has records):
    ``frame``, else :func:`paper_records`."""
    module = importlib.import_module(f"rfbench.papers.{paper.folder}.verdicts")
    frame = paper_records(root, paper) if frame is None else frame
    if len(frame):
        folder = root / paper.folder
        verdicts.write(folder, frame)
        write_atomic(folder / SUMMARY, summary.markdown(paper.title, frame, module.NOTES))
    return frame


def make_targets() -> set[str]:
    """Every campaign target a cause may cite: ``<paper>`` and ``<paper>-<target>`` (make's spelling)."""
    return {paper if target == paper else f"{paper}-{target.replace('_', '-')}"
            for paper in campaign.papers() for target in campaign.targets(paper)}


def collect(root: Path, paper: Paper) -> Findings:
    """Read ``root/<paper.folder>``: its verdict records, its deviation tables and its reports."""
    folder = root / paper.folder
    path = folder / verdicts.FILE
    frame = verdicts.load(path) if path.exists() else pd.DataFrame(columns=list(verdicts.COLUMNS))
    tables = [pd.read_csv(p) for p in verdicts.report_files(folder, "*.csv")
              if DEVIATIONS <= set(pd.read_csv(p, nrows=0).columns)]
    deviations = pd.concat([*tables, _run_deviations(folder)], ignore_index=True)
    deviations = deviations.drop_duplicates(subset="deviation", ignore_index=True)
    reports = [p for p in verdicts.report_files(folder, "*.md") if p.name not in (SUMMARY, "README.md")]
    return Findings(paper, frame, deviations[["deviation", "reason"]], reports)


def _run_deviations(folder: Path) -> pd.DataFrame:
    """The distinct ``deviations`` recorded by the runs below ``folder`` (each carries its reason;
    :func:`rfbench.report.runs.deviations` says which are left out)."""
    tables = (records.read_trials(path) for path in records.record_paths(folder, "**/runs/*/trials.csv"))
    recorded = [table[["deviations"]] for table in tables if "deviations" in table.columns]
    found = runs.deviations(pd.concat(recorded, ignore_index=True)) if recorded else []
    return pd.DataFrame({"deviation": found, "reason": ""})


def category(row: pd.Series) -> str:
    """A record's category in the report: a cell's verdict as every table shows it
    (:func:`rfbench.report.verdicts.shown`), or ``<kind> <verdict>`` for a claim or check."""
    if row["kind"] != CELL:
        return f"{row['kind']} {row['verdict']}"
    return verdicts.shown(row)


def counts(findings: Findings) -> dict[str, int]:
    """A paper's records per category (:data:`CATEGORIES`), the present ones only."""
    said = findings.records.apply(category, axis=1).value_counts() if findings.run else pd.Series(dtype=int)
    return {c: int(said[c]) for c in CATEGORIES if c in said}


def write(root: Path) -> Path:
    """Write every paper's records and summary, then ``root/REPORT.md`` and ``root/REPORT.png`` from them."""
    frames = [paper_records(root, paper) for paper in PAPERS]  # every paper read before any file is written
    for paper, frame in zip(PAPERS, frames):
        write_records(root, paper, frame)
    findings = [collect(root, paper) for paper in PAPERS]
    verdict_figure(findings, root / FIGURE)
    write_atomic(root / REPORT, markdown(findings, root))
    return root / REPORT


def markdown(findings: list[Findings], root: Path) -> str:
    """The report: the rule, a summary table of every paper, then each paper's summary, cells, claims, deviations."""
    lines = ["# rfbench: every paper, ours beside the published values", "",
             "Rendered by `make report` (`python -m rfbench.report.project`) from the verdict records each paper "
             "writes (`results/<paper>/verdicts.csv`, one schema: `rfbench/report/verdicts.py`); nothing is rerun.", "",
             "**The rule.** " + verdicts.RULE + " Claims are the papers' qualitative statements, checks are ours; "
             "each holds or fails on our numbers.", "",
             f"![verdict counts per paper]({FIGURE})", "", "## Papers", "",
             _table(pd.DataFrame([_summary(f) for f in findings])), "",
             f"**Disagreements chance alone would give** at {verdicts.K:g} sigma, per paper: of the cells compared "
             "like for like (both values, no named difference of data or protocol), the expected count "
             "(each cell's P(|Z| > 2), summed) and its 95 % binomial upper bound, beside the observed count "
             "(ours better or worse).", "",
             _table(pd.DataFrame([_chance(f) for f in findings if f.run])), ""]
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
    tally, said = counts(found), verdicts.tally(found.records)
    claims = {kind: "/".join(str(said[f"{kind} {v}"]) for v in (HOLDS, FAILS)) for kind in (CLAIM, CHECK)}
    return {"paper": f"[{found.paper.folder}](#{_anchor(found.paper)})",
            "status": "run" if found.run else f"not yet run (`{found.paper.target}`)",
            **{c: str(tally.get(c, "")) for c in CATEGORIES[:6]},
            "paper's claims hold/fail": claims[CLAIM] if found.run else "",
            "our checks hold/fail": claims[CHECK] if found.run else "",
            "explained": str(said["explained"]) if found.run else "",
            "unexplained": str(said["unexplained"]) if found.run else ""}


def _chance(found: Findings) -> dict[str, str]:
    said = verdicts.chance(found.records)
    return {"paper": found.paper.folder, "compared like for like": str(said["compared"]),
            "expected by chance": f"{said['expected']:.1f}", "95 % upper bound": str(said["bound"]),
            "observed": str(said["observed"])}


def _paper_section(found: Findings, root: Path) -> list[str]:
    paper = found.paper
    lines = [f"## {paper.folder}: {paper.title}", "",
             f"Text: `../shared/papers/{paper.text}`; rerun: `{paper.target}`.", ""]
    if not found.run:
        return [*lines, "Not yet run: no verdict record is committed.", ""]
    summary_file = root / paper.folder / SUMMARY
    if summary_file.exists():
        lines += ["### Reproducibility summary", "", *summary_file.read_text().splitlines()[2:], ""]
    if found.reports:
        lines += ["Reports (each cell's verdict in their tables is its record's below): "
                  + ", ".join(_link(p, root) for p in found.reports) + ".", ""]
    cells = found.records[found.records["kind"] == CELL]
    for source, group in cells.groupby("source", sort=False):
        lines += [f"### {source}: ours beside the published values", "", _table(_cells_view(group)), ""]
    claims = found.records[found.records["kind"] != CELL]
    if len(claims):
        lines += ["### Claims (the paper's) and checks (ours)", "",
                  _table(claims[["source", "kind", "cell", "verdict", "evidence"]].rename(columns={"cell": "claim"})),
                  ""]
    return lines


def _cells_view(cells: pd.DataFrame) -> pd.DataFrame:
    """One row per cell: ours and the published value at the cell's precision with their uncertainties (two
    significant digits), the difference and threshold at the cell's precision, the verdict, the reason or cause."""
    view = []
    for _, row in cells.iterrows():
        step = _precision(row)
        why = "; ".join(t for t in (row["reason"], row["cause"]) if t)
        view.append({"cell": row["cell"], "ours ± u (n)": _ours(row, step),
                     "published ± u": _with(row["published"], row["u_published"], _printed(row, step)),
                     "unit": row["unit"],
                     "difference": signed(row["difference"], step), "threshold": _plain(row["threshold"], step),
                     "verdict": category(row), "reason; cause": why})
    return pd.DataFrame(view)


def _precision(row: pd.Series) -> int:
    """Decimals that show the cell's threshold (else its published uncertainty) to two significant digits."""
    for scale in (row["threshold"], row["u_published"], row["u_ours"]):
        if not pd.isna(scale) and scale > 0:
            return max(0, 1 - int(np.floor(np.log10(scale))))
    return 4


def _printed(row: pd.Series, step: int) -> int:
    """Decimals of a published value without ``±`` as the paper printed it (its shortest form: a trailing
    zero is not shown), else the cell's precision."""
    if pd.isna(row["published_sd"]) and not pd.isna(row["published"]):
        mantissa, _, exponent = repr(float(row["published"])).partition("e")
        decimals = len(mantissa.partition(".")[2].rstrip("0")) - int(exponent or 0)
        return max(0, decimals)
    return step


def signed(value: float, decimals: int) -> str:
    """``value`` with its sign to ``decimals`` decimals (scientific below 1e-4); never "-0"; blank for NaN."""
    if pd.isna(value):
        return ""
    if decimals > 6:
        return f"{value + 0.0:+.2e}"
    return f"{round(value, decimals) + 0.0:+.{decimals}f}"


def _plain(value: float, decimals: int) -> str:
    return signed(value, decimals).lstrip("+")


def _with(value: float, u: float, decimals: int) -> str:
    if pd.isna(value):
        return ""
    return _plain(value, decimals) + ("" if pd.isna(u) else f" ± {u:.2g}")


def _ours(row: pd.Series, decimals: int) -> str:
    if pd.isna(row["mean"]):
        return ""
    return f"{_with(row['mean'], row['u_ours'], decimals)} (n={int(row['n'])}; {row['u_ours_rule']})"


def _table(frame: pd.DataFrame) -> str:
    """``frame`` as a Markdown table; a "|" inside a cell (``|k MSE - V|``) escaped so that it stays in its cell."""
    return frame.map(lambda v: v.replace("|", "\\|") if isinstance(v, str) else v).to_markdown(
        index=False, disable_numparse=True)


def _link(path: Path, root: Path) -> str:
    relative = path.relative_to(root).as_posix()
    return f"[{relative}]({relative})"


def _anchor(paper: Paper) -> str:
    """GitHub's anchor of the paper's heading: lower case, spaces to hyphens, punctuation dropped."""
    heading = f"{paper.folder}: {paper.title}".lower()
    return "".join(c for c in heading.replace(" ", "-") if c.isalnum() or c in "-_")


def verdict_figure(findings: list[Findings], path: Path) -> Path:
    """Horizontal stacked bars per paper: its cells by category, then its claims and checks; the legend
    below the axes, clear of the bars; each segment of 3 or more labelled with its count."""
    tallies = [counts(f) for f in findings]
    fig, ax = plt.subplots(figsize=(10, 2.6 + 0.55 * len(findings)))
    y = np.arange(len(findings))[::-1]
    left = np.zeros(len(findings))
    for cat in CATEGORIES:
        width = np.array([t.get(cat, 0) for t in tallies], dtype=float)
        if not width.any():
            continue
        color, hatch, label = STYLE[cat]
        ax.barh(y, width, left=left, color=color, hatch=hatch, edgecolor="w", linewidth=0.5, label=label)
        for yi, x0, w in zip(y, left, width):
            if w >= 3:
                ax.text(x0 + w / 2, yi, str(int(w)), ha="center", va="center", fontsize=7)
        left += width
    for yi, found in zip(y, findings):
        if not found.run:
            ax.text(0.5, yi, f"not yet run ({found.paper.target})", va="center", fontsize=8, color="0.3")
    ax.set(yticks=y, xlabel="cells, then claims and checks",
           title="Verdicts per paper: cells (ours vs published), the paper's claims, our checks")
    ax.set_yticklabels([f.paper.folder for f in findings])
    if ax.get_legend_handles_labels()[1]:  # nothing run yet: no bars, no legend
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.3 / len(findings)), ncol=3,
                  frameon=False)
    ax.grid(axis="x", alpha=0.3)
    return plotting.save(fig, path)


def main(argv: list[str] | None = None) -> None:
    command.run("python -m rfbench.report.project", __doc__,
                "results tree; reads <results>/<paper>/ and writes <results>/REPORT.{md,png}", write,
                (records.RecordError, PublishedError), argv)


if __name__ == "__main__":
    main()
