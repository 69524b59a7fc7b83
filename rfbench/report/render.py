"""Writing a paper's reports: Markdown documents, comparison tables (long or in the paper's
layout) and the comparison figure (CSVs: :func:`rfbench.engine.records.write_csv`).

A report is a Markdown file with a title, sections of tables and notes, and the
deviations of our runs from the paper's protocol; every file is written atomically.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from rfbench.report import plotting, verdicts  # noqa: E402
from rfbench.report.verdicts import (  # noqa: E402
    AGREES,
    BETTER,
    NO_PUBLISHED,
    NOT_COMPARABLE,
    NOT_OBTAINABLE,
    NOT_YET,
    WORSE,
)
from rfbench.storage.atomic import write_atomic  # noqa: E402

#: A cell's verdict by colour in the comparison figure (cells with a difference only).
VERDICT_COLORS = {AGREES: "C2", BETTER: "C0", WORSE: "C3", NOT_COMPARABLE: "#e0a030"}


def mean_sd(mean: float, sd: float, fmt: str = ".3f") -> str:
    """``mean ± sd``, both in format ``fmt``; the mean alone when there is no sd (one trial)."""
    if np.isnan(mean):
        return ""
    return f"{mean:{fmt}}" if np.isnan(sd) else f"{mean:{fmt}} ± {sd:{fmt}}"


def cell_text(row: pd.Series, digits: int, full: int | None = None) -> str:
    """One compared cell: ``ours (published) difference verdict``.

    A cell with fewer trials than ``full`` says how many it has; a cell not run shows its verdict
    (why not) and the published value alone.
    """
    published = mean_sd(row["published"], row["published_sd"], f".{digits}f")
    if row["verdict"] in (NOT_OBTAINABLE, NOT_YET):
        return f"{row['verdict']} ({published})"
    ours = mean_sd(row["mean"], row["sd"], f".{digits}f")
    if row["verdict"] == NO_PUBLISHED:
        return f"{ours} ({NO_PUBLISHED})"
    partial = f", {int(row['n'])} of {full} trials" if full and row["n"] < full else ""
    return f"{ours} ({published}) [{signed(row['difference'], digits)}{partial}] {row['verdict']}"


def signed(value: float, digits: int) -> str:
    """``value`` with its sign to ``digits`` decimals; one that rounds to zero is ``"+0.00"``, never ``"-0.00"``."""
    return f"{round(value, digits) + 0.0:+.{digits}f}"


def side_by_side(table: pd.DataFrame, digits: int) -> pd.DataFrame:
    """A comparison in long form: the keys, then ours, n, published, difference and verdict."""
    keys = [c for c in table.columns if c not in
            ("unit", "mean", "sd", "n", "published", "published_sd", "difference", "threshold", "verdict", "note")]
    out = table[keys].copy()
    out["ours"] = [mean_sd(m, s, f".{digits}f") for m, s in zip(table["mean"], table["sd"])]
    out["n"] = table["n"].fillna(0).astype(int)
    out["published"] = [mean_sd(m, s, f".{digits}f") for m, s in zip(table["published"], table["published_sd"])]
    out["difference"] = table["difference"].map(lambda d: "" if np.isnan(d) else signed(d, digits))
    out["verdict"] = table["verdict"]
    return out.fillna("")


def layout(table: pd.DataFrame, rows: Sequence[Sequence[str]], row_keys: Sequence[str], column_key: str,
           columns: Sequence[str], digits: int, labels: Sequence[str] | None = None) -> pd.DataFrame:
    """A comparison in the paper's layout: ``rows`` (values of ``row_keys``) x ``columns`` (of ``column_key``).

    Each cell is :func:`cell_text`; a cell neither side has is blank. ``labels`` heads the
    row-key columns (default: ``row_keys``).
    """
    cells = table.set_index([*row_keys, column_key])
    full = int(table["n"].max()) if table["n"].notna().any() else None
    out = []
    for values in rows:
        line = dict(zip(labels or row_keys, values))
        for column in columns:
            key = (*values, column)
            line[column] = cell_text(cells.loc[key], digits, full) if key in cells.index else ""
        out.append(line)
    return pd.DataFrame(out)


def markdown(title: str, sections: Sequence[tuple[str, pd.DataFrame | str]], deviations: Sequence[str] = ()) -> str:
    """A report: ``# title``, then per section ``## heading`` (none if blank) and a table or a paragraph."""
    lines = [f"# {title}", ""]
    for heading, body in sections:
        if heading:
            lines += [f"## {heading}", ""]
        lines += [body if isinstance(body, str) else _markdown_table(body), ""]
    if deviations:
        lines += ["## Deviations from the paper's protocol", ""] + [f"- {d}" for d in deviations] + [""]
    return "\n".join(lines)


