"""Li (KDD 2017), "Linearized GMM kernels and normalized random Fourier features": Figures 1-4
(theory, :mod:`rfbench.reports.li_theory`) and Tables 1-3 (exact kernel SVMs, ``table``).

    python -m rfbench.reports.li {fig1,fig2,fig3,fig4,tables} [--results results]

writes ``<results>/li/<target>/``. The figures need no dataset; the tables read the runs of
the ``li-tables`` make target below ``<results>/li/kernel_svm/runs`` and compare them with
``rfbench/reports/published/li.csv``.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from rfbench.reports import li_tables, li_theory

PAPER = "li"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m rfbench.reports.li", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", choices=[*li_theory.FIGURES, "tables"])
    parser.add_argument("--results", type=Path, default=Path("results"),
                        help="results tree; the target writes <results>/li/<target>")
    parser.add_argument("--seed", type=int, default=0, help="figures: seed of the simulations")
    args = parser.parse_args(argv)
    out = args.results / PAPER / args.target
    try:
        if args.target == "tables":
            li_tables.tables(args.results / PAPER / li_tables.RUNS, out)
        else:
            li_theory.FIGURES[args.target](out, seed=args.seed)
    except (FileNotFoundError, ValueError) as err:
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    print(f"wrote {out}/")


if __name__ == "__main__":
    main()
