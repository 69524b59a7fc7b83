"""Paper reproductions: tables and figures side by side with the published values.

The generic layer:

- :mod:`~rfbench.reports.published`: a paper's published-values CSV
  (``published/<paper>.csv``: ``paper, source, dataset, method, metric, value, sd, unit, note``
  plus further key columns), loaded and validated by :func:`~rfbench.reports.published.load`.
- :mod:`~rfbench.reports.compare`: our cells (:func:`~rfbench.reports.compare.summarize`) joined
  to the published ones with a verdict each (:func:`~rfbench.reports.compare.compare`), and the
  paper's claims judged by the report's checks (:func:`~rfbench.reports.compare.check_claims`).
- :mod:`~rfbench.reports.render`: Markdown (side by side or in the paper's layout, with verdict
  counts) and the figure of differences.
- :mod:`~rfbench.reports.runs`: a paper's tree of runs, one run per point.

A paper is one module (``askrff.py``: constants, layout, targets, claim checks, its own figures
in ``askrff_figures.py``), one published CSV and the Makefile targets ``<paper>-<fig|table>N``
and ``<paper>``.
"""