def _markdown_table(table: pd.DataFrame) -> str:
    """Numbers formatted to 4 significant digits; text columns as written (a ``"+0.50"`` keeps its sign); a
    missing value (NaN, None: e.g. the sd of one trial, an arm not run) as ``-``."""
    text = [i for i, dtype in enumerate(table.dtypes) if not pd.api.types.is_numeric_dtype(dtype)]
    shown = table.astype(object).where(table.notna(), None)  # tabulate writes missingval for None only
    return shown.to_markdown(index=False, floatfmt=".4g", disable_numparse=text, missingval="-")


def comparison_sections(table: pd.DataFrame, body: pd.DataFrame, published_file: str,
                        claims: pd.DataFrame | None = None) -> list[tuple[str, pd.DataFrame | str]]:
    """The sections of a comparison report: ``body`` (a :func:`layout` or :func:`side_by_side`),
    the cell format and the rule, the verdict counts, then the claims and their verdicts."""
    sections: list[tuple[str, pd.DataFrame | str]] = [
        ("", body),
        ("", "Cell: ours mean ± sd over trials (published mean ± sd) [ours - published] verdict. "
         + verdicts.RULE + " Each cell's verdict is its record's in the paper's `verdicts.csv`, with the reason "
         "and cause there." + f" Published values: `{published_file}` (transcribed from the paper, for comparison "
         "only)."),
        ("Verdicts", verdicts.counts(table)),
    ]
    if claims is not None and len(claims):
        sections += [("Claims of the paper", claims), ("Claim verdicts", verdicts.counts(claims))]
    return sections


def write_markdown(path: Path, title: str, sections: Sequence[tuple[str, pd.DataFrame | str]],
                   deviations: Sequence[str] = ()) -> Path:
    """Write :func:`markdown` to ``path`` atomically."""
    write_atomic(path, markdown(title, sections, deviations))
    return path


def difference_figure(table: pd.DataFrame, path: Path, label_keys: Sequence[str], title: str = "") -> Path:
    """One dot per compared cell: ours - published with its agreement band +- threshold, coloured by verdict.

    Cells not run or without a published value are left out (they have no difference).
    """
    cells = table.dropna(subset=["difference"]).reset_index(drop=True)
    labels = [" ".join(str(v) for v in row if str(v)) for row in cells[list(label_keys)].itertuples(index=False)]
    y = np.arange(len(cells))[::-1]
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.22 * len(cells)))
    ax.barh(y, 2 * cells["threshold"], left=-cells["threshold"], height=0.6, color="0.88", label="agreement band")
    for verdict, color in VERDICT_COLORS.items():
        mask = (cells["verdict"] == verdict).to_numpy()
        if mask.any():
            ax.plot(cells["difference"][mask], y[mask], "o", color=color, ms=4, label=verdict)
    ax.axvline(0, color="k", lw=0.8)
    unit = " / ".join(sorted(set(cells["unit"])))
    ax.set(yticks=y, xlabel=f"ours - published ({unit})", title=title, ylim=(-1, len(cells)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    return plotting.save(fig, path)
