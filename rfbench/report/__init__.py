"""The generic report layer: our records set beside a paper's published values.

- :mod:`~rfbench.report.published`: a paper's published-values CSV
  (``rfbench/papers/<paper>/published.csv``: ``paper, source, dataset, method, metric, value, sd,
  unit, note`` plus further key columns), loaded and validated by :func:`~rfbench.report.published.load`.
- :mod:`~rfbench.report.compare`: our cells (:func:`~rfbench.report.compare.summarize`) joined
  to the published ones with a verdict each (:func:`~rfbench.report.compare.compare`), and the
  paper's claims judged by the report's checks (:func:`~rfbench.report.compare.check_claims`).
- :mod:`~rfbench.report.render`: Markdown (side by side or in the paper's layout, with verdict
  counts) and the figure of differences; :mod:`~rfbench.report.plotting`: the shared figure helpers.
- :mod:`~rfbench.report.runs`: a paper's tree of runs, one run per point.
- :mod:`~rfbench.report.verdicts`: the verdict record, one schema for every paper (cell, ours with its
  uncertainty, published with its uncertainty, verdict, reason, cause, evidence), the uncertainty rule
  and the categories; :mod:`~rfbench.report.summary`: a paper's reproducibility summary from its records.
- :mod:`~rfbench.report.project`: ``results/REPORT.md``, built from every paper's records alone.

What is one paper's own (its published values, layout, claim checks, figures) lives in
:mod:`rfbench.papers`.
"""
