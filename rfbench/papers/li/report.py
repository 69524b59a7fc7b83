"""Li (KDD 2017), "Linearized GMM kernels and normalized random Fourier features": Figures 1-4
(simulation jobs :mod:`rfbench.papers.li.theory`, drawn by :mod:`rfbench.papers.li.theory_figures`),
Tables 1-3 (exact kernel SVMs, ``tables``), and
Figures 6, 7 and 10 (accuracy against C, :mod:`rfbench.papers.li.curves`).

    python -m rfbench.papers.li.report {fig1,fig2,fig3,fig4,tables,fig6,fig7,fig10} [--results results]

writes ``<results>/li/<target>/``. Figures 1-4 need no dataset; the tables and Fig. 6 read the
runs of the ``li-tables`` make target below ``<results>/li/kernel_svm/runs`` (the tables compare
them with ``rfbench/papers/li/published.csv``); Figs. 7 and 10 read those of ``li-fig7`` and
``li-fig10`` below ``<results>/li/hashing/runs``.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from rfbench.engine import blas_pin
from rfbench.papers.li import curves as li_curves
from rfbench.papers.li import tables as li_tables
from rfbench.papers.li import theory_figures
from rfbench.report import published

PAPER = "li"
#: Figs. 7 and 10: the dataset of each, its title and the k of its panels (Fig. 7's caption; Fig. 10's
#: text says only "k up to 1024").
HASHING = {"fig7": ("letter_li", "Li Fig. 7, Letter: LibLinear on GCWS (solid) and NRFF (dashed) vs C",
                    (16, 32, 64, 128, 256, 1024, 4096)),
           "fig10": ("ijcnn1_li", "Li Fig. 10, IJCNN: LibLinear on GCWS (b = 6) and NRFF vs C", ())}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m rfbench.papers.li.report", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", choices=[*theory_figures.FIGURES, "tables", "fig6", *HASHING])
    parser.add_argument("--results", type=Path, default=Path("results"),
                        help="results tree; the target writes <results>/li/<target>")
    args = parser.parse_args(argv)
    out = args.results / PAPER / args.target
    try:
        if args.target == "tables":
            li_tables.tables(args.results / PAPER / li_tables.RUNS, out)
        elif args.target == "fig6":
            li_curves.fig6(args.results / PAPER / li_tables.RUNS, out, li_tables.PAPER_DATASET)
        elif args.target in HASHING:
            dataset, title, paper_ks = HASHING[args.target]
            pub = published.load(published.path_of(PAPER))
            name = li_tables.PAPER_DATASET[dataset]
            linear = pub[(pub["dataset"] == name) & (pub["method"] == "linear")]
            gamma = li_tables.paper_gamma(pub, name)
            li_curves.hashing(args.results / PAPER / "hashing", out, dataset, args.target, title,
                              linear["value"].iloc[0] if len(linear) else None, paper_ks,
                              float(gamma) if gamma != "-" else None)
        else:
            theory_figures.FIGURES[args.target](out, args.results)
    except (FileNotFoundError, ValueError) as err:
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    print(f"wrote {out}/")


if __name__ == "__main__":
    blas_pin.pin()
    main()
