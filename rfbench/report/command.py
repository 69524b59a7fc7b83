"""The command line of a report that reads a results tree and writes one page from it."""
from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path


def run(prog: str, doc: str | None, help_results: str, write: Callable[[Path], Path],
        errors: tuple[type[Exception], ...], argv: list[str] | None = None) -> None:
    """Parse ``--results``, refuse a tree that is no folder, ``write`` it, and turn ``errors`` into one line
    (exit 2)."""
    parser = argparse.ArgumentParser(prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=Path, default=Path("results"), help=help_results)
    args = parser.parse_args(argv)
    if not args.results.is_dir():
        parser.exit(2, f"{parser.prog}: error: --results {args.results} is not a directory; pass the results "
                       "tree (default: results)\n")
    try:
        print(f"wrote {write(args.results)}")
    except errors as err:
        parser.exit(2, f"{parser.prog}: error: {err}\n")
